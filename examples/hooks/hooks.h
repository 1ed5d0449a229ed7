/* SPDX-License-Identifier: MIT */
/*
 * The hook set "app", for every file of the example: it declares
 * app_hook_set, struct app_hook_list, call_int_hook() and friends.
 * host.c defines ULSM_LSM_DEFINE before including it, and so holds the
 * set's tables; the modules only include it.
 * Compile with -I set to this directory: <ulsm/lsm_hooks.h> includes
 * "hook_defs.h" from the include path.
 */
#ifndef HOOKS_H
#define HOOKS_H

#define ULSM_LSM_SET		app
#define ULSM_LSM_HOOK_DEFS	"hook_defs.h"
#define MAX_LSM_COUNT		2	/* slots per hook: two modules */
#include <ulsm/lsm_hooks.h>

extern int log_opens, log_closes;	/* what mod_log.c saw */

#endif
