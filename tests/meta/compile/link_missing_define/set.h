/* SPDX-License-Identifier: MIT */
/* The hook set "lk" of this link test, for both of its units. */
#define ULSM_LSM_SET		lk
#define ULSM_LSM_HOOK_DEFS	"lsm/net_hook_defs.h"
#define MAX_LSM_COUNT		2
#include <ulsm/lsm_hooks.h>
int lk_connect(int port);
