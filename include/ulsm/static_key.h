/* SPDX-License-Identifier: MIT */
/*
 * ulsm/static_key.h - static keys: branches patched between a NOP and a JMP.
 *
 * The Linux kernel's jump labels (include/linux/jump_label.h) for ordinary
 * processes, with the kernel's names and semantics. A static key is a
 * boolean (or a reference count) that code tests with
 * static_branch_likely() or static_branch_unlikely(). On a patching back end
 * the test costs nothing but a 5-byte NOP or JMP: flipping the key rewrites
 * every site in the process, safely while other threads execute them (see
 * docs/patching-protocol.md). On the generic back end a site is a load and a
 * compare.
 *
 *	DEFINE_STATIC_KEY_FALSE(tracing);
 *
 *	void work(void)
 *	{
 *		if (static_branch_unlikely(&tracing))
 *			trace_something();	// out of line, rarely taken
 *		do_work();
 *	}
 *
 *	static_branch_enable(&tracing);	// returns 0 or a negative errno
 *
 * Semantics (the kernel's): static_branch_likely() and
 * static_branch_unlikely() return whether the key is enabled; "likely" and
 * "unlikely" only choose which path is laid out inline. A key defined TRUE
 * starts enabled with count 1. enable/disable treat the key as a boolean;
 * inc/dec as a reference count (the first inc enables, the last dec
 * disables). When an update returns 0, every thread that afterwards executes
 * a site of the key takes the new path.
 *
 * Unlike the kernel, updates return 0 or a negative errno:
 *   -EINVAL   NULL key, or static_branch_dec() of a key whose count is 0
 *   -EBUSY    static_branch_disable() of a key whose count is above 1
 *   -EOVERFLOW the count would overflow
 *   -EILSEQ   a site's bytes are not what ulsm wrote there (someone else
 *             changed the code): nothing is written, the key is unchanged
 *   -EPERM    the process may not write its own text (see README)
 *   -ENOSYS   no way to synchronise the other threads' instruction streams
 *   -EMFILE, -ENFILE, -ENOMEM, -EAGAIN  a resource is missing now (a
 *             descriptor, memory, room for a queued signal): retry later
 *   -EDEADLK  called from a signal handler that interrupted an update; or,
 *             with the signal sync, a thread blocks the sync signal
 *   -ETIMEDOUT with the signal sync, a thread did not answer in time
 *   -EIO      a write failed and could not be rolled back yet (fault
 *             injection only): the next update finishes the rollback
 * and on failure the key keeps its old state and all its sites their old
 * code. An update first registers any object still pending (a plug-in
 * that could not be registered when loaded), and fails with its error if
 * it still cannot. ulsm_last_error() gives a message for the calling
 * thread.
 *
 * Caveats:
 *   - the key expression must be an address constant (a global or static
 *     key, or a member of one): each site records it at build time;
 *   - do not update keys from a signal handler;
 *   - threads that run sites must not block SIGTRAP while an update is in
 *     progress (the kernel would kill the process on the trap).
 */
#ifndef ULSM_STATIC_KEY_H
#define ULSM_STATIC_KEY_H

#include <stdint.h>
#ifndef __cplusplus
# include <stdbool.h>
#endif

#include <ulsm/compiler.h>

ULSM__EXTERN_C_BEGIN

/* The kernel's struct static_key: @enabled is the reference count. */
struct static_key {
	int enabled;
	unsigned int ulsm_flags;	/* ULSM_KEY_* below; not API */
};

/* Typed wrappers: the type says which way the key was defined. */
struct static_key_true {
	struct static_key key;
};

struct static_key_false {
	struct static_key key;
};

#define ULSM_KEY_INIT_TRUE	1u

/*
 * A site records its key's address at build time (arch/x86_64.h), in a
 * static pointer whose initialiser must be constant: the key must have
 * static storage. For a key on the stack the compiler's error is about a
 * "non-constant initializer"; these names put the fix into it, since clang
 * notes the macro it expanded and gcc the field it was initialising, even
 * from a system header. The generic back end checks the same, so that
 * code that builds there builds everywhere.
 */
