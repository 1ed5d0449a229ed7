/* SPDX-License-Identifier: MIT */
/* The hook set "lc": MAX_LSM_COUNT 2, unless a unit says otherwise. */
#define ULSM_LSM_SET		lc
#define ULSM_LSM_HOOK_DEFS	"lsm/net_hook_defs.h"
#ifndef MAX_LSM_COUNT
# define MAX_LSM_COUNT		2
#endif
#include <ulsm/lsm_hooks.h>
int lc_connect(int port);
