/* SPDX-License-Identifier: MIT */
/*
 * bench/wl_bench.h - what bench_workload.c and its per-variant objects
 * share.
 *
 * bench_workload reproduces the shape of the kernel change's Unixbench table in a
 * process: each operation makes real system calls, and before each call a
 * security_* function dispatches a hook (wl_hook_defs.h) to three modules
 * (wl_mods.c), as a kernel with three LSMs would:
 *
 *   pipe       1-byte write and 1-byte read on a pipe, file_permission
 *              before each (Unixbench's Pipe Throughput, with 1 byte)
 *   file write a 1024-byte write to a file of at most 2000 blocks,
 *              file_permission before it (File Write 1024 bufsize 2000
 *              maxblocks)
 *   syscall    getppid(), task_getppid before it (System Call Overhead)
 *   fork       fork(), the child exits, the parent reaps it; task_alloc
 *              before, task_free after (Process Creation)
 *
 * Three ways to dispatch (the "impl" of a case): none (no security_*
 * call at all: the kernel's share alone), lists (bench/lsm_lists.h, the
 * design the kernel change replaced) and ulsm (the hooks' entries, each the
 * security_* function itself). Each is compiled once per variant (plain,
 * retpoline, rethunk; bench/sc_bench.h), callbacks included, and every
 * global symbol carries its variant: WL_SYM(loop_pipe_ulsm, plain).
 */
#ifndef ULSM_BENCH_WL_BENCH_H
#define ULSM_BENCH_WL_BENCH_H

#include <stdint.h>

#define WL_SYM_(what, v)	wl_##what##_##v
#define WL_SYM(what, v)		WL_SYM_(what, v)

/* The modules; each callback counts its calls, checked after each run. */
#define WL_NMODS	3
#define WL_MODS		"wcap,wlabel,waudit"

/* What the operations share with the driver (bench_workload.c). */
struct wl_env {
	int pipe_r, pipe_w;	/* a pipe */
	int file;		/* the file written */
	unsigned long blocks;	/* blocks written since the last rewind */
	char buf[1024];
};
extern struct wl_env wl_env;
/* Calls of each module's callbacks, by this process. */
extern unsigned long wl_calls[WL_NMODS];
/* Errors an operation met (a short write, a failed fork...). */
extern unsigned long wl_errors;

enum { WL_OP_PIPE, WL_OP_FILE, WL_OP_SYSCALL, WL_OP_FORK, WL_NOPS };
enum { WL_NONE, WL_LISTS, WL_ULSM, WL_NIMPL };

/* Hooks dispatched per operation (each to every module). */
#define WL_HOOKS_PER_OP	{ 2, 1, 1, 2 }

struct ulsm_hook_set;

/* Everything of one variant the driver needs (wl_ops.c). */
struct wl_variant {
	const char *flags;	/* NULL: the compiler lacks them, left out */
	void (*loop[WL_NOPS][WL_NIMPL])(unsigned long n);
	int (*lists_init)(void);
	struct ulsm_hook_set *set;
};

#define WL_DECLARE_VARIANT(v)						\
	extern const struct wl_variant WL_SYM(variant, v);		\
	extern struct ulsm_hook_set WL_SYM(set_##v, hook_set)

WL_DECLARE_VARIANT(plain);
WL_DECLARE_VARIANT(retpoline);
WL_DECLARE_VARIANT(rethunk);

#define WL_CAT_(a, b)		a##b
#define WL_CAT(a, b)		WL_CAT_(a, b)

#ifdef VARIANT
/* The set's name: wl_set_<variant> (its hook_set is wl_set_<v>_hook_set). */
# define WL_SET		WL_SYM(set, VARIANT)
# define WL_HOOK_SET	WL_CAT(WL_SET, _hook_set)

/* The callbacks of the three modules (wl_mods.c). */
# define WL_DECLARE_CALLBACKS(m)					\
	int WL_SYM(m##_file_permission, VARIANT)(int fd, int mask);	\
	int WL_SYM(m##_task_getppid, VARIANT)(int pid);			\
	int WL_SYM(m##_task_alloc, VARIANT)(unsigned long clone_flags);	\
	void WL_SYM(m##_task_free, VARIANT)(int pid);
WL_DECLARE_CALLBACKS(wcap)
WL_DECLARE_CALLBACKS(wlabel)
WL_DECLARE_CALLBACKS(waudit)

/* The security_* functions of the lists (wl_base.c) and of ulsm (wl_ulsm.c). */
# define WL_DECLARE_SECURITY(impl)					\
	int WL_SYM(impl##_file_permission, VARIANT)(int fd, int mask);	\
	int WL_SYM(impl##_task_getppid, VARIANT)(int pid);		\
	int WL_SYM(impl##_task_alloc, VARIANT)(unsigned long clone_flags); \
	void WL_SYM(impl##_task_free, VARIANT)(int pid);
WL_DECLARE_SECURITY(lists)
WL_DECLARE_SECURITY(ulsm)
int WL_SYM(lists_init, VARIANT)(void);
#endif

#endif /* ULSM_BENCH_WL_BENCH_H */
