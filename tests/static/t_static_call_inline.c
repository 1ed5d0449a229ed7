// SPDX-License-Identifier: MIT
/*
 * static_call_inline(): a static call whose call site is recorded and
 * patched to call the target directly (the kernel's inline static calls).
 *  - the site's bytes, read back: "call target" after each update, "call
 *    <trampoline>" for NULL; ulsm_static_call_sites() agrees;
 *  - the semantics of static_call(): RET0 returns 0 (and a NULL void
 *    call's site calls the trampoline, a ret, on x86-64);
 *  - a call made mid-patch (the test hook runs it after each of the protocol's
 *    steps, in the patching thread) runs the new target and returns
 *    exactly where the real call does;
 *  - retargeting while threads call through the site: every call reaches
 *    the old or the new target, and after a completed update, the new one.
 * On the generic back end static_call_inline() is static_call(): the
 * semantics are checked, there are no sites.
 */
#include <stdlib.h>

#include <ulsm/static_call.h>
#include <ulsm/ulsm.h>

#include "seqcheck.h"
#include "sites.h"
#include "tap.h"

static int func_a(int x) { return x + 1; }
static int func_b(int x) { return x + 2; }

/* Where the call that reached func_c returns to. */
static void *func_c_from;

__attribute__((noinline, unused)) static int func_c(int x)
{
	func_c_from = __builtin_return_address(0);
	return x + 3;
}

static int void_seen;
static void void_target(int x) { void_seen = x; }

DEFINE_STATIC_CALL(sci, func_a);
DEFINE_STATIC_CALL_NULL(sci_void, void_target);
DEFINE_STATIC_CALL_RET0(sci_ret0, func_a);

__attribute__((noinline)) static int call_sci(int x)
{
	return static_call_inline(sci, x);
}

__attribute__((noinline)) static void call_void(int x)
{
	static_call_inline(sci_void, x);
}

__attribute__((noinline)) static int call_ret0(int x)
{
	return static_call_inline(sci_ret0, x);
}

#ifndef ULSM_ARCH_GENERIC
/* The labels recorded after the calls of @key in this program's table. */
static int find_calls(const struct static_call_key *key, uintptr_t *out,
		      int max)
{
	int n = 0;

	for (const struct ulsm_call_site *e = __start_ulsm_call_sites;
	     e < __stop_ulsm_call_sites; e++) {
		const void *const *kref = (const void *const *)rel_field(&e->kref);

		if (*kref == key && n < max)
			out[n++] = rel_field(&e->ret);
	}
	return n;
}

#endif

static int update(void *func)
{
	return __static_call_update(&STATIC_CALL_KEY(sci),
				    STATIC_CALL_TRAMP_ADDR(sci), func);
}

static int mid[3];
static void *mid_from[3];

__attribute__((unused)) static void call_mid_patch(int step)
{
	if (step < 1 || step > 2)
		return;
	func_c_from = NULL;
	mid[step] = call_sci(100);
	mid_from[step] = func_c_from;
}

/* Update i leaves the call at func_b when i is even, func_a when odd. */
static int flip(long i)
{
	return update(i & 1 ? (void *)func_a : (void *)func_b);
}

/* What the threads call: the site, with 10 (func_a 11, func_b 12). */
static int call_ten(void)
{
	return call_sci(10);
}

