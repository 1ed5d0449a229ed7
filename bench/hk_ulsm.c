// SPDX-License-Identifier: MIT
/*
 * ulsm's dispatch in bench_hooks, compiled once per variant (hk_bench.h):
 * the variant's hook set (tables, keys, trampolines) and the functions
 * that dispatch its hooks with call_int_hook and call_void_hook, the
 * security.c of this implementation.
 *
 * Per slot, call_int_hook compiles to two 5-byte sites: the tail key (a
 * jmp out of the walk while this slot and all after it are empty, else a
 * NOP) and the slot key (a NOP while the slot is used, else a jmp over
 * it), then a direct call, patched from the slot's trampoline to the
 * module's callback. No indirect branch anywhere, so retpolines have
 * nothing to do here: objdump -d shows it.
 */
#define ULSM_LSM_DEFINE
#include "hk_set.h"

hk_fn int HK_SYM(sec_ulsm_int, VARIANT)(int mask)
{
	return call_int_hook(file_permission, mask);
}

hk_fn void HK_SYM(sec_ulsm_void, VARIANT)(int x)
{
	call_void_hook(file_free_security, x);
}

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
