/* SPDX-License-Identifier: MIT */
/*
 * A program as the README's APR section has one built against an
 * installed ulsm (tests/apr/t_apr_install.sh.in): APR's hook macros, nothing
 * of ulsm's in the source but the one query that says the drop-in is in
 * use. Prints "handled 42 through 2 slots" and exits 0, or says what
 * differs and exits 1.
 */
#include <stdio.h>
#include <apr_general.h>
#include <apr_hooks.h>

#define SV_DECLARE(type)	type

APR_DECLARE_EXTERNAL_HOOK(sv, SV, int, handle, (int req))

APR_HOOK_STRUCT(
	APR_HOOK_LINK(handle)
)

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(sv, SV, int, handle, (int req), (req), -1)

static int decline(int req)
{
	(void)req;
	return -1;
}

static int answer(int req)
{
	return req + 1;
}

int main(void)
{
	static const char *const after_decline[] = { "decline", NULL };
	apr_pool_t *pool;
	int rv, slots;

	if (apr_initialize() != APR_SUCCESS || apr_pool_create(&pool, NULL)) {
		fputs("APR does not start\n", stderr);
		return 1;
	}
	apr_hook_global_pool = pool;
	apr_hook_debug_current = "answer";
	sv_hook_handle(answer, after_decline, NULL, APR_HOOK_MIDDLE);
	apr_hook_debug_current = "decline";
	sv_hook_handle(decline, NULL, NULL, APR_HOOK_MIDDLE);
	apr_hook_sort_all();
	rv = sv_run_handle(41);
	slots = ulsm_apr_hook_slots("handle");
	printf("handled %d through %d slots\n", rv, slots);
	apr_terminate();
	return rv == 42 && slots == 2 ? 0 : 1;
}
