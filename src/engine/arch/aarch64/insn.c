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
 * | BRK #imm16  | d4200000 | imm16 << 5       | BRK                       |
 * | MOV Wd, Wm  | 2a0003e0 | Rm << 16 | Rd   | MOV (register) = ORR      |
 * | MOV Xd, Xm  | aa0003e0 | Rm << 16 | Rd   | MOV (register) = ORR      |
 *
 * imm26 is the signed word offset from the instruction itself: +-128 MiB.
 */
#include <errno.h>
#include <string.h>

#include <ulsm/static_call.h>

#include "engine/arch/word.h"

#define A64_NOP		0xd503201fu
#define A64_BTI_C	0xd503245fu
#define A64_B		0x14000000u
#define A64_BL		0x94000000u
#define A64_B_MASK	0xfc000000u	/* opcode bits of B and BL */
#define A64_BRK(imm)	(0xd4200000u | ((uint32_t)(imm) << 5))

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
 * What gcc puts between the call and the label of the next statement when
 * the result must survive another call: `mov w19, w0` and the like, MOV
 * (register), an alias of ORR (shifted register) with the zero register
 * and no shift, either width.
 */
static bool is_reg_move(uint32_t w)
{
	return (w & 0x7fe0ffe0u) == 0x2a0003e0u;
}

/* At most this many moves between the call and its label. */
#define A64_MAX_CALL_GAP	3

int arch_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site)
{
	/*
	 * Instructions are whole aligned words, so there is no stray byte
	 * to mistake for a call: the candidate must be `bl callee`, and
	 * every word from it to the label a register move.
	 */
	if (label & 3)
		return -EILSEQ;
	for (int gap = 0; gap <= A64_MAX_CALL_GAP; gap++) {
		uintptr_t p = label - 4 * (uintptr_t)(gap + 1), target;
		int i;

		if (arch_decode_call(p, &target) || (callee && target != callee))
			continue;
		for (i = 1; i <= gap; i++)
			if (!is_reg_move(word_at(p + 4 * (uintptr_t)i)))
				break;
		if (i > gap) {
			*site = p;
			return 0;
		}
	}
	return -EILSEQ;
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

	if (ret)
		return ret;
	one_word(out, w, target);
	out->link = site + 4;
	return 0;
}

bool arch_calls_patchable(void)
{
	/* A BL written in place is a real call: nothing pushed by hand. */
	return true;
}

/*
 * Static-call trampolines (layout in include/ulsm/arch/aarch64.h).
 *
 * The region the core compares and rewrites is words 0-1: `bti c` (never
 * changes; comparing it checks that the landing pad is intact) and the
 * instruction. The core stores only the words that change (src/engine/patch.c,
 * apply_atomic_word), so each update is one store of word 1:
 *
 * | form     | word 1        | continues at        |
 * |----------|---------------|---------------------|
 * | direct   | b func        | func                |
 * | RET0     | b tramp+28    | mov x0, #0; ret     |
 * | null     | b tramp+32    | ret                 |
 * | indirect | nop           | key->func, via x16  |
 *
 * RET0 is reported as the direct form, as on x86-64, where it jumps to
 * __static_call_return0.
 */
#define TRAMP_INSN	4	/* offset of the instruction */
#define TRAMP_RET0	28
#define TRAMP_RET	32
#define TRAMP_SIG	36
#define TRAMP_SIG_WORD	0x00005553u	/* UDF #0x5553 */

/* Words 2-8, the fixed tail: value and mask (ADRP/LDR carry offsets). */
static const struct {
	uint32_t value, mask;
} tramp_tail[] = {
	{ 0x90000010u, 0x9f00001fu },	/* adrp x16, ENTRY */
	{ 0xf9400210u, 0xffc003ffu },	/* ldr x16, [x16, #:lo12:ENTRY] */
	{ 0xf9400210u, 0xffffffffu },	/* ldr x16, [x16] */
	{ 0xb4000070u, 0xffffffffu },	/* cbz x16, .+12 (the ret) */
	{ 0xd61f0200u, 0xffffffffu },	/* br x16 */
	{ 0xd2800000u, 0xffffffffu },	/* mov x0, #0 */
	{ 0xd65f03c0u, 0xffffffffu },	/* ret */
};

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

static bool tramp_intact(uintptr_t tramp)
{
	if ((tramp & 31) || word_at(tramp) != A64_BTI_C ||
	    word_at(tramp + TRAMP_SIG) != TRAMP_SIG_WORD)
		return false;
	for (size_t i = 0; i < sizeof(tramp_tail) / sizeof(tramp_tail[0]); i++)
		if ((word_at(tramp + 8 + 4 * i) & tramp_tail[i].mask) !=
		    tramp_tail[i].value)
			return false;
	return true;
}

static void tramp_fill(struct ulsm_insn *out, uint32_t w, uintptr_t resume)
{
	memset(out, 0, sizeof(*out));
	out->len = 8;
	put_word(out, 0, A64_BTI_C);
	put_word(out, TRAMP_INSN, w);
	out->resume = resume;
}

int arch_encode_tramp(uintptr_t tramp, uintptr_t func, uintptr_t slot,
		      struct ulsm_insn *out, enum ulsm_static_call_form *form)
{
	uintptr_t pc = tramp + TRAMP_INSN;
	uint32_t w;

	if (!func) {
		encode_branch(A64_B, pc, tramp + TRAMP_RET, &w);
		tramp_fill(out, w, tramp + TRAMP_RET);
		*form = ULSM_SC_FORM_NULL;
		return 0;
	}
	if (func == (uintptr_t)__static_call_return0) {
		encode_branch(A64_B, pc, tramp + TRAMP_RET0, &w);
		tramp_fill(out, w, tramp + TRAMP_RET0);
		*form = ULSM_SC_FORM_DIRECT;
		return 0;
	}
	if (!encode_branch(A64_B, pc, func, &w)) {
		tramp_fill(out, w, func);
		*form = ULSM_SC_FORM_DIRECT;
		return 0;
	}
	/*
	 * The indirect form loads the key through the call table entry the
	 * trampoline was assembled with: it must be @slot's key, or the
	 * trampoline would jump through another key's target.
	 */
	if (!tramp_intact(tramp) ||
	    *(const uintptr_t *)tramp_entry(tramp) != slot)
		return -ERANGE;
	tramp_fill(out, A64_NOP, func);
	*form = ULSM_SC_FORM_INDIRECT;
	return 0;
}

int arch_read_tramp(uintptr_t tramp, struct ulsm_insn *cur,
		    enum ulsm_static_call_form *form)
{
	uintptr_t pc = tramp + TRAMP_INSN, target;
	uint32_t w;

	if (!tramp_intact(tramp))
		return -EILSEQ;
	w = word_at(pc);
	if (w == A64_NOP) {
		/* The key's current target, as the tail would load it. */
		const uintptr_t *key = *(const uintptr_t *const *)tramp_entry(tramp);

		tramp_fill(cur, w, *key ? *key : tramp + TRAMP_RET);
		*form = ULSM_SC_FORM_INDIRECT;
		return 0;
	}
	if ((w & A64_B_MASK) != A64_B)
		return -EILSEQ;
	target = branch_target(w, pc);
	tramp_fill(cur, w, target);
	*form = target == tramp + TRAMP_RET ? ULSM_SC_FORM_NULL :
		ULSM_SC_FORM_DIRECT;
	return 0;
}
