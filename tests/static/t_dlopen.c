// SPDX-License-Identifier: MIT
/*
 * Keys across objects: a shared object loaded with dlopen() registers its
 * own jump table; sites in it follow a key of the main program (also one
 * that was enabled before it was loaded), its own key can be flipped from
 * here, and after dlclose() its sites are forgotten, so flipping the main
 * program's key touches no unmapped memory. Then it is loaded again.
 *
 * Linked with the shared libulsm, like the plug-in: one library instance.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>
#include <ulsm/update.h>

#include "tap.h"

DEFINE_STATIC_KEY_FALSE(main_key);

static int main_default(int x)
{
	return x + 1;
}

DEFINE_STATIC_CALL(main_sc, main_default);

__attribute__((noinline)) static int main_call(int x)
{
	return static_call(main_sc)(x);
}

__attribute__((noinline)) static int main_site(void)
{
	return static_branch_unlikely(&main_key) ? 1 : 0;
}

struct plugin {
	void *h;
	struct static_key_false *(*key)(void);
	int (*own)(void);
	int (*main_unlikely)(void);
	int (*main_likely)(void);
	int (*target)(int);
	int (*call_it)(int);
	struct static_call_key *sc_key;
	void *sc_tramp;
};

static char path[PATH_MAX];

/*
 * Whether dlclose() really unloaded the plug-in (and ran its destructor,
 * which unregisters it). glibc does; musl's dlclose() never unloads, so
 * there the object, its sites and its keys stay as they were.
 */
static int unloaded(void)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return !h;
}

static int load(struct plugin *p)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");

	snprintf(path, sizeof(path), "%s/plugin_keys.so", dir ? dir : ".");
	p->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!p->h) {
		diag("dlopen: %s", dlerror());
		return -1;
	}
	*(void **)&p->key = dlsym(p->h, "plugin_key_addr");
	*(void **)&p->own = dlsym(p->h, "plugin_site_own");
	*(void **)&p->main_unlikely = dlsym(p->h, "plugin_site_main");
	*(void **)&p->main_likely = dlsym(p->h, "plugin_site_main_likely");
	*(void **)&p->target = dlsym(p->h, "plugin_target");
	*(void **)&p->call_it = dlsym(p->h, "plugin_call_it");
	p->sc_key = dlsym(p->h, "__SCK__plugin_sc");
	p->sc_tramp = dlsym(p->h, "__SCT__plugin_sc");
	return p->key && p->own && p->main_unlikely && p->main_likely &&
	       p->target && p->call_it && p->sc_key &&
	       (p->sc_tramp || !strcmp(ulsm_backend(), "generic")) ? 0 : -1;
}

