// SPDX-License-Identifier: MIT
/*
 * aarch64: making a stored word visible to instruction fetch, and asking
 * whether fetch sees what the kernel writes (an emulator's does not).
 * No fetch sync: IC IVAU is broadcast to the Inner Shareable domain, so
 * the core sync's context synchronisation on every CPU is all that is
 * left (src/engine/arch/generic/sync_fetch.c, the default).
 */
#include "engine/arch/word.h"

/*
 * The sequence the Arm ARM gives for making a store visible to instruction
 * fetch (B2.2.5, and "Synchronization and coherency issues between data
 * and instruction accesses"; cache maintenance by VA to the Point of
 * Unification):
 *
 *	DC CVAU  each data cache line  (clean to the PoU)
 *	DSB ISH                        (the clean completes, for all cores)
 *	IC IVAU  each i-cache line     (invalidate to the PoU, all cores)
 *	DSB ISH                        (the invalidation completes)
 *	ISB                            (this core refetches)
 *
 * CTR_EL0 (readable at EL0 on Linux, which sets SCTLR_EL1.UCT or
 * emulates the read) gives the line sizes, and says when a step is not
 * needed: IDC, no clean needed for coherence between data and instruction
 * caches; DIC, no instruction-cache invalidation needed. The other cores
 * refetch after the core sync that follows (membarrier SYNC_CORE: the
 * kernel makes each one execute a context synchronization event).
 */
#define CTR_IDC		(1ul << 28)
#define CTR_DIC		(1ul << 29)

void arch_flush_icache(void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr, end = start + len, p;
	unsigned long ctr;
	size_t dline, iline;

	__asm__ __volatile__("mrs %0, ctr_el0" : "=r" (ctr));
	dline = 4ul << ((ctr >> 16) & 0xf);	/* DminLine: log2 words */
	iline = 4ul << (ctr & 0xf);		/* IminLine */

	if (!(ctr & CTR_IDC))
		for (p = start & ~(dline - 1); p < end; p += dline)
			__asm__ __volatile__("dc cvau, %0" : : "r" (p) : "memory");
	__asm__ __volatile__("dsb ish" : : : "memory");
	if (!(ctr & CTR_DIC))
		for (p = start & ~(iline - 1); p < end; p += iline)
			__asm__ __volatile__("ic ivau, %0" : : "r" (p) : "memory");
	__asm__ __volatile__("dsb ish\n\tisb" : : : "memory");
}

/*
 * Whether instruction fetch misses text written through /proc/self/mem
 * (src/engine/arch/word.h says how it asks): `mov w0, #1` in a private
 * function, rewritten to `mov w0, #2`.
 */
__asm__(".pushsection .text, \"ax\"\n\t"
	".balign 16\n"
	"ulsm__a64_probe:\n\t"
	"hint 34\n\t"			/* bti c: called through a pointer */
	"mov w0, #1\n\t"
	"ret\n\t"
	".popsection");

extern int ulsm__a64_probe(void) __attribute__((visibility("hidden")));

#define A64_MOV_W0(imm)	(0x52800000u | ((uint32_t)(imm) << 5))	/* MOVZ */

int arch_fetch_misses_procmem(int fd)
{
	return word_fetch_misses(fd, ulsm__a64_probe, A64_MOV_W0(1),
				 A64_MOV_W0(2));
}
