// SPDX-License-Identifier: MIT
/*
 * riscv64 instruction encoding for the patching core. Words in, words out.
 *
 * Every change this back end asks for is one naturally aligned 32-bit
 * instruction word, stored whole by one aligned store, whose old and new
 * values are both complete instructions, each valid at that place
 * whatever the other threads are doing. RISC-V's guarantee that a hart
 * executing the word meanwhile runs one of them, never a mix of their
 * halves, is Ziccif (RISC-V Profiles, RVA20U64 and later: instruction
 * fetches of naturally aligned power-of-2 sizes up to 32 bits from main
 * memory are atomic). The store itself is single-copy atomic: an aligned
 * SW (Unprivileged ISA, "RVWMO Memory Consistency Model": aligned memory
 * operations of up to XLEN bits are single-copy atomic).
 *
 * Instruction fetch is not coherent with stores: FENCE.I makes the
 * calling hart's fetch see the stores already visible to it, and nothing
 * about the other harts' (Unprivileged ISA, "Zifencei"). In a Linux
 * process a thread moves between harts at the kernel's will, so a FENCE.I
 * of its own does not even cover the thread that ran it. The kernel's
 * answer is the riscv_flush_icache system call (<asm/unistd.h>: every
 * thread of the process, on every hart it runs on next), which the engine
 * issues once per stage as its core sync (arch_sync_fetch; the engine's
 * capability "fetch sync", docs/patching-protocol.md, "The riscv64
 * contract"). Hence ULSM_PROTO_ATOMIC_WORD, as on aarch64: no breakpoint,
 * no trap handler.
 *
 * | what             | word                       | Unprivileged ISA      |
 * |------------------|----------------------------|-----------------------|
 * | NOP              | 00000013                   | ADDI x0, x0, 0 (NOP)  |
 * | LPAD 0           | 00000017                   | AUIPC x0, 0 (Zicfilp; |
 * |                  |                            | a HINT without it)    |
 * | JAL x0, off      | 0000006f | imm             | JAL (J-type)          |
 * | JAL ra, off      | 000000ef | imm             | JAL (J-type)          |
 * | AUIPC ra, hi     | 00000097 | hi << 12        | AUIPC (U-type)        |
 * | JALR ra, lo(ra)  | 000080e7 | lo << 20        | JALR (I-type)         |
 * | FENCE.I          | 0000100f                   | Zifencei              |
 * | ADDI rd, rs, 0   | 00000013 | rs << 15 | rd << 7 | MV                |
 * | C.MV rd, rs      | 8002 | rd << 7 | rs << 2   | "C" (RVC), C.MV       |
 *
 * JAL's immediate is a signed 21-bit byte offset from the instruction
 * itself, in the order imm[20|10:1|11|19:12] in bits 31:12: +-1 MiB.
 */
#include <errno.h>
#include <string.h>

#include "engine/arch/word.h"

#define RV_NOP		0x00000013u
#define RV_LPAD0	0x00000017u	/* auipc x0, 0 */
#define RV_J		0x0000006fu	/* jal x0, ... */
#define RV_JAL_RA	0x000000efu	/* jal ra, ... */
#define RV_JAL_MASK	0x00000fffu	/* opcode and rd */
#define RV_AUIPC_RA	0x00000097u	/* auipc ra, ... */
#define RV_AUIPC_MASK	0x00000fffu
#define RV_JALR_RA	0x000080e7u	/* jalr ra, ...(ra) */
#define RV_JALR_MASK	0x000fffffu	/* all but the immediate */

/* The range of JAL: a signed 21-bit byte offset. */
#define RV_JAL_RANGE	(1l << 20)

const enum ulsm_protocol arch_protocol = ULSM_PROTO_ATOMIC_WORD;

static uint16_t half_at(uintptr_t addr)
{
	uint16_t h;

	memcpy(&h, (const void *)addr, sizeof(h));
	return h;
}

/* JAL with opcode and rd @op at @pc to @target; -ERANGE beyond +-1 MiB. */
static int encode_jal(uint32_t op, uintptr_t pc, uintptr_t target,
		      uint32_t *w)
{
	intptr_t off = (intptr_t)(target - pc);
	uint32_t imm = (uint32_t)off;

	if ((off & 1) || off < -RV_JAL_RANGE || off >= RV_JAL_RANGE)
		return -ERANGE;
	*w = op | ((imm >> 20) & 1u) << 31 | ((imm >> 1) & 0x3ffu) << 21 |
	     ((imm >> 11) & 1u) << 20 | ((imm >> 12) & 0xffu) << 12;
	return 0;
}

