// SPDX-License-Identifier: MIT
/*
 * bench_workload's lists, compiled once per variant (wl_bench.h): the
 * security_* functions as the kernel wrote them before the change, over
 * bench/lsm_lists.h, with the three modules' callbacks on the lists.
 */
#include <errno.h>

#include "wl_bench.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

#define LSM_LISTS_HOOK_DEFS	"wl_hook_defs.h"
#include "lsm_lists.h"

#define wl_sec		__attribute__((noinline))

wl_sec int WL_SYM(lists_file_permission, VARIANT)(int fd, int mask)
{
	return base_call_int_hook(file_permission, fd, mask);
}

wl_sec int WL_SYM(lists_task_getppid, VARIANT)(int pid)
{
	return base_call_int_hook(task_getppid, pid);
}

wl_sec int WL_SYM(lists_task_alloc, VARIANT)(unsigned long clone_flags)
{
	return base_call_int_hook(task_alloc, clone_flags);
}

wl_sec void WL_SYM(lists_task_free, VARIANT)(int pid)
{
	base_call_void_hook(task_free, pid);
}

#define WL_LIST_MODULE(m)						\
static struct security_hook_list m##_list[] = {				\
	LSM_HOOK_INIT(file_permission, WL_SYM(m##_file_permission, VARIANT)), \
	LSM_HOOK_INIT(task_getppid, WL_SYM(m##_task_getppid, VARIANT)), \
	LSM_HOOK_INIT(task_alloc, WL_SYM(m##_task_alloc, VARIANT)),	\
	LSM_HOOK_INIT(task_free, WL_SYM(m##_task_free, VARIANT)),	\
};
WL_LIST_MODULE(wcap)
WL_LIST_MODULE(wlabel)
WL_LIST_MODULE(waudit)

/* The three modules onto the lists, in order, as the kernel does at boot. */
int WL_SYM(lists_init, VARIANT)(void)
{
	security_add_hooks(wcap_list, 4, "wcap");
	security_add_hooks(wlabel_list, 4, "wlabel");
	security_add_hooks(waudit_list, 4, "waudit");
	return list_length(&security_hook_heads.file_permission) == WL_NMODS &&
	       list_length(&security_hook_heads.task_free) == WL_NMODS ?
	       0 : -EPROTO;
}
