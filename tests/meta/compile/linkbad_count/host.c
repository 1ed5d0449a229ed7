// SPDX-License-Identifier: MIT
/*
 * Link test: the host unit of the set "lc", which defines it with
 * MAX_LSM_COUNT 2; module.c was compiled with 3. t_compile links them with
 * ULSM_LSM_DEFINE here, and the link must fail, naming the count.
 */
/* expect: ulsm_hook_set_lc__MAX_LSM_COUNT_3_UNLOADABLE_0__define_ULSM_LSM_DEFINE_in_exactly_one_unit_with_the_same_settings */
#include <stddef.h>
#include "set.h"

int main(void)
{
	return ulsm_lsm_init(&lc_hook_set, NULL) || lc_connect(80);
}
