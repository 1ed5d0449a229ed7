/* SPDX-License-Identifier: MIT */
/*
 * bench/hk_set.h - the ulsm hook set of one variant of bench_hooks: named
 * hk_set_<variant>, with bench_hook_defs.h's hooks and HK_MAX slots each.
 * hk_ulsm.c defines it (ULSM_LSM_DEFINE), hk_mods.c fills it.
 */
#ifndef ULSM_BENCH_HK_SET_H
#define ULSM_BENCH_HK_SET_H

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

#include "hk_bench.h"

#define ULSM_LSM_SET		HK_SET
#define ULSM_LSM_HOOK_DEFS	"bench_hook_defs.h"
#define MAX_LSM_COUNT		HK_MAX
#include <ulsm/lsm_hooks.h>

#endif /* ULSM_BENCH_HK_SET_H */
