// SPDX-License-Identifier: MIT
/*
 * What tracing a hook set's dispatch costs (ulsm_lsm_trace,
 * docs/hook-framework.md "Tracing the dispatch"), per module, side by
 * side in one run with the same dispatch untraced and with the
 * hard-coded chain of direct calls to the same callbacks:
 *
 *   hard-coded chain      m0(x), m1(x)... while each allows
 *   ulsm, tracing off     call_int_hook(check, x): the entry as always
 *   ulsm, traced          the same, the set traced (counted per slot,
 *                           timed; its tracepoint has no probe): what
 *                           ulsmctl top's counting costs
 *   ulsm, traced+recorder the same, the recorder on lsm_hook_ht: what
 *                           ulsmctl record --hooks costs
 *
 * for 1, 2 and 3 modules, each a group timed in interleaved rounds
 * (bench/bench.h). Every run is checked: each active module was called
 * once per iteration, the others never.
 *
 * Usage: bench_hook_trace [--quick] [--json FILE]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#define ULSM_LSM_SET		ht
#define ULSM_LSM_HOOK_DEFS	"ht_hook_defs.h"
#define MAX_LSM_COUNT		3
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

#include "bench.h"

#define PROG	"bench_hook_trace"
#define NMOD	3

static unsigned long calls[NMOD], before[NMOD];

#define MODULE(i)							\
	static __attribute__((noinline)) int m##i##_check(int x)	\
	{								\
		calls[i]++;						\
		__asm__ volatile("" : : "r"(x));			\
		return 0;						\
	}								\
	static struct ht_hook_list m##i##_hooks[] = {			\
		LSM_HOOK_INIT(check, m##i##_check),			\
	};								\
	static const struct lsm_id m##i##_id = { .name = "m" #i };	\
	static int m##i##_init(void)					\
	{								\
		security_add_hooks(m##i##_hooks, 1, &m##i##_id);	\
		return 0;						\
	}								\
	DEFINE_LSM(m##i) = { .name = "m" #i, .init = m##i##_init,	\
			     .id = &m##i##_id };
MODULE(0)
MODULE(1)
MODULE(2)

static int (*const chain[NMOD])(int) = { m0_check, m1_check, m2_check };
static unsigned int active;		/* modules on in this group */
static bool traced, recorded;

static __attribute__((noinline, aligned(64))) void loop_chain(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		int rc = 0;

		for (unsigned int m = 0; m < active && !rc; m++)
			rc = chain[m]((int)i);
		__asm__ volatile("" : : "r"(rc));
	}
}

static __attribute__((noinline, aligned(64))) void loop_ulsm(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		int rc = call_int_hook(check, (int)i);

		__asm__ volatile("" : : "r"(rc));
	}
}

/* The set traced, and recorded, as the candidate wants. */
static int want(bool t, bool r)
{
	int ret = 0;

	if (recorded && !r)
		ret = ulsm_trace_disable("lsm_hook_ht") < 0;
	if (!ret && traced && !t)
		ret = ulsm_lsm_trace(&ht_hook_set, false);
	if (!ret && !traced && t)
		ret = ulsm_lsm_trace(&ht_hook_set, true);
	if (!ret && !recorded && r)
		ret = ulsm_trace_enable("lsm_hook_ht") < 0;
	if (ret) {
		fprintf(stderr, PROG ": tracing %s: %s\n", t ? "on" : "off",
			ulsm_last_error());
		return -EIO;
	}
	traced = t;
	recorded = r;
	memcpy(before, calls, sizeof(before));
	if (r)
		ulsm_trace_clear();
	return 0;
}

static int prepare_off(void) { return want(false, false); }
static int prepare_traced(void) { return want(true, false); }
static int prepare_recorded(void) { return want(true, true); }

