// SPDX-License-Identifier: MIT
/*
 * Must NOT compile: a hook with a floating-point parameter, in the set's
 * defining unit, without ULSM_LSM_C_WALK_<hook>: its entry would keep the
 * parameter in an integer register (docs/hook-framework.md, "Dispatch").
 * On a back end without entries there is nothing to check: the check
 * fails on purpose so that this file is refused everywhere.
 */
/* expect: ulsm_hook_param_is_not_an_integer_or_pointer */
#define ULSM_LSM_SET		fp
#define ULSM_LSM_HOOK_DEFS	"compile/fp_hook_defs.h"
#define MAX_LSM_COUNT		2
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

#ifndef ULSM_LSM_HAS_ENTRIES
void ulsm_hook_param_is_not_an_integer_or_pointer(double x);
void fp_probe(void);
void fp_probe(void)
{
	ulsm_hook_param_is_not_an_integer_or_pointer((void *)0);
}
#endif
