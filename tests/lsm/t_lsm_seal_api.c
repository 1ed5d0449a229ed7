// SPDX-License-Identifier: MIT
/*
 * A hook set's keys and the public update API, and sealing all or nothing.
 *
 *  - From ulsm_lsm_init() on, the public key functions (static_branch_*,
 *    static_key_*) refuse a set's slot and tail keys with -EPERM: the
 *    framework moves them together, and a key flipped by hand would
 *    silently skip modules. Retargeting a slot's call is still allowed
 *    before sealing.
 *  - Once sealed, static_call_update() of a slot call is refused too, and
 *    every refusal comes before any write: the code, the keys and what
 *    dispatch runs are unchanged. It used to patch the code, then fault
 *    on the read-only key (with a SIGSEGV handler, dispatch then ran the
 *    new target while the key named the old one). The toggle, when
 *    allowed, still works: it does not go through the public API.
 *  - Keys and calls of no set are not affected.
 *  - ulsm_lsm_seal() is all or nothing: when the second mprotect fails
 *    (injected), the first is undone and the set stays unsealed and
 *    usable; only if the undo fails too is the set left half read-only,
 *    and then it counts as sealed, so nothing writes to it. It used to
 *    leave the tables read-only and the set unsealed: the next
 *    registration faulted.
 *  - The table of sets is fixed: past it, ulsm_lsm_init() fails with
 *    -ENOSPC and the set stays uninitialised.
 *
 * Each case runs in a child (a set is initialised and sealed once per
 * process) with the default action for SIGSEGV, so that a write to a
 * sealed page shows as a child killed, not as a hang or a sanitizer
 * report.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/sys.h"	/* the library's fault injection (src/base/) */
#include "child.h"
#include "tap.h"
#include "test_lsm.h"

#define SLOT_KEY	(&tl_lsm_keys.k.file_open[0])
#define TAIL_KEY	(&tl_lsm_keys.t.file_open[0])
#define SLOT_CALL	(&tl_lsm_sealed.calls.file_open[0])
#define SLOT_TRAMP	(tl_lsm_sealed.table.file_open[0].trampoline)
#define ALL3		"capa:file_open alpha:file_open beta:file_open"

static int other_cb(struct t_file *f)
{
	(void)f;
	return 4242;
}

static int extra_cb(struct t_file *f)
{
	(void)f;
	return 0;
}

static const struct lsm_id extra_id = { "extra", 200 };
static struct tl_hook_list extra_hooks[] = {
	LSM_HOOK_INIT(file_open, extra_cb),
};

/* Keys and calls of no set. */
DEFINE_STATIC_KEY_FALSE(free_key);

static int free_a(void)
{
	return 1;
}

static int free_b(void)
{
	return 2;
}

DEFINE_STATIC_CALL(free_call, free_a);

struct result {
	int ret;		/* the operation's */
	int more[4];		/* further results, per case */
	int rc;			/* call_int_hook(file_open) afterwards */
	bool names_set;		/* ulsm_last_error() names the set */
	bool func_same;		/* the slot call's key is unchanged */
	bool sites_same;	/* so are its call sites */
	char trace[256];
	char error[256];
};

/*
 * The default action for SIGSEGV, set with the raw system call: sanitizers
 * intercept sigaction() and keep their own handler.
 */
static void default_segv(void)
{
	struct { void *handler; unsigned long flags; void *restorer;
		 unsigned long mask; } ksa = { 0 };

	syscall(SYS_rt_sigaction, SIGSEGV, &ksa, NULL, sizeof(ksa.mask));
}

static int file_open(void)
{
	struct t_file f = { NULL, 0 };

	tl_trace_reset();
	return call_int_hook(file_open, &f);
}

struct seal_case {
	void (*fn)(struct result *r);
};

static void seal_child(void *arg)
{
	const struct seal_case *c = arg;
	struct result r;

	memset(&r, 0, sizeof(r));
	default_segv();
	tl_defaults();
	c->fn(&r);
	child_send(&r, sizeof(r));
}

