/* SPDX-License-Identifier: MIT */
/*
 * bench/wl_set.h - the ulsm hook set of one variant of bench_workload:
 * wl_set_<variant>, with wl_hook_defs.h's hooks and four slots each (a
 * distribution kernel builds in more LSMs than it enables). wl_ulsm.c
 * defines it, wl_mods.c fills it.
 */
#ifndef ULSM_BENCH_WL_SET_H
#define ULSM_BENCH_WL_SET_H

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

#include "wl_bench.h"

#define ULSM_LSM_SET		WL_SET
#define ULSM_LSM_HOOK_DEFS	"wl_hook_defs.h"
#define MAX_LSM_COUNT		4
#include <ulsm/lsm_hooks.h>

#endif /* ULSM_BENCH_WL_SET_H */
