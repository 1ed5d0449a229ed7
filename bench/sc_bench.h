/* SPDX-License-Identifier: MIT */
/*
 * bench/sc_bench.h - what bench_static_call.c, sc_loops.c and sc_target.c
 * share.
 *
 * The question needs code compiled with different flags in one program
 * (a retpoline build's function-pointer call next to a plain build's static
 * call), and flags are per translation unit. So sc_loops.c (the timed
 * loops) and sc_target.c (the function they call) are compiled once per
 * variant, with -DVARIANT=<variant> and that variant's flags:
 *
 *   plain      no extra flags
 *   retpoline  indirect calls through a retpoline thunk
 *              (gcc -mindirect-branch=thunk, clang -mretpoline)
 *   rethunk    retpolines and every return through a return thunk
 *              (gcc -mindirect-branch=thunk -mfunction-return=thunk)
 *   rpbare     the retpoline flags without ULSM_RETPOLINE: a retpoline
 *              build whose far forms are bare "jmp *", as they all were
 *              before ULSM_RETPOLINE (only its far rows are timed)
 *
 * (retpoline and rethunk also define ULSM_RETPOLINE, and rethunk
 * ULSM_RETURN_THUNK, as such builds must.)
 *
 * and every symbol of those objects carries its variant in its name:
 * SC_SYM(loop_fnptr, retpoline) is sc_loop_fnptr_retpoline. Each variant
 * has its own target, so that the rethunk loops call a target that
 * returns through the thunk too: the return a call pays for is the
 * target's, not the loop's.
 *
 * A variant whose flags the compiler lacks is still built (without them,
 * so the program links the same way everywhere) and says so by leaving its
 * SC_SYM(flags, v) NULL; the benchmark then leaves its loops out.
 */
#ifndef ULSM_BENCH_SC_BENCH_H
#define ULSM_BENCH_SC_BENCH_H

#include <ulsm/static_call.h>

#define SC_SYM_(what, v)	sc_##what##_##v
#define SC_SYM(what, v)		SC_SYM_(what, v)

/*
 * What one variant's two objects define:
 * @flags:      the variant's compiler flags ("" for plain), NULL if the
 *              compiler has none of them and the variant is absent
 * @target:     the function called: int abs(int), as libc's abs is, so
 *              that the calls to libc's abs compute the same checksum
 * @fnptr:      a global pointer to @target, for the indirect calls
 * @call:       a static call to @target
 * @libc_call:  a static call that starts as RET0 and is pointed at libc's
 *              abs at start-up (out of rel32 reach: the indirect form)
 * @far_init:   ulsm_lsm_init() of the variant's far hook set (sc_far.h),
 *              whose one module's callback is libc's abs
 * @loop_*:     the timed loops, one per way of calling (sc_loops.c)
 */
#define SC_DECLARE_VARIANT(v)						\
	extern const char *const SC_SYM(flags, v);			\
	int SC_SYM(target, v)(int x);					\
	extern int (*SC_SYM(fnptr, v))(int x);				\
	DECLARE_STATIC_CALL(SC_SYM(call, v), SC_SYM(target, v));	\
	DECLARE_STATIC_CALL(SC_SYM(libc_call, v), SC_SYM(target, v));	\
	void SC_SYM(loop_inline, v)(unsigned long n);			\
	void SC_SYM(loop_direct, v)(unsigned long n);			\
	void SC_SYM(loop_static_call, v)(unsigned long n);		\
	void SC_SYM(loop_static_call_inline, v)(unsigned long n);	\
	void SC_SYM(loop_fnptr, v)(unsigned long n);			\
	void SC_SYM(loop_libc, v)(unsigned long n);			\
	void SC_SYM(loop_libc_static_call, v)(unsigned long n);		\
	int SC_SYM(far_init, v)(void);					\
	void SC_SYM(loop_libc_hook, v)(unsigned long n)

SC_DECLARE_VARIANT(plain);
SC_DECLARE_VARIANT(retpoline);
SC_DECLARE_VARIANT(rethunk);
SC_DECLARE_VARIANT(rpbare);

/*
 * Where every loop leaves the sum of what its calls returned (defined in
 * bench_static_call.c). Written once per run, after the loop: the loop
 * itself keeps the sum in a register, as a real caller would use a result.
 */
extern unsigned long sc_sum;

/*
 * The argument of call @i: half of them negative, so that abs has work to
 * do, and never INT_MIN, whose negation would overflow.
 */
static inline int sc_arg(unsigned long i)
{
	return (int)(i & 0xffff) - 0x8000;
}

/* What the target computes, for the inlined baseline and the checksum. */
static inline int sc_abs(int x)
{
	return x < 0 ? -x : x;
}

#endif /* ULSM_BENCH_SC_BENCH_H */