/* @fn in a child: each case initialises (and may seal) the set. */
static struct result run(void (*fn)(struct result *r))
{
	struct seal_case c = { fn };
	struct result r;

	if (in_child("case", seal_child, &c, &r, sizeof(r)) != sizeof(r)) {
		memset(&r, 0, sizeof(r));
		r.ret = -9999;
		snprintf(r.trace, sizeof(r.trace), "(no answer)");
	}
	if (WIFSIGNALED(child_status) && WTERMSIG(child_status) == SIGSEGV)
		diag("  (SIGSEGV: the child wrote to a sealed page)");
	return r;
}

/* --- one public update on a set's key, before or after sealing ---------- */

static enum op {
	OP_SLOT_DISABLE, OP_SLOT_ENABLE, OP_SLOT_INC, OP_SLOT_DEC,
	OP_TAIL_ENABLE, OP_TAIL_INC, OP_TAIL_DISABLE, OP_CALL, OP_CALL_NULL,
} the_op;
static bool seal_first;

static const char *const op_names[] = {
	"static_branch_disable(slot key)", "static_branch_enable(slot key)",
	"static_branch_inc(slot key)", "static_branch_dec(slot key)",
	"static_branch_enable(tail key)", "static_branch_inc(tail key)",
	"static_key_disable(tail key)",
	"static_call_update(slot call, another callback)",
	"static_call_update(slot call, NULL)",
};

static int do_op(enum op op)
{
	switch (op) {
	case OP_SLOT_DISABLE:
		return static_branch_disable(SLOT_KEY);
	case OP_SLOT_ENABLE:
		return static_branch_enable(SLOT_KEY);
	case OP_SLOT_INC:
		return static_branch_inc(SLOT_KEY);
	case OP_SLOT_DEC:
		return static_branch_dec(SLOT_KEY);
	case OP_TAIL_ENABLE:
		return static_branch_enable(TAIL_KEY);
	case OP_TAIL_INC:
		return static_branch_inc(TAIL_KEY);
	case OP_TAIL_DISABLE:
		return static_key_disable(&TAIL_KEY->key);
	case OP_CALL:
		return __static_call_update(SLOT_CALL, SLOT_TRAMP,
					    (void *)other_cb);
	case OP_CALL_NULL:
		return __static_call_update(SLOT_CALL, SLOT_TRAMP, NULL);
	}
	return -1;
}

static void one_update(struct result *r)
{
	void *func;
	int sites, direct = 0, direct_after = 0;

	if (ulsm_lsm_init(&tl_hook_set, "alpha,beta") ||
	    (seal_first && ulsm_lsm_seal(&tl_hook_set)))
		return;
	func = SLOT_CALL->func;
	sites = ulsm_static_call_sites(SLOT_CALL, &direct);
	r->ret = do_op(the_op);
	snprintf(r->error, sizeof(r->error), "%s", ulsm_last_error());
	r->names_set = strstr(r->error, "hook set tl") != NULL;
	r->func_same = SLOT_CALL->func == func;
	r->sites_same = ulsm_static_call_sites(SLOT_CALL, &direct_after) ==
			sites && direct_after == direct;
	r->rc = file_open();
	snprintf(r->trace, sizeof(r->trace), "%.200s", tl_trace);
}

static void refused(enum op op, bool sealed)
{
	struct result r;

	the_op = op;
	seal_first = sealed;
	r = run(one_update);
	ok(r.ret == -EPERM && r.names_set, "%s: %s -> -EPERM (%d), naming the "
	   "set", sealed ? "sealed" : "initialised", op_names[op], r.ret);
	if (r.ret != -EPERM || !r.names_set)
		diag("  message: %s", r.error);
	ok(r.func_same && r.sites_same && r.rc == 0 && !strcmp(r.trace, ALL3),
	   "  nothing written: the slot call, its sites and dispatch (%s) as "
	   "they were", r.trace);
}

