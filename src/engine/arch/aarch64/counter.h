/* SPDX-License-Identifier: MIT */
/*
 * src/engine/arch/aarch64/counter.h - the generic timer's virtual count
 * (src/engine/counter.h): one frequency, system-wide, by the
 * architecture; the kernel lets user space read it (CNTKCTL_EL1.EL0VCTEN).
 */
#ifndef ULSM_SRC_AARCH64_COUNTER_H
#define ULSM_SRC_AARCH64_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/* isb: not read ahead of the code before it. */
static inline uint64_t arch_counter_read(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

static inline bool arch_counter_usable(void)
{
	return true;
}

#endif
