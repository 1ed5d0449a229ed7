/* SPDX-License-Identifier: MIT */
/* The set of pedantic_set.c (defining unit) and pedantic_module.c. */
#ifndef PEDANTIC_HOOKS_H
#define PEDANTIC_HOOKS_H

#include <stdbool.h>

#define ULSM_LSM_SET		ped
#define ULSM_LSM_HOOK_DEFS	"compile/pedantic_hook_defs.h"
#define MAX_LSM_COUNT		3
#define ULSM_LSM_C_WALK_scaled	1
#include <ulsm/lsm_hooks.h>

int ped_module_count(void);

#endif
