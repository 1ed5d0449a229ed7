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

#include <stdint.h>

#include <ulsm/compiler.h>

#define ULSM__NOP5_BYTES	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"

/*
 * Retpoline builds. Code compiled with -mindirect-branch=thunk (gcc) or
 * -mretpoline (clang) makes no indirect branch the CPU could be trained
 * to mispredict (Spectre v2): every one goes through a thunk. The far
 * forms below are written in assembly, which no compiler rewrites, so a
 * unit built that way says so: ULSM_RETPOLINE defined as 1 (or empty),
 * before any ulsm header, as the compiler's flags are given (-D on the
 * same command line). Neither gcc 12 nor clang 14 predefines a macro for
 * those options, so ulsm cannot tell by itself.
 *
 * It matters in the units that emit a far form: those that define a
 * static call (DEFINE_STATIC_CALL*, DEFINE_TRACEPOINT, APR hooks through
 * the drop-in) or a hook set (ULSM_LSM_DEFINE). Their trampolines then
 * jump to a stub beside them, and the hook entries' stubs through the
 * thunk, instead of "jmp *"; the code of the near forms is the same. The
 * units of a hook set must agree (<ulsm/lsm_hooks.h> makes the link fail
 * otherwise). <ulsm/compiler.h> reads the macro (ULSM__RETPOLINE).
 *
 * The thunk: "jmp *%r11" as a retpoline ("Retpoline: A Branch
 * Target Injection Mitigation", Intel white paper). The call pushes a
 * return address that the ret's prediction (the return stack buffer)
 * takes: the pause/lfence loop, where speculation is held; the store
 * replaces it with the target, and the ret goes there. The ret is the
 * mechanism itself, so it stays a ret under -mfunction-return=thunk.
 *
 * ulsm's own: gcc names its thunks __x86_indirect_thunk_<reg>, clang
 * __llvm_retpoline_<reg>, and either emits one only where its own code
 * uses it. Emitted by every unit that jumps to it, once per unit (the
 * .ifndef: a unit, or an LTO partition, may emit many far forms), as a
 * weak hidden symbol: the linker uses one copy per object. Not in a
 * COMDAT group, as the compilers' are: clang 14's LTO (through ld 2.40)
 * loses such a group defined in module-level asm when a unit built
 * without LTO has it too, and the link fails. @P is "%" in a basic asm
 * statement, "%%" in an extended one.
 */
#define ULSM__X86_THUNK_NAME	"ulsm__x86_indirect_thunk_r11"
#define ULSM__X86_THUNK(P)						\
	"\n\t.ifndef " ULSM__X86_THUNK_NAME "\n\t"			\
	".pushsection .text." ULSM__X86_THUNK_NAME ", \"ax\", @progbits\n\t" \
	".balign 16, 0xcc\n\t"						\
	".weak " ULSM__X86_THUNK_NAME "\n\t"				\
	".hidden " ULSM__X86_THUNK_NAME "\n\t"				\
	".type " ULSM__X86_THUNK_NAME ", @function\n"			\
	ULSM__X86_THUNK_NAME ":\n\t"					\
	".cfi_startproc\n\t"						\
	"call 2f\n"							\
	"1:\tpause\n\t"							\
	"lfence\n\t"							\
	"jmp 1b\n"							\
	"2:\t.cfi_adjust_cfa_offset 8\n\t"				\
	"mov " P "r11, (" P "rsp)\n\t"					\
	"ret\n\t"							\
	".cfi_endproc\n\t"						\
	".size " ULSM__X86_THUNK_NAME ", . - " ULSM__X86_THUNK_NAME "\n\t" \
	".popsection\n\t"						\
	".endif"

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
 * (src/engine/arch/x86_64/insn.c, arch_find_call), and leaves the site calling
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

/*
 * A tail site (src/static/static_call.c): "jmp <trampoline>", recorded right
 * after the jump as a site of the trampoline's static call, which the
 * library patches to jump to the call's target when it is in rel32
 * reach, as it does a call site. The compiler records no tail call, so
 * this is for code written here: the head of an APR run function
 * (<ulsm/apr_hooks.h>), the body of a naked function whose parameters
 * are still where its caller put them, and its slots' last calls.
 *
 * ULSM__ARCH_APR_RUN (below) writes the APR run functions' tail sites
 * and their bodies. A jump needs no return address, so a tail site is
 * emulated mid-patch under a shadow stack too.
 */
