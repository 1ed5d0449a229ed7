/* SPDX-License-Identifier: MIT */
/*
 * The test suite's hook list, in the kernel's form (no include guard: it is
 * expanded several times). Defaults and special rules follow the kernel's
 * hooks of the same names.
 */
LSM_HOOK(int, 0, file_open, struct t_file *file)
LSM_HOOK(int, 0, file_alloc_security, struct t_file *file)
LSM_HOOK(void, LSM_RET_VOID, file_free_security, struct t_file *file)
LSM_HOOK(void, LSM_RET_VOID, trace, int event)
LSM_HOOK(int, 0, vm_enough_memory, long pages)
LSM_HOOK(int, -ENOPARAM, fs_context_parse_param, const char *param)
LSM_HOOK(int, -EOPNOTSUPP, secid_to_secctx, uint32_t secid, char *buf, size_t len)
LSM_HOOK(int, -EINVAL, getprocattr, const char *name, char *buf, size_t len)
LSM_HOOK(int, -EOPNOTSUPP, setselfattr, const char *value)
LSM_HOOK(int, -EOPNOTSUPP, getselfattr, char *buf, size_t len)
LSM_HOOK(int, 7, odd_default, int x)
LSM_HOOK(int, 0, noargs, void)
