// SPDX-License-Identifier: MIT
/*
 * x86-64 instruction encoding for the patching core. Bytes in, bytes out.
 *
 * | what          | bytes             | Intel SDM vol. 2          |
 * |---------------|-------------------|---------------------------|
 * | breakpoint    | cc                | INT3                      |
 * | 5-byte NOP    | 0f 1f 44 00 00    | NOP, table 4-12           |
 * | jump          | e9 rel32          | JMP rel32 (E9 cd)         |
 *
 * rel32 is relative to the end of the 5-byte instruction.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "../../arch.h"

#define X86_INSN_SIZE	5

const enum ulsm_protocol arch_protocol = ULSM_PROTO_BREAKPOINT;
const uint8_t arch_breakpoint[] = { 0xcc };
const size_t arch_breakpoint_len = 1;

static const uint8_t x86_nop5[X86_INSN_SIZE] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

int arch_encode_branch(uintptr_t site, uintptr_t target, bool jump,
		       struct ulsm_insn *out)
{
	memset(out, 0, sizeof(*out));
	out->len = X86_INSN_SIZE;
	if (!jump) {
		memcpy(out->bytes, x86_nop5, X86_INSN_SIZE);
		out->resume = site + X86_INSN_SIZE;
		return 0;
	}

	int64_t rel = (int64_t)(target - (site + X86_INSN_SIZE));
	int32_t rel32 = (int32_t)rel;

	if (rel != rel32)
		return -ERANGE;
	out->bytes[0] = 0xe9;
	memcpy(&out->bytes[1], &rel32, sizeof(rel32));
	out->resume = target;
	return 0;
}

void arch_serialize(void)
{
	unsigned int a = 0, b, c = 0, d;

	/* CPUID is serialising (SDM vol. 3A, 9.3 "Serializing Instructions"). */
	__asm__ __volatile__("cpuid"
			     : "+a" (a), "=b" (b), "+c" (c), "=d" (d)
			     : : "memory");
}

void arch_flush_icache(void *addr, size_t len)
{
	/* x86 keeps instruction fetch coherent with stores (SDM 3A 9.1.3). */
	(void)addr;
	(void)len;
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

bool arch_trap_is_breakpoint(int si_code)
{
	/* int3 is delivered by do_int3_user() through force_sig(SIGTRAP). */
	return si_code == SI_KERNEL || si_code == TRAP_BRKPT;
}
