/* SPDX-License-Identifier: MIT */
/*
 * bench/sc_far.h - bench_static_call's hook set, one per variant
 * (sc_far_<variant>): one hook, int far_abs(int), and one module whose
 * callback is libc's abs, out of rel32 reach of the program. So its entry
 * tail-calls the slot's stub I0, which jumps through the slot's key: the
 * far form of a hook entry (<ulsm/arch/x86_64.h>), timed next to the far
 * form of a trampoline (static_call -> libc abs). sc_target.c defines
 * the set, sc_loops.c dispatches it.
 */
#ifndef ULSM_BENCH_SC_FAR_H
#define ULSM_BENCH_SC_FAR_H

#include "sc_bench.h"

#define ULSM_LSM_SET		SC_SYM(far, VARIANT)
#define ULSM_LSM_HOOK_DEFS	"sc_far_hook_defs.h"
#define MAX_LSM_COUNT		1
#include <ulsm/lsm_hooks.h>

#endif /* ULSM_BENCH_SC_FAR_H */