/* The target of the JAL @w at @pc. */
static uintptr_t jal_target(uint32_t w, uintptr_t pc)
{
	uint32_t imm = ((w >> 31) & 1u) << 20 | ((w >> 21) & 0x3ffu) << 1 |
		       ((w >> 20) & 1u) << 11 | ((w >> 12) & 0xffu) << 12;

	return pc + (uintptr_t)(intptr_t)((int32_t)(imm << 11) >> 11);
}

/* The sign-extended immediates of a U-type (AUIPC) and an I-type word. */
static intptr_t u_imm(uint32_t w)
{
	return (intptr_t)(int32_t)(w & 0xfffff000u);
}

static intptr_t i_imm(uint32_t w)
{
	return (intptr_t)((int32_t)w >> 20);
}

/*
 * A static branch site: NOP, or JAL x0 to the site's target. Both forms
 * must be encodable for either to be: a site whose target is out of
 * reach (gcc may move an unlikely block into .text.unlikely, more than
 * 1 MiB away in a large program) is refused when it is registered,
 * rather than found unflippable later.
 */
int arch_encode_branch(uintptr_t site, uintptr_t target, bool jump,
		       struct ulsm_insn *out)
{
	uint32_t w = RV_NOP, j;
	int ret;

	if (site & 3)
		return -EINVAL;
	if (target) {
		ret = encode_jal(RV_J, site, target, &j);
		if (ret)
			return ret;
		if (jump)
			w = j;
	}
	one_word(out, w, jump ? target : site + 4);
	return 0;
}

void arch_serialize(void)
{
	/*
	 * FENCE.I: this hart's instruction fetch sees every store already
	 * visible to it (Zifencei), and the instructions after it are
	 * fetched anew. It says nothing of other harts, nor of the hart
	 * this thread runs on after the kernel moves it: the core sync is
	 * arch_sync_fetch(), this is only the local part.
	 */
#ifdef __riscv_zifencei
	__asm__ __volatile__("fence.i" : : : "memory");
#else
	__asm__ __volatile__(".4byte 0x0000100f" : : : "memory");
#endif
}

/*
 * Call sites. The compiler emits `call tramp`: the pair `auipc ra, hi;
 * jalr ra, lo(ra)`, which the linker relaxes into one `jal ra, tramp`
 * where the trampoline is in reach. Only the last word is ever
 * changed, and only to another call: `jal ra, target` in place of
 * `jal ra, tramp`, or in place of the jalr, whose auipc stays as it was
 * (a thread that runs the auipc and then the new jal only wrote a dead
 * value to ra; one that runs the auipc and then the old jalr finds ra as
 * the auipc left it). Never a pair of words: a thread between them would
 * run half of each.
 *
 * With the C extension, instructions are only 2-aligned: a call at an
 * address that is not a multiple of 4 is not one naturally aligned word,
 * and is left calling the trampoline (arch_find_call refuses it).
 */

/* The auipc ra whose jalr ra is the word at @site, if it is one. */
static bool auipc_before(uintptr_t site, uint32_t *auipc)
{
	uint32_t w = word_at(site - 4);

	if ((w & RV_AUIPC_MASK) != RV_AUIPC_RA)
		return false;
	*auipc = w;
	return true;
}

int arch_decode_call(uintptr_t site, uintptr_t *target)
{
	uint32_t w, auipc;

	if (site & 3)
		return -EILSEQ;
	w = word_at(site);
	if ((w & RV_JAL_MASK) == RV_JAL_RA) {
		*target = jal_target(w, site);
		return 0;
	}
	if ((w & RV_JALR_MASK) == RV_JALR_RA && auipc_before(site, &auipc)) {
		*target = site - 4 + (uintptr_t)u_imm(auipc) +
			  (uintptr_t)i_imm(w);
		return 0;
	}
	return -EILSEQ;
}

/*
 * What gcc puts between the call and the label of the next statement
 * when the result must survive another call: `mv s0, a0` (C.MV, or ADDI
 * rd, rs, 0 without the C extension) and `sext.w` (ADDIW rd, rs, 0, or
 * C.ADDIW rd, 0), of @len bytes ending at @end (arch_find_call, below,
 * takes a candidate only if it decodes as one of these).
 */
static size_t reg_move(uintptr_t end, size_t len)
{
	if (len == 4) {
		uint32_t w = word_at(end - 4);

		/* ADDI / ADDIW rd, rs, 0, rd not x0 (that is the NOP) */
		if ((w & 0xfff0707fu) == 0x00000013u && (w & 0xf80u))
			return 4;
		if ((w & 0xfff0707fu) == 0x0000001bu && (w & 0xf80u))
			return 4;
		return 0;
	} else {
		uint16_t h = half_at(end - 2);

		/* C.MV rd, rs: 1000 rd rs 10, both not x0 */
		if ((h & 0xf003u) == 0x8002u && (h & 0x0f80u) && (h & 0x007cu))
			return 2;
		/* C.ADDIW rd, 0 (sext.w): 001 0 rd 00000 01 */
		if ((h & 0xf07fu) == 0x2001u && (h & 0x0f80u))
			return 2;
		return 0;
	}
}

