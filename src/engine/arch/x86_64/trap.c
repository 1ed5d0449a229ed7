// SPDX-License-Identifier: MIT
/*
 * x86-64: what the breakpoint protocol's trap handler (src/engine/trap.c)
 * needs of the back end. The breakpoint is INT3 (cc, Intel SDM vol. 2A,
 * "INT n/INTO/INT3/INT1"); the CPU reports it after the instruction, so
 * the interrupted PC is one byte past the site (arch_breakpoint_len).
 */
#include <signal.h>
#include <ucontext.h>

#include "engine/arch.h"

const uint8_t arch_breakpoint[] = { 0xcc };
const size_t arch_breakpoint_len = 1;

bool arch_trap_is_breakpoint(int si_code)
{
	/* int3 is delivered by do_int3_user() through force_sig(SIGTRAP). */
	return si_code == SI_KERNEL || si_code == TRAP_BRKPT;
}

uintptr_t arch_context_pc(const void *ucontext)
{
	const ucontext_t *uc = ucontext;

	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

void arch_context_set_pc(void *ucontext, uintptr_t pc)
{
	ucontext_t *uc = ucontext;

	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
}

void arch_context_link(void *ucontext, uintptr_t link)
{
	ucontext_t *uc = ucontext;
	uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP] - 8;

	/* What "call" does: push the return address. */
	*(uintptr_t *)sp = link;
	uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
}