#define ULSM__STATIC_KEYS_MUST_BE_GLOBAL_OR_STATIC(keyp)	(keyp)
#ifdef __cplusplus
/* C++ would initialise a static at run time, silently: ask for constexpr. */
# define ULSM__KEY_REF_STORAGE	static constexpr
#else
# define ULSM__KEY_REF_STORAGE	static const
#endif
struct ulsm__static_keys_must_be_global_or_static {
	const void *static_keys_must_be_global_or_static;
};
#define ULSM__KEY_REF(name, keyp, attrs)				\
	ULSM__KEY_REF_STORAGE struct ulsm__static_keys_must_be_global_or_static \
		name attrs = {						\
		ULSM__STATIC_KEYS_MUST_BE_GLOBAL_OR_STATIC(keyp)	\
	}

ULSM__EXTERN_C_END

#include <ulsm/arch.h>
#include <ulsm/object.h>

ULSM__EXTERN_C_BEGIN

#define STATIC_KEY_INIT_TRUE	{ 1, ULSM_KEY_INIT_TRUE }
#define STATIC_KEY_INIT_FALSE	{ 0, 0 }
#define STATIC_KEY_TRUE_INIT	{ STATIC_KEY_INIT_TRUE }
#define STATIC_KEY_FALSE_INIT	{ STATIC_KEY_INIT_FALSE }

#define DEFINE_STATIC_KEY_TRUE(name)					\
	struct static_key_true name = STATIC_KEY_TRUE_INIT
#define DEFINE_STATIC_KEY_FALSE(name)					\
	struct static_key_false name = STATIC_KEY_FALSE_INIT
#define DECLARE_STATIC_KEY_TRUE(name)					\
	extern struct static_key_true name
#define DECLARE_STATIC_KEY_FALSE(name)					\
	extern struct static_key_false name
#define DEFINE_STATIC_KEY_TRUE_RO(name)	DEFINE_STATIC_KEY_TRUE(name)
#define DEFINE_STATIC_KEY_FALSE_RO(name) DEFINE_STATIC_KEY_FALSE(name)

/**
 * ulsm_static_key_slow_inc - take a reference; the first one enables the key
 * @key: the key
 *
 * Return: 0, or a negative errno (see the top of this file); on error the
 * count and the code are unchanged.
 */
int ulsm_static_key_slow_inc(struct static_key *key);

/**
 * ulsm_static_key_slow_dec - drop a reference; the last one disables the key
 * @key: the key
 *
 * Return: 0, -EINVAL if the count is already 0 (unbalanced), or another
 * negative errno; on error the count and the code are unchanged.
 */
int ulsm_static_key_slow_dec(struct static_key *key);

/**
 * ulsm_static_key_enable - set a boolean key (count 1)
 * @key: the key
 *
 * Nothing to do if the count is already positive.
 * Return: 0 or a negative errno.
 */
int ulsm_static_key_enable(struct static_key *key);

/**
 * ulsm_static_key_disable - clear a boolean key (count 0)
 * @key: the key
 *
 * Return: 0 (also if already disabled), -EBUSY if the count is above 1 (the
 * key is used as a reference count: use dec), or another negative errno.
 */
int ulsm_static_key_disable(struct static_key *key);

