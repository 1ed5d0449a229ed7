// SPDX-License-Identifier: MIT
/*
 * ulsm's dispatch in bench_hooks, compiled once per variant (hk_bench.h):
 * the variant's hook set (tables, keys, trampolines, the hooks' entries)
 * and the functions that dispatch its hooks, the security.c of this
 * implementation.
 *
 * Each timed hook is dispatched two ways:
 *
 *   ulsm     the security_* function is the hook's entry itself
 *            (DEFINE_LSM_HOOK_ENTRY): its code is the entry's, patched
 *            to the modules' callbacks (<ulsm/arch/x86_64.h> shows it);
 *   ulsm_c   the security_* function is C around call_int_hook /
 *            call_void_hook, as the kernel writes them: the compiler
 *            makes it one jmp to the same entry.
 *
 * On a back end without entries both are the C function, dispatching
 * with the unrolled walk. No indirect branch in either on x86-64: objdump
 * -d shows it. The rethunk variant's set returns through the return
 * thunk, as the variant's compiled code does (ULSM_RETURN_THUNK, set by
 * the Makefile).
 */
#define ULSM_LSM_DEFINE
#include "hk_set.h"

hk_fn int HK_SYM(sec_ulsm_c_int, VARIANT)(int mask)
{
	return call_int_hook(file_permission, mask);
}

hk_fn void HK_SYM(sec_ulsm_c_void, VARIANT)(int x)
{
	call_void_hook(file_free_security, x);
}

#ifdef ULSM_LSM_HAS_ENTRIES
DEFINE_LSM_HOOK_ENTRY(HK_SYM(sec_ulsm_int, VARIANT), file_permission);
DEFINE_LSM_HOOK_ENTRY(HK_SYM(sec_ulsm_void, VARIANT), file_free_security);
#else
hk_fn int HK_SYM(sec_ulsm_int, VARIANT)(int mask)
{
	return call_int_hook(file_permission, mask);
}

hk_fn void HK_SYM(sec_ulsm_void, VARIANT)(int x)
{
	call_void_hook(file_free_security, x);
}
#endif

/*
 * Every upd_* hook once: what the threads of the update-cost test run
 * while modules are switched, so that each slot key switched has a site
 * that is being executed while it is patched.
 */
#define HK_UPD_CALL(NAME)	rc |= call_int_hook(NAME, x);

int HK_SYM(ulsm_upd_all, VARIANT)(int x)
{
	int rc = 0;

	HK_FOR_EACH_UPD(HK_UPD_CALL)
	return rc;
}

#define HK_SEALED	ULSM__CAT(HK_SET, _lsm_sealed)
#define HK_KEYS		ULSM__CAT(HK_SET, _lsm_keys)

const struct hk_sizes HK_SYM(sizes, VARIANT) = {
	.table = sizeof(HK_SEALED.table.file_permission),
	.calls = sizeof(HK_SEALED.calls.file_permission),
	.keys = sizeof(HK_KEYS.k.file_permission),
	.hook_list = sizeof(struct ULSM__CAT(HK_SET, _hook_list)),
};
