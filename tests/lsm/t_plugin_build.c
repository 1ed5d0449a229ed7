// SPDX-License-Identifier: MIT
/*
 * Building plug-ins for a host's hook set (docs/hook-framework.md,
 * "Building plug-ins"): every mistake found by a user who tried is loud.
 *
 *   - a plug-in built against another hook list than the host's defining
 *     unit: its module is refused at registration (-EPROTO), the reason
 *     printed without ULSM_DEBUG and kept by the set, readable after the
 *     plug-in is unloaded; it was silently wrong (a callback called for
 *     another hook, with its arguments);
 *   - one built with another MAX_LSM_COUNT: it does not load, and
 *     dlerror() names MAX_LSM_COUNT;
 *   - a host linked without -rdynamic: the plug-in does not load, and
 *     dlerror() names the fix;
 *   - a module loaded after ulsm_lsm_init() comes up in its place, and
 *     in a set that does not allow unloading, dlclose() leaves its object
 *     (pinned) and its module in place.
 *
 * Linked with the shared libulsm and -rdynamic, as a plug-in host is.
 * With -DPB_NO_RDYNAMIC (pb_host_nodyn), it only tries to load a plug-in
 * and prints dlerror().
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ULSM_LSM_DEFINE
#include "pluginbuild/set.h"

#include <ulsm/ulsm.h>

#include "tap.h"

static char dir[PATH_MAX - 64];

static void *load(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

#ifdef PB_NO_RDYNAMIC
int main(void)
{
	const char *d = getenv("ULSM_TEST_PLUGIN_DIR");

	snprintf(dir, sizeof(dir), "%s", d ? d : ".");
	/* A host uses the library (on the generic back end, its set alone
	 * refers to nothing in it, and --as-needed would drop it). */
	if (!*ulsm_backend())
		return 2;
	if (load("pb_rate.so")) {
		puts("loaded");
		return 0;
	}
	puts(dlerror());
	return 1;
}
#else

static int acl_check(int request)
{
	return request == 13 ? -EPERM : 0;
}

static const struct lsm_id acl_id = { "acl", 1 };
static struct pb_hook_list acl_hooks[] = {
	LSM_HOOK_INIT(request_check, acl_check),
};

static int acl_init(void)
{
	return security_add_hooks(acl_hooks, 1, &acl_id);
}

DEFINE_LSM(acl) = { .name = "acl", .init = acl_init, .id = &acl_id };

static int check(int request)
{
	return call_int_hook(request_check, request);
}

static char log_seen[512];

/* The library's messages, into log_seen (ulsm_set_log). */
static void log_to(const char *msg, void *arg)
{
	(void)arg;
	snprintf(log_seen, sizeof(log_seen), "%s", msg);
}

/* Standard error around @fn, into @buf. */
static void *captured(void *(*fn)(const char *), const char *arg, char *buf,
		      size_t len)
{
	char tmpl[] = "/tmp/ulsm-pb-XXXXXX";
	int fd = mkstemp(tmpl), saved = dup(2);
	ssize_t n = -1;
	void *ret;

	fflush(stderr);
	if (fd >= 0)
		dup2(fd, 2);
	ret = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (fd >= 0) {
		n = pread(fd, buf, len - 1, 0);
		close(fd);
		unlink(tmpl);
	}
	buf[n > 0 ? n : 0] = '\0';
	return ret;
}

