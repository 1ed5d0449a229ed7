/* SPDX-License-Identifier: MIT */
/*
 * The hook set "req" of the request server (host.c) and its plug-ins
 * (mod_*.c). Every file of the set includes this header, so that the host
 * and each plug-in agree on the hooks, the number of slots and whether
 * modules may leave; a plug-in built with another setting does not load,
 * and dlopen() names the setting. host.c defines ULSM_LSM_DEFINE before
 * including it and so holds the set; a plug-in only includes it, defines
 * its module with DEFINE_LSM and is built as a shared object.
 *
 * Compile with -I set to this directory: <ulsm/lsm_hooks.h> includes
 * "req_hooks.h" from the include path.
 */
#ifndef REQ_H
#define REQ_H

#define ULSM_LSM_SET		req
#define ULSM_LSM_HOOK_DEFS	"req_hooks.h"
/* Slots per hook: the built-in module and up to seven plug-ins at once. */
#define MAX_LSM_COUNT		8
/*
 * Plug-ins leave when they are dlclose()d: dispatch runs in a read-side
 * section, so that the unloading waits for the threads inside a module.
 */
#define ULSM_LSM_UNLOADABLE
#include <ulsm/lsm_hooks.h>

#endif
