/* SPDX-License-Identifier: MIT */
/*
 * ulsm/static_call.h - static calls: direct calls whose target is patched.
 *
 * The Linux kernel's static calls (include/linux/static_call.h) for ordinary
 * processes. A static call is a function pointer that is rarely changed and
 * often called: instead of an indirect call (a retpoline on hardened
 * builds), callers make a direct call to a small trampoline whose one
 * instruction is a direct jump to the current target, rewritten by
 * static_call_update() while other threads call through it
 * (docs/patching-protocol.md, docs/static-calls.md).
 *
 *	int fast_hash(const void *p, size_t n);
 *	int careful_hash(const void *p, size_t n);
 *
 *	DEFINE_STATIC_CALL(hash, fast_hash);
 *
 *	h = static_call(hash)(buf, len);		// call fast_hash
 *	static_call_update(hash, careful_hash);		// 0 or -errno
 *	static_call_query(hash) == careful_hash;	// true
 *
 *	void notify_fn(int event);			// gives the type
 *	DEFINE_STATIC_CALL_NULL(notify, notify_fn);	// no target yet
 *	static_call_cond(notify)(42);			// does nothing
 *
 *	h = static_call_inline(hash, buf, len);		// the call site itself
 *							// is patched (below)
 *
 * Semantics (the kernel's): DEFINE_STATIC_CALL_NULL starts with no target;
 * static_call_cond() of a NULL call does nothing (void calls only; calling a
 * NULL static call with static_call() is undefined, as in the kernel).
 * DEFINE_STATIC_CALL_RET0 starts as a function that returns 0; updating any
 * call to __static_call_return0 makes it return 0 again. An update to a
 * function of another type is a compile-time error. When
 * static_call_update() returns 0, every call made afterwards goes to the
 * new target.
 *
 * Unlike the kernel, updates return 0 or a negative errno:
 *   -EINVAL   NULL key, or a trampoline that does not belong to the key
 *   -ENOENT   the trampoline is not registered (its object is not loaded)
 *   -EILSEQ   the trampoline's bytes are not what ulsm wrote there
 *   -EPERM, -ENOSYS, -EMFILE, -ENOMEM, -EAGAIN, -EDEADLK, -ETIMEDOUT,
 *   -EIO      as for static keys (<ulsm/static_key.h>)
 * and the call keeps its old target on failure.
 *
 * static_call_inline(name, args...) is static_call(name)(args...) with its
 * call site recorded (the kernel's inline static calls): the library
 * patches the call itself to call the target directly, with no jump
 * through the trampoline (x86-64, in C; elsewhere, and in C++, it is
 * static_call()). A site calls the trampoline while the target is NULL or
 * out of rel32 reach, and in a process with a shadow stack.
 *
 * Retpoline builds: a target out of rel32 reach (another shared object)
 * is jumped to through the key, an indirect branch written in assembly,
 * which -mindirect-branch=thunk (gcc) or -mretpoline (clang) cannot
 * rewrite. A unit built with those flags and defining static calls (or
 * tracepoints, or a hook set) defines ULSM_RETPOLINE as 1, on the same
 * command line: its trampolines then reach far targets through a
 * retpoline too (<ulsm/arch/x86_64.h>, docs/static-calls.md). No compiler
 * predefines a macro that ulsm could read instead.
 *
 * Caveats: static_call(name) from another object than the one that
 * defines the call goes through that object's PLT (an indirect jump);
 * define the calls where the hot callers are. Do not update from signal
 * handlers.
 */
#ifndef ULSM_STATIC_CALL_H
#define ULSM_STATIC_CALL_H

#include <stddef.h>
#include <stdint.h>

#include <ulsm/compiler.h>
#include <ulsm/static_key.h>

ULSM__EXTERN_C_BEGIN

/* The kernel's struct static_call_key: the current target. */
struct static_call_key {
	void *func;
	unsigned long ulsm_flags;
};


#define STATIC_CALL_KEY(name)		ULSM__CAT(__SCK__, name)
#define STATIC_CALL_TRAMP(name)		ULSM__CAT(__SCT__, name)
#define STATIC_CALL_TRAMP_STR(name)	ULSM__STR(STATIC_CALL_TRAMP(name))
#define ULSM__SC_LOCAL(name)		ULSM__CAT(__SCL__, name)
#define ULSM__SC_ENTRY(name)		ULSM__CAT(__SCE__, name)