#define ULSM__ARCH_TAIL_SITE	1

/*
 * An APR run function's body (<ulsm/apr_hooks.h>, RUN_FIRST and VOID hooks
 * whose parameters are at most six integers or pointers): the slots in
 * assembly, right after the run call's tail site, so that with two or
 * more functions that site is a NOP (src/static/static_call.c) and the
 * path has no jump the hard-coded chain has not. Its sites are the C
 * slots function's (the same keys and calls) and the slots' tail calls,
 * and the refill writes them all in its one transaction:
 *
 *	BODY:	jmp W		the direct key: NOP while the slots are in use
 *		nop5		tail key 0: jmp N (no function)
 *	per slot i:
 *		jmp <tail i>	a tail site of slot i's tail call: a direct
 *			jump to slot i's function when it is the last,
 *			else aimed at S<i> (a NOP, src/static/static_call.c)
 *	S<i>:	push args; call <slot i>; pop args
 *		cmp $DECLINE; jne RET	(RUN_FIRST)
 *		jmp REST	after the last slot: APR's array from slot 32 on
 *	N:	mov $DECLINE, %eax (RUN_FIRST); RET: ret
 *	W:	jmp WALK	APR's array from its first function
 *
 * and, in .rodata, @NEXT: the addresses S<i>, each as an offset from its
 * own entry (0 for the last slot, which has no tail site, and where the
 * prototype does not fit), which the library aims the tail calls at
 * (struct ulsm_apr_hook, @tnext). So
 * the last function is one jump away, as the compiler's tail call of a
 * hard-coded chain is; through the tail key and a tail site after the
 * slots, it was two.
 *
 * The head before BODY: if *@LINK != *@FROM (pointers), jump to
 * @OTHER, a function with the same parameters (APR's walk); else jump
 * through the tail site of the run call, whose trampoline is @RUN and
 * whose key *@KREF points to. Head and slots touch %r11 (which carries no
 * argument, SysV ABI 3.2.3) and, around each call, the stack.
 * @OK (a constant): the prototype fits; else BODY is "jmp @CSLOTS", the
 * C slots function. @BODY: the symbol the run call's key starts at;
 * @WALK, @REST: APR's array from its first function, and from slot
 * @NSLOTS on, with the run function's parameters.
 * @TRAMP(ns, name, i): slot i's trampoline's local name, as a string.
 * @CREFS, @KREFS: arrays of pointers to the slots' call keys, and to the
 * tail keys' and the direct key's struct static_key (ULSM_APR_SLOTS + 1);
 * @TREFS, @TTRAMP: the tail calls' keys and trampolines' names.
 */
#define ULSM__ARCH_APR_BODY	1

#define ULSM__X86_APR_SITE(TABLE)					\
	".pushsection " TABLE ", \"aR\"\n\t.balign 4\n\t"
#define ULSM__X86_APR_CALLREC(NUM)					\
	"1:\n\t" ULSM__X86_APR_SITE("ulsm_call_sites")			\
	".long 1b - ., %c[crefs] + %c[psz] * " #NUM " - .\n\t"		\
	".popsection\n\t"
#define ULSM__X86_APR_KEY(B, TARGET, KEY, FLAGS)			\
	ULSM__X86_APR_SITE("ulsm_jump_table")				\
	".long 1b - ., " B TARGET " - .\n\t"				\
	".long %c[krefs] + %c[psz] * (" KEY ") - ., " FLAGS "\n\t"	\
	".popsection\n\t"

#define ULSM__X86_APR_TAILREC(NUM)					\
	"1:\n\t" ULSM__X86_APR_SITE("ulsm_call_sites")			\
	".long 1b - ., %c[trefs] + %c[psz] * " #NUM " - .\n\t"		\
	".popsection\n\t"

