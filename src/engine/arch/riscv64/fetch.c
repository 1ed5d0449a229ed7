// SPDX-License-Identifier: MIT
/*
 * riscv64: whether instruction fetch sees what the kernel writes (an
 * emulator's does not). Making a stored word visible is the fetch sync's
 * job (sync_fetch.c).
 */
#include "engine/arch/word.h"

/*
 * Whether instruction fetch misses text written through /proc/self/mem
 * (src/engine/arch/word.h says how it asks): `li a0, 1` in a private
 * function, rewritten to `li a0, 2`.
 */
__asm__(".pushsection .text, \"ax\"\n\t"
	".option push\n\t"
	".option norvc\n\t"
	".option norelax\n\t"
	".balign 4\n"
	"ulsm__rv_probe:\n\t"
	"auipc zero, 0\n\t"		/* lpad 0 */
	"li a0, 1\n\t"
	"ret\n\t"
	".option pop\n\t"
	".popsection");

extern int ulsm__rv_probe(void) __attribute__((visibility("hidden")));

#define RV_LI_A0(imm)	(0x00000513u | (uint32_t)(imm) << 20)	/* ADDI */

int arch_fetch_misses_procmem(int fd)
{
	return word_fetch_misses(fd, ulsm__rv_probe, RV_LI_A0(1), RV_LI_A0(2));
}
