/* SPDX-License-Identifier: MIT */
/*
 * ulsm/arch/aarch64.h - inline fast paths of the aarch64 patching back end.
 *
 * Every instruction ulsm rewrites on aarch64 is one naturally aligned
 * 32-bit word, and both its old and its new form are among the few
 * instructions the architecture lets one core rewrite while another
 * executes them (B, BL, NOP: Arm ARM, DDI 0487, B2.2.5 "Concurrent
 * modification and execution of instructions"). So no breakpoint protocol
 * is needed: one aligned store, cache maintenance, a core sync
 * (docs/patching-protocol.md, "The aarch64 contract").
 *
 * A static branch site is `nop` (0xd503201f) or `b label` (0x14000000 |
 * imm26, +-128 MiB: the label is in the same function). Each site adds a
 * struct ulsm_jump_entry to "ulsm_jump_table", every field PC-relative as
 * on x86-64 (see arch/x86_64.h for why the key is reached through a local
 * constant pointer).
 *
 * Include <ulsm/static_key.h>, not this file.
 */
#ifndef ULSM_ARCH_AARCH64_H
#define ULSM_ARCH_AARCH64_H

#include <stdint.h>

/* One site: INSN is the compiled instruction, FLAGS its jump-entry flags. */
#define ULSM__ARCH_BRANCH_SITE(keyp, insn, flags)			\
__extension__ ({							\
	__label__ ulsm__l_yes, ulsm__l_done;				\
	ULSM__BOOL ulsm__taken;						\
	ULSM__KEY_REF(ulsm__kref, keyp, __attribute__((used)));	\
	__asm__ goto("1: " insn "\n\t"					\
		     ".pushsection ulsm_jump_table, \"aR\"\n\t"		\
		     ".balign 4\n\t"					\
		     ".long 1b - ., %l[ulsm__l_yes] - .\n\t"		\
		     ".long %c0 - ., %c1\n\t"				\
		     ".popsection"					\
		     : : "S" (&ulsm__kref), "i" (flags)			\
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
	ULSM__ARCH_BRANCH_SITE(keyp, "b %l[ulsm__l_yes]",		\
			       ((branch) ? ULSM_JUMP_BRANCH : 0) |	\
			       ULSM_JUMP_COMPILED_JUMP)

/*
 * Record the call just compiled (a `bl` to the slot's trampoline) as a
 * call site of the static call @keyp, by a label just after it, as on
 * x86-64. At registration the library looks for `bl <trampoline>` ending
 * at the label or followed only by register moves
 * (src/engine/arch/aarch64/insn.c, arch_find_call).
 */
#define ULSM__ARCH_CALL_SITE(keyp)					\
do {									\
	static const void *const ulsm__cref				\
		__attribute__((used)) = (keyp);				\
	__asm__ __volatile__("1:\n\t"					\
			     ".pushsection ulsm_call_sites, \"aR\"\n\t"	\
			     ".balign 4\n\t"				\
			     ".long 1b - ., %c0 - .\n\t"			\
			     ".popsection"				\
			     : : "S" (&ulsm__cref));			\
} while (0)

/*
 * The CPU's counter, for the library's own timestamps (the recorder,
 * <ulsm/tracepoint.h>): the generic timer's virtual count, CNTVCT_EL0,
 * which Linux lets user space read (CNTKCTL_EL1.EL0VCTEN); one
 * frequency, system-wide, by the architecture (Arm ARM, D11 "The Generic
 * Timer"). The ISB keeps it from being read ahead of the code before it.
 */
#define ULSM__ARCH_HAS_COUNTER	1

static inline uint64_t ulsm__arch_counter_read(void)
{
	uint64_t v;

	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0"
			     : "=r" (v) : : "memory");
	return v;
}

#endif /* ULSM_ARCH_AARCH64_H */

/*
 * Static-call trampolines (see <ulsm/static_call.h>): 40 bytes, 16-byte
 * aligned, in their own section. Only word 1 ever changes, and only
 * between `b` and `nop`, so every update is one aligned 32-bit store of an
 * instruction the architecture allows to be changed under a running core:
 *
 *    0  bti c                  landing pad (HINT #34: a NOP without BTI)
 *    4  b func                 direct: func within +-128 MiB
 *       nop                    indirect: fall into the load below
 *       b 28                   RET0: return 0
 *       b 32                   NULL: return
 *    8  adrp x16, ENTRY        \  x16 = the key, through the call table
 *   12  ldr  x16, [x16, ENTRY]  | entry (hidden, PC-relative: no text
 *   16  ldr  x16, [x16]         | relocation), then x16 = key->func
 *   20  cbz  x16, 32           /  NULL (see below): return
 *   24  br   x16               an indirect jump through x16, which `bti c`
 *                              accepts in a guarded target
 *   28  mov  x0, #0
 *   32  ret
 *   36  udf  #0x5553           the signature checked before every update
 *
 * The far target is data: the key's func field, stored by one aligned
 * 64-bit store; the code is never rewritten for it. A thread can stop
 * anywhere in words 8-24 and load func long after the trampoline went
 * back to a `b`; so func is only ever a valid target or NULL, and NULL
 * returns (words 20, 32), as the NULL form does.
 *
 * x16 (IP0) is the register the AAPCS64 gives veneers and PLT stubs: a
 * function call may clobber it, and `br x16` into a BTI-guarded page is
 * accepted by `bti c`, which every function the compiler marks as an
 * indirect-call target starts with (Arm ARM, "BTI" and PSTATE.BTYPE).
 *
 * The global symbol is what static_call() calls; a hidden alias at the
 * same address is what the call table records, as on x86-64.
 *
 * Aligned to 32 bytes, so that the adrp (word 8) never sits at a page
 * offset of 0xff8 or 0xffc: there the linker's workaround for Cortex-A53
 * erratum 843419 (on by default in Debian's gcc) rewrites it into an adr,
 * or moves the ldr after it into a veneer, and the trampoline no longer
 * matches its signature (found by a 0xff0 trampoline refused at start).
 */
#define ULSM__SC_TRAMP_ASM(name, insn)					\
	__asm__(".pushsection .text.ulsm_static_call, \"ax\"\n\t"	\
		".balign 32\n\t"					\
		".globl " ULSM__STR(STATIC_CALL_TRAMP(name)) "\n\t"	\
		".type " ULSM__STR(STATIC_CALL_TRAMP(name)) ", %function\n\t" \
		".globl " ULSM__STR(ULSM__SC_LOCAL(name)) "\n\t"	\
		".hidden " ULSM__STR(ULSM__SC_LOCAL(name)) "\n"	\
		ULSM__STR(STATIC_CALL_TRAMP(name)) ":\n"		\
		ULSM__STR(ULSM__SC_LOCAL(name)) ":\n\t"			\
		"hint 34\n\t"						\
		insn "\n\t"						\
		"adrp x16, " ULSM__STR(ULSM__SC_ENTRY(name)) "\n\t"	\
		"ldr x16, [x16, #:lo12:" ULSM__STR(ULSM__SC_ENTRY(name)) "]\n\t" \
		"ldr x16, [x16]\n\t"					\
		"cbz x16, 1f\n\t"					\
		"br x16\n"						\
		"0:\tmov x0, #0\n"					\
		"1:\tret\n\t"						\
		".inst 0x00005553\n\t"					\
		".size " ULSM__STR(STATIC_CALL_TRAMP(name)) ", . - "	\
			ULSM__STR(STATIC_CALL_TRAMP(name)) "\n\t"	\
		".popsection")

#ifdef __cplusplus
/* As on x86-64: C++ hides the target's name; the constructor sets it. */
# define ULSM__ARCH_SC_TRAMP(name, func)				\
	ULSM__SC_TRAMP_ASM(name, "b 1f")
#else
# define ULSM__ARCH_SC_TRAMP(name, func)				\
	ULSM__SC_TRAMP_ASM(name, "b " #func)
#endif
#define ULSM__ARCH_SC_TRAMP_NULL(name)					\
	ULSM__SC_TRAMP_ASM(name, "b 1f")
#define ULSM__ARCH_SC_TRAMP_RET0(name)					\
	ULSM__SC_TRAMP_ASM(name, "b 0f")

#define ULSM__ARCH_HAS_SC_TRAMP 1