/* Type checks: only the three key types are accepted. */
#ifdef __cplusplus
} /* extern "C" */
static inline constexpr bool ulsm__key_is_true(const struct static_key_true *)
{ return true; }
static inline constexpr bool ulsm__key_is_true(const struct static_key_false *)
{ return false; }
static inline struct static_key *ulsm__to_key(struct static_key *k)
{ return k; }
static inline struct static_key *ulsm__to_key(struct static_key_true *k)
{ return reinterpret_cast<struct static_key *>(k); }
static inline struct static_key *ulsm__to_key(struct static_key_false *k)
{ return reinterpret_cast<struct static_key *>(k); }
extern "C" {
# define ULSM__KEY_IS_TRUE(x)	ulsm__key_is_true(x)
# define ULSM__TO_KEY(x)	ulsm__to_key(x)
#else
# define ULSM__KEY_IS_TRUE(x)						\
	__builtin_types_compatible_p(__typeof__(*(x)), struct static_key_true)
# define ULSM__KEY_IS_FALSE(x)						\
	__builtin_types_compatible_p(__typeof__(*(x)), struct static_key_false)
# define ULSM__TO_KEY(x)						\
	(__extension__ _Generic((x),					\
		 struct static_key *: (struct static_key *)(x),		\
		 struct static_key_true *: (struct static_key *)(x),	\
		 struct static_key_false *: (struct static_key *)(x)))
#endif

#ifdef __cplusplus
# define ULSM__CHECK_BRANCH_KEY(x)	((void)ulsm__key_is_true(x))
#else
# define ULSM__CHECK_BRANCH_KEY(x)					\
	ULSM__STATIC_ASSERT(ULSM__KEY_IS_TRUE(x) || ULSM__KEY_IS_FALSE(x), \
		"static_branch_likely/unlikely need a struct static_key_true * " \
		"or a struct static_key_false *")
#endif

/**
 * static_branch_likely - is the key enabled? (true path laid out inline)
 * @x: address of a struct static_key_true or struct static_key_false
 */
#define static_branch_likely(x)						\
__extension__ ({							\
	ULSM__BOOL ulsm__b;						\
	ULSM__CHECK_BRANCH_KEY(x);					\
	if (ULSM__KEY_IS_TRUE(x))					\
		ulsm__b = !ulsm__arch_static_branch(&(x)->key, 1);	\
	else								\
		ulsm__b = !ulsm__arch_static_branch_jump(&(x)->key, 1);	\
	ulsm__likely(ulsm__b);						\
})

/**
 * static_branch_unlikely - is the key enabled? (false path laid out inline)
 * @x: address of a struct static_key_true or struct static_key_false
 */
#define static_branch_unlikely(x)					\
__extension__ ({							\
	ULSM__BOOL ulsm__b;						\
	ULSM__CHECK_BRANCH_KEY(x);					\
	if (ULSM__KEY_IS_TRUE(x))					\
		ulsm__b = ulsm__arch_static_branch_jump(&(x)->key, 0);	\
	else								\
		ulsm__b = ulsm__arch_static_branch(&(x)->key, 0);	\
	ulsm__unlikely(ulsm__b);					\
})

/**
 * static_key_count - the key's reference count
 * @x: address of any of the three key types
 *
 * Pairs with the release store of enabled in store_word(),
 * src/engine/txn.c: the count is seen with what came before its change.
 */
#define static_key_count(x)						\
	__atomic_load_n(&ULSM__TO_KEY(x)->enabled, __ATOMIC_ACQUIRE)

/**
 * static_key_enabled - whether the count is positive
 * @x: address of any of the three key types
 */
#define static_key_enabled(x)	(static_key_count(x) > 0)

#define static_key_slow_inc(k)	ulsm_static_key_slow_inc(k)
#define static_key_slow_dec(k)	ulsm_static_key_slow_dec(k)
#define static_key_enable(k)	ulsm_static_key_enable(k)
#define static_key_disable(k)	ulsm_static_key_disable(k)

/* The typed forms; each evaluates to 0 or a negative errno. */
#define static_branch_inc(x)	ulsm_static_key_slow_inc(ULSM__TO_KEY(x))
#define static_branch_dec(x)	ulsm_static_key_slow_dec(ULSM__TO_KEY(x))
#define static_branch_enable(x)	ulsm_static_key_enable(ULSM__TO_KEY(x))
#define static_branch_disable(x) ulsm_static_key_disable(ULSM__TO_KEY(x))

ULSM__EXTERN_C_END

#endif /* ULSM_STATIC_KEY_H */
