// SPDX-License-Identifier: MIT
/*
 * In a set that allows unloading, only what can be unloaded pays for it
 * (docs/hook-framework.md, "Departure and the grace period"): a module of
 * the program (acl) and one of a shared object linked at start-up
 * (libpg_boot.so, a DT_NEEDED of this program: glibc never unloads it)
 * are called directly, and a grace period does not wait for a thread
 * inside them; a plug-in's module (pg_audit.so, opened with dlopen) is
 * called through its slots' guards, and a grace period waits for a
 * thread inside it. A plug-in that can never be unloaded is called
 * directly too: one linked with -z nodelete (pg_keep.so), and every one
 * once the set is sealed (sealing pins their objects), and any under
 * musl (whose dlclose() unmaps nothing). Each for an int hook and a void
 * hook, both dispatched by their entries; on a back end without entries
 * each dispatch is one read-side section, and all are waited for.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ULSM_LSM_DEFINE
#define ULSM_LSM_BUILTIN_ORDER "acl,boot,audit,keep"
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

static void *open_plugin(const char *dir, const char *name)
{
	char path[PATH_MAX];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".", name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ok(h != NULL, "%s loaded%s%s", name, h ? "" : ": ", h ? "" : dlerror());
	return h;
}

int main(void)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	void *audit, *keep;

	hold_init();
	is_int(ulsm_lsm_allow_toggle(&pg_hook_set), 0, "toggling allowed");
	is_int(ulsm_lsm_init(&pg_hook_set, NULL), 0, "init");
	audit = open_plugin(dir, "pg_audit.so");
	keep = open_plugin(dir, "pg_keep.so");
	ok(!strcmp(ulsm_lsm_list(&pg_hook_set), "acl,boot,audit,keep"),
	   "  acl (the program's), boot (libpg_boot.so's), audit, keep "
	   "(-z nodelete): %s", ulsm_lsm_list(&pg_hook_set));
	is_int(check(13), -EPERM, "  acl answers");
	is_int(check(300), -EACCES, "  boot answers");
	is_int(check(100), -EACCES, "  audit answers");
	is_int(check(400), -EACCES, "  keep answers");
	if (PLUGINS_GUARDED)
		who_is_waited_for((const char *const[]){ "audit", NULL },
				  (const char *const[]){ "acl", "boot", "keep",
							 NULL });
	else
		who_is_waited_for((const char *const[]){ NULL },
				  (const char *const[]){ "acl", "boot", "audit",
							 "keep", NULL });
#ifdef ULSM_LSM_HAS_ENTRIES
	dump_shows(PLUGINS_GUARDED ? "acl boot audit[guard] keep" :
		   "acl boot audit keep", "the dump marks the guarded slots");
#else
	dump_shows("acl boot audit keep", "no guards without entries");
#endif
	/*
	 * Off, its guards call the default (a thread still on its way to
	 * one does not enter it); on again, its callbacks.
	 */
	is_int(ulsm_lsm_toggle(&pg_hook_set, "audit", false), 0,
	       "audit toggled off");
	is_int(check(100), 0, "  request 100 allowed");
	is_int(ulsm_lsm_toggle(&pg_hook_set, "audit", true), 0, "  and on");
	is_int(check(100), -EACCES, "  audit answers again");
	/* A guard inside a section: nested, its slow path. */
	ulsm_read_lock();
	is_int(check(100), -EACCES, "inside a section, audit answers (its "
	       "guard nests)");
	ulsm_read_unlock();
	is_int(ulsm_synchronize(), 0, "  and the sections were balanced (a "
	       "grace period does not wait for this thread)");
	/*
	 * Sealed, its modules can no longer leave: their objects are pinned
	 * and every slot calls its module directly.
	 */
	is_int(ulsm_lsm_seal(&pg_hook_set), 0, "sealed");
	who_is_waited_for((const char *const[]){ NULL },
			  (const char *const[]){ "acl", "boot", "audit", "keep",
						 NULL });
	dump_shows("acl boot audit keep", "  no slot is guarded any more");
	is_int(check(100), -EACCES, "  audit answers");
	if (audit)
		dlclose(audit);
	if (keep)
		dlclose(keep);
	is_int(ulsm_lsm_module_active(&pg_hook_set, "audit"), 1,
	       "audit closed, and it stays (its object is pinned)");
	is_int(check(100), -EACCES, "  and answers");
	is_int(check(400), -EACCES, "  so does keep");
	return done_testing();
}