#define ULSM__X86_APR_SLOT(NUM, TRAMP, TTRAMP, ns, name, B)		\
	".if " #NUM " + 1 < %c[slots]\n\t"				\
	"jmp " TTRAMP(ns, name, NUM) "\n"				\
	ULSM__X86_APR_TAILREC(NUM)					\
	B "S" #NUM ":\n\t"						\
	".endif\n\t"							\
	ULSM__X86_PUSH_ARGS						\
	"call " TRAMP(ns, name, NUM) "\n"				\
	ULSM__X86_APR_CALLREC(NUM)					\
	ULSM__X86_POP_ARGS						\
	ULSM__X86_CMP_DEF(B "RET")

/*
 * The instruction after slot NUM's tail site, as an offset from the
 * entry itself (no relocation), or 0 (no site, or the C slots).
 */
#define ULSM__X86_APR_NEXT(NUM, B)					\
	".if %c[ok] && " #NUM " + 1 < %c[slots]\n\t"			\
	".long " B "S" #NUM " - .\n\t"				\
	".else\n\t.long 0\n\t.endif\n\t"

#define ULSM__ARCH_APR_RUN(NSLOTS, TRAMP, TTRAMP, ns, name, BODY, NEXT, \
			   LINK, FROM, OTHER, RUN, KREF, CREFS, KREFS,	\
			   TREFS, WALK, REST, CSLOTS, NARGS, RSIZE, DEF, \
			   THUNK, OK)					\
	__asm__ __volatile__(						\
		"mov %c[f](%%rip), %%r11\n\t"				\
		"cmp %%r11, %c[l](%%rip)\n\t"				\
		"jne %c[o]\n\t"						\
		"jmp %c[t]\n"						\
		"1:\n\t"						\
		ULSM__X86_APR_SITE("ulsm_call_sites")			\
		".long 1b - ., %c[k] - .\n\t"				\
		".popsection\n\t"					\
		".globl " ULSM__STR(BODY) "\n\t"			\
		".hidden " ULSM__STR(BODY) "\n\t"			\
		".type " ULSM__STR(BODY) ", @function\n"		\
		ULSM__STR(BODY) ":\n\t"					\
		".if %c[ok]\n"						\
		"1:\t.byte 0xe9\n\t.long " ULSM__X86_APR_B(ns, name) "W - 2f\n" \
		"2:\n\t"						\
		ULSM__X86_APR_KEY(ULSM__X86_APR_B(ns, name), "W",	\
				  "%c[slots]", "3")			\
		"1:\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n\t"		\
		ULSM__X86_APR_KEY(ULSM__X86_APR_B(ns, name), "N", "0", "0") \
		UNROLL(NSLOTS, ULSM__X86_APR_SLOT, TRAMP, TTRAMP, ns, name, \
		       ULSM__X86_APR_B(ns, name))			\
		"jmp %c[rest]\n\t"					\
		ULSM__X86_APR_B(ns, name) "N:\n\t"			\
		ULSM__X86_SET_DEF					\
		ULSM__X86_APR_B(ns, name) "RET:\n\t"			\
		ULSM__X86_RET						\
		ULSM__X86_APR_B(ns, name) "W:\n\t"			\
		"jmp %c[walk]\n\t"					\
		".else\n\t"						\
		"jmp %c[cslots]\n\t"					\
		".endif\n\t"						\
		".size " ULSM__STR(BODY) ", . - " ULSM__STR(BODY) "\n\t" \
		".pushsection .rodata.ulsm_apr, \"a\"\n\t"		\
		".balign 4\n\t"					\
		".globl " ULSM__STR(NEXT) "\n\t"			\
		".hidden " ULSM__STR(NEXT) "\n"				\
		ULSM__STR(NEXT) ":\n\t"					\
		UNROLL(NSLOTS, ULSM__X86_APR_NEXT, ULSM__X86_APR_B(ns, name)) \
		".popsection"						\
		: : [l] "i" (LINK), [f] "i" (FROM), [o] "i" (OTHER),	\
		    [t] "i" (RUN), [k] "i" (KREF),			\
		    [crefs] "i" (CREFS), [krefs] "i" (KREFS),		\
		    [trefs] "i" (TREFS),				\
		    [walk] "i" (WALK), [rest] "i" (REST),		\
		    [cslots] "i" (CSLOTS), [slots] "i" (NSLOTS),	\
		    [psz] "i" (sizeof(void *)), [n] "i" (NARGS),	\
		    [sz] "i" (RSIZE),					\
		    [deflo] "i" ((int)(DEF)), [defhi] "i" ((int)((DEF) >> 32)), \
		    [thunk] "i" (THUNK), [ok] "i" (OK))
