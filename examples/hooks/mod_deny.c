// SPDX-License-Identifier: MIT
/* A module that refuses to open anything under /secret/. */
#include <errno.h>
#include <string.h>

#include "hooks.h"

static const struct lsm_id deny_id = { .name = "deny", .id = 1 };

static int deny_file_open(const char *path)
{
	return strncmp(path, "/secret/", 8) ? 0 : -EACCES;
}

static struct app_hook_list deny_hooks[] = {
	LSM_HOOK_INIT(file_open, deny_file_open),
};

static int deny_init(void)
{
	return security_add_hooks(deny_hooks, 1, &deny_id);
}

DEFINE_LSM(deny) = { .name = "deny", .init = deny_init, .id = &deny_id };