/*
 * A PLT entry as GNU ld writes it: auipc t3, hi; ld t3, lo(t3);
 * jalr t1, t3; nop. The slot is the entry + hi + lo.
 */
#define RV_PLT_AUIPC	0x00000e17u	/* auipc t3, 0 (x28) */
#define RV_PLT_LD	0x000e3e03u	/* ld t3, 0(t3) */
#define RV_PLT_JALR	0x000e0367u	/* jalr t1, 0(t3) (x6) */

int arch_decode_plt(uintptr_t stub, uintptr_t *slot)
{
	uint32_t auipc, ld;

	if (stub & 3)
		return -EILSEQ;
	auipc = word_at(stub);
	ld = word_at(stub + 4);
	if ((auipc & 0xfffu) != RV_PLT_AUIPC ||
	    (ld & 0xfffffu) != RV_PLT_LD ||
	    word_at(stub + 8) != RV_PLT_JALR || word_at(stub + 12) != RV_NOP)
		return -EILSEQ;
	*slot = stub + (uintptr_t)u_imm(auipc) + (uintptr_t)i_imm(ld);
	return 0;
}

int arch_encode_call(uintptr_t site, uintptr_t target, struct ulsm_insn *out)
{
	uint32_t w, auipc;
	int ret;

	if (site & 3)
		return -EINVAL;
	/*
	 * The pair form keeps its auipc: the jalr reaches what the auipc
	 * and a 12-bit offset reach (the trampoline it was linked with),
	 * a jal what is in +-1 MiB of it.
	 */
	if (auipc_before(site, &auipc)) {
		uintptr_t base = site - 4 + (uintptr_t)u_imm(auipc);
		intptr_t lo = (intptr_t)(target - base);

		if (lo >= -2048 && lo < 2048) {
			one_word_call(out, RV_JALR_RA | (uint32_t)lo << 20,
				      site, target);
			return 0;
		}
	}
	ret = encode_jal(RV_JAL_RA, site, target, &w);
	if (!ret)
		one_word_call(out, w, site, target);
	return ret;
}

/*
 * Static-call trampolines (layout in include/ulsm/arch/riscv64.h; what
 * aarch64 and riscv64 share: src/engine/arch/word.h):
 *
 * | form     | word 1          | continues at        |
 * |----------|-----------------|---------------------|
 * | direct   | jal zero, func  | func                |
 * | RET0     | jal zero, +24   | li a0, 0; ret       |
 * | null     | jal zero, +28   | ret                 |
 * | indirect | nop             | key->func, via t1   |
 */

/*
 * The call table entry the trampoline's AUIPC/LD pair points at: AUIPC
 * adds its 20-bit immediate, shifted by 12, to its own address; LD adds
 * its signed 12-bit immediate to that (Unprivileged ISA, AUIPC and
 * "Load and Store Instructions").
 */
static uintptr_t tramp_entry(uintptr_t tramp)
{
	uint32_t auipc = word_at(tramp + 8), ld = word_at(tramp + 12);

	return tramp + 8 + (uintptr_t)u_imm(auipc) + (uintptr_t)i_imm(ld);
}

static int encode_j(uintptr_t pc, uintptr_t target, uint32_t *w)
{
	return encode_jal(RV_J, pc, target, w);
}

static const struct word_isa rv = {
	.nop = RV_NOP,
	.jump = { RV_J, RV_JAL_MASK },
	.encode_jump = encode_j,
	.jump_target = jal_target,
	.pad = RV_LPAD0,
	.sig = 0x55530000u,			/* bits 15:0 zero: illegal */
	.align = 8,
	.tail = {	/* AUIPC/LD carry offsets */
		{ 0x00000317u, 0x00000fffu },	/* auipc t1, %pcrel_hi(ENTRY) */
		{ 0x00033303u, 0x000fffffu },	/* ld t1, %pcrel_lo(t1) */
		{ 0x00033303u, 0xffffffffu },	/* ld t1, 0(t1) */
		{ 0x00030663u, 0xffffffffu },	/* beqz t1, .+12 (the ret) */
		{ 0x00030067u, 0xffffffffu },	/* jr t1 */
		{ 0x00000513u, 0xffffffffu },	/* li a0, 0 */
		{ 0x00008067u, 0xffffffffu },	/* ret */
	},
	.tramp_entry = tramp_entry,
	.insn_align = 2,
	.reg_move = reg_move,
};

/*
 * Trampolines, and arch_find_call. A call at an address that is not a
 * multiple of 4 cannot be patched (see above): arch_decode_call() takes
 * no other, so one that is not is not found, and the site keeps calling
 * its trampoline.
 */
WORD_ARCH_FUNCTIONS(rv)
