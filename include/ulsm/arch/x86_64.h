/* SPDX-License-Identifier: MIT */
/*
 * ulsm/arch/x86_64.h - inline fast paths of the x86-64 patching back end.
 *
 * A static branch site is one 5-byte instruction: the NOP `0f 1f 44 00 00`
 * (Intel SDM vol. 2B, "NOP", the recommended 5-byte form) or `jmp rel32`
 * (`e9` + 4 bytes). Always 5 bytes, never the short `eb` jump, so that either
 * form can replace the other in place.
 *
 * Each site adds a struct ulsm_jump_entry to the section "ulsm_jump_table".
 * Every field is PC-relative, so the table needs no dynamic relocation and
 * works in PIE, non-PIE and shared objects alike. The key is not named in
 * the asm: the "i" constraint cannot take the address of a key with default
 * visibility under -fPIC. Instead each site gets a local, constant pointer to
 * its key (ulsm__kref, relocated by the dynamic linker like any other data),
 * and the entry refers to that pointer. The section is SHF_GNU_RETAIN ("R")
 * so that --gc-sections keeps it.
 *
 * Include <ulsm/static_key.h>, not this file.
 */
#ifndef ULSM_ARCH_X86_64_H
#define ULSM_ARCH_X86_64_H

#define ULSM__NOP5_BYTES	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"

/* One site: INSN is the compiled instruction, FLAGS its jump-entry flags. */
#define ULSM__ARCH_BRANCH_SITE(keyp, insn, flags)			\
({									\
	__label__ ulsm__l_yes, ulsm__l_done;				\
	ULSM__BOOL ulsm__taken;						\
	ULSM__KEY_REF(ulsm__kref, keyp, __attribute__((used)));	\
	__asm__ goto("1: " insn "\n\t"					\
		     ".pushsection ulsm_jump_table, \"aR\"\n\t"		\
		     ".balign 4\n\t"					\
		     ".long 1b - ., %l[ulsm__l_yes] - .\n\t"		\
		     ".long %c0 - ., %c1\n\t"				\
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

/*
 * The kernel's arch_static_branch() and arch_static_branch_jump(): both
 * return whether the site jumps, that is (key enabled) ^ branch. They differ
 * only in the instruction compiled in.
 */
#define ulsm__arch_static_branch(keyp, branch)				\
	ULSM__ARCH_BRANCH_SITE(keyp, ULSM__NOP5_BYTES,			\
			       (branch) ? ULSM_JUMP_BRANCH : 0)

#define ulsm__arch_static_branch_jump(keyp, branch)			\
	ULSM__ARCH_BRANCH_SITE(keyp, ".byte 0xe9\n\t.long %l[ulsm__l_yes] - 2f\n2:", \
			       ((branch) ? ULSM_JUMP_BRANCH : 0) |	\
			       ULSM_JUMP_COMPILED_JUMP)

/*
 * Record the call just compiled as a call site of the static call @keyp
 * (struct ulsm_call_site): place it right after a call to the static
 * call's trampoline. At registration the library looks for "call
 * <trampoline>" ending at the label or followed only by register moves
 * (src/arch/x86_64/insn.c, arch_find_call), and leaves the site calling
 * the trampoline if the compiler put anything else in between.
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
			     : : "i" (&ulsm__cref));			\
} while (0)

#endif /* ULSM_ARCH_X86_64_H */

/*
 * Static-call trampolines (see <ulsm/static_call.h>). Each is 16 bytes,
 * 16-byte aligned in its own section, so the patched region never crosses
 * a cache line:
 *
 *   0..7    the instruction, padded with int3; what an update rewrites:
 *             e9 rel32             jmp func          (target in reach)
 *             ff 25 disp32         jmp *key.func     (any target)
 *             c3                   ret               (NULL)
 *           always one instruction: a RET0 call jumps to
 *           __static_call_return0 (src/arch/x86_64/insn.c says why)
 *   8..10   0f b9 cc (ud1), the signature checked before every update
 *   11..15  int3
 *
 * The global symbol is what static_call() calls; a hidden alias at the
 * same address is what the call table records, so another object's
 * definition of the same name can never be patched by mistake.
 */
#define ULSM__SC_TRAMP_ASM(name, insn)					\
	__asm__(".pushsection .text.ulsm_static_call, \"ax\"\n\t"	\
		".balign 16, 0xcc\n\t"					\
		".globl " ULSM__STR(STATIC_CALL_TRAMP(name)) "\n\t"	\
		".type " ULSM__STR(STATIC_CALL_TRAMP(name)) ", @function\n\t" \
		".globl " ULSM__STR(ULSM__SC_LOCAL(name)) "\n\t"	\
		".hidden " ULSM__STR(ULSM__SC_LOCAL(name)) "\n"	\
		ULSM__STR(STATIC_CALL_TRAMP(name)) ":\n"		\
		ULSM__STR(ULSM__SC_LOCAL(name)) ":\n\t"			\
		insn "\n\t"						\
		".balign 8, 0xcc\n\t"					\
		".byte 0x0f, 0xb9, 0xcc\n\t"				\
		".balign 16, 0xcc\n\t"					\
		".size " ULSM__STR(STATIC_CALL_TRAMP(name)) ", . - "	\
			ULSM__STR(STATIC_CALL_TRAMP(name)) "\n\t"	\
		".popsection")

#ifdef __cplusplus
/*
 * C++ mangles (or hides) the target's name, so the assembly cannot name
 * it: the trampoline starts as "ret" and the object's constructor points
 * it at the key's target (C code gets the target's address from the
 * compiler). Calls made before that constructor return without calling.
 */
# define ULSM__ARCH_SC_TRAMP(name, func)				\
	ULSM__SC_TRAMP_ASM(name, "ret")
#else
# define ULSM__ARCH_SC_TRAMP(name, func)				\
	ULSM__SC_TRAMP_ASM(name, "jmp " #func "@PLT")
#endif
#define ULSM__ARCH_SC_TRAMP_NULL(name)					\
	ULSM__SC_TRAMP_ASM(name, "ret")
#define ULSM__ARCH_SC_TRAMP_RET0(name)					\
	ULSM__SC_TRAMP_ASM(name, "jmp __static_call_return0@PLT")

#define ULSM__ARCH_HAS_SC_TRAMP 1
