// SPDX-License-Identifier: MIT
/*
 * The three modules of bench_workload, compiled once per variant
 * (wl_bench.h): their callbacks, and their registration with the
 * variant's ulsm set. The lists (wl_base.c) hold the same callbacks.
 *
 * Each callback does a little of what a module does on that hook: a
 * capability-like check of the mask, a label looked up by descriptor, an
 * audit counter. All of them allow (return the default), so that every
 * module runs on every hook, and each counts its calls: the driver checks
 * after every run that each module ran exactly once per hook dispatched.
 */
#include <errno.h>

#include <ulsm/ulsm.h>

#include "wl_set.h"

#define MAY_EXEC	1
#define MAY_WRITE	2
#define MAY_READ	4

/* Labels per descriptor: all "allowed" (0) unless a test changes them. */
static unsigned char labels[256];
static unsigned long audited;

#define wl_cb		__attribute__((noinline))

wl_cb int WL_SYM(wcap_file_permission, VARIANT)(int fd, int mask)
{
	wl_calls[0]++;
	return (mask & MAY_EXEC) && fd < 0 ? -EPERM : 0;
}

wl_cb int WL_SYM(wcap_task_getppid, VARIANT)(int pid)
{
	wl_calls[0]++;
	return pid < 0 ? -EPERM : 0;
}

wl_cb int WL_SYM(wcap_task_alloc, VARIANT)(unsigned long clone_flags)
{
	wl_calls[0]++;
	return clone_flags & 1UL << 63 ? -EPERM : 0;
}

wl_cb void WL_SYM(wcap_task_free, VARIANT)(int pid)
{
	(void)pid;
	wl_calls[0]++;
}

wl_cb int WL_SYM(wlabel_file_permission, VARIANT)(int fd, int mask)
{
	wl_calls[1]++;
	return labels[fd & 255] & mask ? -EACCES : 0;
}

wl_cb int WL_SYM(wlabel_task_getppid, VARIANT)(int pid)
{
	wl_calls[1]++;
	return labels[pid & 255] & MAY_READ ? -EACCES : 0;
}

wl_cb int WL_SYM(wlabel_task_alloc, VARIANT)(unsigned long clone_flags)
{
	wl_calls[1]++;
	return labels[clone_flags & 255] & MAY_EXEC ? -EACCES : 0;
}

wl_cb void WL_SYM(wlabel_task_free, VARIANT)(int pid)
{
	wl_calls[1]++;
	labels[pid & 255] &= (unsigned char)~MAY_EXEC;
}

wl_cb int WL_SYM(waudit_file_permission, VARIANT)(int fd, int mask)
{
	(void)fd;
	(void)mask;
	wl_calls[2]++;
	audited++;
	return 0;
}

wl_cb int WL_SYM(waudit_task_getppid, VARIANT)(int pid)
{
	(void)pid;
	wl_calls[2]++;
	audited++;
	return 0;
}

wl_cb int WL_SYM(waudit_task_alloc, VARIANT)(unsigned long clone_flags)
{
	(void)clone_flags;
	wl_calls[2]++;
	audited++;
	return 0;
}

wl_cb void WL_SYM(waudit_task_free, VARIANT)(int pid)
{
	(void)pid;
	wl_calls[2]++;
	audited++;
}

#define WL_HOOK_LIST	struct ULSM__CAT(WL_SET, _hook_list)

#define WL_MODULE(m, i)							\
static WL_HOOK_LIST m##_hooks[] = {					\
	LSM_HOOK_INIT(file_permission, WL_SYM(m##_file_permission, VARIANT)), \
	LSM_HOOK_INIT(task_getppid, WL_SYM(m##_task_getppid, VARIANT)), \
	LSM_HOOK_INIT(task_alloc, WL_SYM(m##_task_alloc, VARIANT)),	\
	LSM_HOOK_INIT(task_free, WL_SYM(m##_task_free, VARIANT)),	\
};									\
static const struct lsm_id m##_id = { #m, i };				\
static int m##_init(void)						\
{									\
	return security_add_hooks(m##_hooks, 4, &m##_id);		\
}									\
DEFINE_LSM(m) = { .name = #m, .init = m##_init, .id = &m##_id };

WL_MODULE(wcap, 1)
WL_MODULE(wlabel, 2)
WL_MODULE(waudit, 3)
