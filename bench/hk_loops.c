// SPDX-License-Identifier: MIT
/*
 * The timed loops of bench_hooks, compiled once per variant (hk_bench.h),
 * and the variant's descriptor for the driver.
 *
 * Every loop is the same C around a call of one dispatch function (a
 * security_* function of hk_base.c, hk_ulsm.c or hk_limit.c), so the loops
 * differ in the function they call and nothing else. An int loop sums what
 * the dispatches returned (a result that is used cannot be dropped) and
 * leaves the sum in hk_sum, checked after every timed run; the callbacks'
 * own sums check the rest.
 */
#include <stddef.h>

#include "hk_bench.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

/* Aligned like the functions they call, for the same reason. */
#define bench_loop	__attribute__((noinline, aligned(64)))

#define HK_INT_LOOP(name, fn)						\
void HK_SYM(loop_##name, VARIANT)(unsigned long n);			\
bench_loop void HK_SYM(loop_##name, VARIANT)(unsigned long n)		\
{									\
	unsigned long sum = 0;						\
									\
	for (unsigned long i = 0; i < n; i++)				\
		sum += (unsigned long)(long)fn(hk_arg(i));		\
	hk_sum = sum;							\
}

#define HK_VOID_LOOP(name, fn)						\
void HK_SYM(loop_##name, VARIANT)(unsigned long n);			\
bench_loop void HK_SYM(loop_##name, VARIANT)(unsigned long n)		\
{									\
	for (unsigned long i = 0; i < n; i++)				\
		fn(hk_arg(i));						\
}

/* The limit's dispatch functions, one per module count (hk_limit.c). */
#define HK_LIMIT_DECL(k)						\
	int HK_SYM(sec_limit_int_k##k, VARIANT)(int mask);		\
	void HK_SYM(sec_limit_void_k##k, VARIANT)(int x);
#define HK_LIMIT_LOOPS_(k)						\
	HK_LIMIT_DECL(k)						\
	HK_INT_LOOP(limit_int_k##k, HK_SYM(sec_limit_int_k##k, VARIANT)) \
	HK_VOID_LOOP(limit_void_k##k, HK_SYM(sec_limit_void_k##k, VARIANT))
#define HK_LIMIT_LOOPS(k)	HK_LIMIT_LOOPS_(k)

HK_INT_LOOP(base_int, HK_SYM(sec_base_int, VARIANT))
HK_VOID_LOOP(base_void, HK_SYM(sec_base_void, VARIANT))
HK_INT_LOOP(ulsm_int, HK_SYM(sec_ulsm_int, VARIANT))
HK_VOID_LOOP(ulsm_void, HK_SYM(sec_ulsm_void, VARIANT))
HK_INT_LOOP(ulsm_c_int, HK_SYM(sec_ulsm_c_int, VARIANT))
HK_VOID_LOOP(ulsm_c_void, HK_SYM(sec_ulsm_c_void, VARIANT))
HK_LIMIT_LOOPS(0)
HK_LIMIT_LOOPS(1)
HK_LIMIT_LOOPS(2)
HK_LIMIT_LOOPS(3)
HK_LIMIT_LOOPS(HK_MAX)

#define HK_L(kind, k)	HK_SYM(loop_limit_##kind##_k##k, VARIANT)
#define HK_LK(kind, k)	HK_L(kind, k)

const struct hk_variant HK_SYM(variant, VARIANT) = {
#ifdef SC_FLAGS
	.flags = SC_FLAGS,
#else
	.flags = NULL,
#endif
	.base_int = HK_SYM(loop_base_int, VARIANT),
	.base_void = HK_SYM(loop_base_void, VARIANT),
	.ulsm_int = HK_SYM(loop_ulsm_int, VARIANT),
	.ulsm_void = HK_SYM(loop_ulsm_void, VARIANT),
	.ulsm_c_int = HK_SYM(loop_ulsm_c_int, VARIANT),
	.ulsm_c_void = HK_SYM(loop_ulsm_c_void, VARIANT),
	.limit_int = {
		HK_L(int, 0), HK_L(int, 1), HK_L(int, 2), HK_L(int, 3),
		HK_LK(int, HK_MAX),
	},
	.limit_void = {
		HK_L(void, 0), HK_L(void, 1), HK_L(void, 2), HK_L(void, 3),
		HK_LK(void, HK_MAX),
	},
	.base_set = HK_SYM(base_set, VARIANT),
	.base_add_u = HK_SYM(base_add_u, VARIANT),
	.base_del_u = HK_SYM(base_del_u, VARIANT),
	.ulsm_upd_all = HK_SYM(ulsm_upd_all, VARIANT),
	.set = &HK_HOOK_SET(VARIANT),
	.reg = HK_SYM(reg, VARIANT),
	.sizes = &HK_SYM(sizes, VARIANT),
	.base_sizes = &HK_SYM(base_sizes, VARIANT),
};
