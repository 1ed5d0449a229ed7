// SPDX-License-Identifier: MIT
/*
 * The physical limit in bench_hooks, compiled once per variant
 * (hk_bench.h): for each module count k, a function that calls the first k
 * modules' callbacks directly, with call_int_hook's rule (stop at the
 * first result that is not the default, 0). What a dispatcher would be if
 * the modules were known when the program is compiled.
 *
 * With k = 0 it is an empty function: the reference for an empty hook.
 */
#include <ulsm/unroll.h>

#include "hk_bench.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

#define HK_LIMIT_INT_CALL(M, v)						\
	rc = HK_SYM(m##M##_file_permission, v)(mask);			\
	if (rc != 0)							\
		return rc;
#define HK_LIMIT_VOID_CALL(M, v)					\
	HK_SYM(m##M##_file_free_security, v)(x);

#define HK_LIMIT_(K)							\
int HK_SYM(sec_limit_int_k##K, VARIANT)(int mask);			\
void HK_SYM(sec_limit_void_k##K, VARIANT)(int x);			\
hk_fn int HK_SYM(sec_limit_int_k##K, VARIANT)(int mask)			\
{									\
	int rc = 0;							\
									\
	(void)mask;							\
	UNROLL(K, HK_LIMIT_INT_CALL, VARIANT)				\
	return rc;							\
}									\
hk_fn void HK_SYM(sec_limit_void_k##K, VARIANT)(int x)			\
{									\
	(void)x;							\
	UNROLL(K, HK_LIMIT_VOID_CALL, VARIANT)				\
}
#define HK_LIMIT(K)	HK_LIMIT_(K)

/* The module counts measured (HK_NCOUNTS of them). */
HK_LIMIT(0)
HK_LIMIT(1)
HK_LIMIT(2)
HK_LIMIT(3)
HK_LIMIT(HK_MAX)
