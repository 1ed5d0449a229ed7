// SPDX-License-Identifier: MIT
/*
 * The default: instruction fetch is coherent with stores, the kernel's
 * included (x86-64: Intel SDM vol. 3A, 9.1.3 "Handling Self- and
 * Cross-Modifying Code"; the generic back end writes no code). A store
 * needs no cache maintenance; the core sync that follows a stage is all
 * it takes. aarch64 and riscv64 have their own fetch.c.
 */
#include "engine/arch.h"

void arch_flush_icache(void *addr, size_t len)
{
	(void)addr;
	(void)len;
}

/* Hardware keeps fetch coherent with the kernel's write too. */
int arch_fetch_misses_procmem(int fd)
{
	(void)fd;
	return 0;
}
