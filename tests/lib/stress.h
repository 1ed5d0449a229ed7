/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/stress.h - flip keys while other threads execute their sites.
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

#include <stdint.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "seqcheck.h"
#include "tap.h"

#define YES 0x5a5a
#define NO  0x0a0a
#define MIXED 0x3c3c	/* sites of one key seen in different states */

DEFINE_STATIC_KEY_FALSE(stress_a);
DEFINE_STATIC_KEY_TRUE(stress_b);

static unsigned long seq_a, seq_b;

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

/* Key a starts disabled, b enabled; each flip toggles. */
static int expect(unsigned long seq, int starts_on)
{
	return ((seq / 2) % 2) ^ starts_on ? YES : NO;
}

static void check(struct seq_worker *w, unsigned long *seqp, int starts_on,
		  int (*site)(void))
{
	unsigned long s1 = seq_begin(seqp);
	int got = site();
	unsigned long s2 = seq_end(seqp);

	seq_record(w, s1, s2, got == YES || got == NO || got == MIXED,
		   got == expect(s1, starts_on));
}

static void *worker_main(void *arg)
{
	struct seq_worker *w = arg;

	while (seq_running()) {
		check(w, &seq_a, 0, site_a_unlikely);
		check(w, &seq_a, 0, site_a_likely);
		check(w, &seq_a, 0, site_a_four);
		check(w, &seq_b, 1, site_b_likely);
		check(w, &seq_b, 1, site_b_unlikely);
	}
	return NULL;
}

/* Even flips go to a (enable/disable), odd ones to b (dec/inc). */
static int flip(long i)
{
	if (i & 1)
		return (i / 2) & 1 ? static_branch_inc(&stress_b)
				   : static_branch_dec(&stress_b);
	return (i / 2) & 1 ? static_branch_disable(&stress_a)
			   : static_branch_enable(&stress_a);
}

static unsigned long *seq_of(long i)
{
	return i & 1 ? &seq_b : &seq_a;
}

static int run_stress(long flips, long nthreads)
{
	struct seq_worker *w, sum;
	struct ulsm_stats st;
	long failed;

	w = seq_start(nthreads, worker_main);
	if (!w)
		return 1;
	failed = seq_run_updates(flips, seq_of, flip, "flip");
	sum = seq_join(w, nthreads);
	ulsm_get_stats(&st);
	diag("%ld flips, %ld threads, back end %s, sync %s", flips, nthreads,
	     ulsm_backend(), ulsm_sync_method());
	diag("%lu site runs: %lu checked strictly, %lu overlapped a flip",
	     sum.runs, sum.strict, sum.overlapped);
	diag("%lu batches, %lu core syncs, traps: %lu emulated, %lu rewound",
	     st.batches, st.core_syncs, st.traps_emulated, st.traps_rewound);

	is_int(failed, 0, "every flip succeeded");
	is_int(sum.invalid, 0, "every site returned a valid path's value");
	is_int(sum.wrong, 0, "after a completed flip every site took the new path");
	ok(sum.strict > 0, "some runs were checked strictly (%lu)", sum.strict);
	ok(sum.runs > (unsigned long)flips / 4,
	   "the workers ran during the flips (%lu runs)", sum.runs);
	is_int(seq_a / 2 + seq_b / 2, flips, "all flips counted");
	return 0;
}

#endif /* ULSM_TESTS_STRESS_H */
