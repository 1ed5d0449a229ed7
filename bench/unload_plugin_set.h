/* SPDX-License-Identifier: MIT */
/*
 * bench_unload's set "uz": one that allows unloading, whose modules are
 * all in a plug-in (unload_plugin.c), so that they are called through
 * their slots' guards until it is sealed.
 */
#ifndef UNLOAD_PLUGIN_SET_H
#define UNLOAD_PLUGIN_SET_H
#define ULSM_LSM_SET		uz
#define ULSM_LSM_HOOK_DEFS	"unload_hook_defs.h"
#define MAX_LSM_COUNT		4
#define ULSM_LSM_UNLOADABLE
#include <ulsm/lsm_hooks.h>

/*
 * And "uw", its twin that never unloads: the same plug-in's modules, as
 * far from the program, without guards (what a sealed "uz" should cost).
 */
#undef ULSM_LSM_SET
#undef ULSM_LSM_UNLOADABLE
#define ULSM_LSM_SET		uw
#include <ulsm/lsm_hooks.h>
#undef ULSM_LSM_SET
#define ULSM_LSM_SET		uz
#define ULSM_LSM_UNLOADABLE
#endif
