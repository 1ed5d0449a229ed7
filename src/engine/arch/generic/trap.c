// SPDX-License-Identifier: MIT
/*
 * The default: no breakpoint protocol. Only a back end whose protocol is
 * ULSM_PROTO_BREAKPOINT (x86-64: src/engine/arch/x86_64/trap.c) writes
 * breakpoints, and only for it does the engine install its SIGTRAP
 * handler (src/engine/patch.c), so none of these is ever asked anything
 * elsewhere: they are here so that src/engine/trap.c links.
 */
#include "engine/arch.h"

const uint8_t arch_breakpoint[] = { 0 };
const size_t arch_breakpoint_len = 0;

bool arch_trap_is_breakpoint(int si_code)
{
	(void)si_code;
	return false;
}

uintptr_t arch_context_pc(const void *ucontext)
{
	(void)ucontext;
	return 0;
}

void arch_context_set_pc(void *ucontext, uintptr_t pc)
{
	(void)ucontext;
	(void)pc;
}

void arch_context_link(void *ucontext, uintptr_t link)
{
	(void)ucontext;
	(void)link;
}
