// SPDX-License-Identifier: MIT
/*
 * bench_apr - APR-util's hooks: real libaprutil against ulsm-apr against
 * the hard-coded calls, the same callbacks, one build variant per binary
 * (plain, or retpolines: -mindirect-branch=thunk on every unit).
 *
 * For RUN_ALL, RUN_FIRST and VOID hooks with 1 to 40 registered functions, the
 * three dispatchers are timed side by side in interleaved rounds
 * (bench/bench.h); before timing, each case is run once by each and their
 * results and side effects compared. Prints ns per dispatch, the ratios,
 * the kernel change's table (Delta(%) of ulsm-apr over APR) and whether
 * issue 17's targets are met.
 *
 *	bench_apr [--quick] [--wall]	(--wall: time on the wall clock)
 */
#include <apr_general.h>
#include <apr_hooks.h>
#include <apr_pools.h>

#include <ulsm/apr_hooks.h>
#include <ulsm/ulsm.h>

#include "bench.h"
#include "apr_bench.h"

#ifndef BA_VARIANT
# define BA_VARIANT	"plain"
#endif

enum { I_APR, I_ULSM, I_LIMIT, I_N };

struct ba_case {
	const char *kind;		/* RUN_ALL, RUN_FIRST, VOID */
	const char *hook;		/* all, first, each */
	int k;
	int (*run[I_N])(long);
	void (*loop[I_N])(unsigned long);
	struct bench_cand c[I_N];
};

#define BA_LOOP(ns, kind, K)						\
	__attribute__((noinline, aligned(64))) static void		\
	loop_##ns##_##kind##_##K(unsigned long n)			\
	{								\
		for (unsigned long i = 0; i < n; i++)			\
			ns##_run_##kind##_##K((long)i);			\
	}
/* A VOID hook's run, as the others' for the check: its result is 0. */
#define BA_EACH(ns, K)							\
	static int each_##ns##_##K(long x)				\
	{								\
		ns##_run_each_##K(x);					\
		return 0;						\
	}
#define BA_LOOPS(K)							\
	BA_LOOP(ra, all, K) BA_LOOP(ua, all, K) BA_LOOP(lim, all, K)	\
	BA_LOOP(ra, first, K) BA_LOOP(ua, first, K) BA_LOOP(lim, first, K) \
	BA_LOOP(ra, each, K) BA_LOOP(ua, each, K) BA_LOOP(lim, each, K)	\
	BA_EACH(ra, K) BA_EACH(ua, K) BA_EACH(lim, K)
BA_COUNTS(BA_LOOPS)

