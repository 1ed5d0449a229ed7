// SPDX-License-Identifier: MIT
/*
 * The operations of bench_workload, compiled once per variant (wl_bench.h),
 * and the variant's descriptor for the driver.
 *
 * Each operation is one loop per way of dispatching (none, lists, ulsm),
 * written once (WL_OPS) with the security_* calls as parameters: for
 * "none" they are the constant 0 and nothing, so that loop makes the same
 * system calls with no hook at all: the kernel's share of the operation.
 * The loops count what went wrong (a short write, a hook that refused, a
 * failed fork) in wl_errors, which the driver checks after every run.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl_bench.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

#define MAY_WRITE	2
#define MAY_READ	4

#define wl_loop		__attribute__((noinline, aligned(64)))

/* No hook: the kernel's share. */
#define NONE_PERM(fd, mask)	0
#define NONE_PPID(pid)		0
#define NONE_ALLOC(flags)	0
#define NONE_FREE(pid)		((void)0)

#define LISTS_PERM	WL_SYM(lists_file_permission, VARIANT)
#define LISTS_PPID	WL_SYM(lists_task_getppid, VARIANT)
#define LISTS_ALLOC	WL_SYM(lists_task_alloc, VARIANT)
#define LISTS_FREE	WL_SYM(lists_task_free, VARIANT)
#define ULSM_PERM	WL_SYM(ulsm_file_permission, VARIANT)
#define ULSM_PPID	WL_SYM(ulsm_task_getppid, VARIANT)
#define ULSM_ALLOC	WL_SYM(ulsm_task_alloc, VARIANT)
#define ULSM_FREE	WL_SYM(ulsm_task_free, VARIANT)

#define WL_OPS(impl, PERM, PPID, ALLOC, FREE)				\
void WL_SYM(loop_pipe_##impl, VARIANT)(unsigned long n);		\
wl_loop void WL_SYM(loop_pipe_##impl, VARIANT)(unsigned long n)		\
{									\
	struct wl_env *e = &wl_env;					\
									\
	for (unsigned long i = 0; i < n; i++) {				\
		if (PERM(e->pipe_w, MAY_WRITE) ||			\
		    write(e->pipe_w, e->buf, 1) != 1)			\
			wl_errors++;					\
		if (PERM(e->pipe_r, MAY_READ) ||			\
		    read(e->pipe_r, e->buf, 1) != 1)			\
			wl_errors++;					\
	}								\
}									\
void WL_SYM(loop_file_##impl, VARIANT)(unsigned long n);		\
wl_loop void WL_SYM(loop_file_##impl, VARIANT)(unsigned long n)		\
{									\
	struct wl_env *e = &wl_env;					\
									\
	for (unsigned long i = 0; i < n; i++) {				\
		if (PERM(e->file, MAY_WRITE) ||				\
		    write(e->file, e->buf, sizeof(e->buf)) !=		\
		    (ssize_t)sizeof(e->buf))				\
			wl_errors++;					\
		if (++e->blocks == 2000) {				\
			if (lseek(e->file, 0, SEEK_SET))		\
				wl_errors++;				\
			e->blocks = 0;					\
		}							\
	}								\
}									\
void WL_SYM(loop_syscall_##impl, VARIANT)(unsigned long n);		\
wl_loop void WL_SYM(loop_syscall_##impl, VARIANT)(unsigned long n)	\
{									\
	pid_t ppid = 1;							\
									\
	for (unsigned long i = 0; i < n; i++) {				\
		if (PPID(ppid))						\
			wl_errors++;					\
		ppid = getppid();					\
		if (ppid < 0)						\
			wl_errors++;					\
	}								\
}									\
void WL_SYM(loop_fork_##impl, VARIANT)(unsigned long n);		\
wl_loop void WL_SYM(loop_fork_##impl, VARIANT)(unsigned long n)		\
{									\
	for (unsigned long i = 0; i < n; i++) {				\
		pid_t pid;						\
		int status;						\
									\
		if (ALLOC(SIGCHLD))					\
			wl_errors++;					\
		pid = fork();						\
		if (!pid)						\
			_exit(0);					\
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||	\
		    !WIFEXITED(status))					\
			wl_errors++;					\
		FREE(pid);						\
	}								\
}

WL_OPS(none, NONE_PERM, NONE_PPID, NONE_ALLOC, NONE_FREE)
WL_OPS(lists, LISTS_PERM, LISTS_PPID, LISTS_ALLOC, LISTS_FREE)
WL_OPS(ulsm, ULSM_PERM, ULSM_PPID, ULSM_ALLOC, ULSM_FREE)

#define WL_LOOPS(op)							\
	{ WL_SYM(loop_##op##_none, VARIANT),				\
	  WL_SYM(loop_##op##_lists, VARIANT),				\
	  WL_SYM(loop_##op##_ulsm, VARIANT) }

const struct wl_variant WL_SYM(variant, VARIANT) = {
#ifdef SC_FLAGS
	.flags = SC_FLAGS,
#else
	.flags = NULL,
#endif
	.loop = {
		[WL_OP_PIPE] = WL_LOOPS(pipe),
		[WL_OP_FILE] = WL_LOOPS(file),
		[WL_OP_SYSCALL] = WL_LOOPS(syscall),
		[WL_OP_FORK] = WL_LOOPS(fork),
	},
	.lists_init = WL_SYM(lists_init, VARIANT),
	.set = &WL_HOOK_SET,
};
