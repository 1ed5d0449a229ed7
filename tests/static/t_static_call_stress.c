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
#include <stdbool.h>
#include <stdlib.h>

#include <ulsm/static_call.h>
#include <ulsm/ulsm.h>

#include "seqcheck.h"
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

static int current;			/* index of the target, set before seq */

__attribute__((noinline)) static long call(long x)
{
	return static_call(target)(x);
}

static void *worker_main(void *arg)
{
	struct seq_worker *w = arg;

	while (seq_running()) {
		unsigned long s1 = seq_begin(&seq_shared);
		int cur = __atomic_load_n(&current, __ATOMIC_RELAXED);
		long got = call(ARG);
		unsigned long s2 = seq_end(&seq_shared);
		bool valid = false;

		for (int i = 0; i < NTARGETS; i++)
			valid |= got == results[i];
		seq_record(w, s1, s2, valid, got == results[cur]);
	}
	return NULL;
}

static unsigned long forms[8];

static int update(long i)
{
	static unsigned int rnd = 1;
	int next, ret, form;

	(void)i;
	rnd = rnd * 1103515245u + 12345u;
	next = (int)((rnd >> 16) % NTARGETS);
	ret = static_call_update(target, targets[next]);
	if (ret)
		return ret;
	__atomic_store_n(&current, next, __ATOMIC_RELAXED);
	form = ulsm_static_call_form(&STATIC_CALL_KEY(target));
	forms[form > 0 && form < 8 ? form : 0]++;
	return 0;
}

int main(int argc, char **argv)
{
	long updates = arg_count(argc, argv, "--updates", 4000);
	long nthreads = seq_threads(argc, argv);
	struct seq_worker *w, sum;
	long failed;

	w = seq_start(nthreads, worker_main);
	failed = seq_run_updates(updates, seq_shared_of, update, "update");
	sum = seq_join(w, nthreads);
	diag("%ld updates, %ld threads, back end %s; %lu calls, %lu checked strictly",
	     updates, nthreads, ulsm_backend(), sum.runs, sum.strict);
	diag("forms after updates: direct %lu, indirect %lu, pointer %lu",
	     forms[ULSM_SC_FORM_DIRECT], forms[ULSM_SC_FORM_INDIRECT],
	     forms[ULSM_SC_FORM_POINTER]);
	is_int(failed, 0, "every update succeeded");
	is_int(sum.invalid, 0, "every call returned one valid target's result");
	is_int(sum.wrong, 0, "after a completed update every call reached the new target");
	ok(sum.strict > 0, "calls were checked strictly (%lu)", sum.strict);
	ok(sum.runs >= (unsigned long)updates, "the threads called during the updates");
	return done_testing();
}