#define BA_CASE(K)							\
	{ "RUN_ALL", "all", K,						\
	  { ra_run_all_##K, ua_run_all_##K, lim_run_all_##K },		\
	  { loop_ra_all_##K, loop_ua_all_##K, loop_lim_all_##K } },	\
	{ "RUN_FIRST", "first", K,					\
	  { ra_run_first_##K, ua_run_first_##K, lim_run_first_##K },	\
	  { loop_ra_first_##K, loop_ua_first_##K, loop_lim_first_##K } }, \
	{ "VOID", "each", K,						\
	  { each_ra_##K, each_ua_##K, each_lim_##K },			\
	  { loop_ra_each_##K, loop_ua_each_##K, loop_lim_each_##K } },
static struct ba_case cases[] = { BA_COUNTS(BA_CASE) };
#define NCASES	(sizeof(cases) / sizeof(cases[0]))

static const char *const iname[I_N] = { "APR", "ulsm-apr", "limit" };

/* Each dispatcher once: the same result and the same side effect. */
static int check_case(const struct ba_case *c)
{
	long sink[I_N];
	int rv[I_N];
	for (int i = 0; i < I_N; i++) {
		ba_sink = 0;
		rv[i] = c->run[i](1000);
		sink[i] = ba_sink;
	}
	if (rv[0] != rv[1] || rv[0] != rv[2] || sink[0] != sink[1] ||
	    sink[0] != sink[2]) {
		fprintf(stderr, "bench_apr: %s with %d: results differ: "
			"%d/%ld %d/%ld %d/%ld\n", c->kind, c->k, rv[0], sink[0],
			rv[1], sink[1], rv[2], sink[2]);
		return -1;
	}
	return 0;
}

static int check_slots(void)
{
	char name[32];

	for (size_t i = 0; i < NCASES; i++) {
		int want = cases[i].k < ULSM_APR_SLOTS ? cases[i].k : ULSM_APR_SLOTS;

		snprintf(name, sizeof(name), "%s_%d", cases[i].hook,
			 cases[i].k);
		if (ulsm_apr_hook_slots(name) != want) {
			fprintf(stderr, "bench_apr: hook %s: %d slots in use, "
				"not %d\n", name, ulsm_apr_hook_slots(name), want);
			return -1;
		}
	}
	return 0;
}

static void verdict(const char *what, double q, bool met)
{
	printf("  %-62s %6.2f  %s\n", what, q, met ? "met" : "NOT met");
	bench_target("bench_apr-" BA_VARIANT, what, met, "%.2f", q);
}

int main(int argc, char **argv)
{
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	unsigned int rounds = quick ? 11 : 31;
	bool retpoline = !strcmp(BA_VARIANT, "retpoline");
	apr_pool_t *pool;
	double logsum = 0;
	char label[96];

	/*
	 * The thread's CPU time, not the wall clock: on a shared machine a
	 * long run is preempted more often than a short one (bench.h).
	 */
	if (!(argc > 1 && !strcmp(argv[argc - 1], "--wall")))
		bench_run_clock = CLOCK_THREAD_CPUTIME_ID;
	if (apr_initialize() || apr_pool_create(&pool, NULL)) {
		fprintf(stderr, "bench_apr: APR does not start\n");
		return 1;
	}
	apr_hook_global_pool = pool;
	ra_setup();
	ua_setup();
	if (check_slots())
		return 1;
	for (size_t i = 0; i < NCASES; i++)
		if (check_case(&cases[i]))
			return 1;

	printf("APR-util hooks (%s build): real libaprutil against ulsm-apr "
	       "(%d slots per hook) and the\nhard-coded calls, the same "
	       "callbacks; ns per dispatch (thread CPU time), median of %u rounds\n",
	       BA_VARIANT, ULSM_APR_SLOTS, rounds);
	printf("%-10s %4s %9s %9s %9s %10s %11s\n", "hook", "regs", "APR",
	       "ulsm-apr", "limit", "APR/ulsm", "ulsm/limit");
	for (size_t i = 0; i < NCASES; i++) {
		struct ba_case *c = &cases[i];
		unsigned long iters;

		for (int j = 0; j < I_N; j++)
			c->c[j] = (struct bench_cand){ .name = iname[j],
						       .run = c->loop[j] };
		iters = bench_calibrate(c->loop[I_APR], quick ? 2000000 : 10000000);
		if (bench_run(c->c, I_N, rounds, iters))
			return 1;
		printf("%-10s %4d %9.2f %9.2f %9.2f %10.2f %11.2f\n", c->kind,
		       c->k, c->c[I_APR].median_ns, c->c[I_ULSM].median_ns,
		       c->c[I_LIMIT].median_ns,
		       bench_ratio(c->c[I_APR].median_ns, c->c[I_ULSM].median_ns),
		       bench_ratio(c->c[I_ULSM].median_ns, c->c[I_LIMIT].median_ns));
	}

	printf("\nulsm-apr against APR, the kernel change's table (Delta(%%): "
	       "(APR ns / ulsm-apr ns - 1) x 100)\n\n");
	bench_delta_head();
	for (size_t i = 0; i < NCASES; i++) {
		snprintf(label, sizeof(label), "%s, %d registration%s",
			 cases[i].kind, cases[i].k, cases[i].k > 1 ? "s" : "");
		bench_delta_row(BA_VARIANT, label,
				bench_ratio(cases[i].c[I_APR].median_ns,
					    cases[i].c[I_ULSM].median_ns), &logsum);
	}
	bench_delta_index(BA_VARIANT, logsum, (int)NCASES);

	printf("\nTargets (issue 17):\n");
	for (size_t i = 0; i < NCASES; i++) {
		struct ba_case *c = &cases[i];
		double u = c->c[I_ULSM].median_ns, a = c->c[I_APR].median_ns;

		char what[160];

		snprintf(label, sizeof(label), "%s, %d: ", c->kind, c->k);
		if (!retpoline && c->k <= 3) {
			snprintf(what, sizeof(what), "%sulsm-apr / limit <= 1.10",
				 label);
			verdict(what, bench_ratio(u, c->c[I_LIMIT].median_ns),
				u <= 1.10 * c->c[I_LIMIT].median_ns);
		}
		if (!retpoline) {
			snprintf(what, sizeof(what), "%sAPR / ulsm-apr >= 1 "
				 "(never slower)", label);
			verdict(what, bench_ratio(a, u), a >= u);
		} else if (c->k >= 2) {
			snprintf(what, sizeof(what), "%sAPR / ulsm-apr >= 5",
				 label);
			verdict(what, bench_ratio(a, u), a >= 5 * u);
		}
	}
	apr_terminate();
	return 0;
}
