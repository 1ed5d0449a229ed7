/* SPDX-License-Identifier: MIT */
/* bench_static_call's far hook (sc_far.h; no include guard). */
LSM_HOOK(int, 0, far_abs, int x)
