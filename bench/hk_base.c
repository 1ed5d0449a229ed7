// SPDX-License-Identifier: MIT
/*
 * The baseline of bench_hooks, compiled once per variant (hk_bench.h): the
 * dispatch that "lsm: replace indirect LSM hook calls with static calls"
 * replaced, rebuilt from its description. Per hook a list head; per module
 * and hook a struct security_hook_list on that list; call_int_hook and
 * call_void_hook walk the list and call each entry's function pointer, an
 * indirect call (a retpoline in a retpoline build).
 *
 * The lists and their walk are bench/lsm_lists.h, shared with the
 * workload benchmark.
 */
#include <errno.h>

#include <ulsm/unroll.h>

#include "hk_bench.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

#define LSM_LISTS_HOOK_DEFS	"bench_hook_defs.h"
#include "lsm_lists.h"

hk_fn int HK_SYM(sec_base_int, VARIANT)(int mask)
{
	return base_call_int_hook(file_permission, mask);
}

hk_fn void HK_SYM(sec_base_void, VARIANT)(int x)
{
	base_call_void_hook(file_free_security, x);
}

/* --- the modules' entries ------------------------------------------------ */

#define HK_BASE_MODULE(M, v)						\
	{ LSM_HOOK_INIT(file_permission, HK_SYM(m##M##_file_permission, v)), \
	  LSM_HOOK_INIT(file_free_security,				\
			HK_SYM(m##M##_file_free_security, v)) },
static struct security_hook_list m_hooks[HK_MAX][2] = {
	UNROLL(HK_MAX, HK_BASE_MODULE, VARIANT)
};

static const char *const m_names[HK_MAX] = {
	"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7",
};

#define HK_U1_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u1_cb, VARIANT)),
#define HK_U10_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u10_cb, VARIANT)),
#define HK_U100_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u100_cb, VARIANT)),

static struct security_hook_list u1_hooks[] = { HK_U1_HOOK(upd_00) };
static struct security_hook_list u10_hooks[] = { HK_UPD_ROW(HK_U10_HOOK, 0) };
static struct security_hook_list u100_hooks[] = {
	HK_FOR_EACH_UPD(HK_U100_HOOK)
};

static struct {
	struct security_hook_list *hooks;
	int count;
	const char *lsm;
} u_mods[HK_NU] = {
	{ u1_hooks, 1, "u1" },
	{ u10_hooks, 10, "u10" },
	{ u100_hooks, 100, "u100" },
};

/*
 * Make m0 .. m(k-1) the modules on the lists, in that order (the others
 * off them). The kernel had no such thing; the benchmark needs it to
 * measure each module count in one process.
 */
int HK_SYM(base_set, VARIANT)(unsigned int k)
{
	if (k > HK_MAX)
		return -EINVAL;
	for (int m = 0; m < HK_MAX; m++)
		for (int i = 0; i < 2; i++)
			hlist_del(&m_hooks[m][i].list);
	for (unsigned int m = 0; m < k; m++)
		security_add_hooks(m_hooks[m], 2, m_names[m]);
	if (list_length(&security_hook_heads.file_permission) != (int)k ||
	    list_length(&security_hook_heads.file_free_security) != (int)k)
		return -EPROTO;
	return 0;
}

/* What enabling a u-module costs here: the time of this call. */
int HK_SYM(base_add_u, VARIANT)(int u)
{
	if (u < 0 || u >= HK_NU)
		return -EINVAL;
	security_add_hooks(u_mods[u].hooks, u_mods[u].count, u_mods[u].lsm);
	return 0;
}

/* Take a u-module off the lists; -EPROTO if it was not on all of them. */
int HK_SYM(base_del_u, VARIANT)(int u)
{
	int ret = 0;

	if (u < 0 || u >= HK_NU)
		return -EINVAL;
	for (int i = 0; i < u_mods[u].count; i++) {
		if (!u_mods[u].hooks[i].list.pprev)
			ret = -EPROTO;
		hlist_del(&u_mods[u].hooks[i].list);
	}
	return ret;
}

const struct hk_base_sizes HK_SYM(base_sizes, VARIANT) = {
	.head = sizeof(struct hlist_head),
	.hook_list = sizeof(struct security_hook_list),
};