/*
 * The kernel's names of these three, __static_call_return0 and friends,
 * are kept (code written for the kernel uses them), as macros: the
 * library exports its own names, since a name that starts with two
 * underscores is reserved in user space (docs/abi.md).
 */
#define __static_call_return0	ulsm_static_call_return0
#define __static_call_nop	ulsm_static_call_nop
#define __static_call_update	ulsm_static_call_update

/**
 * ulsm_static_call_return0 - the target of DEFINE_STATIC_CALL_RET0 calls
 * (the kernel's __static_call_return0)
 *
 * Return: 0.
 */
long ulsm_static_call_return0(void);

/**
 * ulsm_static_call_nop - what static_call_cond() calls for a NULL target
 * (generic back end; the kernel's __static_call_nop)
 */
void ulsm_static_call_nop(void);

/**
 * ulsm_static_call_update - retarget a static call (untyped form; the
 * kernel's __static_call_update)
 * @key:   STATIC_CALL_KEY(name)
 * @tramp: STATIC_CALL_TRAMP_ADDR(name)
 * @func:  the new target, NULL, or __static_call_return0
 *
 * Return: 0 or a negative errno (see the top of this file).
 */
int ulsm_static_call_update(struct static_call_key *key, void *tramp,
			    void *func);

enum ulsm_static_call_form {
	ULSM_SC_FORM_NULL = 1,	/* ret */
	ULSM_SC_FORM_DIRECT,	/* jmp rel32 (also to __static_call_return0) */
	ULSM_SC_FORM_INDIRECT,	/* jmp *key.func (target out of rel32 reach) */
	ULSM_SC_FORM_POINTER,	/* generic back end: a function pointer */
};

/**
 * ulsm_static_call_form - which instruction a call's trampoline holds now
 * @key: STATIC_CALL_KEY(name)
 *
 * Return: an enum ulsm_static_call_form, or -EINVAL / -ENOENT.
 */
int ulsm_static_call_form(const struct static_call_key *key);

/**
 * ulsm_static_call_sites - the call sites patched with a static call
 * @key:    STATIC_CALL_KEY(name), or a hook slot's key
 * @direct: if not NULL, set to how many of them call the key's target
 *          directly now (the others call the trampoline: target NULL or
 *          out of reach)
 *
 * Call sites are those of static_call_inline(), and for a hook slot's key
 * the slot's call in the hook's entry (x86-64, <ulsm/lsm_hooks.h>) or in
 * the inline walk (aarch64). A site the compiler did not emit as a plain
 * direct call to the trampoline, or any such site in a process with a
 * shadow stack (x86-64), is left calling the trampoline and not counted.
 * A hook entry's call that does not reach the target directly calls the
 * entry's stub for the slot instead (counted, not direct).
 * Return: the number of sites (0 on the generic back end), or -EINVAL.
 */
int ulsm_static_call_sites(const struct static_call_key *key, int *direct);

/**
 * ulsm_static_call_form_name - "null", "direct", "indirect",
 * "pointer", or "unknown"
 * @form: a value returned by ulsm_static_call_form()
 */
const char *ulsm_static_call_form_name(int form);

ULSM__EXTERN_C_END

#define DECLARE_STATIC_CALL(name, func)					\
	ULSM__EXTERN struct static_call_key STATIC_CALL_KEY(name);	\
	ULSM__EXTERN __typeof__(func) STATIC_CALL_TRAMP(name)

/* Pairs with the release store of func in store_word(), src/engine/txn.c. */
#define static_call_query(name)						\
	(__extension__ (__typeof__(&STATIC_CALL_TRAMP(name)))		\
	 __atomic_load_n(&STATIC_CALL_KEY(name).func, __ATOMIC_ACQUIRE))

#ifdef ULSM__ARCH_HAS_SC_TRAMP

/*
 * The entry's symbol keeps its name (also under LTO), so that a
 * trampoline can refer to it: the aarch64 one loads the key through it
 * (<ulsm/arch/aarch64.h>).
 */
#define ULSM__SC_ENTRY_ASM(name)	__asm__(ULSM__STR(ULSM__SC_ENTRY(name)))

#define ULSM__SC_DEFINE(name, func, init, tramp_asm)			\
	DECLARE_STATIC_CALL(name, func);				\
	ULSM__EXTERN __typeof__(func) ULSM__SC_LOCAL(name) ULSM__HIDDEN; \
	struct static_call_key STATIC_CALL_KEY(name) = {		\
		__extension__ (void *)(init), 0				\
	};								\
	tramp_asm;							\
	__attribute__((used, section("ulsm_call_table"), aligned(8)))	\
	static struct ulsm_call_entry ULSM__SC_ENTRY(name)		\
		ULSM__SC_ENTRY_ASM(name) = {				\
		&STATIC_CALL_KEY(name),					\
		__extension__ (void *)&ULSM__SC_LOCAL(name)		\
	}

