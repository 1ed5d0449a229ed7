// SPDX-License-Identifier: MIT
/*
 * httpd's graceful restart, with the drop-in: every round creates the
 * hooks' pool, loads a module (tests/apr/reload_mod.c) that defines hooks
 * of its own and registers functions on them and on the program's hook,
 * sorts, dispatches, deregisters everything, destroys the pool and
 * unloads the module. Each round checks every answer and how each hook is
 * dispatched (ulsm_apr_hook_slots); after the unload, that the module's
 * hooks are forgotten (its destructor detached them) and its object gone.
 *
 * Built against the shared ulsm-apr where APR is installed (the module
 * must share the library with the program); skipped elsewhere.
 */
#include <errno.h>
#include <stdlib.h>

#include "tap.h"

#ifdef HAVE_APR
#include <dlfcn.h>
#include <stdio.h>
#include <apr_general.h>
#include <apr_pools.h>

#include "reload.h"

APR_HOOK_STRUCT(
	APR_HOOK_LINK(handle)
)

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(ho, HO, int, handle, (int x), (x), -1)

#define ROUNDS	100

static int plus_one(int x)
{
	return x + 1;
}

static char path[4096];

/* One round's wrong answers, or -1 if the module did not load. */
static int round_trip(int k, int *slots)
{
	rl_register_fn *reg;
	rl_call_fn *call;
	apr_pool_t *pool;
	void *h;
	int wrong = 0;

	if (apr_pool_create(&pool, NULL) != APR_SUCCESS)
		return -1;
	apr_hook_global_pool = pool;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		diag("dlopen: %s", dlerror());
		apr_pool_destroy(pool);
		return -1;
	}
	*(void **)&reg = dlsym(h, "rl_register");
	*(void **)&call = dlsym(h, "rl_call");
	if (!reg || !call) {
		dlclose(h);
		apr_pool_destroy(pool);
		return -1;
	}
	reg(k);
	ho_hook_handle(plus_one, NULL, NULL, APR_HOOK_LAST);
	apr_hook_sort_all();
	slots[0] = ulsm_apr_hook_slots("handle");
	slots[1] = ulsm_apr_hook_slots("ask");
	slots[2] = ulsm_apr_hook_slots("note");
	for (int x = 0; x < 5; x++) {
		long acc = 0;
		int asked = call(x, &acc);
		int handled = ho_run_handle(x);

		if (asked != 3 * x || acc != (k & 2 ? 101L * x : x) ||
		    handled != (k & 1 ? x + 1 : 3 * x)) {
			if (!wrong)
				diag("round %d, x %d: ask %d, note %ld, "
				     "handle %d", k, x, asked, acc, handled);
			wrong++;
		}
	}
	apr_hook_deregister_all();
	slots[3] = ulsm_apr_hook_slots("handle");
	if (ho_run_handle(1) != -1)
		wrong++;
	apr_pool_destroy(pool);
	dlclose(h);
	slots[4] = ulsm_apr_hook_slots("ask");
	slots[5] = ulsm_apr_hook_slots("note");
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		dlclose(h);
		slots[6] = 1;
	} else {
		slots[6] = 0;
	}
	return wrong;
}

int main(void)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	int wrong = 0, unloaded = 0, forgotten = 0, counted = 0, loaded = 0;

	snprintf(path, sizeof(path), "%s/apr_reload_mod.so", dir ? dir : ".");
	if (apr_initialize() != APR_SUCCESS)
		skip_all("APR does not start");
	ok(ulsm_apr_hook_slots("ask") == -ENOENT,
	   "before the first load, the module's hooks are unknown");
	for (int k = 0; k < ROUNDS; k++) {
		int s[7] = { 0 };
		int w = round_trip(k, s);

		if (w < 0)
			break;
		loaded++;
		wrong += w;
		if (s[0] == 2 && s[1] == 2 && s[2] == (k & 2 ? 2 : 1) &&
		    s[3] == 0)
			counted++;
		else if (counted == k)
			diag("round %d: slots %d %d %d, then %d", k, s[0],
			     s[1], s[2], s[3]);
		if (s[4] == -ENOENT && s[5] == -ENOENT)
			forgotten++;
		unloaded += !s[6];
	}
	is_int(loaded, ROUNDS, "the module loaded in every round");
	is_int(wrong, 0, "every answer right, in every round, and no "
	       "function after deregistration");
	is_int(counted, ROUNDS, "each hook dispatched through as many slots "
	       "as functions, and none after deregistration");
	is_int(forgotten, ROUNDS, "the module's hooks forgotten after each "
	       "unload");
	is_int(unloaded, ROUNDS, "the module's object gone after each unload");
	apr_terminate();
	return done_testing();
}

#else
#include "no_apr.h"	/* main: the test says it skipped */
#endif
