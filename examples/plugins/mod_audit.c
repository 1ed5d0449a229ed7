// SPDX-License-Identifier: MIT
/*
 * A plug-in that hears of every request served (request_log) and answers
 * none (no request_check): it prints one line per 10000. Its count starts
 * from 0 at each load, since the object is mapped afresh.
 */
#include <stdio.h>

#include "req.h"

static const struct lsm_id audit_id = { .name = "audit", .id = 103 };
static unsigned long served;

static void audit_log(int id, const char *path)
{
	unsigned long n = __atomic_add_fetch(&served, 1, __ATOMIC_RELAXED);

	if (n % 10000 == 0)
		printf("audit: %lu requests served, one of them %d %s\n", n,
		       id, path);
}

static struct req_hook_list audit_hooks[] = {
	LSM_HOOK_INIT(request_log, audit_log),
};

static int audit_init(void)
{
	return security_add_hooks(audit_hooks, 1, &audit_id);
}

DEFINE_LSM(audit) = { .name = "audit", .init = audit_init, .id = &audit_id };
