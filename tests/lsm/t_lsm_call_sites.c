// SPDX-License-Identifier: MIT
/*
 * Call sites: call_int_hook's calls of a slot are patched to call the
 * module's callback directly (not through the slot's trampoline).
 *  - after registration, every recorded site of a used slot calls its
 *    callback, and no dispatch site of this program was left alone;
 *  - a thread that meets the breakpoint on a call site mid-patch continues
 *    as the new call: it runs the new target and comes back with its
 *    result (the test hook calls the hook between the steps, in the
 *    patching thread itself, so the trap is certain);
 *  - retargeting a slot while threads dispatch: every call reaches the old
 *    or the new target, and after a completed update, the new one.
 * x86-64 only: the generic back end patches nothing.
 */
#include <stdlib.h>

#include "seqcheck.h"
#include "tap.h"
#include "test_lsm.h"

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	struct static_call_key k = { NULL, 0 };

	is_int(ulsm_static_call_sites(&k, NULL), 0,
	       "the generic back end has no call sites");
	return done_testing();
}
#else

extern void (*ulsm_test_step_hook)(int step);

#define SLOT0_KEY	(&tl_lsm_sealed.calls.file_open[0])
#define SLOT0_TRAMP	(tl_lsm_sealed.table.file_open[0].trampoline)

static int ret_a(struct t_file *f)
{
	(void)f;
	return 1001;
}

static int ret_b(struct t_file *f)
{
	(void)f;
	return 1002;
}

/* Where the call that reached ret_c returns to. */
static void *ret_c_from;

__attribute__((noinline)) static int ret_c(struct t_file *f)
{
	(void)f;
	ret_c_from = __builtin_return_address(0);
	return 1003;
}

static int file_open(void)
{
	struct t_file f = { NULL, 0 };

	return call_int_hook(file_open, &f);
}

static int mid[3];
static void *mid_from[3];

__attribute__((unused)) static void open_mid_patch(int step)
{
	if (step >= 1 && step <= 2) {
		ret_c_from = NULL;
		mid[step] = file_open();
		mid_from[step] = ret_c_from;
	}
}

static int retarget(void *func)
{
	return __static_call_update(SLOT0_KEY, SLOT0_TRAMP, func);
}

/* Update i leaves slot 0 at ret_b when i is even, ret_a when odd. */
static int flip(long i)
{
	return retarget(i & 1 ? (void *)ret_a : (void *)ret_b);
}

int main(int argc, char **argv)
{
	long updates = arg_count(argc, argv, "--updates", 2000);
	long nthreads = arg_long(argc, argv, "--threads", 3);
	struct ulsm_stats st0;
#if !defined(ULSM_ARCH_AARCH64) && !defined(ULSM_ARCH_RISCV64)
	struct ulsm_stats st1;	/* the mid-patch traps */
#endif
	int direct = -1, n;

	tl_defaults();
	is_int(ulsm_lsm_init(&tl_hook_set, "alpha"), 0, "init: capa, alpha, omega");

	n = ulsm_static_call_sites(SLOT0_KEY, &direct);
	ok(n >= 1, "slot 0 of file_open has call sites (%d)", n);
	is_int(direct, n, "  and every one calls capa's callback directly");
	/* NULL: back to the trampoline, a ret (not dispatched meanwhile). */
	is_int(retarget(NULL), 0, "retarget slot 0 to NULL");
	n = ulsm_static_call_sites(SLOT0_KEY, &direct);
	ok(n >= 1 && direct == 0, "  its sites call the trampoline (%d of %d "
	   "direct)", direct, n);
	is_int(retarget((void *)tl_lsm_sealed.table.file_open[0].hl->hook.lsm_callback),
	       0, "  and back to capa's callback");
	is_int(ulsm_static_call_sites(NULL, NULL), -EINVAL, "NULL key: -EINVAL");
	ulsm_get_stats(&st0);
	diag("%lu call sites recorded, %lu left alone", st0.call_sites,
	     st0.call_sites_skipped);
	ok(st0.call_sites > 0, "the program's hook call sites were recorded");
	is_int((int)st0.call_sites_skipped, 0,
	       "none was left calling its trampoline");

	tl_trace_reset();
	is_int(file_open(), 0, "file_open: capa, alpha and omega allow");
	ok(!strcmp(tl_trace, "capa:file_open alpha:file_open omega:file_open"),
	   "  all ran: %s", tl_trace);

#if defined(ULSM_ARCH_AARCH64) || defined(ULSM_ARCH_RISCV64)
	/* One store per site: no steps, nothing to run in between. */
	diag("%s: a call site changes with one store, no breakpoint",
	     ULSM_ARCH_NAME);
	is_int(retarget((void *)ret_c), 0, "retarget to ret_c");
	ret_c_from = NULL;
	is_int(file_open(), 1003, "  file_open then returns ret_c's value");
	ok(ret_c_from != NULL, "  ret_c was reached");
#else
	/* Mid-patch: the call site holds int3 in steps 1 and 2. */
	ulsm_test_step_hook = open_mid_patch;
	is_int(retarget((void *)ret_a), 0, "retarget slot 0 with calls mid-patch");
	ulsm_test_step_hook = NULL;
	ulsm_get_stats(&st1);
	ok(mid[1] == 1001 && mid[2] == 1001,
	   "  mid-patch calls ran the new target and returned (%d, %d)",
	   mid[1], mid[2]);
	ok(st1.traps_emulated >= st0.traps_emulated + 2,
	   "  through the breakpoint handler (%lu traps)",
	   st1.traps_emulated - st0.traps_emulated);
	n = ulsm_static_call_sites(SLOT0_KEY, &direct);
	is_int(direct, n, "  the sites now call ret_a directly");
	is_int(file_open(), 1001, "file_open returns ret_a's value");

	ulsm_test_step_hook = open_mid_patch;
	is_int(retarget((void *)__static_call_return0), 0,
	       "retarget to __static_call_return0 mid-patch");
	ulsm_test_step_hook = NULL;
	ok(mid[1] == 0 && mid[2] == 0, "  mid-patch calls returned 0 (%d, %d)",
	   mid[1], mid[2]);

	/* The emulated call returns exactly where the real one does. */
	ulsm_test_step_hook = open_mid_patch;
	is_int(retarget((void *)ret_c), 0, "retarget to ret_c mid-patch");
	ulsm_test_step_hook = NULL;
	ret_c_from = NULL;
	is_int(file_open(), 1003, "  file_open then returns ret_c's value");
	ok(ret_c_from && mid_from[1] == ret_c_from && mid_from[2] == ret_c_from,
	   "  mid-patch calls returned to the call's own return address "
	   "(%p, %p; real %p)", mid_from[1], mid_from[2], ret_c_from);
#endif
	is_int(retarget((void *)ret_a), 0, "back to ret_a");

	seq_alternation(updates, nthreads, file_open, 1001, 1002, flip,
			"retarget", "ret_a or ret_b");
	return done_testing();
}
#endif
