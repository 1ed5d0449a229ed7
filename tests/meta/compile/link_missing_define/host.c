// SPDX-License-Identifier: MIT
/*
 * Link test: the host unit of the set "lk". t_compile links it with
 * module.c three ways: neither unit defines ULSM_LSM_DEFINE (must fail,
 * naming the symbol below), this one does (must link), both do (must
 * fail, naming it too).
 */
/* expect: ulsm_hook_set_lk__MAX_LSM_COUNT_2_UNLOADABLE_0__define_ULSM_LSM_DEFINE_in_exactly_one_unit */
#include <stddef.h>
#include "set.h"

int main(void)
{
	return ulsm_lsm_init(&lk_hook_set, NULL) || lk_connect(80);
}
