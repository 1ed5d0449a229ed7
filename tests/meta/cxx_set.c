// SPDX-License-Identifier: MIT
/*
 * The unit that defines the hook set whose declarations tests/meta/cxx_headers.cc
 * compiles as C++: a set's defining unit is C, and every program that
 * expands a set must define it once (the linker says so otherwise).
 */
#define ULSM_LSM_DEFINE
#define ULSM_LSM_SET		cxxnet
#define ULSM_LSM_HOOK_DEFS	"lsm/net_hook_defs.h"
#define MAX_LSM_COUNT		2
#include <ulsm/lsm_hooks.h>
