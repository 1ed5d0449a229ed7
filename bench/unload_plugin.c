// SPDX-License-Identifier: MIT
/*
 * bench_unload's plug-in: modules p1, p2 and p3 of set "uz", whose
 * callbacks are bench_unload's own (each adds its argument to a global
 * and returns 0), but in an object that may be unloaded. Built with
 * UNLOAD_TWIN (unload_twin.so): q1, q2, q3 instead, the same callbacks in
 * set "uw", which never unloads (and so pins that object, not this one).
 */
#include "unload_plugin_set.h"

#include "unload_cbs.h"

#ifndef UNLOAD_TWIN
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
#else
static const struct lsm_id qids[3] = { { "q1", 1 }, { "q2", 2 }, { "q3", 3 } };
static struct uw_hook_list qhooks[3] = {
	ulsm_lsm_hook_init(uw, req_check, cb1),
	ulsm_lsm_hook_init(uw, req_check, cb2),
	ulsm_lsm_hook_init(uw, req_check, cb3),
};

#define TWIN(n)								\
static int qinit##n(void)						\
{									\
	return ulsm_security_add_hooks_to(uw, &qhooks[n - 1], 1,	\
					  &qids[n - 1]);		\
}									\
DEFINE_LSM_IN(uw, q##n) = { .name = "q" #n, .init = qinit##n,		\
			    .id = &qids[n - 1] };
TWIN(1)
TWIN(2)
TWIN(3)
#endif
