// SPDX-License-Identifier: MIT
/*
 * riscv64: the fetch sync (src/engine/arch.h), riscv_flush_icache, and
 * the range of text it is given. arch_flush_icache() is here, not in
 * fetch.c as on aarch64: on riscv64 it makes nothing visible by itself
 * and only notes, for the fetch sync, what was written.
 */
#include <stdint.h>
#include <sys/syscall.h>

#include "engine/arch.h"
#include "base/sys.h"

#ifndef SYS_riscv_flush_icache
# define SYS_riscv_flush_icache	259	/* __NR_arch_specific_syscall + 15 */
#endif

/*
 * The text written since the last fetch sync, handed to the system call
 * (which ignores it today: <asm/unistd.h> keeps the range "for forwards
 * compatibility"). Only written under the patch lock: every write of
 * text and every sync is made by the thread that holds it.
 */
static uintptr_t written_lo = UINTPTR_MAX, written_hi;

/*
 * Making a store visible to instruction fetch takes a FENCE.I on every
 * hart, which user space cannot reach: the stage's core sync does it for
 * every word of the stage (arch_sync_fetch). Here the word is only noted.
 * A FENCE.I per word would be of no use (it covers this hart only, until
 * this thread moves) and costs what it costs: on many cores it drops the
 * whole instruction cache.
 */
void arch_flush_icache(void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;

	if (a < written_lo)
		written_lo = a;
	if (a + len > written_hi)
		written_hi = a + len;
}

const bool arch_has_sync_fetch = true;
const char arch_sync_fetch_name[] = "riscv_flush_icache";

/*
 * riscv_flush_icache(start, end, 0): the kernel runs FENCE.I on this
 * hart, has every other hart that runs a thread of the process run one
 * (an IPI or the SBI's remote FENCE.I), and marks every other hart, so
 * that it runs one before it next runs a thread of the process. Flags 0
 * is every thread; SYS_RISCV_FLUSH_ICACHE_LOCAL (1) would be this thread
 * only, which is not what a patch needs. Every riscv64 kernel has it
 * (Linux 4.15, the port's first release).
 */
int arch_sync_fetch(void)
{
	uintptr_t lo = written_lo, hi = written_hi;
	int ret;

	if (lo >= hi)
		lo = hi = 0;	/* nothing written since the last one */
	ret = ulsm_sys_flush_icache(SYS_riscv_flush_icache, lo, hi, 0);
	if (!ret) {
		written_lo = UINTPTR_MAX;
		written_hi = 0;
	}
	return ret;
}
