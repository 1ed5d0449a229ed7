// SPDX-License-Identifier: MIT
/*
 * Static calls: the kernel's static-call selftest idea (update between two
 * functions and check the results), NULL and RET0 semantics, the direct and
 * indirect trampoline forms, bad input, a tampered trampoline, injected
 * write failures, and calls made while an update is in progress.
 */
#include <errno.h>
#include <stdlib.h>

#include <ulsm/static_call.h>
#include <ulsm/ulsm.h>

#include "sites.h"
#include "tap.h"

static int func_a(int x) { return x + 1; }
static int func_b(int x) { return x + 2; }
static void void_target(int x);

static int void_seen;
static void void_target(int x) { void_seen = x; }

DEFINE_STATIC_CALL(sc, func_a);
DEFINE_STATIC_CALL_NULL(sc_null, void_target);
DEFINE_STATIC_CALL_RET0(sc_ret0, func_a);
DEFINE_STATIC_CALL(sc_other, func_b);

static int generic;

__attribute__((noinline)) static int call_sc(int x)
{
	return static_call(sc)(x);
}

static const char *form_of(const struct static_call_key *key)
{
	return ulsm_static_call_form_name(ulsm_static_call_form(key));
}

static void is_form(const struct static_call_key *key, const char *want,
		    const char *what)
{
	const char *got = form_of(key);

	if (generic)
		want = "pointer";
	ok(!strcmp(got, want), "%s: form %s (want %s)", what, got, want);
}

#ifndef ULSM_ARCH_GENERIC
static int mid[3];

static void call_mid_patch(int step)
{
	mid[step] = static_call(sc)(100);
}
#endif

