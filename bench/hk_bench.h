/* SPDX-License-Identifier: MIT */
/*
 * bench/hk_bench.h - what bench_hooks.c and its per-variant objects share.
 *
 * bench_hooks dispatches the same hooks (bench_hook_defs.h) to the same
 * callbacks in three ways:
 *
 *   baseline  the design the kernel change replaced: per hook a linked list of
 *             struct security_hook_list, walked with one indirect call per
 *             entry (hk_base.c)
 *   limit     hard-coded chains of direct calls (hk_limit.c): what no
 *             dispatch mechanism can beat
 *   ulsm      the hook's entry of <ulsm/lsm_hooks.h>, patched to call the
 *             modules' callbacks (hk_ulsm.c), as the security_* function
 *             itself (DEFINE_LSM_HOOK_ENTRY), and as a C function around
 *             call_int_hook / call_void_hook (ulsm_c)
 *
 * The question is how they fare under mitigations, and compiler flags are
 * per translation unit, so every source below is compiled once per variant
 * (plain, retpoline, rethunk: bench/sc_bench.h describes them) with
 * -DVARIANT=<variant>, and every global symbol carries its variant:
 * HK_SYM(m0_file_permission, rethunk) is hk_m0_file_permission_rethunk.
 *
 * Each variant has its own callbacks (hk_mods.c), its own baseline lists
 * and its own ulsm hook set. The set cannot be shared: a slot's trampoline
 * jumps to one callback, so a set shared by the variants would make all of
 * them call one variant's callbacks, and a rethunk dispatch would time
 * callbacks that return without the thunk. One set per variant means one
 * name per variant too (HK_SET below), since a set's symbols are global.
 * The trampolines are hand-written asm, identical in every variant.
 *
 * The timed loops (hk_loops.c) call one "security_*" function per hook and
 * implementation, as the kernel's callers call security_file_permission():
 * the dispatch sits in a function of its own, whose call and return every
 * implementation pays alike. The loops live apart from those functions and
 * the functions apart from the callbacks, so that the compiler can inline
 * nothing across them.
 *
 * Modules: m0 .. m7 have file_permission and file_free_security and are
 * the ones dispatched to; u1, u10 and u100 have the first 1, 10 and 100
 * upd_* hooks and are the ones the update-cost test enables.
 */
#ifndef ULSM_BENCH_HK_BENCH_H
#define ULSM_BENCH_HK_BENCH_H

#include <stdint.h>

/*
 * The set's MAX_LSM_COUNT. A distribution kernel builds in ten or more
 * LSMs, and MAX_LSM_COUNT counts every one built in, active or not: the
 * slots a dispatch has to skip are part of the cost measured.
 */
#define HK_MAX		8

/* Module counts measured: 0, 1, 2, 3 and HK_MAX. */
#define HK_NCOUNTS	5

/* The update-cost modules u1, u10, u100. */
#define HK_NU		3

#define HK_CAT_(a, b)		a##b
#define HK_CAT(a, b)		HK_CAT_(a, b)
#define HK_SYM_(what, v)	hk_##what##_##v
#define HK_SYM(what, v)		HK_SYM_(what, v)

/*
 * The per-variant ulsm hook set's name (<ulsm/lsm_hooks.h> ULSM_LSM_SET),
 * and the struct ulsm_hook_set that <ulsm/lsm_hooks.h> names after it.
 */
#define HK_SET_OF(v)		HK_SYM(set, v)
#define HK_SET			HK_SET_OF(VARIANT)
#define HK_HOOK_SET(v)		HK_CAT(HK_SET_OF(v), _hook_set)

/* A function whose placement must not decide its speed (bench_static_key.c). */
#define hk_fn		__attribute__((noinline, aligned(64)))

/* --- shared by all variants, defined in bench_hooks.c -------------------- */

/* What m<i>'s file_permission returns: 0, or -EACCES to deny. */
extern int hk_ret[HK_MAX];
/* Sum of the arguments each module's file_permission callback saw. */
extern unsigned long hk_acc[HK_MAX];
/* The same for file_free_security. */
extern unsigned long hk_vacc[HK_MAX];
/* Where an int loop leaves the sum of what its dispatches returned. */
extern unsigned long hk_sum;
/* Calls of u-module callbacks made by this thread. */
extern __thread unsigned long hk_upd_calls;

