/* SPDX-License-Identifier: MIT */
/*
 * src/engine/counter.h - the CPU's cycle or timer counter, where the
 * back end has one (src/engine/arch/<arch>/counter.h): a few cycles to
 * read from user space, no system call. The recorder's clock
 * (src/trace/clock.h) reads it for every event.
 *
 * arch_counter_read: the counter now (0 where there is none).
 * arch_counter_usable: whether it runs at one rate on every CPU, in
 * every power state, in step across CPUs: only then can two threads'
 * readings be compared and converted to CLOCK_MONOTONIC. Called once.
 */
#ifndef ULSM_SRC_COUNTER_H
#define ULSM_SRC_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

#include <ulsm/arch.h>

#if defined(ULSM_ARCH_X86_64)
# include "engine/arch/x86_64/counter.h"
#elif defined(ULSM_ARCH_AARCH64)
# include "engine/arch/aarch64/counter.h"
#else
/* riscv64 (rdtime may trap to the firmware), the generic back end. */
static inline uint64_t arch_counter_read(void)
{
	return 0;
}

static inline bool arch_counter_usable(void)
{
	return false;
}
#endif

#endif
