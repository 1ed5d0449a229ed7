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
/*
 * Return types and defaults the hook entries encode in other ways: a
 * 64-bit result with a negative default, one whose default is no 32-bit
 * immediate, an unsigned one, a bool.
 */
LSM_HOOK(long, -EOPNOTSUPP, long_result, long x)
LSM_HOOK(uint64_t, 4294967296ULL, big_default, int x)
LSM_HOOK(unsigned, 4294967295U, all_ones, int x)
LSM_HOOK(bool, true, yes_default, int x)
/*
 * Dispatched by the unrolled C walk, not by an entry: seven parameters
 * (an entry keeps six, in registers), and a floating-point one (test_lsm.h
 * defines ULSM_LSM_C_WALK_scaled).
 */
LSM_HOOK(int, 0, seven_args, int a, int b, int c, int d, int e, int f, int g)
LSM_HOOK(int, 0, scaled, double factor)
