// SPDX-License-Identifier: MIT
/*
 * Link test: the host unit of the set "lr", which defines it without
 * ULSM_RETPOLINE; module.c was compiled with it (a build that gave the
 * macro to some units only: the entries here would make bare indirect
 * jumps). t_compile links them with ULSM_LSM_DEFINE here, and the link
 * must fail, naming the setting.
 */
/* expect: ulsm_hook_set_lr__RETPOLINE__define_ULSM_RETPOLINE_in_the_unit_that_defines_the_set_too */
#include <stddef.h>
#include "set.h"

int main(void)
{
	return ulsm_lsm_init(&lr_hook_set, NULL) || lr_connect(80);
}