static int check(unsigned long iters)
{
	for (unsigned int m = 0; m < NMOD; m++)
		if (calls[m] - before[m] != (m < active ? iters : 0)) {
			fprintf(stderr, PROG ": module m%u called %lu times "
				"(want %lu)\n", m, calls[m] - before[m],
				m < active ? iters : 0);
			return -EPROTO;
		}
	return 0;
}

enum { C_CHAIN, C_OFF, C_TRACED, C_RECORDED, C_COUNT };

static struct bench_cand cands[C_COUNT] = {
	[C_CHAIN] = { .name = "hard-coded chain", .run = loop_chain,
		      .prepare = prepare_off, .check = check },
	[C_OFF] = { .name = "ulsm, tracing off", .run = loop_ulsm,
		    .prepare = prepare_off, .check = check },
	[C_TRACED] = { .name = "ulsm, traced (counted)", .run = loop_ulsm,
		       .prepare = prepare_traced, .check = check },
	[C_RECORDED] = { .name = "ulsm, traced + recorder", .run = loop_ulsm,
			 .prepare = prepare_recorded, .check = check },
};

/* Modules 0 .. k-1 on, the others off. */
static int modules_on(unsigned int k)
{
	for (unsigned int m = 0; m < NMOD; m++) {
		char name[4];

		snprintf(name, sizeof(name), "m%u", m);
		if (ulsm_lsm_toggle(&ht_hook_set, name, m < k)) {
			fprintf(stderr, PROG ": toggle %s: %s\n", name,
				ulsm_last_error());
			return -EIO;
		}
	}
	active = k;
	return 0;
}

int main(int argc, char **argv)
{
	bool quick = false;
	const char *json = NULL;
	double per[NMOD + 1][2];
	FILE *jf = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
	}
	bench_run_clock = CLOCK_THREAD_CPUTIME_ID;
	if (ulsm_lsm_allow_toggle(&ht_hook_set) ||
	    ulsm_lsm_init(&ht_hook_set, "m0,m1,m2")) {
		fprintf(stderr, PROG ": the set: %s\n", ulsm_last_error());
		return 1;
	}
	printf("hook tracing benchmark: back end %s; each module's call timed "
	       "with CLOCK_MONOTONIC\n", ulsm_backend());
	for (unsigned int k = 1; k <= NMOD; k++) {
		unsigned long iters;

		if (modules_on(k) || want(true, true))
			return 1;
		iters = bench_calibrate(loop_ulsm, quick ? 2000000 : 10000000);
		if (bench_run(cands, C_COUNT, quick ? 11 : 31, iters))
			return 1;
		printf("\n%u module%s (%lu iterations per run)\n", k,
		       k == 1 ? "" : "s", iters);
		printf("%-30s %12s %12s %9s %9s\n", "candidate",
		       "median ns/it", "min ns/it", "x chain", "x off");
		for (int c = 0; c < C_COUNT; c++)
			bench_print_row(&cands[c], &cands[C_CHAIN],
					&cands[C_OFF]);
		per[k][0] = (cands[C_TRACED].median_ns -
			     cands[C_OFF].median_ns) / k;
		per[k][1] = (cands[C_RECORDED].median_ns -
			     cands[C_OFF].median_ns) / k;
		printf("  per module: traced +%.2f ns, traced and recorded "
		       "+%.2f ns; off / chain %.3f\n", per[k][0], per[k][1],
		       cands[C_OFF].median_ns / cands[C_CHAIN].median_ns);
		if (json && (jf || (jf = fopen(json, "w")))) {
			fprintf(jf, "%s{\"modules\": %u, \"chain_ns\": %.3f, "
				"\"off_ns\": %.3f, \"traced_ns\": %.3f, "
				"\"recorded_ns\": %.3f}", k == 1 ? "[" : ",\n",
				k, cands[C_CHAIN].median_ns,
				cands[C_OFF].median_ns,
				cands[C_TRACED].median_ns,
				cands[C_RECORDED].median_ns);
		}
	}
	if (jf) {
		fprintf(jf, "]\n");
		fclose(jf);
	}
	want(false, false);
	return 0;
}
