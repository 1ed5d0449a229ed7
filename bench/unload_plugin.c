// SPDX-License-Identifier: MIT
/*
 * bench_unload's plug-in: modules p1, p2 and p3 of set "uz", whose
 * callbacks are bench_unload's own (each adds its argument to a global
 * and returns 0), but in an object that may be unloaded.
 */
#include "unload_plugin_set.h"

#include "unload_cbs.h"

static const struct lsm_id ids[3] = { { "p1", 1 }, { "p2", 2 }, { "p3", 3 } };
static struct uz_hook_list hooks[3] = {
	LSM_HOOK_INIT(req_check, cb1),
	LSM_HOOK_INIT(req_check, cb2),
	LSM_HOOK_INIT(req_check, cb3),
};

#define MODULE(n)							\
static int init##n(void)						\
{									\
	return security_add_hooks(&hooks[n - 1], 1, &ids[n - 1]);	\
}									\
DEFINE_LSM(p##n) = { .name = "p" #n, .init = init##n, .id = &ids[n - 1] };
MODULE(1)
MODULE(2)
MODULE(3)
