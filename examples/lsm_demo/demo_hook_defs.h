/* SPDX-License-Identifier: MIT */
/*
 * The demo's hooks, in the kernel's form (security/lsm_hook_defs.h):
 *
 *	LSM_HOOK(return type, DEFAULT, name, arguments...)
 *
 * DEFAULT is what a hook returns when no module objects: call_int_hook()
 * goes on to the next module while a module returns DEFAULT and stops at
 * the first one that returns anything else. Names, defaults and the
 * special rules in security.c follow the kernel's hooks of the same names,
 * with the host's credential passed explicitly (the kernel uses current).
 *
 * No include guard: <ulsm/lsm_hooks.h> expands this list several times.
 */
LSM_HOOK(int, 0, cred_alloc_blank, struct demo_cred *cred)
LSM_HOOK(void, LSM_RET_VOID, cred_free, struct demo_cred *cred)
LSM_HOOK(void, LSM_RET_VOID, cred_getsecid, const struct demo_cred *cred,
	 uint32_t *secid)
LSM_HOOK(int, 0, file_alloc_security, struct demo_file *file)
LSM_HOOK(void, LSM_RET_VOID, file_free_security, struct demo_file *file)
LSM_HOOK(int, 0, file_open, const struct demo_cred *cred,
	 struct demo_file *file)
LSM_HOOK(int, 0, file_permission, const struct demo_cred *cred,
	 struct demo_file *file, int mask)
LSM_HOOK(int, 0, task_kill, const struct demo_cred *cred,
	 const struct demo_cred *target, int sig)
/* 1: the caller may use the admin reserve; 0: it may not (all must agree) */
LSM_HOOK(int, 0, vm_enough_memory, const struct demo_cred *cred, long pages)
/* The first module that knows the secid answers. */
LSM_HOOK(int, -EOPNOTSUPP, secid_to_secctx, uint32_t secid, char *buf,
	 size_t len)
/* Every module with an attribute answers: the number it wrote. */
LSM_HOOK(int, -EOPNOTSUPP, getselfattr, const struct demo_cred *cred,
	 char *buf, size_t len)
