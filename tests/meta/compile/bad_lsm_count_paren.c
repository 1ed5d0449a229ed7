// SPDX-License-Identifier: MIT
/* Must NOT compile: MAX_LSM_COUNT (2+2), not a decimal literal from 1 to 64. */
/* expect: MAX_LSM_COUNT must be a decimal integer literal from 1 to 64 */
/* errors: 1 (ours, and nothing about pasting tokens after it) */
#define N 3
#define ULSM_LSM_SET		lc
#define ULSM_LSM_HOOK_DEFS	"lsm/net_hook_defs.h"
#define MAX_LSM_COUNT		(2+2)
#include <ulsm/lsm_hooks.h>

int main(void)
{
	return call_int_hook(socket_connect, 80);
}
