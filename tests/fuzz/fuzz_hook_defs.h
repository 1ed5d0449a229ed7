/* SPDX-License-Identifier: MIT */
/* fuzz_control's hook set, "fz" (no include guard). */
LSM_HOOK(int, 0, req_check, int req)
