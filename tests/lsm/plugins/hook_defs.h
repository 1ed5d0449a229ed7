/* SPDX-License-Identifier: MIT */
/* The hooks of set "pg" (no include guard: expanded several times). */
LSM_HOOK(int, 0, req_check, int request)
LSM_HOOK(void, LSM_RET_VOID, req_log, int request)
