// SPDX-License-Identifier: MIT
/*
 * src/engine/arch/aarch64/counter.c - whether the generic timer can time
 * events (src/engine/arch.h; read by <ulsm/arch/aarch64.h>): always. Its
 * virtual count runs at one frequency, system-wide, in every power state,
 * by the architecture (Arm ARM, D11 "The Generic Timer").
 */
#include "engine/arch.h"

bool arch_counter_usable(void)
{
	return true;
}
