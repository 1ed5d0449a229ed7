// SPDX-License-Identifier: MIT
/* A module that refuses nothing and counts what reaches it. */
#include <stdio.h>

#include "hooks.h"

int log_opens, log_closes;

static const struct lsm_id log_id = { .name = "log", .id = 2 };

static int log_file_open(const char *path)
{
	printf("  log: open %s\n", path);
	log_opens++;
	return 0;
}

static void log_file_close(const char *path)
{
	printf("  log: close %s\n", path);
	log_closes++;
}

static struct app_hook_list log_hooks[] = {
	LSM_HOOK_INIT(file_open, log_file_open),
	LSM_HOOK_INIT(file_close, log_file_close),
};

static int log_init(void)
{
	return security_add_hooks(log_hooks, 2, &log_id);
}

DEFINE_LSM(log) = { .name = "log", .init = log_init, .id = &log_id };
