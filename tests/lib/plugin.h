/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/plugin.h - a test's plug-ins, PREFIX_NAME.so in the directory
 * that ULSM_TEST_PLUGIN_DIR names (make check runs the tests where they
 * and their plug-ins are built, with ULSM_TEST_PLUGIN_DIR=.).
 *
 *	plugin_load("pg_", "audit")	dlopen() it, RTLD_NOW | RTLD_LOCAL
 *	plugin_unloads("pg_", "audit")	after its dlclose(), is it gone?
 */
#ifndef ULSM_TESTS_PLUGIN_H
#define ULSM_TESTS_PLUGIN_H

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static void plugin_path(char *path, size_t size, const char *prefix,
			const char *name)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");

	snprintf(path, size, "%s/%s%s.so", dir ? dir : ".", prefix, name);
}

__attribute__((unused))
static void *plugin_load(const char *prefix, const char *name)
{
	char path[PATH_MAX];

	plugin_path(path, sizeof(path), prefix, name);
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

/*
 * Whether a closed plug-in is gone: glibc's dlclose() unloads (and runs
 * destructors); musl's never does, so there a module stays, as in a set
 * that does not allow unloading, and departures cannot be seen.
 */
__attribute__((unused))
static bool plugin_unloads(const char *prefix, const char *name)
{
	char path[PATH_MAX];
	void *h;

	plugin_path(path, sizeof(path), prefix, name);
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (h)
		dlclose(h);
	return !h;
}

#endif /* ULSM_TESTS_PLUGIN_H */
