// SPDX-License-Identifier: MIT
/*
 * A plug-in module of set "pb": "rate", which denies request 7. Built as
 * it should be (pb_rate.so), against another hook list (pb_list.so) and
 * with another MAX_LSM_COUNT (pb_count.so); t_plugin_build loads each.
 */
#include <errno.h>

#include "pluginbuild/set.h"

static int rate_check(int request)
{
	return request == 7 ? -EACCES : 0;
}

static const struct lsm_id rate_id = { "rate", 77 };
static struct pb_hook_list rate_hooks[] = {
	LSM_HOOK_INIT(request_check, rate_check),
};

static int rate_init(void)
{
	return security_add_hooks(rate_hooks, 1, &rate_id);
}

DEFINE_LSM(rate) = {
	.name = "rate", .init = rate_init, .id = &rate_id,
};
