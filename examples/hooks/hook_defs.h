/* SPDX-License-Identifier: MIT */
/*
 * The host's hook list, the kernel's lsm_hook_defs.h form: one line per
 * hook, LSM_HOOK(return type, default, name, arguments). No include guard:
 * <ulsm/lsm_hooks.h> includes it several times.
 */
LSM_HOOK(int, 0, file_open, const char *path)
LSM_HOOK(void, LSM_RET_VOID, file_close, const char *path)
