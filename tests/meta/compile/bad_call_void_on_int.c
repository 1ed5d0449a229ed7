// SPDX-License-Identifier: MIT
/*
 * Must NOT compile: call_void_hook() on a hook that returns a value, which
 * would run every module and drop their decisions; once for a hook
 * dispatched by its entry and once for one dispatched by the C walk. Each
 * is one error, and it names the macro to use instead.
 */
/* expect: returns_a_value_use_call_int_hook */
/* errors: 2 */
#define ULSM_LSM_SET		kinds
#define ULSM_LSM_HOOK_DEFS	"compile/kinds_hook_defs.h"
#define MAX_LSM_COUNT		2
#include <ulsm/lsm_hooks.h>

void kinds_open(const char *path);
void kinds_open(const char *path)
{
	call_void_hook(file_open, path);
	call_void_hook(seven, 1, 2, 3, 4, 5, 6, 7);
}
