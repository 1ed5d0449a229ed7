/* SPDX-License-Identifier: MIT */
#ifndef ULSM_PP_H
#define ULSM_PP_H

#include <ulsm/compiler.h>

/*
 * Preprocessor helpers for choosing, from a hook's parameters, between a
 * dispatch in assembly and one in C (<ulsm/lsm_hooks.h>'s entries,
 * <ulsm/apr_hooks.h>'s run functions).
 * ULSM__NARGS counts arguments (an empty list counts 1); ULSM__IS_ONE(x)
 * is 1 if x is a macro defined as 1, else 0 (the kernel's IS_ENABLED);
 * ULSM__IS_VOID(decl) is 1 if decl is exactly the token void.
 *
 * All in ISO C99: no __VA_OPT__ (C2x's and C++20's), nor any other GNU
 * preprocessor extension, which a user's -Wpedantic would report in the
 * units that expand a hook set.
 */
#define ULSM__NARGS(...)						\
	ULSM__NARGS_(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24,	\
		     23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11,	\
		     10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define ULSM__NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12,	\
		     a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, \
		     a24, a25, a26, a27, a28, a29, a30, a31, a32, N, ...) N
#define ULSM__LE6_0	1
#define ULSM__LE6_1	1
#define ULSM__LE6_2	1
#define ULSM__LE6_3	1
#define ULSM__LE6_4	1
#define ULSM__LE6_5	1
#define ULSM__LE6_6	1
#define ULSM__LE6(n)	ULSM__IS_ONE(ULSM__CAT(ULSM__LE6_, n))
#define ULSM__PH_1	0,
#define ULSM__TAKE2(a, b, ...)	b
#define ULSM__IS_ONE(x)		ULSM__IS_ONE_(x)
#define ULSM__IS_ONE_(x)	ULSM__IS_ONE__(ULSM__PH_##x)
#define ULSM__IS_ONE__(junk)	ULSM__TAKE2(junk 1, 0, ~)
#define ULSM__NOT_0		1
#define ULSM__NOT_1		0
#define ULSM__NOT(x)		ULSM__CAT(ULSM__NOT_, x)
#define ULSM__AND_11		1
#define ULSM__AND_10		0
#define ULSM__AND_01		0
#define ULSM__AND_00		0
#define ULSM__AND(a, b)		ULSM__AND_(a, b)
#define ULSM__AND_(a, b)	ULSM__AND_##a##b
#define ULSM__IIF(c)		ULSM__CAT(ULSM__IIF_, c)
#define ULSM__IIF_1(t, f)	t
#define ULSM__IIF_0(t, f)	f
#define ULSM__WHEN(c)		ULSM__CAT(ULSM__WHEN_, c)
#define ULSM__WHEN_1(...)	__VA_ARGS__
#define ULSM__WHEN_0(...)
#define ULSM__FIRST(a, ...)	a
#define ULSM__ZERO(...)		0
#define ULSM__TAKE2_OF(x)	ULSM__TAKE2(x, 0, ~)

/*
 * ULSM__IS_VOID in two steps. decl is one parameter's declaration (or a
 * return type), so it starts with an identifier or a keyword, and can be
 * pasted onto a prefix: does it start with void (ULSM__SV_void)? Only if
 * so, is there nothing after the void (ULSM__EAT_void)? The rest after
 * it is followed by "(~)", which calls ULSM__VOID_PROBE only when the
 * rest is empty, or starts with a parenthesis ("void (*cb)(int)"), which
 * ULSM__VOID_PROBE without "(~)" tells apart. So the last token of the
 * first parameter of a hook, when its type starts with void, must not
 * be the name of a function-like macro ("void *max" with a max(a, b)):
 * it would be called.
 */
#define ULSM__SV_void		~, 1, ~
#define ULSM__EAT_void
#define ULSM__VOID_PROBE(x)	~, 1, ~
#define ULSM__STARTS_VOID(decl)	ULSM__TAKE2_OF(ULSM__CAT(ULSM__SV_, decl))
#define ULSM__REST_EMPTY(rest)						\
	ULSM__AND(ULSM__TAKE2_OF(ULSM__VOID_PROBE rest (~)),		\
		  ULSM__NOT(ULSM__TAKE2_OF(ULSM__VOID_PROBE rest)))
#define ULSM__VOID_ALONE(decl)	ULSM__REST_EMPTY(ULSM__CAT(ULSM__EAT_, decl))
#define ULSM__IS_VOID(decl)						\
	ULSM__IIF(ULSM__STARTS_VOID(decl))(ULSM__VOID_ALONE, ULSM__ZERO)(decl)

#endif /* ULSM_PP_H */
