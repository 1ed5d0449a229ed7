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
#include <stdlib.h>

#include <ulsm/static_call.h>

#include "sc_bench.h"

#define ULSM_LSM_DEFINE
#include "sc_far.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline, rethunk or rpbare"
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

/*
 * The far hook's module: its callback is libc's abs itself (in a PIE,
 * the address in this initialiser is libc's own, not a PLT entry).
 */
static const struct lsm_id far_id = { "abs", 1 };
static struct ULSM__CAT(SC_SYM(far, VARIANT), _hook_list) far_hooks[] = {
	LSM_HOOK_INIT(far_abs, abs),
};

static int far_mod_init(void)
{
	return security_add_hooks(far_hooks, 1, &far_id);
}

DEFINE_LSM(abs) = { .name = "abs", .init = far_mod_init, .id = &far_id };

int SC_SYM(far_init, VARIANT)(void)
{
	return ulsm_lsm_init(&ULSM__CAT(SC_SYM(far, VARIANT), _hook_set),
			     "abs");
}

#ifdef SC_FLAGS
const char *const SC_SYM(flags, VARIANT) = SC_FLAGS;
#else
const char *const SC_SYM(flags, VARIANT) = NULL;
#endif
