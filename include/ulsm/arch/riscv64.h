/* SPDX-License-Identifier: MIT */
/*
 * ulsm/arch/riscv64.h - inline fast paths of the riscv64 patching back end.
 *
 * Every instruction ulsm rewrites on riscv64 is one naturally aligned
 * 32-bit word, stored whole by one aligned store. RISC-V has no list of
 * instructions that may be rewritten under a running hart, as the Arm
 * ARM does; what it has is Ziccif (the RVA20/RVA22/RVA23 profiles: an
 * instruction fetch of a naturally aligned 32-bit word from main memory
 * is atomic), so a hart that fetches the word sees its old or its new
 * value, never a mix, and both values are complete instructions that
 * are valid at that place. Instruction fetch is not coherent with
 * stores (Unprivileged ISA, "Zifencei"), so every batch ends with a
 * synchronisation of every hart's instruction fetch: the
 * riscv_flush_icache system call (docs/patching-protocol.md, "The
 * riscv64 contract").
 *
 * A static branch site is `nop` (addi x0, x0, 0: 0x00000013) or
 * `jal x0, label` (0x0000006f | imm: +-1 MiB; the label is in the same
 * function), never compressed (`.option norvc`: a 2-byte c.nop or c.j
 * could not be replaced by the other form in place) and aligned to 4,
 * so that it is one naturally aligned word even in code built with the
 * C extension, whose instructions are only 2-aligned. The `.balign` is
 * assembled while the compiler's own options (compressed instructions,
 * linker relaxation) are in force: with relaxation the assembler then
 * emits an R_RISCV_ALIGN, and the linker keeps the site aligned however
 * many bytes it removes before it. Each site adds a struct
 * ulsm_jump_entry to "ulsm_jump_table", every field PC-relative as on
 * x86-64 (see arch/x86_64.h for why the key is reached through a local
 * constant pointer).
 *
 * Include <ulsm/static_key.h>, not this file.
 */
#ifndef ULSM_ARCH_RISCV64_H
#define ULSM_ARCH_RISCV64_H

/* One site: INSN is the compiled instruction, FLAGS its jump-entry flags. */
#define ULSM__ARCH_BRANCH_SITE(keyp, insn, flags)			\
__extension__ ({							\
	__label__ ulsm__l_yes, ulsm__l_done;				\
	ULSM__BOOL ulsm__taken;						\
	ULSM__KEY_REF(ulsm__kref, keyp, __attribute__((used)));	\
	__asm__ goto(".balign 4\n\t"					\
		     ".option push\n\t"					\
		     ".option norvc\n"					\
		     "1:\t" insn "\n\t"					\
		     ".option pop\n\t"					\
		     ".pushsection ulsm_jump_table, \"aR\"\n\t"		\
		     ".balign 4\n\t"					\
		     ".long 1b - ., %l[ulsm__l_yes] - .\n\t"		\
		     ".long %0 - ., %1\n\t"				\
		     ".popsection"					\
		     : : "i" (&ulsm__kref), "i" (flags)			\
		     : : ulsm__l_yes);					\
	ulsm__taken = 0;						\
	goto ulsm__l_done;						\
ulsm__l_yes:								\
	ulsm__taken = 1;						\
ulsm__l_done:								\
	ulsm__taken;							\
})

#define ulsm__arch_static_branch(keyp, branch)				\
	ULSM__ARCH_BRANCH_SITE(keyp, "nop",				\
			       (branch) ? ULSM_JUMP_BRANCH : 0)

#define ulsm__arch_static_branch_jump(keyp, branch)			\
	ULSM__ARCH_BRANCH_SITE(keyp, "jal zero, %l[ulsm__l_yes]",	\
			       ((branch) ? ULSM_JUMP_BRANCH : 0) |	\
			       ULSM_JUMP_COMPILED_JUMP)

/*
 * Record the call just compiled (`jal ra, tramp` once the linker has
 * relaxed it, or the pair `auipc ra, hi; jalr ra, lo(ra)`) as a call
 * site of the static call @keyp, by a label just after it, as on
 * x86-64. At registration the library looks for the call ending at the
 * label or followed only by register moves, and patches its last word
 * only: `jal ra, target` in place of `jal ra, tramp` or of the jalr,
 * whose auipc stays (src/engine/arch/riscv64/insn.c, arch_find_call).
 *
 * That word must be aligned to 4, which the C extension does not make
 * it: its instructions are 2-aligned, and a call after one compressed
 * move of its argument (`mv a0, sp`) is a call at 2 mod 4 (the hook
 * walk's were, every one). So the call of a recorded site is opened by
 * ULSM__ARCH_CALL_SITE_BEGIN(), before its arguments are computed: an
 * alignment to 4 (assembled with the compiler's own options, so that
 * the linker keeps it, as for a key site), then no compressed
 * instruction until the label, so that the call starts at a multiple of
 * 4. The assembler's option stack is pushed there and popped at the
 * label; a depth count in an assembler symbol makes a label without its
 * opening (or one the compiler moved ahead of it) pop nothing. Both are
 * volatile asm, which the compiler does not move code across. What can
 * still misalign a call (a relaxation of the linker that shrinks an
 * instruction of the arguments to 2 bytes: `lui` into `c.lui`, in code
 * that is not position independent) is found at registration: the site
 * keeps calling its trampoline, and is counted in
 * ulsm_stats.call_sites_skipped.
 */
#define ULSM__ARCH_CALL_SITE_BEGIN()					\
	__asm__ __volatile__(".balign 4\n\t"				\
			     ".ifndef .Lulsm__norvc\n\t"		\
			     ".set .Lulsm__norvc, 0\n\t"		\
			     ".endif\n\t"				\
			     ".option push\n\t"				\
			     ".option norvc\n\t"			\
			     ".set .Lulsm__norvc, .Lulsm__norvc + 1")

