/* SPDX-License-Identifier: MIT */
/*
 * bench_unload's set "uz": one that allows unloading, whose modules are
 * all in a plug-in (unload_plugin.c), so that they are called through
 * their slots' guards.
 */
#ifndef UNLOAD_PLUGIN_SET_H
#define UNLOAD_PLUGIN_SET_H
#define ULSM_LSM_SET		uz
#define ULSM_LSM_HOOK_DEFS	"unload_hook_defs.h"
#define MAX_LSM_COUNT		4
#define ULSM_LSM_UNLOADABLE
#include <ulsm/lsm_hooks.h>
#endif
