/* SPDX-License-Identifier: MIT */
/*
 * The hooks of set "req", in the kernel's lsm_hook_defs.h form:
 * LSM_HOOK(return type, default, name, parameters). No include guard:
 * <ulsm/lsm_hooks.h> includes it several times.
 *
 * request_check: 0 serves the request; the first module that answers
 *                otherwise (a negative errno) refuses it, and the later
 *                ones are not asked.
 * request_log:   a request that was served; every module hears of it.
 */
LSM_HOOK(int, 0, request_check, int id, const char *path)
LSM_HOOK(void, LSM_RET_VOID, request_log, int id, const char *path)
