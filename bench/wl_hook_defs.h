/* SPDX-License-Identifier: MIT */
/*
 * The hook list of bench_workload, in the kernel's form (no include guard:
 * it is expanded several times, by <ulsm/lsm_hooks.h> and by the lists).
 * Names and places follow the kernel's hooks of the same names:
 *
 *   file_permission  before every read and write (rw_verify_area)
 *   task_getppid     a hook on the system-call-overhead loop (the kernel has
 *                    task_getpgid, task_getsid; getppid has none)
 *   task_alloc       before a process is created (copy_process)
 *   task_free        after it is reaped
 */
LSM_HOOK(int, 0, file_permission, int fd, int mask)
LSM_HOOK(int, 0, task_getppid, int pid)
LSM_HOOK(int, 0, task_alloc, unsigned long clone_flags)
LSM_HOOK(void, LSM_RET_VOID, task_free, int pid)
