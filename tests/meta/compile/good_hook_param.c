// SPDX-License-Identifier: MIT
/*
 * Must compile: bad_hook_param.c's set, with its floating-point hook
 * dispatched by the unrolled C walk (ULSM_LSM_C_WALK_<hook>).
 */
#define ULSM_LSM_C_WALK_scale	1
#define ULSM_LSM_SET		fp
#define ULSM_LSM_HOOK_DEFS	"compile/fp_hook_defs.h"
#define MAX_LSM_COUNT		2
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

int fp_dispatch(double f);
int fp_dispatch(double f)
{
	return call_int_hook(scale, f) | call_int_hook(file_open, 1);
}
