// SPDX-License-Identifier: MIT
/*
 * The limit: what a compiler makes of RUN_ALL, RUN_FIRST and VOID when
 * the functions are known at build time, direct calls in a chain.
 */
#include <ulsm/unroll.h>

#include "apr_bench.h"

#define LIM_ALL_STEP(i, x)						\
	rv = ba_cb##i(x);						\
	if (rv != BA_OK && rv != BA_DECLINE)				\
		return rv;
#define LIM_FIRST_STEP(i, x)						\
	rv = ba_cb##i(x);						\
	if (rv != BA_DECLINE)						\
		return rv;
#define LIM_EACH_STEP(i, x)	ba_vcb##i(x);
#define LIM(K)								\
	int lim_run_all_##K(long x)					\
	{								\
		int rv;							\
		UNROLL(K, LIM_ALL_STEP, x)				\
		return BA_OK;						\
	}								\
	int lim_run_first_##K(long x)					\
	{								\
		int rv;							\
		UNROLL(K, LIM_FIRST_STEP, x)				\
		return BA_DECLINE;					\
	}								\
	void lim_run_each_##K(long x)					\
	{								\
		UNROLL(K, LIM_EACH_STEP, x)				\
	}
BA_COUNTS(LIM)
