// SPDX-License-Identifier: MIT
/*
 * The drop-in's RUN_FIRST and VOID run functions end in a tail site
 * (<ulsm/apr_hooks.h>, ULSM__ARCH_APR_BODY): with one function
 * registered, the run function checks APR's array and jumps straight to
 * that function, as a compiler's tail call does; with none or more, it
 * goes on to its slots, which follow the site (a NOP then) where the
 * prototype fits; with its array changed behind the drop-in
 * (libaprutil's own sort), it walks the array. The test reads the jump
 * the library patched, and checks what each run returns, with a hook of
 * eight parameters (one on the stack, one in a vector register) that the
 * head must leave where the caller put them.
 *
 * Built against ulsm-apr where APR is installed; skipped elsewhere, and
 * on back ends without tail sites (where the run function is C).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "captured.h"
#include "tap.h"

#ifdef HAVE_APR
#include <apr_general.h>
#include <apr_hooks.h>
#include <apr_pools.h>
#include <ulsm/ulsm.h>

#define TT_DECLARE(type)	type

APR_DECLARE_EXTERNAL_HOOK(tt, TT, int, first, (int x))
APR_DECLARE_EXTERNAL_HOOK(tt, TT, void, note, (int x))
APR_DECLARE_EXTERNAL_HOOK(tt, TT, long, wide, (int a, int b, int c, int d,
					       int e, int f, int g, double h))

APR_HOOK_STRUCT(APR_HOOK_LINK(first) APR_HOOK_LINK(note) APR_HOOK_LINK(wide))

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(tt, TT, int, first, (int x), (x), -1)
APR_IMPLEMENT_EXTERNAL_HOOK_VOID(tt, TT, note, (int x), (x))
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(tt, TT, long, wide,
	(int a, int b, int c, int d, int e, int f, int g, double h),
	(a, b, c, d, e, f, g, h), -1)

#ifdef ULSM__APR_TAIL
static __attribute__((noinline)) int first_plus1(int x)
{
	return x + 1;
}

static __attribute__((noinline)) int first_decline(int x)
{
	(void)x;
	return -1;
}

static __attribute__((noinline)) int first_times2(int x)
{
	return 2 * x;
}

static int noted;

static __attribute__((noinline)) void note_it(int x)
{
	noted += x;
}

static __attribute__((noinline)) long wide_sum(int a, int b, int c, int d,
					       int e, int f, int g, double h)
{
	return a + 10L * b + 100L * c + 1000L * d + 10000L * e +
	   100000L * f + 1000000L * g + (long)(h * 100000000.0);
}

#define WIDE_ARGS	1, 2, 3, 4, 5, 6, 7, 0.8
#define WIDE_WANT	87654321L

static const uint8_t nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* Where the jmp rel32 at @p goes; 0 if @p holds no such jump. */
static uintptr_t jump_target(const uint8_t *p)
{
	int32_t rel;

	if (p[0] != 0xe9)
		return 0;
	memcpy(&rel, p + 1, sizeof(rel));
	return (uintptr_t)(p + 5) + (intptr_t)rel;
}

/*
 * Where the tail site of run function @fn goes now: skip the head
 * (endbr64 under IBT, then mov from(%rip), %r11; cmp %r11, link(%rip);
 * jne rel32), read the jmp rel32, or the NOP that goes on to the slots
 * right after it. 0 if the code is not that.
 */
static uintptr_t tail_target(const void *fn)
{
	const uint8_t *p = fn;

	if (!memcmp(p, "\xf3\x0f\x1e\xfa", 4))
		p += 4;
	if (memcmp(p, "\x4c\x8b\x1d", 3) || memcmp(p + 7, "\x4c\x39\x1d", 3) ||
	    memcmp(p + 14, "\x0f\x85", 2))
		return 0;
	if (!memcmp(p + 20, nop5, sizeof(nop5)))
		return (uintptr_t)(p + 25);
	return jump_target(p + 20);
}

/* Whether the tail site of run function @fn is a NOP (after the head). */
static bool tail_is_nop(const void *fn)
{
	const uint8_t *p = fn;

	if (!memcmp(p, "\xf3\x0f\x1e\xfa", 4))
		p += 4;
	return tail_target(fn) && !memcmp(p + 20, nop5, sizeof(nop5));
}

/*
 * Whether the tail site before slot @i (@next: the table of the
 * instructions after them, each as an offset from its entry) jumps to
 * @to, or is a NOP for @to 0.
 */
static bool slot_tail_is(const int32_t *next, int i, uintptr_t to)
{
	const uint8_t *p = (const uint8_t *)&next[i] + next[i] - 5;

	if (!next[i])
		return false;
	return to ? jump_target(p) == to : !memcmp(p, nop5, sizeof(nop5));
}

