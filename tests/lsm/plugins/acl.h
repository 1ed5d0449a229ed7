/* SPDX-License-Identifier: MIT */
/*
 * The host's own module of set "pg" (tests/lsm/plugins/set.h): acl denies
 * request 13 with -EPERM and, as the plug-ins do (tests/lsm/plugins/module.c),
 * calls pg_hold() at the top of its callbacks. The set's defining unit
 * includes it once, after plugins/set.h, and defines pg_hold() (in
 * plugins/hold.h, or as nothing).
 */
#ifndef PG_ACL_H
#define PG_ACL_H

#include <errno.h>

static int acl_check(int r)
{
	pg_hold("acl", r);
	return r == 13 ? -EPERM : 0;
}

static void acl_log(int r)
{
	pg_hold("acl", r);
}

static const struct lsm_id acl_id = { "acl", 1 };
static struct pg_hook_list acl_hooks[] = {
	LSM_HOOK_INIT(req_check, acl_check),
	LSM_HOOK_INIT(req_log, acl_log),
};

static int acl_init(void)
{
	return security_add_hooks(acl_hooks, 2, &acl_id);
}

DEFINE_LSM(acl) = { .name = "acl", .init = acl_init, .id = &acl_id };

#endif
