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
#define ULSM__EAT_void
#define ULSM__NONEMPTY(...)	ULSM__TAKE2(~ __VA_OPT__(, 1), 0, ~)
#define ULSM__IS_VOID(decl)	ULSM__NOT(ULSM__NONEMPTY(ULSM__CAT(ULSM__EAT_, decl)))

#endif /* ULSM_PP_H */
