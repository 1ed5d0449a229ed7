/* SPDX-License-Identifier: MIT */
/* A hook with a double parameter (tests/meta/compile/bad_hook_param.c). */
LSM_HOOK(int, 0, file_open, int flags)
LSM_HOOK(int, 0, scale, double factor)
