// SPDX-License-Identifier: MIT
/*
 * bench_workload's ulsm dispatch, compiled once per variant (wl_bench.h):
 * the variant's hook set, and each security_* function made the hook's
 * entry itself (DEFINE_LSM_HOOK_ENTRY); on a back end without entries,
 * C functions around call_int_hook / call_void_hook.
 */
#define ULSM_LSM_DEFINE
#include "wl_set.h"

#ifdef ULSM_LSM_HAS_ENTRIES
DEFINE_LSM_HOOK_ENTRY(WL_SYM(ulsm_file_permission, VARIANT), file_permission);
DEFINE_LSM_HOOK_ENTRY(WL_SYM(ulsm_task_getppid, VARIANT), task_getppid);
DEFINE_LSM_HOOK_ENTRY(WL_SYM(ulsm_task_alloc, VARIANT), task_alloc);
DEFINE_LSM_HOOK_ENTRY(WL_SYM(ulsm_task_free, VARIANT), task_free);
#else
int WL_SYM(ulsm_file_permission, VARIANT)(int fd, int mask)
{
	return call_int_hook(file_permission, fd, mask);
}

int WL_SYM(ulsm_task_getppid, VARIANT)(int pid)
{
	return call_int_hook(task_getppid, pid);
}

int WL_SYM(ulsm_task_alloc, VARIANT)(unsigned long clone_flags)
{
	return call_int_hook(task_alloc, clone_flags);
}

void WL_SYM(ulsm_task_free, VARIANT)(int pid)
{
	call_void_hook(task_free, pid);
}
#endif
