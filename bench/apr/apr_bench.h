/* SPDX-License-Identifier: MIT */
/*
 * bench/apr/apr_bench.h - real APR hooks against ulsm-apr against the
 * hard-coded calls, on the same callbacks (bench/apr/bench_apr.c).
 *
 * One hook per count of registrations and kind: all_K (RUN_ALL),
 * first_K (RUN_FIRST) and each_K (VOID), K in BA_COUNTS.
 * apr_hooks_impl.c implements them twice, in namespace ra (compiled
 * against APR's header) and ua (against the drop-in); apr_limit.c calls
 * the callbacks in a hard-coded chain. Every callback adds its argument
 * to a global and declines (-1; the VOID hooks' return nothing), so that
 * every registered function runs.
 */
#ifndef BENCH_APR_BENCH_H
#define BENCH_APR_BENCH_H

#include <ulsm/unroll.h>

#define BA_COUNTS(X)	X(1) X(2) X(3) X(8) X(16) X(17) X(20) X(32) X(40)
#define BA_MAX		40
#define BA_OK		0
#define BA_DECLINE	(-1)

extern volatile long ba_sink;

#define BA_CB_DECL(i, x)	int ba_cb##i(long x); void ba_vcb##i(long x);
UNROLL(40, BA_CB_DECL, x)
#define BA_RUNS_DECL(ns, K)						\
	int ns##_run_all_##K(long x);					\
	int ns##_run_first_##K(long x);					\
	void ns##_run_each_##K(long x);
#define BA_RA_DECL(K)	BA_RUNS_DECL(ra, K) BA_RUNS_DECL(lim, K)
#define BA_UA_DECL(K)	BA_RUNS_DECL(ua, K)
BA_COUNTS(BA_RA_DECL)
BA_COUNTS(BA_UA_DECL)

/* The callbacks, by index (apr_cbs.c). */
extern int (*const ba_cbs[BA_MAX])(long);
extern void (*const ba_vcbs[BA_MAX])(long);

/* Register K callbacks on every hook of a namespace, then sort. */
void ra_setup(void);
void ua_setup(void);

#endif