/*
 * The tail site patched while threads run through it: APR's rule keeps
 * changes and runs apart, so this goes under the drop-in, to the run
 * call itself (the same unit defines it), and aims it in turn at the one
 * function and at the slots, which hold that same function (the site is
 * then a NOP: the slots follow it), or, with two functions, one that
 * declines and then it (the slots then call the first and tail-call the
 * second):
 * every run must give its result, whichever way it went, and some
 * threads must have met the site mid-patch (a trap emulated as the jump,
 * or rewound).
 */
#define RACERS		2

static volatile int race_stop;
static long race_bad, race_runs;

static void *racer(void *arg)
{
	long bad = 0, runs = 0;

	(void)arg;
	while (!__atomic_load_n(&race_stop, __ATOMIC_RELAXED)) {
		bad += tt_run_first(5) != 6;
		runs++;
	}
	__atomic_add_fetch(&race_bad, bad, __ATOMIC_RELAXED);
	__atomic_add_fetch(&race_runs, runs, __ATOMIC_RELAXED);
	return NULL;
}

static void race_tail_site(long updates, const char *what, bool two)
{
	struct static_call_key *key = &ULSM__APR_P(tt, first, run);
	void *tramp = STATIC_CALL_TRAMP_ADDR(ULSM__APR_RUN_SC(tt, first));
	void *slots = (void *)&ULSM__APR_WALK_TO(tt, first);
	struct ulsm_stats st0, st1;
	pthread_t t[RACERS];
	int failed = 0, started = 0;

	race_stop = 0;
	race_bad = race_runs = 0;
	ulsm_get_stats(&st0);
	for (int i = 0; i < RACERS; i++)
		started += !pthread_create(&t[i], NULL, racer, NULL);
	for (int i = 0; i < updates && !failed; i++)
		failed = __static_call_update(key, tramp, i % 2 ? slots :
					      (void *)first_plus1);
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	ulsm_get_stats(&st1);
	ok(started == RACERS && !failed, "%s: %ld updates of the tail site "
	   "while %d threads run through it (%s)", what, updates, started,
	   failed ? strerror(-failed) : "all applied");
	ok(race_runs > 0 && !race_bad, "every one of %ld runs gave the "
	   "function's result (%ld did not)", race_runs, race_bad);
	ok(st1.traps_emulated + st1.traps_rewound >
	   st0.traps_emulated + st0.traps_rewound,
	   "threads met the site mid-patch (%lu emulated, %lu rewound)",
	   st1.traps_emulated - st0.traps_emulated,
	   st1.traps_rewound - st0.traps_rewound);
	/* Left as the refill left it: the one function, or the slots. */
	if (two)
		ok(!__static_call_update(key, tramp, slots) &&
		   tail_is_nop((const void *)tt_run_first),
		   "and the site is left a NOP, on to the slots");
	else
		ok(!__static_call_update(key, tramp, (void *)first_plus1) &&
		   tail_target((const void *)tt_run_first) ==
		   (uintptr_t)first_plus1,
		   "and the site is left jumping to the function");
}

/* The real libaprutil sort: a new array behind the drop-in's slots. */
static void real_sort_all(void)
{
#undef apr_hook_sort_all
	apr_hook_sort_all();
}

