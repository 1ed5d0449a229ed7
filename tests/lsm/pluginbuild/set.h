/* SPDX-License-Identifier: MIT */
/*
 * The hook set "pb" of t_plugin_build: the host (t_plugin_build.c) and its
 * plug-ins (module.c, built several ways) expand it. PB_COUNT and
 * PB_OTHER_LIST let a plug-in be built as a mistaken one would be.
 */
#ifndef PB_SET_H
#define PB_SET_H
#define ULSM_LSM_SET		pb
#ifdef PB_OTHER_LIST
# define ULSM_LSM_HOOK_DEFS	"pluginbuild/other_hook_defs.h"
#else
# define ULSM_LSM_HOOK_DEFS	"pluginbuild/hook_defs.h"
#endif
#ifdef PB_COUNT
# define MAX_LSM_COUNT		PB_COUNT
#else
# define MAX_LSM_COUNT		4
#endif
#include <ulsm/lsm_hooks.h>
#endif
