// SPDX-License-Identifier: MIT
/*
 * A module in an object that was preloaded (LD_PRELOAD) pays nothing for
 * unloading: glibc loads such an object at start-up, before the
 * program's own libraries, and never unloads it, so in a set that allows
 * unloading its slots call it directly, as the program's (t_guard has
 * the other cases). A plug-in opened with dlopen afterwards is still
 * guarded: the rule must not spread to what can go.
 *
 * The test runs itself again with pg_pre.so in LD_PRELOAD (under the
 * emulator of a cross build, through its -E), and the checks are the
 * second run's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ULSM_LSM_DEFINE
#define ULSM_LSM_BUILTIN_ORDER "acl,pre,audit"
#include "plugins/set.h"

#include <ulsm/ulsm.h>

#include "tap.h"
#include "plugins/hold.h"	/* check(), pg_hold(), who_is_waited_for() */
#include "plugins/acl.h"
#include "plugins/dump.h"

void pg_note(const char *who)
{
	(void)who;
}

#define PRELOADED_ENV	"ULSM_TEST_PRELOADED"

/* Run this program again, with @lib preloaded; returns only on failure. */
static void run_preloaded(const char *self, const char *lib)
{
	const char *emu = getenv("ULSM_EMU");
	const char *asan = getenv("ASAN_OPTIONS");
	char opts[1024];

	/* ASan wants its runtime first in the list; a preload comes before. */
	snprintf(opts, sizeof(opts), "%s%sverify_asan_link_order=0",
		 asan ? asan : "", asan && *asan ? ":" : "");
	setenv("ASAN_OPTIONS", opts, 1);
	setenv(PRELOADED_ENV, lib, 1);
	fflush(stdout);
	if (emu && *emu) {
		char *cmd;

		if (asprintf(&cmd, "exec %s -E LD_PRELOAD='%s' '%s'", emu, lib,
			     self) > 0)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	} else {
		setenv("LD_PRELOAD", lib, 1);
		execl(self, self, (char *)NULL);
	}
	printf("1..0 # SKIP cannot run again with a preload: %s\n",
	       strerror(errno));
	exit(0);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	const char *pre = getenv(PRELOADED_ENV);
	char lib[PATH_MAX], path[PATH_MAX];
	void *audit;

	(void)argc;
	if (!pre) {
		char *real;

		snprintf(lib, sizeof(lib), "%s/pg_pre.so", dir ? dir : ".");
		real = realpath(lib, NULL);
		run_preloaded(argv[0], real ? real : lib);
	}
	hold_init();
	ok(dlopen(pre, RTLD_NOW | RTLD_NOLOAD) != NULL,
	   "pg_pre.so is loaded (preloaded: %s)", pre);
	is_int(ulsm_lsm_init(&pg_hook_set, NULL), 0, "init");
	snprintf(path, sizeof(path), "%s/pg_audit.so", dir ? dir : ".");
	audit = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ok(audit != NULL, "pg_audit.so opened%s%s", audit ? "" : ": ",
	   audit ? "" : dlerror());
	ok(!strcmp(ulsm_lsm_list(&pg_hook_set), "acl,pre,audit"),
	   "  acl (the program's), pre (preloaded), audit (a plug-in): %s",
	   ulsm_lsm_list(&pg_hook_set));
	is_int(check(13), -EPERM, "  acl answers");
	is_int(check(500), -EACCES, "  pre answers");
	is_int(check(100), -EACCES, "  audit answers");
	if (PLUGINS_GUARDED)
		who_is_waited_for((const char *const[]){ "audit", NULL },
				  (const char *const[]){ "acl", "pre", NULL });
	else
		who_is_waited_for((const char *const[]){ NULL },
				  (const char *const[]){ "acl", "pre", "audit",
							 NULL });
#ifdef ULSM_LSM_HAS_ENTRIES
	dump_shows(PLUGINS_GUARDED ? "acl pre audit[guard]" : "acl pre audit",
		   "the dump marks only the plug-in's slots as guarded");
#else
	dump_shows("acl pre audit", "no guards without entries");
#endif
	if (audit)
		dlclose(audit);
	/* musl's dlclose() unloads nothing: the plug-in's module stays. */
	is_int(check(100), PLUGINS_GUARDED ? 0 : -EACCES,
	       "audit closed: %s", PLUGINS_GUARDED ? "it left" : "it stays");
	is_int(check(500), -EACCES, "  pre still answers");
	return done_testing();
}
