// SPDX-License-Identifier: MIT
/*
 * A plug-in for t_dlopen: a shared object with its own key and sites, and
 * sites of a key that the main program defines (exported with -rdynamic).
 * Its constructor (from <ulsm/object.h>) registers its jump table when it
 * is loaded, its destructor removes it at dlclose.
 */
#include <ulsm/static_key.h>

DECLARE_STATIC_KEY_FALSE(main_key);
DEFINE_STATIC_KEY_FALSE(plugin_key);

struct static_key_false *plugin_key_addr(void);
int plugin_site_own(void);
int plugin_site_main(void);
int plugin_site_main_likely(void);

struct static_key_false *plugin_key_addr(void)
{
	return &plugin_key;
}

int plugin_site_own(void)
{
	return static_branch_unlikely(&plugin_key) ? 1 : 0;
}

int plugin_site_main(void)
{
	return static_branch_unlikely(&main_key) ? 1 : 0;
}

int plugin_site_main_likely(void)
{
	return static_branch_likely(&main_key) ? 1 : 0;
}

/* Static calls: one defined here, and a target for the main program's. */
#include <ulsm/static_call.h>

int plugin_default(int x);
int plugin_target(int x);
int plugin_call_it(int x);

int plugin_default(int x)
{
	return x * 10;
}

int plugin_target(int x)
{
	return x * 100;
}

DEFINE_STATIC_CALL(plugin_sc, plugin_default);

int plugin_call_it(int x)
{
	return static_call(plugin_sc)(x);
}