/* The argument of dispatch @i: changes, so that nothing is constant. */
static inline int hk_arg(unsigned long i)
{
	return (int)(i & 0xfff);
}

/* What one security_add_hooks() of a u-module cost, at initialisation. */
struct hk_reg {
	uint64_t ns;
	unsigned long batches, core_syncs, sites_patched;
	int ret;
};

/*
 * Sizes the benchmark reports, from the translation units that know the
 * types (the baseline's struct security_hook_list is not ulsm's).
 * ulsm, per hook: @table, @calls and @keys are the hook's slots in the
 * sealed table, its static-call keys and its static keys; @hook_list is one
 * module's entry. Baseline: @head per hook, @hook_list per module and hook.
 */
struct hk_sizes {
	unsigned long table, calls, keys, hook_list;
};
struct hk_base_sizes {
	unsigned long head, hook_list;
};

struct ulsm_hook_set;

/*
 * Everything of one variant the driver needs, gathered by hk_loops.c.
 * @flags is NULL when the compiler lacks the variant's flags: the objects
 * are then built without them and the variant is left out.
 */
struct hk_variant {
	const char *flags;
	void (*base_int)(unsigned long n);
	void (*base_void)(unsigned long n);
	void (*ulsm_int)(unsigned long n);
	void (*ulsm_void)(unsigned long n);
	void (*ulsm_c_int)(unsigned long n);
	void (*ulsm_c_void)(unsigned long n);
	void (*limit_int[HK_NCOUNTS])(unsigned long n);
	void (*limit_void[HK_NCOUNTS])(unsigned long n);
	int (*base_set)(unsigned int k);	/* m0 .. m(k-1) on the lists */
	int (*base_add_u)(int u);		/* u-module u onto the lists */
	int (*base_del_u)(int u);
	int (*ulsm_upd_all)(int x);		/* every upd_* hook once */
	struct ulsm_hook_set *set;
	const struct hk_reg *reg;		/* u1, u10, u100 */
	const struct hk_sizes *sizes;
	const struct hk_base_sizes *base_sizes;
};

/* Each variant's objects define these. */
#define HK_DECLARE_VARIANT(v)						\
	extern const struct hk_variant HK_SYM(variant, v);		\
	extern struct ulsm_hook_set HK_HOOK_SET(v);			\
	extern struct hk_reg HK_SYM(reg, v)[HK_NU];			\
	extern const struct hk_sizes HK_SYM(sizes, v);			\
	extern const struct hk_base_sizes HK_SYM(base_sizes, v);	\
	int HK_SYM(sec_base_int, v)(int mask);				\
	void HK_SYM(sec_base_void, v)(int x);				\
	int HK_SYM(sec_ulsm_int, v)(int mask);				\
	void HK_SYM(sec_ulsm_void, v)(int x);				\
	int HK_SYM(sec_ulsm_c_int, v)(int mask);			\
	void HK_SYM(sec_ulsm_c_void, v)(int x);				\
	int HK_SYM(ulsm_upd_all, v)(int x);				\
	int HK_SYM(base_set, v)(unsigned int k);			\
	int HK_SYM(base_add_u, v)(int u);				\
	int HK_SYM(base_del_u, v)(int u);				\
	int HK_SYM(u1_cb, v)(int x);					\
	int HK_SYM(u10_cb, v)(int x);					\
	int HK_SYM(u100_cb, v)(int x)

HK_DECLARE_VARIANT(plain);
HK_DECLARE_VARIANT(retpoline);
HK_DECLARE_VARIANT(rethunk);

/* The callbacks of m<M>, for the baseline's lists and the limit's chains. */
#define HK_DECLARE_CALLBACKS(M, v)					\
	int HK_SYM(m##M##_file_permission, v)(int mask);		\
	void HK_SYM(m##M##_file_free_security, v)(int x);

#ifdef VARIANT
# include <ulsm/unroll.h>
UNROLL(HK_MAX, HK_DECLARE_CALLBACKS, VARIANT)
#endif

#endif /* ULSM_BENCH_HK_BENCH_H */
