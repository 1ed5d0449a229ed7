/* SPDX-License-Identifier: MIT */
/*
 * The hook set "pg" of t_lsm_plugins: a host's set that allows unloading,
 * with modules in the host and in plug-ins (module.c) that come and go.
 */
#ifndef PG_SET_H
#define PG_SET_H
#define ULSM_LSM_SET		pg
#define ULSM_LSM_HOOK_DEFS	"plugins/hook_defs.h"
#define MAX_LSM_COUNT		6
#define ULSM_LSM_UNLOADABLE
#include <ulsm/lsm_hooks.h>

/* In the host, exported (-rdynamic): a module says it was called. */
void pg_note(const char *who);
/* In the host: a module's callback may be held there (t_lsm_plugins). */
void pg_hold(const char *who, int request);
#endif
