// SPDX-License-Identifier: MIT
/*
 * The hooks, implemented with APR's macros in namespace NS: ra when
 * compiled against APR's <apr_hooks.h>, ua against ulsm-apr's (the same
 * source, another include path). The run functions are called from
 * another unit (bench_apr.c), as httpd's ap_run_* are.
 */
#include <apr_hooks.h>

#include "apr_bench.h"

#define BA_DECLARE(type)	type

#define BA_DECL_(ns, K)							\
	APR_DECLARE_EXTERNAL_HOOK(ns, BA, int, all_##K, (long x))	\
	APR_DECLARE_EXTERNAL_HOOK(ns, BA, int, first_##K, (long x))	\
	APR_DECLARE_EXTERNAL_HOOK(ns, BA, void, each_##K, (long x))
#define BA_DECL(K)	BA_DECL_(NS, K)
BA_COUNTS(BA_DECL)

#define BA_LINKS(K)							\
	APR_HOOK_LINK(all_##K) APR_HOOK_LINK(first_##K) APR_HOOK_LINK(each_##K)
APR_HOOK_STRUCT(BA_COUNTS(BA_LINKS))

#define BA_IMPL_(ns, K)							\
	APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(ns, BA, int, all_##K,	\
		(long x), (x), BA_OK, BA_DECLINE)			\
	APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(ns, BA, int, first_##K,	\
		(long x), (x), BA_DECLINE)				\
	APR_IMPLEMENT_EXTERNAL_HOOK_VOID(ns, BA, each_##K, (long x), (x))
#define BA_IMPL(K)	BA_IMPL_(NS, K)
BA_COUNTS(BA_IMPL)

/* K callbacks on each hook, in order (nOrder = i), then APR's sort. */
#define BA_REG_(ns, K)							\
	for (int i = 0; i < K; i++) {					\
		ns##_hook_all_##K(ba_cbs[i], NULL, NULL, i);		\
		ns##_hook_first_##K(ba_cbs[i], NULL, NULL, i);		\
		ns##_hook_each_##K(ba_vcbs[i], NULL, NULL, i);		\
	}
#define BA_REG__(ns, K)	BA_REG_(ns, K)
#define BA_REG(K)	BA_REG__(NS, K)
#define BA_SETUP_(ns)	ns##_setup
#define BA_SETUP(ns)	BA_SETUP_(ns)

void BA_SETUP(NS)(void)
{
	BA_COUNTS(BA_REG)
	apr_hook_sort_all();
}
