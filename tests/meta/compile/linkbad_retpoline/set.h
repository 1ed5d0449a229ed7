/* SPDX-License-Identifier: MIT */
/* The hook set "lr" (linkbad_retpoline). */
#define ULSM_LSM_SET		lr
#define ULSM_LSM_HOOK_DEFS	"lsm/net_hook_defs.h"
#define MAX_LSM_COUNT		2
#include <ulsm/lsm_hooks.h>
int lr_connect(int port);
