/* SPDX-License-Identifier: MIT */
/*
 * The hooks of set "ch" (t_lsm_churn; no include guard: expanded several
 * times), one per shape the framework dispatches: int2 and void2 have an
 * entry on x86-64 (at most six integer parameters), int7 and void7 are
 * dispatched by the unrolled C walk everywhere, and each by the caller's
 * own loop (lsm_for_each_hook).
 */
LSM_HOOK(int, 0, int2, int x, int y)
LSM_HOOK(void, LSM_RET_VOID, void2, int x, int y)
LSM_HOOK(void, LSM_RET_VOID, void7, int x0, int x1, int x2, int x3, int x4,
	 int x5, int x6)
LSM_HOOK(int, 0, each, int x, int y)
LSM_HOOK(int, 0, int7, int x0, int x1, int x2, int x3, int x4, int x5, int x6)
