// SPDX-License-Identifier: MIT
/*
 * A program linked statically cannot load plug-ins of its hook sets: it
 * exports no symbols, so a plug-in's module cannot find its set (issue
 * 40). Said twice: ulsm_lsm_init() of a set that takes plug-ins reports
 * it, with what to do; and the plug-in's dlopen() fails naming a symbol
 * that says to link the host dynamically, with -rdynamic.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ULSM_LSM_DEFINE
#include "plugins/set.h"

#include <ulsm/ulsm.h>

#include "tap.h"

void pg_note(const char *who)
{
	(void)who;
}

void pg_hold(const char *who, int request)
{
	(void)who;
	(void)request;
}

static char reported[2048];

static void on_log(const char *msg, void *arg)
{
	(void)arg;
	strncat(reported, msg, sizeof(reported) - strlen(reported) - 2);
	strcat(reported, "\n");
}

int main(void)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	char path[PATH_MAX];
	void *h;

	ulsm_set_log(on_log, NULL);
	ok(ulsm_lsm_init(&pg_hook_set, NULL) == 0, "the set initialises");
	ok(strstr(reported, "linked statically") &&
	   strstr(reported, "Link the program dynamically, with -rdynamic"),
	   "ulsm_lsm_init says a static program cannot load its plug-ins, "
	   "and what to do (%s)", reported);
	snprintf(path, sizeof(path), "%s/pgw_rate.so", dir ? dir : ".");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h) {
		ok(0, "the plug-in loaded into a static program");
		dlclose(h);
	} else {
		const char *e = dlerror();

		/* musl's static programs have no dlopen at all. */
		ok(e && (strstr(e, "link_a_plugin_host_dynamically_with_"
				"rdynamic") || strstr(e, "not supported")),
		   "its dlopen fails, naming what to do: %s", e ? e : "");
	}
	return done_testing();
}
