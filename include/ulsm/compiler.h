/* SPDX-License-Identifier: MIT */
/*
 * ulsm/compiler.h - small compiler helpers shared by the public headers.
 *
 * Nothing here is API: every name carries the "ulsm__" (double underscore)
 * prefix and may change between releases.
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
# define ULSM__STATIC_ASSERT(c, msg)	_Static_assert(c, msg)
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
