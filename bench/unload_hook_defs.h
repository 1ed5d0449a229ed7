/* SPDX-License-Identifier: MIT */
/* bench_unload's hook (no include guard: expanded once per set). */
LSM_HOOK(int, 0, req_check, int request)
