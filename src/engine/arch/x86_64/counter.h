/* SPDX-License-Identifier: MIT */
/* src/engine/arch/x86_64/counter.h - the TSC (src/engine/counter.h). */
#ifndef ULSM_SRC_X86_64_COUNTER_H
#define ULSM_SRC_X86_64_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/* Not ordered with the loads and stores around it: a timestamp. */
static inline uint64_t arch_counter_read(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

bool arch_counter_usable(void);	/* counter.c */

#endif
