// SPDX-License-Identifier: MIT
/*
 * Must compile with -std=c11 -Wall -Wextra -Wpedantic -Werror (and
 * -std=c99, and clang's): a hook set's defining unit, with a module and
 * every way of dispatching, as a user writes them. ulsm's headers use GNU
 * C, marked __extension__ so that a pedantic user's build stays quiet.
 */
#include <stddef.h>
#include <stdio.h>
#include <ulsm/ulsm.h>

#define ULSM_LSM_DEFINE
#define ULSM_LSM_BUILTIN_ORDER	"deny,audit"
#include "compile/pedantic_hooks.h"

static const struct lsm_id deny_id = { "deny", 1 };

static int deny_open(const char *path)
{
	return path != NULL && path[0] == 's' ? -13 : 0;
}

static void deny_seven_void(int a, int b, int c, int d, int e, int f, int g)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g;
}

static struct ped_hook_list deny_hooks[] = {
	LSM_HOOK_INIT(file_open, deny_open),
	LSM_HOOK_INIT(seven_void, deny_seven_void),
};

static int deny_init(void)
{
	return security_add_hooks(deny_hooks, 2, &deny_id);
}

DEFINE_LSM(deny) = { .name = "deny", .init = deny_init, .id = &deny_id };

/* The hook's entry itself, with no jump (x86-64; elsewhere a wrapper). */
#if ULSM_LSM_HAS_ENTRIES
DEFINE_LSM_HOOK_ENTRY(security_file_open, file_open);
#else
int security_file_open(const char *path);
int security_file_open(const char *path)
{
	return call_int_hook(file_open, path);
}
#endif

/*
 * A walk of its own: clang 14 refuses a function that has both
 * lsm_for_each_hook() (its cleanup variables) and a hook dispatched by
 * the C walk (its asm goto), "cannot jump from this asm goto statement".
 */
static int ped_each(const char *path)
{
	struct lsm_static_call *scall;
	int rc = 0;

	lsm_for_each_hook(scall, file_open) {
		rc |= lsm_hook_fn(scall, file_open)(path);
		if (rc)
			break;
	}
	return rc;
}

int ped_dispatch(const char *path, double factor);
int ped_dispatch(const char *path, double factor)
{
	void *blob = NULL;
	int rc = call_int_hook(file_open, path);

	call_void_hook(file_close, path);
	call_void_hook(seven_void, 1, 2, 3, 4, 5, 6, 7);
	rc |= (int)call_int_hook(seven, 1, 2, 3, 4, 5, 6, 7);
	rc |= !call_int_hook(allowed, 1000u);
	rc |= call_int_hook(scaled, factor);
	/* no parameters: ISO C before C2x wants an argument for "...", empty */
	rc |= call_int_hook(noargs, );
	rc |= ped_each(path);
	rc |= lsm_alloc_blob_hooks(ULSM_BLOB_FILE, &blob, file_alloc,
				   file_free, blob);
	lsm_free_blob_hooks(&blob, file_free, blob);
	return rc | security_file_open(path) | ped_module_count();
}

int main(void)
{
	int err = ulsm_lsm_init(&ped_hook_set, NULL);

	if (err)
		return 1;
	printf("%s: %d\n", ulsm_lsm_list(&ped_hook_set),
	       ped_dispatch("/tmp", 2.0));
	(void)ulsm_lsm_toggle(&ped_hook_set, "audit", false);
	(void)ulsm_lsm_trace(&ped_hook_set, true);
	return ulsm_lsm_seal(&ped_hook_set) != 0;
}
