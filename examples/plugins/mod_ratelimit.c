// SPDX-License-Identifier: MIT
/*
 * A plug-in that refuses the clients that are over their quota. A real one
 * would count each client's requests per second; this one's quotas are
 * fixed (clients 9000 and up have used theirs), so that the host can check
 * its answers while threads dispatch.
 */
#include <errno.h>

#include "req.h"

static const struct lsm_id ratelimit_id = { .name = "ratelimit", .id = 102 };

static int ratelimit_check(int id, const char *path)
{
	(void)path;
	return id >= 9000 ? -EAGAIN : 0;
}

static struct req_hook_list ratelimit_hooks[] = {
	LSM_HOOK_INIT(request_check, ratelimit_check),
};

static int ratelimit_init(void)
{
	return security_add_hooks(ratelimit_hooks, 1, &ratelimit_id);
}

DEFINE_LSM(ratelimit) = {
	.name = "ratelimit",
	.init = ratelimit_init,
	.id = &ratelimit_id,
};