/* Before sealing, a slot's call may still be retargeted, and back. */
static void retarget(struct result *r)
{
	void *func;

	if (ulsm_lsm_init(&tl_hook_set, "alpha,beta"))
		return;
	func = SLOT_CALL->func;
	r->ret = __static_call_update(SLOT_CALL, SLOT_TRAMP, (void *)other_cb);
	r->rc = file_open();
	r->more[0] = __static_call_update(SLOT_CALL, SLOT_TRAMP, func);
	r->more[1] = file_open();
	snprintf(r->trace, sizeof(r->trace), "%.200s", tl_trace);
}

/* The toggle is the exception: it queues the keys itself. */
static void toggle_sealed(struct result *r)
{
	if (ulsm_lsm_allow_toggle(&tl_hook_set) ||
	    ulsm_lsm_init(&tl_hook_set, "alpha,beta") ||
	    ulsm_lsm_seal(&tl_hook_set))
		return;
	r->ret = static_branch_disable(SLOT_KEY);
	r->more[0] = ulsm_lsm_toggle(&tl_hook_set, "beta", false);
	r->rc = file_open();
	snprintf(r->trace, sizeof(r->trace), "%.200s", tl_trace);
}

/* Keys and calls of no set still move after a set is sealed. */
static void unrelated(struct result *r)
{
	if (ulsm_lsm_init(&tl_hook_set, "alpha,beta") ||
	    ulsm_lsm_seal(&tl_hook_set))
		return;
	r->ret = static_branch_enable(&free_key);
	r->more[0] = static_branch_likely(&free_key);
	r->more[1] = static_branch_disable(&free_key);
	r->more[2] = static_call_update(free_call, free_b);
	r->more[3] = static_call(free_call)();
}

/* --- sealing all or nothing ---------------------------------------------- */

static void fail_mprotect(unsigned long from, unsigned long to)
{
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	ulsm_fault.kinds = from ? 1u << ULSM_SYS_MPROTECT : 0;
	ulsm_fault.calls = 0;
	ulsm_fault.fail_to = to;
	ulsm_fault.err = 0;
	__atomic_store_n(&ulsm_fault.fail_from, from, __ATOMIC_SEQ_CST);
}

static void write_table(void)
{
	tl_lsm_sealed.table.file_open[2].hl = NULL;
}

static void write_keys(void)
{
	tl_lsm_keys.k.file_open[2].key.enabled = 0;
}