#define ULSM__X86_APR_B(ns, name)	".Lulsm_apr_" #ns "_" #name "_"

/*
 * Hook entries (<ulsm/lsm_hooks.h>, docs/hook-framework.md "Dispatch").
 *
 * For each hook whose parameters are at most six integers or pointers (all
 * in registers, SysV ABI), the set's defining unit emits one function, the
 * hook's entry, which call_int_hook() and call_void_hook() call:
 *
 *	ENTRY:	mov $DEFAULT, %eax	constant (int hooks; %rax for 64-bit)
 *	R:	ret | jmp cb | nop5	no slot on | one: tail-call it | more
 *	X0:	nop5 | jmp cb0 | jmp N0	slot 0: call it | the last one: tail-call
 *					it | off: skip it
 *		push the arguments	(and one more word if their count is even,
 *					to keep the stack 16-byte aligned)
 *	C0:	call cb0		(compiled: call I0)
 *		pop the arguments
 *		cmp $DEFAULT, %eax	int hooks: stop at the first result that
 *		jne END			is not DEFAULT
 *	N0:	X1: ...			the next slot
 *	END:	ret			%eax: DEFAULT, or the last result (DEFAULT)
 *	I<i>:	indirect stub: jmp *slot key i's func, or to D when NULL
 *	M<i>:	emulation stub: call I<i>; jmp C<i> + 5
 *	D:	mov $DEFAULT, %eax; ret
 *
 * So with the first k slots on, the entry does what a hand-written chain
 * of k direct calls does: k - 1 calls, each followed by a push and pop of
 * the arguments, and a tail call of the last callback, with no taken
 * branch of its own; with no slot on it is "mov; ret". The five-byte
 * sites R, X<i> and C<i> are patched by the library (src/lsm/dispatch.c);
 * everything else is constant. Each site is also a record in the object's
 * "ulsm_call_sites" table whose key reference is the hook's struct
 * ulsm_hook_entry with the low bit set, and the entry's map
 * (ULSM__HOOK_MAP_*) is a table of PC-relative offsets in .rodata.
 *
 * It is emitted from inside a never-called function because only an asm
 * statement in a function takes operands (the DEFAULT, the argument count,
 * the slot keys). The entry has CFI of its own (a debugger or a C++
 * exception can unwind through it): the enclosing function's CFI frame is
 * closed around it, which is harmless since that function never runs.
 *
 * @SET, @HOOK: names; @NSLOTS: MAX_LSM_COUNT (a literal); @NARGS,
 * @RSIZE (0: void), @DEF (as long long), @KEYS (address constant of the
 * slots' static_call_key array), @REF (address of a pointer to the hook's
 * struct ulsm_hook_entry, plus 1), @THUNK (1: return through
 * __x86_return_thunk, as code built with -mfunction-return=thunk does).
 */
#define ULSM__ARCH_HAS_HOOK_ENTRY	1

/*
 * DEFAULT, from two 32-bit halves: gcc prints no 64-bit constant that is
 * not a sign-extended 32-bit one with %c. The assembler computes in 64 bits.
 */
#define ULSM__X86_DEF	"((%c[defhi] << 32) | (%c[deflo] & 0xffffffff))"

#define ULSM__X86_B(SET, HOOK)	".Lulsm_" ULSM__STR(SET) "_" #HOOK "_"

/* A return: ret, or the return thunk. */
#define ULSM__X86_RET							\
	".if %c[thunk]\n\tjmp __x86_return_thunk\n\t.else\n\tret\n\t.endif\n\t"
