// SPDX-License-Identifier: MIT
/*
 * The run-time toggle under a stress of dispatching threads. beta denies
 * file_open with -EACCES, the others allow; a flipper turns beta off and on
 * (each toggle is one batch over all of beta's slots) while threads call
 * call_int_hook(file_open). Every result must be 0 or -EACCES, and a call
 * bracketed by the same even sequence number must match the state: a
 * thread that saw the toggle complete sees its effect.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "tap.h"
#include "test_lsm.h"

static unsigned long seq, progress;
static int stop;

struct worker {
	pthread_t thread;
	unsigned long calls, strict, wrong, invalid;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct t_file f = { NULL, 0 };

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned long s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
		int rc = call_int_hook(file_open, &f);

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		unsigned long s2 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);

		w->calls++;
		if (rc != 0 && rc != -EACCES)
			w->invalid++;
		else if (s1 == s2 && !(s1 & 1)) {
			/* beta starts on; each completed toggle flips it. */
			int beta_on = !((s1 / 2) & 1);

			w->strict++;
			if (rc != (beta_on ? -EACCES : 0))
				w->wrong++;
		}
		__atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long toggles = arg_long(argc, argv, "--toggles", 1000);
	long nthreads = arg_long(argc, argv, "--threads", 3);
	struct worker *w;
	struct worker sum = { 0 };
	long failed = 0;

	if (nthreads < 1)
		nthreads = 1;
	w = calloc((size_t)nthreads, sizeof(*w));
	tl_defaults();
	tl_ret[M_BETA][tl_hook_idx_file_open] = -EACCES;
	is_int(ulsm_lsm_init(&tl_hook_set, "alpha,beta"), 0, "init");
	is_int(ulsm_lsm_allow_toggle(&tl_hook_set), 0, "opt in to toggling");
	is_int(ulsm_lsm_seal(&tl_hook_set), 0, "seal (slot keys stay writable)");
	is_int(ulsm_lsm_toggle(&tl_hook_set, "nosuch", false), -ENOENT,
	       "toggling an unknown module -> -ENOENT");
	is_int(ulsm_lsm_toggle(&tl_hook_set, "omega", false), -ENOENT,
	       "toggling a module that is not active -> -ENOENT");

	for (long i = 0; i < nthreads; i++)
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	for (long i = 0; i < toggles; i++) {
		unsigned long seen = __atomic_load_n(&progress, __ATOMIC_RELAXED);
		int ret;

		while (__atomic_load_n(&progress, __ATOMIC_RELAXED) == seen)
			sched_yield();
		__atomic_store_n(&seq, seq + 1, __ATOMIC_SEQ_CST);
		ret = ulsm_lsm_toggle(&tl_hook_set, "beta", i & 1);
		__atomic_store_n(&seq, seq + 1, __ATOMIC_SEQ_CST);
		if (ret) {
			diag("toggle %ld failed: %d (%s)", i, ret, ulsm_last_error());
			failed++;
			break;
		}
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
	diag("%ld toggles, %ld threads, %lu calls, %lu checked strictly (%s)",
	     toggles, nthreads, sum.calls, sum.strict, ulsm_backend());
	is_int(failed, 0, "every toggle succeeded");
	is_int(sum.invalid, 0, "every call returned 0 or -EACCES");
	is_int(sum.wrong, 0, "after a completed toggle every call saw it");
	ok(sum.strict > 0, "calls were checked strictly");
	ok(!strcmp(ulsm_lsm_list(&tl_hook_set), "capa,alpha,beta"),
	   "the module list is unchanged by toggling");
	return done_testing();
}
