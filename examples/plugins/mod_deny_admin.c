// SPDX-License-Identifier: MIT
/* A plug-in that refuses every request for a path under /admin/. */
#include <errno.h>
#include <string.h>

#include "req.h"

static const struct lsm_id deny_admin_id = { .name = "deny_admin", .id = 101 };

static int deny_admin_check(int id, const char *path)
{
	(void)id;
	return strncmp(path, "/admin/", 7) ? 0 : -EPERM;
}

static struct req_hook_list deny_admin_hooks[] = {
	LSM_HOOK_INIT(request_check, deny_admin_check),
};

static int deny_admin_init(void)
{
	return security_add_hooks(deny_admin_hooks, 1, &deny_admin_id);
}

DEFINE_LSM(deny_admin) = {
	.name = "deny_admin",
	.init = deny_admin_init,
	.id = &deny_admin_id,
};
