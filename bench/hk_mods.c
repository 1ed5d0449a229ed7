// SPDX-License-Identifier: MIT
/*
 * The modules of bench_hooks, compiled once per variant (hk_bench.h): their
 * callbacks, and their registration with the variant's ulsm hook set
 * (LSM_HOOK_INIT, DEFINE_LSM), as a kernel module's file holds both. The
 * baseline puts the same callbacks on its lists (hk_base.c) and the limit
 * calls them directly (hk_limit.c).
 *
 * A callback does the least that can still be checked: it adds its
 * argument to its module's sum, and file_permission returns what hk_ret
 * says. After every timed run the driver compares each module's sum with
 * what the run should have produced, so a module called too often, too
 * rarely or with the wrong argument fails the benchmark.
 */
#include <ulsm/ulsm.h>

#include "bench.h"
#include "hk_set.h"

/* m0 .. m7: the modules dispatched to. */
#define HK_CALLBACKS(M, v)						\
hk_fn int HK_SYM(m##M##_file_permission, v)(int mask)			\
{									\
	hk_acc[M] += (unsigned int)mask;				\
	return hk_ret[M];						\
}									\
hk_fn void HK_SYM(m##M##_file_free_security, v)(int x)			\
{									\
	hk_vacc[M] += (unsigned int)x;					\
}
UNROLL(HK_MAX, HK_CALLBACKS, VARIANT)

/*
 * u1, u10, u100: one callback per module, for all its hooks. They return
 * the default, so that dispatching a hook reaches every module on it, and
 * count their calls per thread, so that threads dispatching while the
 * modules are switched can check what they saw.
 */
#define HK_U_CALLBACK(u)						\
hk_fn int HK_SYM(u##_cb, VARIANT)(int x)				\
{									\
	(void)x;							\
	hk_upd_calls++;							\
	return 0;							\
}
HK_U_CALLBACK(u1)
HK_U_CALLBACK(u10)
HK_U_CALLBACK(u100)

static const struct lsm_id hk_ids[HK_MAX + HK_NU] = {
	{ "m0", 1 }, { "m1", 2 }, { "m2", 3 }, { "m3", 4 },
	{ "m4", 5 }, { "m5", 6 }, { "m6", 7 }, { "m7", 8 },
	{ "u1", 101 }, { "u10", 110 }, { "u100", 200 },
};

#define HK_HOOK_LIST	struct ULSM__CAT(HK_SET, _hook_list)

#define HK_MODULE(M, v)							\
static HK_HOOK_LIST m##M##_hooks[] = {					\
	LSM_HOOK_INIT(file_permission, HK_SYM(m##M##_file_permission, v)), \
	LSM_HOOK_INIT(file_free_security,				\
		      HK_SYM(m##M##_file_free_security, v)),		\
};									\
static int m##M##_init(void)						\
{									\
	return security_add_hooks(m##M##_hooks, 2, &hk_ids[M]);	\
}									\
DEFINE_LSM(m##M) = {							\
	.name = "m" #M, .init = m##M##_init, .id = &hk_ids[M],		\
};
UNROLL(HK_MAX, HK_MODULE, VARIANT)

#define HK_U1_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u1_cb, VARIANT)),
#define HK_U10_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u10_cb, VARIANT)),
#define HK_U100_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u100_cb, VARIANT)),

static HK_HOOK_LIST u1_hooks[] = { HK_U1_HOOK(upd_00) };
static HK_HOOK_LIST u10_hooks[] = { HK_UPD_ROW(HK_U10_HOOK, 0) };
static HK_HOOK_LIST u100_hooks[] = { HK_FOR_EACH_UPD(HK_U100_HOOK) };

struct hk_reg HK_SYM(reg, VARIANT)[HK_NU];

/*
 * The first registration of a u-module is the one time its slots are
 * filled (trampolines and keys, one batch): record what it cost. Later
 * measurements can only toggle the keys.
 */
static int add_timed(int u, HK_HOOK_LIST *hooks, int count)
{
	struct hk_reg *r = &HK_SYM(reg, VARIANT)[u];
	struct ulsm_stats a, b;
	uint64_t t0;

	ulsm_get_stats(&a);
	t0 = bench_now_ns();
	r->ret = security_add_hooks(hooks, count, &hk_ids[HK_MAX + u]);
	r->ns = bench_now_ns() - t0;
	ulsm_get_stats(&b);
	r->batches = b.batches - a.batches;
	r->core_syncs = b.core_syncs - a.core_syncs;
	r->sites_patched = b.sites_patched - a.sites_patched;
	return r->ret;
}

#define HK_NHOOKS(a)	((int)(sizeof(a) / sizeof((a)[0])))

static int u1_init(void)
{
	return add_timed(0, u1_hooks, HK_NHOOKS(u1_hooks));
}

static int u10_init(void)
{
	return add_timed(1, u10_hooks, HK_NHOOKS(u10_hooks));
}

static int u100_init(void)
{
	return add_timed(2, u100_hooks, HK_NHOOKS(u100_hooks));
}

DEFINE_LSM(u1) = { .name = "u1", .init = u1_init, .id = &hk_ids[HK_MAX] };
DEFINE_LSM(u10) = {
	.name = "u10", .init = u10_init, .id = &hk_ids[HK_MAX + 1],
};
DEFINE_LSM(u100) = {
	.name = "u100", .init = u100_init, .id = &hk_ids[HK_MAX + 2],
};
