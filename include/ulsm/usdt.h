/* SPDX-License-Identifier: MIT */
/*
 * ulsm/usdt.h - a statically defined tracing probe (USDT, the "stapsdt"
 * ELF note that perf, bpftrace, SystemTap and bcc read), for the
 * tracepoints of <ulsm/tracepoint.h>. Internal to the public headers: no
 * name here is API, and nothing needs <sys/sdt.h>.
 *
 * A probe is one instruction that does nothing (a NOP), and a note in the
 * object that says where it is, its provider and name, where its
 * semaphore is, and where each argument is when the NOP runs, as
 * "size@register": "-4@%rsi" is a signed 4-byte value in %rsi, "8@x1" an
 * unsigned 8-byte one in x1. A tracer that attaches puts a breakpoint on
 * the NOP (the kernel's uprobes; on x86-64 a 5-byte NOP, which recent
 * kernels turn into a call rather than a trap) and, when given the
 * semaphore's file offset (libbpf, and so bpftrace, and perf do), makes
 * the kernel add one to it while attached: the process can look at it to
 * know that someone listens (src/trace/usdt.c does).
 *
 * Each argument is passed in a general register, widened to 64 bits (so
 * that a tool that ignores the size still reads the value), with its
 * real size and sign in the note, from its C type: an integer, enum or
 * bool by its size and signedness, a pointer or array (a string) as an
 * unsigned 8-byte value, a float or double as the bits of its IEEE value
 * (4 or 8 bytes, unsigned: no USDT tool reads floating-point arguments).
 * A register and never memory: tools read "sym(%rip)" operands wrong.
 *
 * The note's section and its base section follow the layout libbpf's
 * usdt.c documents; the base section and its symbol have the names that
 * <sys/sdt.h> uses, so that probes of both kinds may live in one object.
 */
#ifndef ULSM_USDT_H
#define ULSM_USDT_H

#include <ulsm/compiler.h>

#if defined(__ELF__) && (defined(__x86_64__) || defined(__aarch64__) || \
			 (defined(__riscv) && __riscv_xlen == 64))
# define ULSM__USDT	1
#else
# define ULSM__USDT	0
#endif

/* The probe's NOP: five bytes on x86-64 (a call for recent uprobes). */
#if defined(__x86_64__)
# define ULSM__USDT_NOP		".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"
#else
# define ULSM__USDT_NOP		"nop"
#endif

/*
 * @x without promotion, an array or function as its pointer: the type
 * the classification below looks at.
 */
#define ULSM__USDT_V(x)		((void)0, (x))
/* gcc and clang: 1-4 integer, char, enum, bool; 5 pointer; 8 real. */
#define ULSM__USDT_CLASS(x)	__builtin_classify_type(ULSM__USDT_V(x))
#define ULSM__USDT_IS_INT(x)	(ULSM__USDT_CLASS(x) >= 1 && ULSM__USDT_CLASS(x) <= 4)
#define ULSM__USDT_IS_REAL(x)	(ULSM__USDT_CLASS(x) == 8)
/* @x's type if it is an integer type, else unsigned long long. */
#define ULSM__USDT_ITYPE(x)						\
	__typeof__(__builtin_choose_expr(ULSM__USDT_IS_INT(x),		\
					 ULSM__USDT_V(x), 0ULL))
#define ULSM__USDT_SIGNED(x)						\
	((ULSM__USDT_ITYPE(x))-1 < (ULSM__USDT_ITYPE(x))1)
/* The note's size: negative for a signed value. */
#define ULSM__USDT_SIZE(x)						\
	((int)sizeof(ULSM__USDT_V(x)) * (ULSM__USDT_SIGNED(x) ? -1 : 1))
/* The 64-bit value: the integer or pointer widened, or a real's bits. */
#define ULSM__USDT_BITS(x)						\
	__extension__ ({						\
		__typeof__(ULSM__USDT_V(x)) ulsm__uv = (x);		\
		unsigned long long ulsm__ub = 0;			\
		__builtin_memcpy(&ulsm__ub, &ulsm__uv,			\
				 sizeof(ulsm__uv) < 8 ? sizeof(ulsm__uv) : 8); \
		(long long)ulsm__ub;					\
	})
#define ULSM__USDT_VALUE(x)						\
	__builtin_choose_expr(ULSM__USDT_IS_INT(x) ||			\
			      ULSM__USDT_CLASS(x) == 5,			\
			      (long long)(x), ULSM__USDT_BITS(x))

