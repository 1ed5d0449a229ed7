// SPDX-License-Identifier: MIT
/*
 * Retarget a static call while threads call through it. The targets cover
 * every trampoline form: two functions in reach (direct), libc's labs (in
 * another object, usually out of rel32 reach: indirect), and
 * __static_call_return0 (in libulsm). With the argument -100 their results are
 * -99, -98, 100 and 0: a call that returns anything else went wrong.
 *
 * As in stress.h, a call bracketed by the same even sequence number (no
 * update started or in progress) must return the current target's result:
 * a thread that observed an update's completion calls the new target.
 * Short in `make check`; `make stress` passes --updates 100000.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include <ulsm/static_call.h>
#include <ulsm/ulsm.h>

#include "tap.h"

#define ARG (-100L)

static long plus1(long x) { return x + 1; }
static long plus2(long x) { return x + 2; }

DEFINE_STATIC_CALL(target, plus1);

static long (*const targets[])(long) = {
	plus1, plus2, labs, (long (*)(long))(void *)__static_call_return0,
};
static const long results[] = { -99, -98, 100, 0 };
#define NTARGETS 4

static unsigned long seq;		/* 2 * updates completed (+1 in one) */
static int current;			/* index of the target, set before seq */
static unsigned long progress;
static int stop;

struct worker {
	pthread_t thread;
	unsigned long calls, strict, wrong, invalid;
};

__attribute__((noinline)) static long call(long x)
{
	return static_call(target)(x);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned long s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
		int cur = __atomic_load_n(&current, __ATOMIC_RELAXED);
		long got = call(ARG);
		int valid = 0;

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		unsigned long s2 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);

		w->calls++;
		for (int i = 0; i < NTARGETS; i++)
			valid |= got == results[i];
		if (!valid)
			w->invalid++;
		else if (s1 == s2 && !(s1 & 1)) {
			w->strict++;
			if (got != results[cur])
				w->wrong++;
		}
		__atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long updates = arg_long(argc, argv, "--updates", 4000);
	long nthreads = arg_long(argc, argv, "--threads", 3);

	if (nthreads < 1)
		nthreads = 1;	/* the updater waits for a caller between updates */
	struct worker *w = calloc((size_t)nthreads, sizeof(*w)), sum = { 0 };
	unsigned long forms[8] = { 0 };
	long failed = 0;
	unsigned int rnd = 1;

	for (long i = 0; i < nthreads; i++)
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	for (long i = 0; i < updates; i++) {
		unsigned long seen = __atomic_load_n(&progress, __ATOMIC_RELAXED);
		int next, ret, form;

		while (__atomic_load_n(&progress, __ATOMIC_RELAXED) == seen)
			sched_yield();
		rnd = rnd * 1103515245u + 12345u;
		next = (int)((rnd >> 16) % NTARGETS);
		__atomic_store_n(&seq, seq + 1, __ATOMIC_SEQ_CST);
		ret = static_call_update(target, targets[next]);
		if (!ret)
			__atomic_store_n(&current, next, __ATOMIC_RELAXED);
		__atomic_store_n(&seq, seq + 1, __ATOMIC_SEQ_CST);
		if (ret) {
			diag("update %ld failed: %d (%s)", i, ret, ulsm_last_error());
			failed++;
			break;
		}
		form = ulsm_static_call_form(&STATIC_CALL_KEY(target));
		forms[form > 0 && form < 8 ? form : 0]++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (long i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		sum.calls += w[i].calls;
		sum.strict += w[i].strict;
		sum.wrong += w[i].wrong;
		sum.invalid += w[i].invalid;
	}
	free(w);
	diag("%ld updates, %ld threads, back end %s; %lu calls, %lu checked strictly",
	     updates, nthreads, ulsm_backend(), sum.calls, sum.strict);
	diag("forms after updates: direct %lu, indirect %lu, pointer %lu",
	     forms[ULSM_SC_FORM_DIRECT], forms[ULSM_SC_FORM_INDIRECT],
	     forms[ULSM_SC_FORM_POINTER]);
	is_int(failed, 0, "every update succeeded");
	is_int(sum.invalid, 0, "every call returned one valid target's result");
	is_int(sum.wrong, 0, "after a completed update every call reached the new target");
	ok(sum.strict > 0, "calls were checked strictly (%lu)", sum.strict);
	ok(sum.calls >= (unsigned long)updates, "the threads called during the updates");
	return done_testing();
}
