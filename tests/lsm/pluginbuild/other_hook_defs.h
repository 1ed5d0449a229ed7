/* SPDX-License-Identifier: MIT */
/*
 * The hooks of set "pb" as a stale plug-in has them: the same names, in
 * another order. Its LSM_HOOK_INIT(request_check, ...) addresses the
 * slots of the host's request_log.
 */
LSM_HOOK(void, LSM_RET_VOID, request_log, int request)
LSM_HOOK(int, 0, request_check, int request)