/* One argument's operands, and its text in the note's argument string. */
#define ULSM__USDT_OP(i, x)						\
	[ulsm__s##i] "n" (ULSM__USDT_SIZE(x)),				\
	[ulsm__a##i] "r" (ULSM__USDT_VALUE(x))
#define ULSM__USDT_ARG(i)	"%c[ulsm__s" #i "]@%[ulsm__a" #i "]"

#define ULSM__USDT_OPS1(a)		ULSM__USDT_OP(0, a)
#define ULSM__USDT_OPS2(a, b)		ULSM__USDT_OPS1(a), ULSM__USDT_OP(1, b)
#define ULSM__USDT_OPS3(a, b, c)	ULSM__USDT_OPS2(a, b), ULSM__USDT_OP(2, c)
#define ULSM__USDT_OPS4(a, b, c, d)	ULSM__USDT_OPS3(a, b, c), ULSM__USDT_OP(3, d)
#define ULSM__USDT_OPS5(a, b, c, d, e)	ULSM__USDT_OPS4(a, b, c, d), ULSM__USDT_OP(4, e)
#define ULSM__USDT_OPS6(a, b, c, d, e, f) ULSM__USDT_OPS5(a, b, c, d, e), ULSM__USDT_OP(5, f)
/* One space between arguments, none before the first (bpftrace 0.17 crashes). */
#define ULSM__USDT_ARGS1		ULSM__USDT_ARG(0)
#define ULSM__USDT_ARGS2		ULSM__USDT_ARGS1 " " ULSM__USDT_ARG(1)
#define ULSM__USDT_ARGS3		ULSM__USDT_ARGS2 " " ULSM__USDT_ARG(2)
#define ULSM__USDT_ARGS4		ULSM__USDT_ARGS3 " " ULSM__USDT_ARG(3)
#define ULSM__USDT_ARGS5		ULSM__USDT_ARGS4 " " ULSM__USDT_ARG(4)
#define ULSM__USDT_ARGS6		ULSM__USDT_ARGS5 " " ULSM__USDT_ARG(5)

/* The semaphore: in .probes, where the kernel's reference counter is. */
#define ULSM__USDT_SEMA(NAME)	__tracepoint_usdt_##NAME
#define ULSM__USDT_DEFINE_SEMA(NAME)					\
	__attribute__((section(".probes"), used, aligned(2),		\
		       visibility("hidden")))				\
	volatile unsigned short ULSM__USDT_SEMA(NAME)

/*
 * The probe, provider @PROV, name @NAME, with @N arguments: the NOP, the
 * note (type 3, "stapsdt": the NOP's address, the base section's, the
 * semaphore's, then provider, name and arguments), and once per unit
 * the base section (a comdat group that the link merges into one byte).
 */
#define ULSM__USDT_PROBE(PROV, NAME, N, ...)				\
	ULSM__USDT_PROBE_(PROV, NAME, N, __VA_ARGS__)
#define ULSM__USDT_PROBE_(PROV, NAME, N, ...)				\
	__asm__ __volatile__(						\
		".ifndef _.stapsdt.base\n\t"				\
		".pushsection .stapsdt.base, \"aG\", %%progbits, "	\
			".stapsdt.base, comdat\n\t"			\
		".weak _.stapsdt.base\n\t"				\
		".hidden _.stapsdt.base\n"				\
		"_.stapsdt.base:\n\t"					\
		".space 1\n\t"						\
		".popsection\n\t"					\
		".endif\n"						\
		"990:\t" ULSM__USDT_NOP "\n\t"				\
		".pushsection .note.stapsdt, \"?\", %%note\n\t"		\
		".balign 4\n\t"						\
		".4byte 992f - 991f, 994f - 993f, 3\n"			\
		"991:\t.asciz \"stapsdt\"\n"				\
		"992:\t.balign 4\n"					\
		"993:\t.8byte 990b\n\t"					\
		".8byte _.stapsdt.base\n\t"				\
		".8byte " ULSM__STR(ULSM__USDT_SEMA(NAME)) "\n\t"	\
		".asciz \"" #PROV "\"\n\t"				\
		".asciz \"" #NAME "\"\n\t"				\
		".asciz \"" ULSM__USDT_ARGS##N "\"\n"			\
		"994:\t.balign 4\n\t"					\
		".popsection"						\
		: : ULSM__USDT_OPS##N(__VA_ARGS__))

#endif /* ULSM_USDT_H */
