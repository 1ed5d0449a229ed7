// SPDX-License-Identifier: MIT
/*
 * t_retpoline's APR hooks, compiled against ulsm-apr's <apr_hooks.h>
 * (the drop-in) with the host's retpoline flags: a RUN_ALL hook and two
 * RUN_FIRST ones (one function: the run function's tail call; two: a
 * slot's call, then the next slot's tail site), whose functions the host
 * takes from its plug-ins.
 */
#include <apr_general.h>
#include <apr_hooks.h>
#include <apr_pools.h>

#include "retpoline/set.h"

#define RP_DECLARE(type)	type

APR_DECLARE_EXTERNAL_HOOK(rp, RP, int, all, (int x))
APR_DECLARE_EXTERNAL_HOOK(rp, RP, int, first, (int x))
APR_DECLARE_EXTERNAL_HOOK(rp, RP, int, first2, (int x))

APR_HOOK_STRUCT(APR_HOOK_LINK(all) APR_HOOK_LINK(first)
		APR_HOOK_LINK(first2))

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(rp, RP, int, all, (int x), (x), 0, -1)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(rp, RP, int, first, (int x), (x), -1)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(rp, RP, int, first2, (int x), (x), -1)

int rp_apr_setup(int (*all1)(int), int (*all2)(int), int (*first)(int))
{
	apr_pool_t *pool;

	if (apr_initialize() || apr_pool_create(&pool, NULL))
		return -1;
	apr_hook_global_pool = pool;
	rp_hook_all(all1, NULL, NULL, APR_HOOK_MIDDLE);
	rp_hook_all(all2, NULL, NULL, APR_HOOK_LAST);
	rp_hook_first(first, NULL, NULL, APR_HOOK_MIDDLE);
	rp_hook_first2(all1, NULL, NULL, APR_HOOK_MIDDLE);	/* declines */
	rp_hook_first2(first, NULL, NULL, APR_HOOK_LAST);
	apr_hook_sort_all();
	return 0;
}

int rp_apr_run_all(int x)
{
	return rp_run_all(x);
}

int rp_apr_run_first(int x)
{
	return rp_run_first(x);
}

int rp_apr_run_first2(int x)
{
	return rp_run_first2(x);
}

int rp_apr_slots(const char *hook)
{
	return ulsm_apr_hook_slots(hook);
}