int main(void)
{
	struct ulsm_object_tables bad = { sizeof(bad), NULL, NULL };
	struct ulsm_stats st0, st1;
	struct plugin p;
	int gone;

	/* Enabled before the plug-in exists: its sites must follow on load. */
	is_int(static_branch_enable(&main_key), 0, "enable main key before dlopen");
	if (!is_int(load(&p), 0, "dlopen the plug-in"))
		return done_testing();
	is_int(p.main_unlikely(), 1, "plug-in's unlikely site of the main key: on");
	is_int(p.main_likely(), 1, "plug-in's likely site of the main key: on");
	is_int(p.own(), 0, "plug-in's own key: off");

	is_int(static_branch_enable(p.key()), 0, "enable the plug-in's key from here");
	is_int(p.own(), 1, "plug-in's own site: on");
	is_int(static_branch_disable(&main_key), 0, "disable main key");
	ok(main_site() == 0 && p.main_unlikely() == 0 && p.main_likely() == 0,
	   "all sites of the main key, in both objects: off");

	/* Static calls across the two objects. */
	is_int(p.call_it(2), 20, "plug-in's static call: its default target");
	is_int(static_call_update(main_sc, p.target), 0,
	       "retarget the main call into the plug-in");
	is_int(main_call(2), 200, "main call reaches the plug-in");
	diag("main -> plug-in: %s", ulsm_static_call_form_name(
		ulsm_static_call_form(&STATIC_CALL_KEY(main_sc))));
	is_int(__static_call_update(p.sc_key, p.sc_tramp, (void *)main_default), 0,
	       "retarget the plug-in's call from here, into the main program");
	is_int(p.call_it(2), 3, "plug-in's call reaches the main program");
	is_int(__static_call_update(p.sc_key, p.sc_tramp, (void *)p.target), 0,
	       "and within the plug-in");
	is_int(p.call_it(2), 200, "plug-in's call reaches plugin_target");
	is_int(static_call_update(main_sc, main_default), 0,
	       "retarget the main call back before dlclose");
	is_int(main_call(2), 3, "main call is home");

	ulsm_get_stats(&st0);
	is_int(static_branch_enable(&main_key), 0, "enable main key");
	ulsm_get_stats(&st1);
	if (strcmp(ulsm_backend(), "generic"))
		is_int(st1.sites_patched - st0.sites_patched, 3,
		       "three sites in two objects, one batch");
	void *stale_tramp = p.sc_tramp;
	/*
	 * Recorded now, committed once the plug-in is gone; as they are now,
	 * so that where the plug-in stays (musl) the commit changes nothing.
	 */
	struct ulsm_update *late = ulsm_update_new();

	ok(late && !ulsm_update_key(late, &p.key()->key, true) &&
	   !ulsm_update_call(late, p.sc_key, p.sc_tramp, (void *)p.target),
	   "record the plug-in's key and call in an update");

	is_int(dlclose(p.h), 0, "dlclose the plug-in");
	gone = unloaded();
	diag("%s", gone ? "dlclose unloaded the plug-in" : "dlclose did not "
	     "unload the plug-in (musl): it stays registered");
	is_int(ulsm_update_commit(late), gone ? -ENOENT : 0, "committed after "
	       "dlclose: %s", gone ? "refused, the object is gone (-ENOENT)" :
	       "still loaded, applied");
	if (gone)
		ok(strstr(ulsm_last_error(), "no loaded object"), "and says "
		   "why: %s", ulsm_last_error());
	ulsm_update_free(late);
	if (strcmp(ulsm_backend(), "generic"))
		is_int(__static_call_update(&STATIC_CALL_KEY(main_sc), stale_tramp,
					    (void *)main_default),
		       gone ? -ENOENT : -EINVAL,
		       "a closed object's trampoline is refused (%s)",
		       gone ? "-ENOENT" : "still loaded: another key's, -EINVAL");

	ulsm_get_stats(&st0);
	is_int(static_branch_disable(&main_key), 0, "flip main key after dlclose");
	ulsm_get_stats(&st1);
	is_int(main_site(), 0, "main site follows");
	if (strcmp(ulsm_backend(), "generic"))
		is_int(st1.sites_patched - st0.sites_patched, gone ? 1 : 3,
		       gone ? "only the main program's site is patched" :
		       "the still loaded plug-in's sites follow too");

	if (!is_int(load(&p), 0, "dlopen again"))
		return done_testing();
	is_int(p.own(), !gone, gone ?
	       "a fresh mapping: the plug-in's key starts off again" :
	       "the same mapping: the plug-in's key is still on");
	is_int(p.main_unlikely(), 0, "and follows the main key (off)");
	is_int(static_branch_enable(&main_key), 0, "enable main key");
	is_int(p.main_unlikely(), 1, "plug-in site on");
	is_int(dlclose(p.h), 0, "dlclose again");

	/* Bad tables. */
	is_int(ulsm_object_register(NULL), -EINVAL, "register NULL -> -EINVAL");
	bad.size = 1;
	is_int(ulsm_object_register(&bad), -EINVAL, "register bad size -> -EINVAL");
	bad.size = sizeof(bad);
	is_int(ulsm_object_unregister(&bad), -ENOENT,
	       "unregister unknown tables -> -ENOENT");
	return done_testing();
}
