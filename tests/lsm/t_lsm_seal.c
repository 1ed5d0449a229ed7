// SPDX-License-Identifier: MIT
/*
 * Slot exhaustion and sealing: a module that does not fit is refused whole
 * and leaves every slot as it was; after ulsm_lsm_seal() registration is
 * refused, toggling cannot be allowed any more, dispatch still works, a
 * write to the tables or to a slot key kills the writer (death tests, in
 * children), and the public API refuses the set's keys.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "test_lsm.h"
#include "tl_dispatch.h"

static int extra_cb(struct t_file *f)
{
	(void)f;
	return -1;
}

static const struct lsm_id extra_id = { "extra", 200 };
static struct tl_hook_list extra_hooks[] = {
	LSM_HOOK_INIT(file_open, extra_cb),
};

/*
 * The default action for SIGSEGV, set with the raw system call: sanitizers
 * intercept sigaction() and keep their own handler, which would turn the
 * fault into an exit status.
 */
static void default_segv(void)
{
	struct { void *handler; unsigned long flags; void *restorer;
		 unsigned long mask; } ksa = { 0 };

	syscall(SYS_rt_sigaction, SIGSEGV, &ksa, NULL, sizeof(ksa.mask));
}

static int dies_of_segv(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		default_segv();
		fn();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

static void write_table(void)
{
	tl_lsm_sealed.table.file_open[0].hl = NULL;
}

static void write_slot_call(void)
{
	tl_lsm_sealed.calls.file_open[0].func = NULL;
}

/* The hook's entry's descriptor: where its sites are, its DEFAULT. */
static void write_entry(void)
{
	tl_lsm_sealed.entry[tl_hook_idx_file_open].def = 1;
}

/*
 * A module registered into a sealed set: refused before anything changes,
 * the hook's entry included (its code is text, written by the engine only).
 */
static const struct lsm_id late_id = { "late", 999 };
static struct tl_hook_list late_hooks[1];

static void write_slot_key(void)
{
	tl_lsm_keys.k.file_open[0].key.enabled = 0;
}

int main(void)
{
	struct t_file f = { NULL, 0 };
	char before[64], after[64];

	tl_defaults();
	is_int(ulsm_lsm_init(&tl_hook_set, "alpha,beta"), 0, "init");
	ok(!strcmp(ulsm_lsm_list(&tl_hook_set), "capa,alpha,beta"),
	   "omega did not fit (3 slots): %s", ulsm_lsm_list(&tl_hook_set));
	ok(!ulsm_lsm_slot_owner(&tl_hook_set, "getselfattr", 3), "no fourth slot");
	ok(strstr(tl_log, "set tl: module omega is not active: no free slot "
		  "for hook file_open: all 3 slots (MAX_LSM_COUNT) are taken"),
	   "omega's failure was reported (ulsm_set_log), without ULSM_DEBUG");
	ok(ulsm_lsm_module_reason(&tl_hook_set, "omega") &&
	   strstr(ulsm_lsm_module_reason(&tl_hook_set, "omega"), "no free slot"),
	   "  and the set keeps the reason: %s",
	   ulsm_lsm_module_reason(&tl_hook_set, "omega"));
	ok(ulsm_lsm_module_reason(&tl_hook_set, "delta") &&
	   strstr(ulsm_lsm_module_reason(&tl_hook_set, "delta"), "not listed"),
	   "  a module not listed has its reason too: %s",
	   ulsm_lsm_module_reason(&tl_hook_set, "delta"));
	ok(!strstr(tl_log, "module delta"), "  which is not reported (the host's "
	   "choice), without ULSM_DEBUG");

	snprintf(before, sizeof(before), "%s,%s,%s",
		 ulsm_lsm_slot_owner(&tl_hook_set, "file_open", 0)->name,
		 ulsm_lsm_slot_owner(&tl_hook_set, "file_open", 1)->name,
		 ulsm_lsm_slot_owner(&tl_hook_set, "file_open", 2)->name);
	is_int(security_add_hooks(extra_hooks, 1, &extra_id), -ENOSPC,
	       "a module that does not fit -> -ENOSPC");
	ok(strstr(ulsm_last_error(), "no free slot for hook file_open") != NULL,
	   "  explained: %s", ulsm_last_error());
	snprintf(after, sizeof(after), "%s,%s,%s",
		 ulsm_lsm_slot_owner(&tl_hook_set, "file_open", 0)->name,
		 ulsm_lsm_slot_owner(&tl_hook_set, "file_open", 1)->name,
		 ulsm_lsm_slot_owner(&tl_hook_set, "file_open", 2)->name);
	ok(!strcmp(before, after), "  slots unchanged: %s", after);
	is_int(call_int_hook(file_open, &f), 0, "  dispatch unchanged");

	is_int(ulsm_lsm_toggle(&tl_hook_set, "alpha", false), -EPERM,
	       "toggle without opting in -> -EPERM");
	is_int(ulsm_lsm_seal(&tl_hook_set), 0, "seal");
	is_int(ulsm_lsm_seal(&tl_hook_set), -EALREADY, "seal again -> -EALREADY");
	is_int(security_add_hooks(extra_hooks, 1, &extra_id), -EPERM,
	       "registration after sealing -> -EPERM");
	is_int(ulsm_lsm_allow_toggle(&tl_hook_set), -EPERM,
	       "allowing the toggle after sealing -> -EPERM");

	tl_ret[M_BETA][tl_hook_idx_file_open] = -EACCES;
	file_open_is(-EACCES, "dispatch works when sealed",
		     "capa:file_open alpha:file_open beta:file_open",
		     "  and every module ran");

	ok(dies_of_segv(write_table), "a write to the hook table faults");
	ok(dies_of_segv(write_slot_call), "a write to a slot's static call faults");
	ok(dies_of_segv(write_entry), "a write to a hook entry's descriptor faults");
	late_hooks[0] = (struct tl_hook_list)LSM_HOOK_INIT(file_open,
		(int (*)(struct t_file *))(uintptr_t)tl_lsm_sealed.calls.file_open[0].func);
	is_int(security_add_hooks(late_hooks, 1, &late_id), -EPERM,
	       "registering into the sealed set: -EPERM, the entry unchanged");
	is_int(call_int_hook(file_open, &f), -EACCES, "  dispatch unchanged");
	ok(dies_of_segv(write_slot_key), "a write to a slot key faults");
	/* Through the API: refused before any write (t_lsm_seal_api.c). */
	is_int(static_branch_disable(&tl_lsm_keys.k.file_open[0]), -EPERM,
	       "flipping a slot key through the API -> -EPERM");
	is_int(call_int_hook(file_open, &f), -EACCES, "the parent is unharmed");
	return done_testing();
}