/* The same as a five-byte site (the site R). */
#define ULSM__X86_RET5(B)						\
	".if %c[thunk]\n\t.byte 0xe9\n\t"				\
	".long __x86_return_thunk - " B "R - 5\n\t"			\
	".else\n\t.byte 0xc3, 0xcc, 0xcc, 0xcc, 0xcc\n\t.endif\n\t"

/* %eax or %rax = DEFAULT (nothing for void hooks). */
#define ULSM__X86_SET_DEF						\
	".if %c[sz] == 1 || %c[sz] == 4\n\tmov $" ULSM__X86_DEF ", %%eax\n\t"	\
	".elseif %c[sz] == 8\n\tmov $" ULSM__X86_DEF ", %%rax\n\t.endif\n\t"

/* Compare the result with DEFAULT and leave if it differs (int hooks). */
#define ULSM__X86_CMP_DEF(END)						\
	".if %c[sz] == 1\n\tcmp $" ULSM__X86_DEF ", %%al\n\t"			\
	".elseif %c[sz] == 4\n\tcmp $" ULSM__X86_DEF ", %%eax\n\t"		\
	".elseif %c[sz] == 8\n\t"					\
	".if " ULSM__X86_DEF " >= -2147483648 && " ULSM__X86_DEF " <= 2147483647\n\t"	\
	"cmp $" ULSM__X86_DEF ", %%rax\n\t"					\
	".else\n\tmov $" ULSM__X86_DEF ", %%r11\n\tcmp %%r11, %%rax\n\t.endif\n\t" \
	".endif\n\t"							\
	".if %c[sz] != 0\n\tjne " END "\n\t.endif\n\t"

/* The words pushed around a call: the arguments, and one to align. */
#define ULSM__X86_PUSHES	"(%c[n] + 1 - (%c[n] & 1))"
#define ULSM__X86_PUSH_ARGS						\
	".if %c[n] >= 1\n\tpush %%rdi\n\t.endif\n\t"			\
	".if %c[n] >= 2\n\tpush %%rsi\n\t.endif\n\t"			\
	".if %c[n] >= 3\n\tpush %%rdx\n\t.endif\n\t"			\
	".if %c[n] >= 4\n\tpush %%rcx\n\t.endif\n\t"			\
	".if %c[n] >= 5\n\tpush %%r8\n\t.endif\n\t"			\
	".if %c[n] >= 6\n\tpush %%r9\n\t.endif\n\t"			\
	".if (%c[n] & 1) == 0\n\tpush %%rax\n\t.endif\n\t"		\
	".cfi_adjust_cfa_offset 8 * " ULSM__X86_PUSHES "\n\t"
#define ULSM__X86_POP_ARGS						\
	".if (%c[n] & 1) == 0\n\tpop %%r11\n\t.endif\n\t"		\
	".if %c[n] >= 6\n\tpop %%r9\n\t.endif\n\t"			\
	".if %c[n] >= 5\n\tpop %%r8\n\t.endif\n\t"			\
	".if %c[n] >= 4\n\tpop %%rcx\n\t.endif\n\t"			\
	".if %c[n] >= 3\n\tpop %%rdx\n\t.endif\n\t"			\
	".if %c[n] >= 2\n\tpop %%rsi\n\t.endif\n\t"			\
	".if %c[n] >= 1\n\tpop %%rdi\n\t.endif\n\t"			\
	".cfi_adjust_cfa_offset -8 * " ULSM__X86_PUSHES "\n\t"

/* Slot NUM: its switch X (compiled: skip to N), the call, the comparison. */
#define ULSM__X86_SLOT(NUM, B)						\
	B "X" #NUM ":\n\t"						\
	".byte 0xe9\n\t.long " B "N" #NUM " - " B "X" #NUM " - 5\n\t"	\
	ULSM__X86_PUSH_ARGS						\
	B "C" #NUM ":\n\t"						\
	".byte 0xe8\n\t.long " B "I" #NUM " - " B "C" #NUM " - 5\n\t"	\
	ULSM__X86_POP_ARGS						\
	ULSM__X86_CMP_DEF(B "END")					\
	B "N" #NUM ":\n\t"

/*
 * The tail call of I: "jmp *%r11", or in a retpoline build the same
 * through the thunk, which the entry's unit then emits.
 */
