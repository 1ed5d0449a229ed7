/* SPDX-License-Identifier: MIT */
/* The hooks of set "rp" (t_retpoline; no include guard). */
LSM_HOOK(int, 0, rp_int, int x)
LSM_HOOK(void, LSM_RET_VOID, rp_void, int x)
LSM_HOOK(int, 0, rp_walk, int x)