#define DEFINE_STATIC_CALL(name, func)					\
	ULSM__SC_DEFINE(name, func, &func, ULSM__ARCH_SC_TRAMP(name, func))
#define DEFINE_STATIC_CALL_NULL(name, type)				\
	ULSM__SC_DEFINE(name, type, NULL, ULSM__ARCH_SC_TRAMP_NULL(name))
#define DEFINE_STATIC_CALL_RET0(name, type)				\
	ULSM__SC_DEFINE(name, type, __static_call_return0,		\
			ULSM__ARCH_SC_TRAMP_RET0(name))

/*
 * A NULL static call whose key is an existing object (a member of a larger
 * structure, as in the hook framework's sealed tables) instead of a
 * variable of its own. Call it with ulsm_static_call_keyed(name, keyp),
 * update it with __static_call_update(keyp, STATIC_CALL_TRAMP_ADDR(name), f).
 */
#define ULSM__SC_DEFINE_KEYED(name, func, keyp, tramp_asm)		\
	ULSM__EXTERN __typeof__(func) STATIC_CALL_TRAMP(name);		\
	ULSM__EXTERN __typeof__(func) ULSM__SC_LOCAL(name) ULSM__HIDDEN; \
	tramp_asm;							\
	__attribute__((used, section("ulsm_call_table"), aligned(8)))	\
	static struct ulsm_call_entry ULSM__SC_ENTRY(name)		\
		ULSM__SC_ENTRY_ASM(name) = {				\
		(keyp), __extension__ (void *)&ULSM__SC_LOCAL(name)	\
	}
#define ULSM_DEFINE_STATIC_CALL_NULL_KEYED(name, func, keyp)		\
	ULSM__SC_DEFINE_KEYED(name, func, keyp, ULSM__ARCH_SC_TRAMP_NULL(name))
/*
 * The same, calling @func until it is updated: *@keyp must be
 * initialised to { (void *)&func } (the trampoline is compiled to jump to
 * @func, and the key must say so).
 */
#define ULSM_DEFINE_STATIC_CALL_KEYED(name, func, keyp)			\
	ULSM__SC_DEFINE_KEYED(name, func, keyp, ULSM__ARCH_SC_TRAMP(name, func))
#define ulsm_static_call_keyed(name, keyp)	(STATIC_CALL_TRAMP(name))

#define static_call(name)		(STATIC_CALL_TRAMP(name))

/*
 * What a back end needs before the call of a recorded site, if anything
 * (riscv64: the call aligned to 4, <ulsm/arch/riscv64.h>).
 */
#ifndef ULSM__ARCH_CALL_SITE_BEGIN
# define ULSM__ARCH_CALL_SITE_BEGIN()	((void)0)
#endif

/*
 * The call, then the record of its site just after it (ULSM__ARCH_CALL_SITE),
 * with or without a result: __builtin_choose_expr builds only the branch
 * chosen, and the other one still compiles (a void call's "result" is a 0
 * of type int that nothing calls for). C only: C++ has no
 * __builtin_choose_expr, and gets the trampoline.
 */
#if defined(__cplusplus) || !defined(ULSM__ARCH_CALL_SITE)
# define static_call_inline(name, ...)	(static_call(name)(__VA_ARGS__))
#else
# define ULSM__SC_IS_VOID(name, ...)					\
	__builtin_types_compatible_p(					\
		__typeof__(STATIC_CALL_TRAMP(name)(__VA_ARGS__)), void)
# define static_call_inline(name, ...)					\
	__builtin_choose_expr(ULSM__SC_IS_VOID(name, __VA_ARGS__),	\
	__extension__ ({						\
		ULSM__ARCH_CALL_SITE_BEGIN();				\
		STATIC_CALL_TRAMP(name)(__VA_ARGS__);			\
		ULSM__ARCH_CALL_SITE(&STATIC_CALL_KEY(name));		\
	}),								\
	__extension__ ({						\
		ULSM__ARCH_CALL_SITE_BEGIN();				\
		__typeof__(__builtin_choose_expr(			\
			ULSM__SC_IS_VOID(name, __VA_ARGS__), 0,		\
			STATIC_CALL_TRAMP(name)(__VA_ARGS__))) ulsm__r = \
			__builtin_choose_expr(				\
				ULSM__SC_IS_VOID(name, __VA_ARGS__), 0,	\
				STATIC_CALL_TRAMP(name)(__VA_ARGS__));	\
		ULSM__ARCH_CALL_SITE(&STATIC_CALL_KEY(name));		\
		ulsm__r;						\
	}))
