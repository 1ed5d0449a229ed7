/* SPDX-License-Identifier: MIT */
/* bench_hook_trace's one hook (no include guard). */
LSM_HOOK(int, 0, check, int x)