#if ULSM__RETPOLINE
# define ULSM__X86_JMP_R11	"jmp " ULSM__X86_THUNK_NAME "\n\t"
# define ULSM__X86_ENTRY_THUNK	ULSM__X86_THUNK("%%") "\n\t"
#else
# define ULSM__X86_JMP_R11	"jmp *%%r11\n\t"
# define ULSM__X86_ENTRY_THUNK
#endif

/* Slot NUM's stubs: I (through the key's func) and M (emulates C). */
#define ULSM__X86_STUBS(NUM, B)						\
	B "I" #NUM ":\n\t"						\
	"mov %c[keys] + %c[ksz] * " #NUM "(%%rip), %%r11\n\t"		\
	"test %%r11, %%r11\n\t"						\
	"jz " B "D\n\t"							\
	ULSM__X86_JMP_R11						\
	".cfi_def_cfa_offset 8 + 8 * " ULSM__X86_PUSHES "\n\t"		\
	B "M" #NUM ":\n\t"						\
	"call " B "I" #NUM "\n\t"					\
	"jmp " B "C" #NUM " + 5\n\t"					\
	".cfi_def_cfa_offset 8\n\t"

#define ULSM__X86_MAP(NUM, B)						\
	".long " B "X" #NUM " - ., " B "C" #NUM " - ., "		\
	B "N" #NUM " - ., " B "I" #NUM " - ., " B "M" #NUM " - .\n\t"

#define ULSM__X86_RECORDS(NUM, B)					\
	".long " B "X" #NUM " - ., %c[ref] - .\n\t"			\
	".long " B "C" #NUM " - ., %c[ref] - .\n\t"

#define ULSM__ARCH_HOOK_ENTRY(SET, HOOK, NSLOTS, ENTRY, MAP, NARGS,	\
			      RSIZE, DEF, KEYS, REF, THUNK)		\
	__asm__ __volatile__(						\
		".cfi_endproc\n\t"					\
		".pushsection .text.ulsm_lsm, \"ax\"\n\t"		\
		".balign 64, 0xcc\n\t"					\
		".globl " ULSM__STR(ENTRY) "\n\t"			\
		".type " ULSM__STR(ENTRY) ", @function\n"		\
		ULSM__STR(ENTRY) ":\n\t"				\
		".cfi_startproc\n\t"					\
		ULSM__X86_SET_DEF					\
		ULSM__X86_B(SET, HOOK) "R:\n\t"				\
		ULSM__X86_RET5(ULSM__X86_B(SET, HOOK))			\
		UNROLL(NSLOTS, ULSM__X86_SLOT, ULSM__X86_B(SET, HOOK))	\
		ULSM__X86_B(SET, HOOK) "END:\n\t"			\
		ULSM__X86_RET						\
		UNROLL(NSLOTS, ULSM__X86_STUBS, ULSM__X86_B(SET, HOOK))	\
		ULSM__X86_B(SET, HOOK) "D:\n\t"				\
		ULSM__X86_SET_DEF					\
		ULSM__X86_RET						\
		".cfi_endproc\n\t"					\
		".globl " ULSM__STR(ENTRY) "_end\n\t"			\
		".hidden " ULSM__STR(ENTRY) "_end\n"			\
		ULSM__STR(ENTRY) "_end:\n\t"				\
		".size " ULSM__STR(ENTRY) ", . - " ULSM__STR(ENTRY) "\n\t" \
		".popsection\n\t"					\
		".pushsection .rodata.ulsm_lsm, \"a\"\n\t"		\
		".balign 4\n\t"						\
		".globl " ULSM__STR(MAP) "\n\t"				\
		".hidden " ULSM__STR(MAP) "\n"				\
		ULSM__STR(MAP) ":\n\t"					\
		".long " ULSM__X86_B(SET, HOOK) "R - .\n\t"		\
		".if %c[thunk]\n\t.long __x86_return_thunk - .\n\t"	\
		".else\n\t.long 0\n\t.endif\n\t"			\
		UNROLL(NSLOTS, ULSM__X86_MAP, ULSM__X86_B(SET, HOOK))	\
		".popsection\n\t"					\
		".pushsection ulsm_call_sites, \"aR\"\n\t"		\
		".balign 4\n\t"						\
		".long " ULSM__X86_B(SET, HOOK) "R - ., %c[ref] - .\n\t" \
		UNROLL(NSLOTS, ULSM__X86_RECORDS, ULSM__X86_B(SET, HOOK)) \
		".popsection\n\t"					\
		ULSM__X86_ENTRY_THUNK					\
		".cfi_startproc"					\
		: : [n] "i" (NARGS), [sz] "i" (RSIZE),			\
		    [deflo] "i" ((int)(DEF)), [defhi] "i" ((int)((DEF) >> 32)), \
		    [keys] "i" (KEYS),					\
		    [ksz] "i" (sizeof(struct static_call_key)),		\
		    [ref] "i" (REF), [thunk] "i" (THUNK))

