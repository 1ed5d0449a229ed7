// SPDX-License-Identifier: MIT
/*
 * Must NOT compile: call_int_hook() on a hook declared void, once for a
 * hook dispatched by its entry and once for one dispatched by the C walk.
 * The first error of each names the macro to use instead; gcc follows the
 * walk's with more (a void result assigned, once per slot), so no count.
 */
/* expect: is_void_use_call_void_hook */
#define ULSM_LSM_SET		kinds
#define ULSM_LSM_HOOK_DEFS	"compile/kinds_hook_defs.h"
#define MAX_LSM_COUNT		2
#include <ulsm/lsm_hooks.h>

int kinds_close(const char *path);
int kinds_close(const char *path)
{
	return call_int_hook(file_close, path) |
	       call_int_hook(seven_void, 1, 2, 3, 4, 5, 6, 7);
}