int main(void)
{
	generic = !strcmp(ulsm_backend(), "generic");

	/* The selftest: update between two functions. */
	is_int(call_sc(1), 2, "initial target func_a");
	is_form(&STATIC_CALL_KEY(sc), "direct", "func_a in reach");
	ok(static_call_query(sc) == func_a, "query: func_a");
	is_int(static_call_update(sc, func_b), 0, "update to func_b");
	is_int(call_sc(1), 3, "calls func_b");
	ok(static_call_query(sc) == func_b, "query: func_b");
	is_int(static_call_update(sc, func_a), 0, "update back to func_a");
	is_int(call_sc(1), 2, "calls func_a");
	is_int(static_call_update(sc, func_a), 0, "update to the same target");
	is_int(call_sc(1), 2, "still func_a");
	is_int(static_call(sc_other)(1), 3, "the other call is untouched");

	/* A target in another object, likely out of rel32 reach. */
	is_int(static_call_update(sc, (int (*)(int))abs), 0, "update to libc's abs");
	is_int(call_sc(-7), 7, "calls abs");
	diag("abs from the trampoline: %s", form_of(&STATIC_CALL_KEY(sc)));
	is_int(static_call_update(sc, func_b), 0, "and back into reach");
	is_form(&STATIC_CALL_KEY(sc), "direct", "back in reach");
	is_int(call_sc(1), 3, "calls func_b");

	/* NULL. */
	ok(static_call_query(sc_null) == NULL, "NULL call: query is NULL");
	is_form(&STATIC_CALL_KEY(sc_null), "null", "NULL call");
	static_call_cond(sc_null)(5);
	is_int(void_seen, 0, "static_call_cond of NULL does nothing");
	is_int(static_call_update(sc_null, void_target), 0, "set a target");
	static_call_cond(sc_null)(5);
	is_int(void_seen, 5, "static_call_cond calls it");
	is_int(static_call_update(sc_null, NULL), 0, "back to NULL");
	static_call_cond(sc_null)(6);
	is_int(void_seen, 5, "does nothing again");

	/* RET0. */
	is_int(static_call(sc_ret0)(9), 0, "RET0 call returns 0");
	is_form(&STATIC_CALL_KEY(sc_ret0), ulsm_static_call_form(&STATIC_CALL_KEY(sc_ret0)) ==
		ULSM_SC_FORM_INDIRECT ? "indirect" : "direct",
		"RET0 call jumps to __static_call_return0");
	ok(static_call_query(sc_ret0) == (void *)__static_call_return0,
	   "query: __static_call_return0");
	is_int(static_call_update(sc_ret0, func_a), 0, "RET0 call to func_a");
	is_int(static_call(sc_ret0)(9), 10, "calls func_a");
	is_int(static_call_update(sc_ret0, (void *)__static_call_return0), 0,
	       "back to __static_call_return0");
	is_int(static_call(sc_ret0)(9), 0, "returns 0 again");
	is_int(static_call_update(sc, (void *)__static_call_return0), 0,
	       "any call can become RET0");
	is_int(call_sc(9), 0, "returns 0");
	is_int(static_call_update(sc, func_a), 0, "back to func_a");

	/* Bad input. */
	is_int(__static_call_update(NULL, NULL, (void *)func_a), -EINVAL,
	       "NULL key -> -EINVAL");
	if (!generic) {
		is_int(__static_call_update(&STATIC_CALL_KEY(sc),
					    STATIC_CALL_TRAMP_ADDR(sc_other),
					    (void *)func_b), -EINVAL,
		       "another call's trampoline -> -EINVAL");
		is_int(__static_call_update(&STATIC_CALL_KEY(sc), (void *)main,
					    (void *)func_b), -ENOENT,
		       "not a trampoline -> -ENOENT");
		ok(static_call_query(sc) == func_a && call_sc(1) == 2,
		   "refused updates changed nothing");
	}
	is_int(ulsm_static_call_form(NULL), -EINVAL, "form of NULL -> -EINVAL");

#ifndef ULSM_ARCH_GENERIC
	/* Tampered trampoline: -EILSEQ, nothing written. */
	{
		uint8_t *t = (uint8_t *)STATIC_CALL_TRAMP_ADDR(sc);
		uint8_t saved[48], sig;

		memcpy(saved, t, sizeof(saved));
		sig = saved[TRAMP_SIG] ^ 0xff;
		is_int(poke_text((uintptr_t)t + TRAMP_SIG, &sig, 1), 0,
		       "break the signature");
		is_int(static_call_update(sc, func_b), -EILSEQ, "update -> -EILSEQ");
		ok(!memcmp(t, saved, TRAMP_SIG), "the instruction was not written");
		ok(static_call_query(sc) == func_a, "the target is unchanged");
		is_int(poke_text((uintptr_t)t + TRAMP_SIG, saved + TRAMP_SIG, 1),
		       0, "restore it");
		is_int(static_call_update(sc, func_b), 0, "update works again");
		is_int(call_sc(1), 3, "calls func_b");
	}

	/*
	 * A write failure at each point of the protocol's writes (x86:
	 * three, aarch64: one); the first is also the probe of the write
	 * path: with nothing written yet, the other method takes over.
	 */
	for (unsigned long n = 1, failed = 0; n < 16; n++) {
		int ret;

		fault_nth_write(n, EIO);
		ret = static_call_update(sc, func_a);
		fault_nth_write(0, 0);
		if (!ret) {
			ok(call_sc(1) == 2 && static_call_query(sc) == func_a,
			   "write %lu fails or none: updated", n);
			is_int(static_call_update(sc, func_b), 0, "  and back");
			if (!ulsm_fault.failed) {
				ok(failed + 1 >= WRITES_PER_SITE,
				   "%lu failed writes (at least %d: all but "
				   "the first)", failed, WRITES_PER_SITE - 1);
				break;
			}
		} else {
			failed++;
			is_int(ret, -EIO, "write %lu fails: -EIO", n);
			ok(call_sc(1) == 3 && static_call_query(sc) == func_b,
			   "  still calls func_b, query func_b");
		}
		ulsm_fault.failed = 0;
	}

	/* Calls made between the steps of an update take the new target. */
	if (!BREAKPOINT_PROTOCOL) {
		diag("aarch64: one store per update, no steps in between");
		goto no_steps;
	}
	ulsm_test_step_hook = call_mid_patch;
	is_int(static_call_update(sc, func_a), 0, "update with calls mid-patch");
	ok(mid[1] == 101 && mid[2] == 101, "mid-patch calls reach func_a (%d, %d)",
	   mid[1], mid[2]);
	is_int(static_call_update(sc, NULL), 0, "update to NULL with calls mid-patch");
	ok(mid[1] == mid[2], "mid-patch calls of a NULL target return");
	is_int(static_call_update(sc, (void *)__static_call_return0), 0,
	       "update to RET0 with calls mid-patch");
	ok(mid[1] == 0 && mid[2] == 0, "mid-patch calls return 0 (%d, %d)",
	   mid[1], mid[2]);
	/* The far form (in a retpoline build: the jump to the stub). */
	is_int(static_call_update(sc, (int (*)(int))abs), 0,
	       "update to libc's abs with calls mid-patch");
	ok(mid[1] == 100 && mid[2] == 100, "mid-patch calls reach abs (%d, %d)",
	   mid[1], mid[2]);
	ulsm_test_step_hook = NULL;
no_steps:
	is_int(static_call_update(sc, func_a), 0, "back to func_a");
#endif
	is_int(call_sc(1), 2, "ends at func_a");
	return done_testing();
}