/*
 * The CPU's counter, for the library's own timestamps (the recorder,
 * <ulsm/tracepoint.h>): the TSC, read by RDTSC (SDM vol. 2B) in a few
 * cycles, without a system call. Not ordered with the loads and stores
 * around it: a timestamp. Whether it can time events (one rate on every
 * CPU) the library asks once (src/engine/arch/x86_64/counter.c).
 */
#define ULSM__ARCH_HAS_COUNTER	1

static inline uint64_t ulsm__arch_counter_read(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a" (lo), "=d" (hi));
	return (uint64_t)hi << 32 | lo;
}

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
 *           __static_call_return0 (src/engine/arch/x86_64/insn.c says why)
 *   8..10   0f b9 cc (ud1), the signature checked before every update
 *   11..15  int3
 *
 * In a retpoline build (ULSM_RETPOLINE) a trampoline is 32 bytes, and
 * its far form a direct jump to its own stub, which loads the target and
 * jumps to it through the thunk:
 *
 *   0..7    e9 rel32 to byte 16 (any target), e9 rel32 (in reach), c3
 *   8..10   0f b9 cd (ud1 %ebp, %ecx: SDM vol. 2B, "UD"), the signature
 *           of this layout
 *   11..15  int3
 *   16..30  mov <the call's entry>(%rip), %r11   the key (its first field)
 *           mov (%r11), %r11                     key.func
 *           jmp ulsm__x86_indirect_thunk_r11
 *   31      int3
 *
 * The patched instruction stays one the engine replaces whole; the key
 * is reached through the call's struct ulsm_call_entry (a local symbol,
 * ULSM__SC_ENTRY_ASM), because a key with default visibility cannot be
 * addressed PC-relative in a shared object, and a keyed call's key has
 * no symbol of its own.
 *
 * The global symbol is what static_call() calls; a hidden alias at the
 * same address is what the call table records, so another object's
 * definition of the same name can never be patched by mistake.
 */
#if ULSM__RETPOLINE
# define ULSM__X86_SC_SIG	".byte 0x0f, 0xb9, 0xcd\n\t"
# define ULSM__X86_SC_STUB(name)					\
	"mov " ULSM__STR(ULSM__SC_ENTRY(name)) "(%rip), %r11\n\t"	\
	"mov (%r11), %r11\n\t"						\
	"jmp " ULSM__X86_THUNK_NAME "\n\t"				\
	".balign 16, 0xcc\n\t"
# define ULSM__X86_SC_THUNK	ULSM__X86_THUNK("%")
#else
# define ULSM__X86_SC_SIG	".byte 0x0f, 0xb9, 0xcc\n\t"
# define ULSM__X86_SC_STUB(name)
# define ULSM__X86_SC_THUNK
#endif

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
		ULSM__X86_SC_SIG					\
		".balign 16, 0xcc\n\t"					\
		ULSM__X86_SC_STUB(name)					\
		".size " ULSM__STR(STATIC_CALL_TRAMP(name)) ", . - "	\
			ULSM__STR(STATIC_CALL_TRAMP(name)) "\n\t"	\
		".popsection"						\
		ULSM__X86_SC_THUNK)

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
	ULSM__SC_TRAMP_ASM(name, "jmp ulsm_static_call_return0@PLT")

#define ULSM__ARCH_HAS_SC_TRAMP 1
