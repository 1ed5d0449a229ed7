// SPDX-License-Identifier: MIT
/*
 * Must compile with -std=c11 -Wpedantic -Werror (and -std=c99, and
 * clang's): a module of a hook set, in a unit that does not define the
 * set, as a user writes one.
 */
#include <stddef.h>

#include "compile/pedantic_hooks.h"

static const struct lsm_id audit_id = { "audit", 7 };
static struct lsm_blob_sizes audit_blobs = { 0, 16, 0, 0 };
static int opens;

static int audit_open(const char *path)
{
	opens++;
	return path == NULL;
}

static void audit_close(const char *path)
{
	(void)path;
	opens--;
}

static int audit_alloc(void *blob)
{
	return blob == NULL;
}

static long audit_seven(int a, int b, int c, int d, int e, int f, int g)
{
	return a + b + c + d + e + f + g;
}

static bool audit_allowed(unsigned int uid)
{
	return uid != 0;
}

static int audit_scaled(double factor)
{
	return factor > 1.0;
}

static int audit_noargs(void)
{
	return 0;
}

static struct ped_hook_list audit_hooks[] = {
	LSM_HOOK_INIT(file_open, audit_open),
	LSM_HOOK_INIT(file_close, &audit_close),
	LSM_HOOK_INIT(file_alloc, audit_alloc),
	LSM_HOOK_INIT(file_free, NULL),
	LSM_HOOK_INIT(seven, audit_seven),
	LSM_HOOK_INIT(allowed, audit_allowed),
	LSM_HOOK_INIT(scaled, audit_scaled),
	LSM_HOOK_INIT(noargs, audit_noargs),
};

static int audit_init(void)
{
	return security_add_hooks(audit_hooks, 8, &audit_id);
}

DEFINE_LSM(audit) = {
	.name = "audit",
	.order = LSM_ORDER_MUTABLE,
	.init = audit_init,
	.blobs = &audit_blobs,
	.id = &audit_id,
};

int ped_module_count(void)
{
	return opens;
}
