/* SPDX-License-Identifier: MIT */
/*
 * tests/stress.h - flip keys while other threads execute their sites.
 *
 * The flipper publishes a sequence number per key: odd while a flip is in
 * progress, even once the update call has returned (stored with release
 * after the call). A worker reads the sequence (acquire), runs the site,
 * reads the sequence again. If both reads saw the same even value, no flip
 * overlapped the execution and the site *must* have taken the path of that
 * state: this is the completion guarantee. Otherwise either path is valid.
 * Every site returns a distinctive constant, so a jump into the middle of an
 * instruction shows up as a wrong value (or a crash) rather than passing.
 *
 * Used by t_stress (membarrier, the default) and t_sync_fallback (signals).
 */
#ifndef ULSM_TESTS_STRESS_H
#define ULSM_TESTS_STRESS_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "tap.h"

#define YES 0x5a5a
#define NO  0x0a0a
#define MIXED 0x3c3c	/* sites of one key seen in different states */

DEFINE_STATIC_KEY_FALSE(stress_a);
DEFINE_STATIC_KEY_TRUE(stress_b);

static unsigned long seq_a, seq_b;	/* flips started + flips finished */
static unsigned long progress;		/* worker loops completed */
static int stop;

__attribute__((noinline)) static int site_a_unlikely(void)
{
	return static_branch_unlikely(&stress_a) ? YES : NO;
}

__attribute__((noinline)) static int site_a_likely(void)
{
	return static_branch_likely(&stress_a) ? YES : NO;
}

/* Four sites of one key in a row: one batch patches them together. */
__attribute__((noinline)) static int site_a_four(void)
{
	int n = 0;

	n += static_branch_unlikely(&stress_a);
	n += static_branch_likely(&stress_a);
	n += static_branch_unlikely(&stress_a);
	n += static_branch_likely(&stress_a);
	/*
	 * A batch is atomic per site, not across sites: while a flip is in
	 * progress one thread can meet some sites old and some new.
	 */
	return n == 4 ? YES : n == 0 ? NO : (n > 0 && n < 4) ? MIXED : -n;
}

__attribute__((noinline)) static int site_b_likely(void)
{
	return static_branch_likely(&stress_b) ? YES : NO;
}

__attribute__((noinline)) static int site_b_unlikely(void)
{
	return static_branch_unlikely(&stress_b) ? YES : NO;
}

struct worker {
	pthread_t thread;
	unsigned long runs, strong, overlapped, wrong, invalid;
};

/* Key a starts disabled, b enabled; each flip toggles. */
static int expect(unsigned long seq, int starts_on)
{
	return ((seq / 2) % 2) ^ starts_on ? YES : NO;
}

static void check(struct worker *w, unsigned long *seqp, int starts_on,
		  int (*site)(void))
{
	unsigned long s1, s2;
	int got;

	s1 = __atomic_load_n(seqp, __ATOMIC_ACQUIRE);
	got = site();
	/*
	 * The site's own load (generic back end) must not move after the
	 * second read: an acquire fence orders earlier loads before later
	 * ones (a plain acquire load would not hold back earlier loads).
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(seqp, __ATOMIC_ACQUIRE);

	w->runs++;
	if (got != YES && got != NO && got != MIXED) {
		w->invalid++;
		return;
	}
	if (s1 == s2 && !(s1 & 1)) {
		w->strong++;
		if (got != expect(s1, starts_on))
			w->wrong++;
	} else {
		w->overlapped++;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		check(w, &seq_a, 0, site_a_unlikely);
		check(w, &seq_a, 0, site_a_likely);
		check(w, &seq_a, 0, site_a_four);
		check(w, &seq_b, 1, site_b_likely);
		check(w, &seq_b, 1, site_b_unlikely);
		__atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int flip(unsigned long *seqp, int starts_on,
		int (*on)(void), int (*off)(void))
{
	int turn_on = !(((*seqp / 2) % 2) ^ starts_on);
	int ret;

	__atomic_store_n(seqp, *seqp + 1, __ATOMIC_SEQ_CST);
	ret = turn_on ? on() : off();
	__atomic_store_n(seqp, *seqp + 1, __ATOMIC_SEQ_CST);
	return ret;
}

static int a_on(void) { return static_branch_enable(&stress_a); }
static int a_off(void) { return static_branch_disable(&stress_a); }
static int b_on(void) { return static_branch_inc(&stress_b); }
static int b_off(void) { return static_branch_dec(&stress_b); }

static int run_stress(long flips, long nthreads)
{
	struct worker *w = calloc((size_t)nthreads, sizeof(*w));
	struct worker sum = { 0 };
	struct ulsm_stats st;
	long failed = 0;

	if (!w)
		return 1;
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]))
			return 1;
	for (long i = 0; i < flips; i++) {
		unsigned long seen = __atomic_load_n(&progress, __ATOMIC_RELAXED);
		int ret;

		/*
		 * Let the workers run between flips: a generic-back-end flip
		 * is one store and could otherwise finish before they start.
		 */
		while (__atomic_load_n(&progress, __ATOMIC_RELAXED) == seen)
			sched_yield();
		ret = (i & 1) ? flip(&seq_b, 1, b_on, b_off)
				  : flip(&seq_a, 0, a_on, a_off);

		if (ret) {
			if (!failed)
				diag("flip %ld failed: %d (%s)", i, ret,
				     ulsm_last_error());
			failed++;
			break;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		sum.runs += w[i].runs;
		sum.strong += w[i].strong;
		sum.overlapped += w[i].overlapped;
		sum.wrong += w[i].wrong;
		sum.invalid += w[i].invalid;
	}
	free(w);
	ulsm_get_stats(&st);
	diag("%ld flips, %ld threads, back end %s, sync %s", flips, nthreads,
	     ulsm_backend(), ulsm_sync_method());
	diag("%lu site runs: %lu checked strictly, %lu overlapped a flip",
	     sum.runs, sum.strong, sum.overlapped);
	diag("%lu batches, %lu core syncs, traps: %lu emulated, %lu rewound",
	     st.batches, st.core_syncs, st.traps_emulated, st.traps_rewound);

	is_int(failed, 0, "every flip succeeded");
	is_int(sum.invalid, 0, "every site returned a valid path's value");
	is_int(sum.wrong, 0, "after a completed flip every site took the new path");
	ok(sum.strong > 0, "some runs were checked strictly (%lu)", sum.strong);
	ok(sum.runs > (unsigned long)flips / 4,
	   "the workers ran during the flips (%lu runs)", sum.runs);
	is_int(seq_a / 2 + seq_b / 2, flips, "all flips counted");
	return 0;
}

#endif /* ULSM_TESTS_STRESS_H */