int main(int argc, char **argv)
{
	/* The race's updates: --updates N, divided under an emulator. */
	long updates = arg_count(argc, argv, "--updates", 4000);
	apr_pool_t *pool;
	uintptr_t slots_first;
	struct captured cap;
	char err[1024] = "";
	bool captured;
	int ran;

	if (apr_initialize() || apr_pool_create(&pool, NULL)) {
		ok(0, "APR initialises");
		return done_testing();
	}
	apr_hook_global_pool = pool;

	/*
	 * Nothing registered: the run function goes on to the slots, in
	 * assembly right after its tail site, which is then a NOP. Not for
	 * wide, whose eight parameters do not fit: its slots are in C, one
	 * jump further.
	 */
	slots_first = tail_target((const void *)tt_run_first);
	ok(slots_first == (uintptr_t)&ULSM__APR_WALK_TO(tt, first) &&
	   tail_is_nop((const void *)tt_run_first) &&
	   ULSM__APR_P(tt, first, shape) && ULSM__APR_P(tt, note, shape),
	   "no function: first's run function goes on to its slots, which "
	   "follow its tail site (a NOP)");
	ok(!ULSM__APR_P(tt, wide, shape) &&
	   tail_target((const void *)tt_run_wide) ==
	   (uintptr_t)&ULSM__APR_WALK_TO(tt, wide) &&
	   jump_target((const uint8_t *)&ULSM__APR_WALK_TO(tt, wide)) ==
	   (uintptr_t)&ULSM__APR_SLOTS_FN(tt, wide),
	   "  wide's (eight parameters) jump to its C slots function");
	ok(tt_run_first(5) == -1, "no function: first declines");

	tt_hook_first(first_plus1, NULL, NULL, APR_HOOK_MIDDLE);
	ok(tail_target((const void *)tt_run_first) ==
	   (uintptr_t)first_plus1,
	   "one function: first's run function jumps straight to it");
	ok(tt_run_first(5) == 6, "one function: first gives its result");
	race_tail_site(updates, "one function", false);

	tt_hook_note(note_it, NULL, NULL, APR_HOOK_MIDDLE);
	ok(tail_target((const void *)tt_run_note) == (uintptr_t)note_it,
	   "one function: note's run function (VOID) jumps straight "
	   "to it");
	tt_run_note(7);
	ok(noted == 7, "note ran its function once (%d)", noted);

	tt_hook_wide(wide_sum, NULL, NULL, APR_HOOK_MIDDLE);
	ok(tail_target((const void *)tt_run_wide) == (uintptr_t)wide_sum,
	   "one function: wide's run function jumps straight to it");
	ok(tt_run_wide(WIDE_ARGS) == WIDE_WANT,
	   "eight parameters arrive whole (%ld)", tt_run_wide(WIDE_ARGS));

	/* Two: back to the slots function, in APR's order. */
	tt_hook_first(first_decline, NULL, NULL, APR_HOOK_FIRST);
	/* Sorted, the one that declines is in slot 0: slot 1 must answer. */
	ulsm_apr_hook_sort_all();
	ok(slots_first &&
	   tail_target((const void *)tt_run_first) == slots_first &&
	   tail_is_nop((const void *)tt_run_first),
	   "two functions: first's run function goes on to its slots "
	   "again");
	ok(!memcmp((const void *)slots_first, nop5, sizeof(nop5)),
	   "  which are in use (their first site, the direct key's, is a "
	   "NOP)");
	ok(tt_run_first(5) == 6 && ulsm_apr_hook_slots("first") == 2,
	   "two functions: the first declines, the second answers");
	ok(slot_tail_is(ULSM__APR_P(tt, first, tnext), 0, 0) &&
	   slot_tail_is(ULSM__APR_P(tt, first, tnext), 1,
			(uintptr_t)first_plus1),
	   "  slot 0's tail site is a NOP (it is called), slot 1's jumps "
	   "to its function");
	race_tail_site(updates, "two functions", true);
	tt_hook_note(note_it, NULL, NULL, APR_HOOK_LAST);
	noted = 0;
	tt_run_note(7);
	ok(noted == 14 && ulsm_apr_hook_slots("note") == 2,
	   "two functions: note's slots ran both (%d)", noted);
	ok(slot_tail_is(ULSM__APR_P(tt, note, tnext), 0, 0) &&
	   slot_tail_is(ULSM__APR_P(tt, note, tnext), 1, (uintptr_t)note_it) &&
	   slot_tail_is(ULSM__APR_P(tt, note, tnext), 2, 0),
	   "  note's: slot 0 called, slot 1 jumped to, slot 2 a NOP");

	/*
	 * The array changed behind the slots: the walk, in the new order
	 * (the slots still hold first_decline, first_plus1, first_times2,
	 * the array as registered after the last sort: first_plus1 answers).
	 */
	tt_hook_first(first_times2, NULL, NULL, APR_HOOK_REALLY_FIRST);
	real_sort_all();
	ok(ulsm_apr_hook_slots("first") == -1,
	   "libaprutil's own sort: first walks APR's array");
	/* Its first dispatch says so on stderr, once: shown as a comment. */
	captured = !capture_stderr(&cap);
	ran = tt_run_first(5);
	if (captured) {
		restore_stderr(&cap, err, sizeof(err));
		close_captured(&cap);
		diag_lines("stderr", err);
	}
	ok(captured && strstr(err, "ulsm-apr: hook first: its array was "
			      "changed behind its static calls"),
	   "the first stale dispatch says so on stderr");
	ok(ran == 10 && tt_run_first(5) == 10,
	   "the walk follows the sorted array (%d)", ran);
	ok(tt_run_wide(WIDE_ARGS) == WIDE_WANT,
	   "the walk gets eight parameters whole");
	noted = 0;
	tt_run_note(3);
	ok(noted == 6, "note's walk ran its two functions (%d)", noted);

	/* The drop-in's deregistration: no function, the slots function. */
	apr_hook_deregister_all();
	ok(slots_first &&
	   tail_target((const void *)tt_run_first) == slots_first &&
	   tail_target((const void *)tt_run_wide) &&
	   tail_target((const void *)tt_run_wide) != (uintptr_t)wide_sum,
	   "deregistered: the run functions go on to their slots");
	ok(tt_run_first(5) == -1 && tt_run_wide(WIDE_ARGS) == -1,
	   "deregistered: both decline");
	{
		struct ulsm_stats st;

		ulsm_get_stats(&st);
		is_int((long)st.call_sites_skipped, 0, "no site record of "
		       "this program follows anything but a call");
	}
	apr_pool_destroy(pool);
	apr_terminate();
	return done_testing();
}

#else

int main(void)
{
	skip_all("this back end has no tail sites: the run functions "
		     "are C");
}

#endif /* ULSM__APR_TAIL */

#else
#include "no_apr.h"	/* main: the test says it skipped */
#endif
