/* SPDX-License-Identifier: MIT */
/* The control demo's hook list (no include guard: lsm_hooks.h's form). */
LSM_HOOK(int, 0, req_check, int id)