/* In a grandchild: does @fn die of SIGSEGV? */
static int faults(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		fn();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

static unsigned long fail_from, fail_to;

/* Only alpha: slots 1 and 2 stay free for a later registration. */
static void seal_failing(struct result *r)
{
	if (ulsm_lsm_init(&tl_hook_set, "!capa,!omega,alpha"))
		return;
	fail_mprotect(fail_from, fail_to);
	r->ret = ulsm_lsm_seal(&tl_hook_set);
	fail_mprotect(0, 0);
	snprintf(r->error, sizeof(r->error), "%s", ulsm_last_error());
	r->more[0] = faults(write_table);
	r->more[1] = faults(write_keys);
	r->more[2] = security_add_hooks(extra_hooks, 1, &extra_id);
	r->more[3] = ulsm_lsm_seal(&tl_hook_set);
	r->rc = faults(write_table);
	snprintf(r->trace, sizeof(r->trace), "%s",
		 ulsm_lsm_slot_owner(&tl_hook_set, "file_open", 1) ?
		 ulsm_lsm_slot_owner(&tl_hook_set, "file_open", 1)->name : "-");
}

static void sealing(void)
{
	struct result r;

	fail_from = 1;
	fail_to = 0;
	r = run(seal_failing);
	ok(r.ret == -ENOMEM && !r.more[0] && !r.more[1],
	   "the first mprotect fails: -ENOMEM (%d), nothing read-only", r.ret);
	ok(r.more[2] == 0 && !strcmp(r.trace, "extra") && r.more[3] == 0 &&
	   r.rc, "  the set is not sealed: registration works (%d), a second "
	   "seal works (%d) and holds", r.more[2], r.more[3]);

	fail_from = 2;
	r = run(seal_failing);
	ok(r.ret == -ENOMEM, "the second mprotect fails: -ENOMEM (%d)", r.ret);
	ok(!r.more[0] && !r.more[1],
	   "  the first one is undone: tables and keys writable (%s, %s)",
	   r.more[0] ? "tables fault" : "tables ok",
	   r.more[1] ? "keys fault" : "keys ok");
	ok(r.more[2] == 0 && !strcmp(r.trace, "extra"),
	   "  the set is not sealed: registration works (%d, slot 1: %s)",
	   r.more[2], r.trace);
	ok(r.more[3] == 0 && r.rc, "  a second seal works (%d) and holds",
	   r.more[3]);

	fail_to = 3;
	r = run(seal_failing);
	ok(r.ret == -ENOMEM && strstr(r.error, "counts as sealed"),
	   "the second mprotect and its undo fail: -ENOMEM (%d), explained",
	   r.ret);
	if (!strstr(r.error, "counts as sealed"))
		diag("  message: %s", r.error);
	ok(r.more[0] && !r.more[1],
	   "  the tables stay read-only, the keys writable (%s, %s)",
	   r.more[0] ? "tables fault" : "tables ok",
	   r.more[1] ? "keys fault" : "keys ok");
	ok(r.more[2] == -EPERM && r.more[3] == -EALREADY,
	   "  the set counts as sealed: registration -EPERM (%d), seal "
	   "-EALREADY (%d)", r.more[2], r.more[3]);
}

/* --- the table of sets --------------------------------------------------- */

#define MANY	1000
static struct ulsm_hook_set many[MANY];
static long many_keys[MANY][2];

static void fill_table(struct result *r)
{
	int i, ret = 0;

	for (i = 0; i < MANY && !ret; i++) {
		many[i].size = sizeof(many[i]);
		many[i].name = "many";
		many[i].keys = many_keys[i];
		many[i].keys_size = sizeof(many_keys[i]);
		ret = ulsm_lsm_init(&many[i], NULL);
	}
	r->ret = ret;
	r->more[0] = i;
	r->more[1] = ulsm_lsm_init(&many[i - 1], NULL);
	r->more[2] = ulsm_lsm_init(&tl_hook_set, "alpha");
	r->more[3] = static_branch_enable((struct static_key_false *)
					  (void *)many_keys[0]);
	snprintf(r->error, sizeof(r->error), "%s", ulsm_last_error());
}

int main(void)
{
	struct result r;

	for (enum op op = OP_SLOT_DISABLE; op <= OP_TAIL_DISABLE; op++)
		refused(op, false);
	r = run(retarget);
	ok(r.ret == 0 && r.rc == 4242 && r.more[0] == 0 && r.more[1] == 0 &&
	   !strcmp(r.trace, ALL3), "initialised, not sealed: a slot's call "
	   "may be retargeted (%d: %d) and back (%d: %s)", r.ret, r.rc,
	   r.more[0], r.trace);

	for (enum op op = OP_SLOT_DISABLE; op <= OP_CALL_NULL; op++)
		refused(op, true);

	r = run(toggle_sealed);
	ok(r.ret == -EPERM && r.more[0] == 0 && r.rc == 0 &&
	   !strcmp(r.trace, "capa:file_open alpha:file_open"),
	   "toggle allowed and sealed: the public API is refused (%d), the "
	   "toggle works (%d: %s)", r.ret, r.more[0], r.trace);

	r = run(unrelated);
	ok(r.ret == 0 && r.more[0] == 1 && r.more[1] == 0 && r.more[2] == 0 &&
	   r.more[3] == 2, "a key and a call of no set still move after "
	   "sealing (%d %d %d %d %d)", r.ret, r.more[0], r.more[1], r.more[2],
	   r.more[3]);

	sealing();

	r = run(fill_table);
	ok(r.ret == -ENOSPC && r.more[0] > 1 && r.more[0] < MANY,
	   "the table of sets is full after %d sets: -ENOSPC (%d)",
	   r.more[0] - 1, r.ret);
	is_int(r.more[1], -ENOSPC, "  that set stays uninitialised (not "
	       "-EALREADY)");
	is_int(r.more[2], -ENOSPC, "  and so does any other");
	is_int(r.more[3], -EPERM, "  the sets already in keep their keys");
	return done_testing();
}
