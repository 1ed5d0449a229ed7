/* SPDX-License-Identifier: MIT */
/* The hooks of set "pb" (no include guard: expanded several times). */
LSM_HOOK(int, 0, request_check, int request)
LSM_HOOK(void, LSM_RET_VOID, request_log, int request)