#define ULSM__ARCH_CALL_SITE(keyp)					\
do {									\
	static const void *const ulsm__cref				\
		__attribute__((used)) = (keyp);				\
	__asm__ __volatile__(".ifdef .Lulsm__norvc\n\t"		\
			     ".if .Lulsm__norvc > 0\n\t"		\
			     ".option pop\n\t"				\
			     ".set .Lulsm__norvc, .Lulsm__norvc - 1\n\t" \
			     ".endif\n\t"				\
			     ".endif\n"					\
			     "1:\n\t"					\
			     ".pushsection ulsm_call_sites, \"aR\"\n\t"	\
			     ".balign 4\n\t"				\
			     ".long 1b - ., %0 - .\n\t"			\
			     ".popsection"				\
			     : : "i" (&ulsm__cref));			\
} while (0)

/*
 * Static-call trampolines (see <ulsm/static_call.h>): 40 bytes, 8-byte
 * aligned, in their own section, assembled with neither compressed
 * instructions nor linker relaxation (the library reads them back word
 * by word, and relaxation could turn the auipc/ld pair into something
 * else). Only word 1 ever changes, and only between `jal zero, ...` and
 * `nop`, so every update is one aligned 32-bit store:
 *
 *    0  lpad 0                  landing pad (Zicfilp: auipc x0, 0, a
 *                               HINT that does nothing without it)
 *    4  jal zero, func          direct: func within +-1 MiB
 *       nop                     indirect: fall into the load below
 *       jal zero, 28            RET0: return 0
 *       jal zero, 32            NULL: return
 *    8  auipc t1, %pcrel_hi(E)  \  t1 = the key, through the call table
 *   12  ld    t1, %pcrel_lo(t1)  | entry E (hidden, PC-relative: no
 *   16  ld    t1, 0(t1)          | text relocation), then key->func
 *   20  beqz  t1, 32            /  NULL (see below): return
 *   24  jr    t1                an indirect jump, which Zicfilp makes
 *                               land on the target's lpad
 *   28  li    a0, 0
 *   32  ret
 *   36  .word 0x55530000        the signature checked before every
 *                               update: its low half is 0, an illegal
 *                               instruction
 *
 * The far target is data: the key's func field, stored by one aligned
 * 64-bit store; the code is never rewritten for it. A thread can stop
 * anywhere in words 8-24 and load func long after the trampoline went
 * back to a jal; so func is only ever a valid target or NULL, and NULL
 * returns (words 20, 32), as the NULL form does.
 *
 * t1 (x6), not t0 (x5): x5 is an alternate link register, so `jr t0` is
 * predicted as a return (the return-address stack would pop the
 * caller's entry: Unprivileged ISA, JALR, "Return-address stack
 * prediction hints"), and Zicfilp takes a jump through x1 or x5 for a
 * return, which needs no landing pad. Through t1 it is a plain indirect
 * jump, checked against the target's landing pad. t2 (x7), which
 * carries the caller's landing-pad label, is left as it is.
 *
 * A trampoline with a target is compiled in the indirect form, which
 * goes wherever the key's func says: its direct form is a jal of +-1
 * MiB, which the linker could not always resolve (a large program, a
 * target in another object), and registration puts the direct form in
 * place wherever it reaches. The NULL and RET0 forms jump inside the
 * trampoline, always in reach.
 *
 * The global symbol is what static_call() calls; a hidden alias at the
 * same address is what the call table records, as on x86-64.
 */
#define ULSM__SC_TRAMP_ASM(name, insn)					\
	__asm__(".pushsection .text.ulsm_static_call, \"ax\"\n\t"	\
		".option push\n\t"					\
		".option norvc\n\t"					\
		".option norelax\n\t"					\
		".balign 8\n\t"						\
		".globl " ULSM__STR(STATIC_CALL_TRAMP(name)) "\n\t"	\
		".type " ULSM__STR(STATIC_CALL_TRAMP(name)) ", %function\n\t" \
		".globl " ULSM__STR(ULSM__SC_LOCAL(name)) "\n\t"	\
		".hidden " ULSM__STR(ULSM__SC_LOCAL(name)) "\n"	\
		ULSM__STR(STATIC_CALL_TRAMP(name)) ":\n"		\
		ULSM__STR(ULSM__SC_LOCAL(name)) ":\n\t"			\
		"auipc zero, 0\n\t"					\
		insn "\n"						\
		"2:\tauipc t1, %pcrel_hi(" ULSM__STR(ULSM__SC_ENTRY(name)) ")\n\t" \
		"ld t1, %pcrel_lo(2b)(t1)\n\t"				\
		"ld t1, 0(t1)\n\t"					\
		"beqz t1, 1f\n\t"					\
		"jr t1\n"						\
		"0:\tli a0, 0\n"					\
		"1:\tret\n\t"						\
		".word 0x55530000\n\t"					\
		".size " ULSM__STR(STATIC_CALL_TRAMP(name)) ", . - "	\
			ULSM__STR(STATIC_CALL_TRAMP(name)) "\n\t"	\
		".option pop\n\t"					\
		".popsection")

#define ULSM__ARCH_SC_TRAMP(name, func)					\
	ULSM__SC_TRAMP_ASM(name, "nop")
#define ULSM__ARCH_SC_TRAMP_NULL(name)					\
	ULSM__SC_TRAMP_ASM(name, "jal zero, 1f")
#define ULSM__ARCH_SC_TRAMP_RET0(name)					\
	ULSM__SC_TRAMP_ASM(name, "jal zero, 0f")

#define ULSM__ARCH_HAS_SC_TRAMP 1

#endif /* ULSM_ARCH_RISCV64_H */
