// SPDX-License-Identifier: MIT
/*
 * Must compile: the control for bad_lsm_count_*.c. MAX_LSM_COUNT may be a
 * macro that expands to a literal, up to 64.
 */
#define N 64
#define ULSM_LSM_SET		lc
#define ULSM_LSM_HOOK_DEFS	"lsm/net_hook_defs.h"
#define MAX_LSM_COUNT		N
#include <ulsm/lsm_hooks.h>

int main(void)
{
	return call_int_hook(socket_connect, 80);
}
