/* SPDX-License-Identifier: MIT */
/* The hooks of set "ar" (t_lsm_arrival; no include guard). */
LSM_HOOK(int, 0, req_check, int request)
LSM_HOOK(void, LSM_RET_VOID, req_done, int request)
LSM_HOOK(void, LSM_RET_VOID, req_open, int request)
