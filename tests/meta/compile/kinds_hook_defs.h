/* SPDX-License-Identifier: MIT */
/*
 * Hooks of both kinds, each dispatched both ways on x86-64: by its entry
 * (at most six parameters) and by the unrolled C walk (seven). For
 * bad_call_int_on_void.c, bad_call_void_on_int.c, bad_hook_init_type.c
 * and good_hook_kinds.c.
 */
LSM_HOOK(int, 0, file_open, const char *path)
LSM_HOOK(void, LSM_RET_VOID, file_close, const char *path)
LSM_HOOK(int, 0, seven, int a, int b, int c, int d, int e, int f, int g)
LSM_HOOK(void, LSM_RET_VOID, seven_void, int a, int b, int c, int d, int e,
	 int f, int g)
