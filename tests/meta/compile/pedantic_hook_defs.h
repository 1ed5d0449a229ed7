/* SPDX-License-Identifier: MIT */
/*
 * The hook list of pedantic_set.c and pedantic_module.c: int and void
 * hooks, with an entry (x86-64) and with the C walk (seven parameters,
 * a double), a hook whose list is void, and the hooks of the kernel's
 * blob pattern.
 */
LSM_HOOK(int, 0, file_open, const char *path)
LSM_HOOK(void, LSM_RET_VOID, file_close, const char *path)
LSM_HOOK(int, 0, file_alloc, void *blob)
LSM_HOOK(void, LSM_RET_VOID, file_free, void *blob)
LSM_HOOK(long, -1, seven, int a, int b, int c, int d, int e, int f, int g)
LSM_HOOK(void, LSM_RET_VOID, seven_void, int a, int b, int c, int d, int e,
	 int f, int g)
LSM_HOOK(bool, true, allowed, unsigned int uid)
LSM_HOOK(int, 0, scaled, double factor)
LSM_HOOK(int, 0, noargs, void)
