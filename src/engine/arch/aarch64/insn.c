// SPDX-License-Identifier: MIT
/*
 * aarch64 instruction encoding for the patching core. Words in, words out.
 *
 * Every change this back end asks for is one naturally aligned 32-bit
 * instruction word whose old and new values are both B, BL or NOP: the
 * instructions that the architecture lets one core write while other cores
 * execute them (Arm ARM, DDI 0487, B2.2.5 "Concurrent modification and
 * execution of instructions"; the list also has B.cond, BRK, CBZ/CBNZ,
 * TBZ/TBNZ, ISB and the exception-generating instructions). A core that
 * executes the word meanwhile runs the old or the new instruction, never a
 * mix; the cache maintenance and the core sync that follow every batch
 * (arch_flush_icache, membarrier SYNC_CORE) make sure no core runs the old
 * one once the update has returned. Hence ULSM_PROTO_ATOMIC_WORD: no
 * breakpoint, no trap handler (docs/patching-protocol.md, "The aarch64
 * contract").
 *
 * | what        | word                        | Arm ARM, C6.2 (A64 base)  |
 * |-------------|-----------------------------|---------------------------|
 * | NOP         | d503201f                    | NOP (HINT #0)             |
 * | BTI c       | d503245f                    | BTI (HINT #34)            |
 * | B label     | 14000000 | imm26            | B                         |
 * | BL label    | 94000000 | imm26            | BL                        |
 * | MOV Wd, Wm  | 2a0003e0 | Rm << 16 | Rd   | MOV (register) = ORR      |
 * | MOV Xd, Xm  | aa0003e0 | Rm << 16 | Rd   | MOV (register) = ORR      |
 *
 * imm26 is the signed word offset from the instruction itself: +-128 MiB.
 */
#include <errno.h>

#include "engine/arch/word.h"

#define A64_NOP		0xd503201fu
#define A64_BTI_C	0xd503245fu
#define A64_B		0x14000000u
#define A64_BL		0x94000000u
#define A64_B_MASK	0xfc000000u	/* opcode bits of B and BL */

/* The range of B and BL: a signed 26-bit word offset. */
#define A64_BRANCH_RANGE	(1l << 27)

const enum ulsm_protocol arch_protocol = ULSM_PROTO_ATOMIC_WORD;

/* B or BL (@op) at @pc to @target; -ERANGE beyond +-128 MiB. */
static int encode_branch(uint32_t op, uintptr_t pc, uintptr_t target,
			 uint32_t *w)
{
	intptr_t off = (intptr_t)(target - pc);

	if ((off & 3) || off < -A64_BRANCH_RANGE || off >= A64_BRANCH_RANGE)
		return -ERANGE;
	*w = op | ((uint32_t)(off >> 2) & 0x03ffffffu);
	return 0;
}

/* The target of the B or BL @w at @pc. */
static uintptr_t branch_target(uint32_t w, uintptr_t pc)
{
	int32_t imm26 = (int32_t)(w << 6) >> 6;	/* sign-extend */

	return pc + (intptr_t)imm26 * 4;
}

int arch_encode_branch(uintptr_t site, uintptr_t target, bool jump,
		       struct ulsm_insn *out)
{
	uint32_t w = A64_NOP;
	int ret;

	if (site & 3)
		return -EINVAL;
	if (jump) {
		ret = encode_branch(A64_B, site, target, &w);
		if (ret)
			return ret;
	}
	one_word(out, w, jump ? target : site + 4);
	return 0;
}

void arch_serialize(void)
{
	/*
	 * ISB is a context synchronization event: the instructions after it
	 * are fetched anew (Arm ARM, C6.2 "ISB", and the Glossary's "Context
	 * synchronization event"). The signal fallback of src/engine/sync_core.c
	 * runs this in every thread.
	 */
	__asm__ __volatile__("isb" : : : "memory");
}

/*
 * Call sites: `bl tramp` <-> `bl func`, one word, in reach of +-128 MiB.
 * A target out of reach (another shared object, usually) leaves the site
 * calling the trampoline, which reaches anything; the caller reports it.
 * Nothing is emulated (no breakpoint), so GCS and PAC see only real calls.
 */
int arch_decode_call(uintptr_t site, uintptr_t *target)
{
	uint32_t w;

	if (site & 3)
		return -EILSEQ;
	w = word_at(site);
	if ((w & A64_B_MASK) != A64_BL)
		return -EILSEQ;
	*target = branch_target(w, site);
	return 0;
}

/*
 * A PLT entry as GNU ld writes it: [bti c;] adrp x16, page; ldr x17,
 * [x16, #off]; add x16, x16, #off; br x17. The slot is page + off.
 */