#endif

/* A NULL trampoline is a ret: calling it does nothing. */
#define static_call_cond(name)		(STATIC_CALL_TRAMP(name))
#define STATIC_CALL_TRAMP_ADDR(name)					\
	(__extension__ (void *)&STATIC_CALL_TRAMP(name))

#else /* the generic back end: a function pointer */

#define ULSM__SC_DEFINE(name, func, init)				\
	DECLARE_STATIC_CALL(name, func);				\
	struct static_call_key STATIC_CALL_KEY(name) = {		\
		__extension__ (void *)(init), 0				\
	}

#define DEFINE_STATIC_CALL(name, func)					\
	ULSM__SC_DEFINE(name, func, &func)
#define DEFINE_STATIC_CALL_NULL(name, type)				\
	ULSM__SC_DEFINE(name, type, NULL)
#define DEFINE_STATIC_CALL_RET0(name, type)				\
	ULSM__SC_DEFINE(name, type, __static_call_return0)

#define static_call(name)						\
	(__extension__ (__typeof__(&STATIC_CALL_TRAMP(name)))		\
	 __atomic_load_n(&STATIC_CALL_KEY(name).func, __ATOMIC_RELAXED))
#define static_call_inline(name, ...)	(static_call(name)(__VA_ARGS__))

#define ULSM_DEFINE_STATIC_CALL_NULL_KEYED(name, func, keyp)		\
	ULSM__EXTERN __typeof__(func) STATIC_CALL_TRAMP(name)
#define ULSM_DEFINE_STATIC_CALL_KEYED(name, func, keyp)			\
	ULSM__EXTERN __typeof__(func) STATIC_CALL_TRAMP(name)
/*
 * Acquire: the hook framework stores a slot's target before it enables the
 * slot's key, and a dispatcher that saw the key on must see the target.
 * Pairs with the release store of func in store_word(), src/engine/txn.c.
 */
#define ulsm_static_call_keyed(name, keyp)				\
	(__extension__ (__typeof__(&STATIC_CALL_TRAMP(name)))		\
	 __atomic_load_n(&(keyp)->func, __ATOMIC_ACQUIRE))

static inline void *ulsm__sc_cond(void *func)
{
	return func ? func : (void *)(uintptr_t)__static_call_nop;
}

#define static_call_cond(name)						\
	(__extension__ (__typeof__(&STATIC_CALL_TRAMP(name)))ulsm__sc_cond( \
	 __atomic_load_n(&STATIC_CALL_KEY(name).func, __ATOMIC_RELAXED)))
#define STATIC_CALL_TRAMP_ADDR(name)	NULL

#endif

/* The compile-time type check of the kernel's static_call_update(). */
#ifdef __cplusplus
# define ULSM__SC_CHECK_TYPE(name, func)	((void)0)
#else
# define ULSM__SC_CHECK_TYPE(name, func)				\
	ULSM__STATIC_ASSERT(						\
		__builtin_types_compatible_p(__typeof__(func),		\
			__typeof__(STATIC_CALL_TRAMP(name))) ||		\
		__builtin_types_compatible_p(__typeof__(func),		\
			__typeof__(&STATIC_CALL_TRAMP(name))) ||	\
		__builtin_types_compatible_p(__typeof__(func), void *),	\
		"static_call_update: the function's type does not match " \
		"the static call")
#endif

/**
 * static_call_update - retarget a static call, checking the type
 * @name: the static call
 * @func: a function of the call's type, NULL, or
 *        (void *)__static_call_return0
 *
 * Evaluates to 0 or a negative errno.
 */
#define static_call_update(name, func)					\
__extension__ ({							\
	ULSM__SC_CHECK_TYPE(name, func);				\
	__typeof__(&STATIC_CALL_TRAMP(name)) ulsm__f = (func);		\
	__static_call_update(&STATIC_CALL_KEY(name),			\
			     STATIC_CALL_TRAMP_ADDR(name),		\
			     (void *)(uintptr_t)ulsm__f);		\
})

#endif /* ULSM_STATIC_CALL_H */
