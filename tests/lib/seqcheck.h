/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/seqcheck.h - the completion check shared by the stress tests.
 *
 * The updater brackets each update with a sequence number: odd while the
 * update runs, even once the update call has returned. A worker reads the
 * sequence (acquire), does its work, then reads it again after an acquire
 * fence (so that the work's own loads cannot move after the second read).
 * If both reads saw the same even value, no update overlapped the work,
 * and the work must see the state of that sequence number: a thread that
 * observed an update's completion sees its effect.
 *
 * The updater waits for some worker progress between updates, so that a
 * very fast update (one store on the generic back end) cannot outrun the
 * workers.
 */
#ifndef ULSM_TESTS_SEQCHECK_H
#define ULSM_TESTS_SEQCHECK_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include <ulsm/ulsm.h>

#include "tap.h"

struct seq_worker {
	pthread_t thread;
	unsigned long runs, strict, overlapped, wrong, invalid;
};

static unsigned long seq_progress;
static int seq_stop;

__attribute__((unused))
static unsigned long seq_begin(const unsigned long *seq)
{
	return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

__attribute__((unused))
static unsigned long seq_end(const unsigned long *seq)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(seq, __ATOMIC_ACQUIRE);
}

/* Nothing overlapped the work between the two reads. */
__attribute__((unused))
static bool seq_stable(unsigned long s1, unsigned long s2)
{
	return s1 == s2 && !(s1 & 1);
}

/* Record one checked run; @expected is meaningful only when stable. */
__attribute__((unused))
static void seq_record(struct seq_worker *w, unsigned long s1, unsigned long s2,
		       bool valid, bool as_expected)
{
	w->runs++;
	if (!valid)
		w->invalid++;
	else if (seq_stable(s1, s2)) {
		w->strict++;
		if (!as_expected)
			w->wrong++;
	} else {
		w->overlapped++;
	}
	__atomic_fetch_add(&seq_progress, 1, __ATOMIC_RELAXED);
}

__attribute__((unused))
static bool seq_running(void)
{
	return !__atomic_load_n(&seq_stop, __ATOMIC_RELAXED);
}

/* One sequence for every update: what most tests bracket updates with. */
static unsigned long seq_shared __attribute__((unused));

__attribute__((unused))
static unsigned long *seq_shared_of(long i)
{
	(void)i;
	return &seq_shared;
}

/*
 * Run @update(i) for i < n, each bracketed by the sequence @seq_of(i)
 * returns; stop at the first failure and return 1, else 0.
 */
__attribute__((unused))
static long seq_run_updates(long n, unsigned long *(*seq_of)(long i),
			    int (*update)(long i), const char *what)
{
	for (long i = 0; i < n; i++) {
		unsigned long seen = __atomic_load_n(&seq_progress,
						     __ATOMIC_RELAXED);
		unsigned long *seq = seq_of(i);
		int ret;

		while (__atomic_load_n(&seq_progress, __ATOMIC_RELAXED) == seen)
			sched_yield();
		__atomic_store_n(seq, *seq + 1, __ATOMIC_SEQ_CST);
		ret = update(i);
		__atomic_store_n(seq, *seq + 1, __ATOMIC_SEQ_CST);
		if (ret) {
			diag("%s %ld failed: %d (%s)", what, i, ret,
			     ulsm_last_error());
			return 1;
		}
	}
	return 0;
}

/*
 * How many workers: --threads N (3 by default), at least one, since the
 * updater waits for a worker's progress between updates.
 */
__attribute__((unused))
static long seq_threads(int argc, char **argv)
{
	long n = arg_long(argc, argv, "--threads", 3);

	return n < 1 ? 1 : n;
}

/* Start @n workers running @fn, each on its own struct seq_worker. */
__attribute__((unused))
static struct seq_worker *seq_start(long n, void *(*fn)(void *))
{
	struct seq_worker *w = calloc((size_t)n, sizeof(*w));

	for (long i = 0; w && i < n; i++)
		if (pthread_create(&w[i].thread, NULL, fn, &w[i]))
			abort();
	return w;
}

/* Stop and join the workers; their counts summed. */
__attribute__((unused))
static struct seq_worker seq_join(struct seq_worker *w, long n)
{
	struct seq_worker sum = { 0 };

	__atomic_store_n(&seq_stop, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		sum.runs += w[i].runs;
		sum.strict += w[i].strict;
		sum.overlapped += w[i].overlapped;
		sum.wrong += w[i].wrong;
		sum.invalid += w[i].invalid;
	}
	free(w);
	return sum;
}

/*
 * Call sites retargeted between two functions while threads call them
 * (t_lsm_call_sites, t_static_call_inline): seq_call() answers seq_first
 * before the first update, then seq_second and seq_first in turn (update
 * i completes at sequence 2i+2).
 */
static int (*seq_call)(void) __attribute__((unused));
static int seq_first __attribute__((unused)), seq_second __attribute__((unused));

__attribute__((unused))
static void *seq_alternate(void *arg)
{
	struct seq_worker *w = arg;

	while (seq_running()) {
		unsigned long s1 = seq_begin(&seq_shared);
		int rc = seq_call();
		unsigned long s2 = seq_end(&seq_shared);
		int want = (s1 / 2) & 1 ? seq_second : seq_first;

		seq_record(w, s1, s2, rc == seq_first || rc == seq_second,
			   rc == want);
	}
	return NULL;
}

/*
 * seq_alternation - @nthreads threads run @call, which answers @first
 * and then @second and @first in turn, while @flip makes @updates updates;
 * the checks, with @targets naming the two functions.
 */
__attribute__((unused))
static void seq_alternation(long updates, long nthreads, int (*call)(void),
			    int first, int second, int (*flip)(long i),
			    const char *what, const char *targets)
{
	struct ulsm_stats st0, st1;
	struct seq_worker *w, sum;
	long failed;

	seq_call = call;
	seq_first = first;
	seq_second = second;
	ulsm_get_stats(&st0);
	w = seq_start(nthreads, seq_alternate);
	failed = seq_run_updates(updates, seq_shared_of, flip, what);
	sum = seq_join(w, nthreads);
	ulsm_get_stats(&st1);
	diag("%ld updates, %ld threads, %lu calls, %lu checked strictly, "
	     "%lu traps emulated", updates, nthreads, sum.runs, sum.strict,
	     st1.traps_emulated - st0.traps_emulated);
	is_int(failed, 0, "every update succeeded");
	is_int(sum.invalid, 0, "every call reached %s", targets);
	is_int(sum.wrong, 0, "after a completed update every call saw it");
	ok(sum.strict > 0, "calls were checked strictly");
}

#endif /* ULSM_TESTS_SEQCHECK_H */
