/* SPDX-License-Identifier: MIT */
/* The hooks of pedantic_unload.c: a set that allows unloading. */
LSM_HOOK(int, -1, request, int fd, const char *what)
LSM_HOOK(void, LSM_RET_VOID, done, int fd)
LSM_HOOK(int, 0, request_alloc, void *blob)
LSM_HOOK(void, LSM_RET_VOID, request_free, void *blob)