int main(int argc, char **argv)
{
	long updates = arg_long(argc, argv, "--updates", 2000);
	long nthreads = arg_long(argc, argv, "--threads", 3);
	bool generic = !strcmp(ulsm_backend(), "generic");
#ifndef ULSM_ARCH_GENERIC
	struct ulsm_stats st0, st1;	/* the mid-patch traps */
#endif
	int n, direct = -1;

	is_int(call_sci(1), 2, "static_call_inline calls func_a");
	if (!generic) {
		/*
		 * As with static_call(), calling a NULL call is undefined;
		 * on x86-64 its site calls the trampoline, a ret.
		 */
		call_void(7);
		is_int(void_seen, 0, "x86-64: a NULL void call does nothing");
	}
	is_int(call_ret0(5), 0, "a RET0 call returns 0");
	is_int(static_call_update(sci_void, void_target), 0,
	       "the void call to void_target");
	call_void(7);
	is_int(void_seen, 7, "  it runs");

	n = ulsm_static_call_sites(&STATIC_CALL_KEY(sci), &direct);
	if (generic) {
		is_int(n, 0, "generic back end: no call sites");
	} else {
#ifndef ULSM_ARCH_GENERIC
		uintptr_t site[4];	/* the labels after the calls */

		is_int(n, 1, "one call site recorded for sci");
		is_int(direct, 1, "  which calls func_a directly");
		is_int(find_calls(&STATIC_CALL_KEY(sci), site, 4), 1,
		       "  in this program's table");
		ok(calls_before(site[0], (uintptr_t)func_a),
		   "  bytes: call func_a");
		is_int(update((void *)func_b), 0, "update to func_b");
		ok(calls_before(site[0], (uintptr_t)func_b),
		   "  bytes: call func_b");
		is_int(call_sci(1), 3, "  calls func_b");
		is_int(update(NULL), 0, "update to NULL");
		ok(calls_before(site[0], (uintptr_t)STATIC_CALL_TRAMP_ADDR(sci)),
		   "  bytes: call the trampoline (a ret)");
		n = ulsm_static_call_sites(&STATIC_CALL_KEY(sci), &direct);
		ok(n == 1 && direct == 0, "  counted as not direct (%d of %d)",
		   direct, n);
		is_int(update((void *)__static_call_return0), 0,
		       "update to __static_call_return0");
		ok(calls_before(site[0], (uintptr_t)__static_call_return0),
		   "  bytes: call it");
		is_int(call_sci(1), 0, "  returns 0");
		ok(find_calls(&STATIC_CALL_KEY(sci_ret0), site, 4) == 1 &&
		   calls_before(site[0], (uintptr_t)__static_call_return0),
		   "a RET0 call's site calls __static_call_return0");

		/*
		 * Mid-patch. x86-64: the site holds its breakpoint in steps 1
		 * and 2, and calls made then are emulated. aarch64: one word
		 * per site, one step; a call made after it runs the new BL.
		 */
		ulsm_get_stats(&st0);
		ulsm_test_step_hook = call_mid_patch;
		is_int(update((void *)func_c), 0, "update to func_c mid-patch");
		ulsm_test_step_hook = NULL;
		ulsm_get_stats(&st1);
		func_c_from = NULL;
		is_int(call_sci(100), 103, "  then calls func_c");
#if BREAKPOINT_PROTOCOL
		ok(mid[1] == 103 && mid[2] == 103,
		   "  mid-patch calls ran func_c (%d, %d)", mid[1], mid[2]);
		ok(st1.traps_emulated >= st0.traps_emulated + 2,
		   "  through the breakpoint handler (%lu traps)",
		   st1.traps_emulated - st0.traps_emulated);
		ok(func_c_from && mid_from[1] == func_c_from &&
		   mid_from[2] == func_c_from,
		   "  mid-patch calls returned to the call's own return "
		   "address (%p, %p; real %p)", mid_from[1], mid_from[2],
		   func_c_from);
#else
		ok(mid[1] == 103, "  the call after the step ran func_c (%d)",
		   mid[1]);
		ok(func_c_from && mid_from[1] == func_c_from,
		   "  and returned to the call's own return address (%p; "
		   "real %p)", mid_from[1], func_c_from);
#endif
#endif
	}
	is_int(update((void *)func_a), 0, "back to func_a");

	seq_alternation(updates, nthreads, call_ten, 11, 12, flip, "update",
			"func_a or func_b");
	return done_testing();
}
