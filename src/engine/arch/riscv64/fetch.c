// SPDX-License-Identifier: MIT
/*
 * riscv64: whether instruction fetch sees what the kernel writes (an
 * emulator's does not). Making a stored word visible is the fetch sync's
 * job (sync_fetch.c).
 */
#include "engine/arch/word.h"
#include "base/sys.h"

/*
 * Whether instruction fetch misses text written through /proc/self/mem.
 * On hardware it never does: the kernel writes the physical page our
 * mapping maps, and the fetch sync does the rest. qemu-user translates
 * guest code once and notices changes only through its own write
 * protection of the guest's pages, which a write by the kernel bypasses.
 *
 * So ask, once: rewrite `li a0, 1` in a private function to `li a0, 2`
 * through @fd, make it visible as a batch would (the fetch sync, for
 * every hart: this thread may move between the write and the call),
 * call it, write it back. 2 means fetch sees such writes. The function
 * is called only here, by the thread that holds the patch lock, through
 * a pointer: it starts with a landing pad.
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

bool arch_fetch_misses_procmem(int fd)
{
	static int misses = -1;
	int (*volatile probe)(void) = ulsm__rv_probe;
	uintptr_t at = (uintptr_t)ulsm__rv_probe + 4;
	uint32_t old = RV_LI_A0(1), new = RV_LI_A0(2);
	int got;

	if (misses >= 0)
		return misses;
	if (word_at(at) != old || probe() != 1)
		return true;	/* cannot tell: assume the worst, ask again */
	if (ulsm_sys_pwrite(fd, &new, 4, at) != 4)
		return true;
	arch_flush_icache((void *)at, 4);
	got = arch_sync_fetch() ? -1 : probe();
	/* Written back even if that fails: it then stays "returns 2". */
	ulsm_sys_pwrite(fd, &old, 4, at);
	arch_flush_icache((void *)at, 4);
	arch_sync_fetch();
	if (got != 1 && got != 2)
		return true;
	misses = got == 1;
	return misses;
}