int main(void)
{
	const char *d = getenv("ULSM_TEST_PLUGIN_DIR"), *why, *emu;
	char err[1024], cmd[PATH_MAX + 256], out[1024] = "";
	void *h;
	FILE *p;

	snprintf(dir, sizeof(dir), "%s", d ? d : ".");

	/* Another hook list: refused when it registers, before init. */
	h = captured(load, "pb_list.so", err, sizeof(err));
	ok(h != NULL, "a plug-in built against another hook list loads (%s)",
	   h ? "ok" : dlerror());
	is_int(ulsm_lsm_init(&pb_hook_set, NULL), 0, "the host's set comes up");
	ok(!strcmp(ulsm_lsm_list(&pb_hook_set), "acl"),
	   "  with acl only: %s", ulsm_lsm_list(&pb_hook_set));
	ok(strstr(err, "module rate is not active: compiled with another hook "
		  "list") != NULL, "  the refusal was printed without "
	   "ULSM_DEBUG");
	if (!strstr(err, "another hook list"))
		diag("  stderr: %s", err);
	is_int(ulsm_lsm_module_active(&pb_hook_set, "rate"), 0,
	       "  rate is known, not active");
	if (h)
		dlclose(h);
	why = ulsm_lsm_module_reason(&pb_hook_set, "rate");
	ok(why && strstr(why, "another hook list"), "  its reason, read after "
	   "the plug-in is unloaded: %s", why ? why : "(none)");
	is_int(check(7), 0, "  and dispatch is the host's: request 7 allowed");
	is_int(check(13), -EPERM, "  request 13 denied by acl");
	ok(ulsm_lsm_module_reason(&pb_hook_set, "acl") == NULL,
	   "  an active module has no reason");

	/* Another MAX_LSM_COUNT: it does not load. */
	h = load("pb_count.so");
	snprintf(err, sizeof(err), "%s", h ? "loaded" : dlerror());
	ok(!h && strstr(err, "MAX_LSM_COUNT_8_UNLOADABLE_0__define_ULSM_LSM_DEFINE_in_"
		       "exactly_one_unit_with_the_same_settings"),
	   "a plug-in with another MAX_LSM_COUNT does not load, and says why");
	diag("  %s", err);
	if (h)
		dlclose(h);

	/*
	 * Loaded after init: it comes up in its place (the default order:
	 * after the modules there). The set does not allow unloading
	 * (no ULSM_LSM_UNLOADABLE), so its object stays after dlclose().
	 */
	h = load("pb_rate.so");
	ok(h != NULL, "a plug-in loaded after ulsm_lsm_init() loads");
	ok(!strcmp(ulsm_lsm_list(&pb_hook_set), "acl,rate"),
	   "  and its module comes up after acl: %s",
	   ulsm_lsm_list(&pb_hook_set));
	is_int(ulsm_lsm_module_active(&pb_hook_set, "rate"), 1, "  active");
	ok(ulsm_lsm_module_reason(&pb_hook_set, "rate") == NULL,
	   "  with no reason left from the refused one");
	is_int(check(7), -EACCES, "  request 7 now denied by rate");
	is_int(check(13), -EPERM, "  request 13 still denied by acl");
	if (h)
		dlclose(h);
	is_int(check(7), -EACCES, "after dlclose(), a set that does not allow "
	       "unloading keeps the module (its object is pinned)");

	/* Sealed, and not opened to plug-ins: a late module is refused. */
	{
		static struct lsm_info late2 = { .name = "late2" };

		is_int(ulsm_lsm_seal(&pb_hook_set), 0, "the set is sealed");
		log_seen[0] = '\0';
		ulsm_set_log(log_to, NULL);
		is_int(ulsm_lsm_register(&late2, &pb_hook_set), -EPERM,
		       "  a module arriving now is refused");
		ulsm_set_log(NULL, NULL);
		ok(strstr(log_seen, "module late2 is not active") != NULL,
		   "  and reported (ulsm_set_log): %s", log_seen);
		why = ulsm_lsm_module_reason(&pb_hook_set, "late2");
		ok(why && strstr(why, "sealed"), "  and says why: %s",
		   why ? why : "(none)");
	}

	/* A host without -rdynamic: the plug-in's error names the fix. */
	emu = getenv("ULSM_EMU");
	snprintf(cmd, sizeof(cmd), "%s%s%s/pb_host_nodyn", emu ? emu : "",
		 emu && *emu ? " " : "", dir);
	p = popen(cmd, "r");
	if (p) {
		if (!fgets(out, sizeof(out), p))
			out[0] = '\0';
		pclose(p);
	}
	ok(strstr(out, "__and_link_a_plugin_host_dynamically_with_rdynamic") != NULL, "a host linked "
	   "without -rdynamic: the plug-in's dlopen error names the fix");
	diag("  %s", out);
	return done_testing();
}
#endif
