// SPDX-License-Identifier: MIT
/*
 * The function bench_static_call's loops call, and the pointer and static
 * calls that reach it; compiled once per variant (see sc_bench.h).
 *
 * It lives apart from the loops so that the compiler, which sees one
 * translation unit at a time, cannot inline it into the direct-call loop
 * or specialise the loop for it: every candidate makes a real call.
 */
#include <stddef.h>

#include <ulsm/static_call.h>

#include "sc_bench.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

#define TARGET	SC_SYM(target, VARIANT)

/*
 * Aligned like the loops (bench_static_key.c says why), so that where the
 * linker places each variant's copy does not decide its result.
 */
__attribute__((noinline, aligned(64))) int TARGET(int x)
{
	return sc_abs(x);
}

int (*SC_SYM(fnptr, VARIANT))(int x) = TARGET;

DEFINE_STATIC_CALL(SC_SYM(call, VARIANT), TARGET);

/*
 * RET0 rather than TARGET: if pointing it at libc's abs ever silently
 * failed, its loop would sum zeros and fail the checksum, instead of
 * passing with a call that never left this object.
 */
DEFINE_STATIC_CALL_RET0(SC_SYM(libc_call, VARIANT), TARGET);

#ifdef SC_FLAGS
const char *const SC_SYM(flags, VARIANT) = SC_FLAGS;
#else
const char *const SC_SYM(flags, VARIANT) = NULL;
#endif