int arch_decode_plt(uintptr_t stub, uintptr_t *slot)
{
	uint32_t w = word_at(stub), ldr;
	uintptr_t page;
	int64_t imm;

	if (w == 0xd503245fu)			/* bti c */
		w = word_at(stub += 4);
	if ((w & 0x9f00001fu) != 0x90000010u)	/* adrp x16 */
		return -EILSEQ;
	ldr = word_at(stub + 4);
	if ((ldr & 0xffc003ffu) != 0xf9400211u)	/* ldr x17, [x16, #imm] */
		return -EILSEQ;
	if (word_at(stub + 12) != 0xd61f0220u)	/* br x17 */
		return -EILSEQ;
	imm = (int64_t)(((w >> 5) & 0x7ffffu) << 2 | ((w >> 29) & 3));
	imm = (int64_t)((uint64_t)imm << 43) >> 31;	/* sign-extend, << 12 */
	page = (stub & ~(uintptr_t)0xfff) + (uintptr_t)imm;
	*slot = page + (((ldr >> 10) & 0xfffu) << 3);
	return 0;
}

int arch_encode_call(uintptr_t site, uintptr_t target, struct ulsm_insn *out)
{
	uint32_t w;
	int ret = encode_branch(A64_BL, site, target, &w);

	if (!ret)
		one_word_call(out, w, site, target);
	return ret;
}

/*
 * Static-call trampolines (layout in include/ulsm/arch/aarch64.h; what
 * aarch64 and riscv64 share: src/engine/arch/word.h):
 *
 * | form     | word 1        | continues at        |
 * |----------|---------------|---------------------|
 * | direct   | b func        | func                |
 * | RET0     | b tramp+28    | mov x0, #0; ret     |
 * | null     | b tramp+32    | ret                 |
 * | indirect | nop           | key->func, via x16  |
 */

/*
 * The call table entry the trampoline's ADRP/LDR pair points at (C6.2
 * ADRP: a signed 21-bit page offset from the instruction's page; LDR
 * (immediate, unsigned offset): imm12 scaled by 8).
 */
static uintptr_t tramp_entry(uintptr_t tramp)
{
	uint32_t adrp = word_at(tramp + 8), ldr = word_at(tramp + 12);
	int64_t pages = (int64_t)((((adrp >> 5) & 0x7ffffu) << 2) |
				  ((adrp >> 29) & 3u));
	uintptr_t page = (tramp + 8) & ~(uintptr_t)0xfff;

	pages = (pages << 43) >> 43;		/* sign-extend 21 bits */
	return page + (uintptr_t)(pages << 12) + ((ldr >> 10) & 0xfffu) * 8;
}

static int encode_b(uintptr_t pc, uintptr_t target, uint32_t *w)
{
	return encode_branch(A64_B, pc, target, w);
}

/*
 * What gcc puts between the call and the label of the next statement when
 * the result must survive another call: `mov w19, w0` and the like, MOV
 * (register), an alias of ORR (shifted register) with the zero register
 * and no shift, either width. Instructions are whole aligned words, so
 * there is no stray byte to mistake for a call.
 */
static size_t reg_move(uintptr_t end, size_t len)
{
	return len == 4 && (word_at(end - 4) & 0x7fe0ffe0u) == 0x2a0003e0u ?
	       4 : 0;
}

static const struct word_isa a64 = {
	.nop = A64_NOP,
	.jump = { A64_B, A64_B_MASK },
	.encode_jump = encode_b,
	.jump_target = branch_target,
	.pad = A64_BTI_C,
	.sig = 0x00005553u,			/* UDF #0x5553 */
	.align = 32,
	.tail = {	/* ADRP/LDR carry offsets */
		{ 0x90000010u, 0x9f00001fu },	/* adrp x16, ENTRY */
		{ 0xf9400210u, 0xffc003ffu },	/* ldr x16, [x16, #:lo12:ENTRY] */
		{ 0xf9400210u, 0xffffffffu },	/* ldr x16, [x16] */
		{ 0xb4000070u, 0xffffffffu },	/* cbz x16, .+12 (the ret) */
		{ 0xd61f0200u, 0xffffffffu },	/* br x16 */
		{ 0xd2800000u, 0xffffffffu },	/* mov x0, #0 */
		{ 0xd65f03c0u, 0xffffffffu },	/* ret */
	},
	.tramp_entry = tramp_entry,
	.insn_align = 4,
	.reg_move = reg_move,
};

/*
 * Trampolines, and arch_find_call: `bl callee` ending at the label, or
 * followed by register moves.
 */
WORD_ARCH_FUNCTIONS(a64)
