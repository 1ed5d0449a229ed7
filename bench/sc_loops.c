// SPDX-License-Identifier: MIT
/*
 * The timed loops of bench_static_call, compiled once per variant (see
 * sc_bench.h): the same C, code-generated with and without retpolines and
 * return thunks.
 *
 * Every loop is SC_LOOP() below: only the expression naming the function
 * called differs, so the loops differ in the call instruction and nothing
 * else (objdump -d shows it). Each runs @n calls with a changing argument
 * and sums the results: a call whose result is used cannot be dropped,
 * and the sum is checked after every timed run.
 */
#include <ulsm/static_call.h>

#include "sc_bench.h"
#include "sc_far.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline, rethunk or rpbare"
#endif

/*
 * libc's abs, called for real: through the PLT, as any call from a program
 * to a shared library is. Called as abs, it is a builtin that both
 * compilers expand inline. gcc does not recognise the builtin under
 * another name (the asm label); clang does, and needs to be told on each
 * function that calls it (no_builtin applies to definitions only).
 */
extern int sc_libc_abs(int x) __asm__("abs");

#ifdef __clang__
# define SC_NO_BUILTIN_ABS	__attribute__((no_builtin("abs")))
#else
# define SC_NO_BUILTIN_ABS
#endif

/*
 * Aligned to 64 bytes for the reason given in bench_static_key.c. Every
 * loop gets the same attributes, so that only the call differs.
 */
#define bench_loop	__attribute__((noinline, aligned(64))) SC_NO_BUILTIN_ABS

/*
 * The first empty asm is the static-key benchmark's, for the same reason:
 * it keeps the inlined baseline from being vectorised into something that
 * is no longer one abs per iteration. The other loops carry it too, so
 * that the baseline is the same loop minus the call. The second, right
 * after the call, is what static_call_inline() has there (the asm label
 * of its site): every loop gets it, so that the compiler schedules the
 * loop's other instructions around the call alike in all of them.
 */
#define SC_LOOP_CALL(how, CALL)						\
bench_loop void SC_SYM(loop_##how, VARIANT)(unsigned long n)		\
{									\
	unsigned long sum = 0;						\
									\
	for (unsigned long i = 0; i < n; i++) {				\
		int r;							\
									\
		__asm__ volatile("");					\
		r = CALL(sc_arg(i));					\
		__asm__ volatile("");					\
		sum += (unsigned long)r;				\
	}								\
	sc_sum = sum;							\
}
#define SC_LOOP(how, fn)	SC_LOOP_CALL(how, (fn))

/* static_call_inline(): the call site itself is recorded and patched. */
#define SC_INLINE_SITE(x)	static_call_inline(SC_SYM(call, VARIANT), x)

/*
 * The function pointer is read with a relaxed atomic load: re-read on every
 * call, as a pointer another thread may change must be, and opaque to the
 * compiler, which could otherwise see that nobody in this file changes it
 * and hoist the load (or, with LTO, call the target directly).
 */
#define SC_FNPTR							\
	__atomic_load_n(&SC_SYM(fnptr, VARIANT), __ATOMIC_RELAXED)

SC_LOOP(inline, sc_abs)
SC_LOOP(direct, SC_SYM(target, VARIANT))
SC_LOOP(static_call, static_call(SC_SYM(call, VARIANT)))
SC_LOOP_CALL(static_call_inline, SC_INLINE_SITE)
SC_LOOP(fnptr, SC_FNPTR)
SC_LOOP(libc, sc_libc_abs)
SC_LOOP(libc_static_call, static_call(SC_SYM(libc_call, VARIANT)))

/* The far hook (sc_far.h): its entry, then libc's abs through I0. */
#define SC_FAR_HOOK(x)	call_int_hook(far_abs, x)
SC_LOOP_CALL(libc_hook, SC_FAR_HOOK)
