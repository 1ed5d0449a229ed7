/* SPDX-License-Identifier: MIT */
/*
 * ulsm/compiler.h - small compiler helpers shared by the public headers.
 *
 * Nothing here is API: every name carries the "ulsm__" (double underscore)
 * prefix and may change between releases.
 *
 * The public headers are GNU C (statement expressions, __typeof__, asm
 * goto, local labels, conversions between function and object pointers,
 * _Generic and _Static_assert in C99), and each use is marked
 * __extension__, as glibc marks its own: a program built with -std=c11,
 * c99 or c++17 and -Wpedantic gets no warning from them (t_compile builds
 * tests/meta/compile/pedantic_* so). The README ("Compiling") says what
 * such a program's own code needs.
 */
#ifndef ULSM_COMPILER_H
#define ULSM_COMPILER_H

#if !defined(__GNUC__)
# error "ulsm needs GNU C extensions (gcc or clang)"
#endif

/* For symbols named in assembly (trampolines): never mangled. */
#ifdef __cplusplus
# define ULSM__EXTERN		extern "C"
#else
# define ULSM__EXTERN		extern
#endif

#ifdef __cplusplus
# define ULSM__EXTERN_C_BEGIN	extern "C" {
# define ULSM__EXTERN_C_END	}
#else
# define ULSM__EXTERN_C_BEGIN
# define ULSM__EXTERN_C_END
#endif

#define ULSM__STR_(x)		#x
#define ULSM__STR(x)		ULSM__STR_(x)
#define ULSM__CAT_(a, b)	a##b
#define ULSM__CAT(a, b)		ULSM__CAT_(a, b)

/*
 * ULSM_RETPOLINE (<ulsm/arch/x86_64.h> says what it does): 1 when the
 * unit defines it as 1 or as nothing, 0 when it does not define it or
 * defines it as 0.
 */
#if !defined(ULSM_RETPOLINE)
# define ULSM__RETPOLINE	0
#elif (2 * ULSM_RETPOLINE + 1) == 2	/* defined, empty */
# define ULSM__RETPOLINE	1
#elif ULSM_RETPOLINE == 1
# define ULSM__RETPOLINE	1
#elif ULSM_RETPOLINE == 0
# define ULSM__RETPOLINE	0
#else
# error "ULSM_RETPOLINE must be 1 (a retpoline build: -mindirect-branch=thunk, -mretpoline) or 0"
#endif

#define ulsm__likely(x)		__builtin_expect(!!(x), 1)
#define ulsm__unlikely(x)	__builtin_expect(!!(x), 0)

#ifdef __cplusplus
# define ULSM__AUTO		auto
# define ULSM__BOOL		bool
# define ULSM__STATIC_ASSERT(c, msg)	static_assert(c, msg)
#else
# define ULSM__AUTO		__auto_type
# define ULSM__BOOL		_Bool
/* C99 has no _Static_assert: gcc and clang have it as an extension. */
# define ULSM__STATIC_ASSERT(c, msg)	__extension__ _Static_assert(c, msg)
#endif

/*
 * A compile-time check as a structure's member, for a check inside an
 * expression: sizeof(struct { ULSM__MEMBER_ASSERT(c, msg, name); int x; }).
 * C: _Static_assert, which __extension__ may not precede there (clang);
 * before C11, a bit-field whose width is negative when @c is false, and
 * whose @name says what is wrong (glibc's stand-in for _Static_assert
 * before C11 is an extern declaration, which a structure cannot hold).
 */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
# define ULSM__MEMBER_ASSERT(c, msg, name)	_Static_assert(c, msg)
#else
# define ULSM__MEMBER_ASSERT(c, msg, name)	int name : (c) ? 1 : -1
#endif

/*
 * The end of a macro whose expansion ends with a function's body
 * (DEFINE_TRACEPOINT, DEFINE_STATIC_SWITCH, ...), so that the ';' written
 * after it, as after any declaration, ends a declaration: after the body
 * it would be an empty declaration at file scope, which ISO C does not
 * have (-Wpedantic: "extra ';' outside of a function"). A structure's
 * tag, declared again each time: no object, no symbol, no warning.
 */
#define ULSM__END_DECL		struct ulsm__end_decl

#define ULSM__HIDDEN		__attribute__((visibility("hidden")))
#define ULSM__ALWAYS_INLINE	inline __attribute__((always_inline))

#endif /* ULSM_COMPILER_H */
