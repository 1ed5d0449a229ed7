/* SPDX-License-Identifier: MIT */
/*
 * ulsm/lsm_hooks.h - expand an application's hook list into a hook set.
 *
 * The application lists its hooks once, as the kernel does in
 * lsm_hook_defs.h, one line per hook:
 *
 *	// myapp_hook_defs.h (no include guard)
 *	LSM_HOOK(int, 0, file_open, struct file *file)
 *	LSM_HOOK(void, LSM_RET_VOID, file_free, struct file *file)
 *
 * and includes this header with three macros set:
 *
 *	#define ULSM_LSM_SET		myapp		// a C identifier
 *	#define ULSM_LSM_HOOK_DEFS	"myapp_hook_defs.h"
 *	#define MAX_LSM_COUNT		4		// slots per hook, literal
 *	#include <ulsm/lsm_hooks.h>
 *
 * Exactly one translation unit also defines ULSM_LSM_DEFINE (and may
 * define ULSM_LSM_BUILTIN_ORDER "a,b,c") before including it: that one
 * holds the tables, keys, trampolines and the hooks' entries (below); it
 * must be C. The names it creates, for set S:
 *
 *	union S_list_options	one member per hook, the callback's type
 *	struct S_hook_list	what LSM_HOOK_INIT(NAME, callback) fills
 *	struct ulsm_hook_set S_hook_set	    pass to ulsm_lsm_init() etc.
 *	S_lsm_default_NAME	the DEFAULT of each non-void hook
 *
 * Dispatch, for the set named by ULSM_LSM_SET (or any set with the ulsm_
 * forms, which take the set first):
 *
 *	rc = call_int_hook(file_open, file);	// stops at rc != DEFAULT
 *	call_void_hook(file_free, file);	// every active slot, in order
 *	lsm_for_each_hook(scall, getselfattr)	// your own rule
 *		lsm_hook_fn(scall, getselfattr)(...);
 *
 * call_int_hook() on a void hook, call_void_hook() on one that returns a
 * value, and (in C) LSM_HOOK_INIT() with a callback of another type than
 * the hook's do not compile; the errors say what to write instead.
 *
 * On x86-64 each hook with at most six parameters, all integers or
 * pointers, has an entry: a function emitted by the defining unit that
 * dispatches the hook, whose code the library patches as the slots change
 * so that it calls the modules' callbacks directly and tail-calls the
 * last one (docs/hook-framework.md, "Dispatch"). call_int_hook() and
 * call_void_hook() call it like any function, so the compiler can make
 * "return call_int_hook(...)" a jump to it; in the defining unit,
 *
 *	DEFINE_LSM_HOOK_ENTRY(security_file_open, file_open);
 *
 * makes security_file_open the entry itself (no jump at all). Other hooks
 * (more than six parameters; a floating-point or structure parameter,
 * which the defining unit refuses to compile unless
 * #define ULSM_LSM_C_WALK_<hook> 1 says so), and every hook on the generic
 * and aarch64 back ends, are dispatched by an unrolled C walk: per slot
 * two static keys and a call of the slot's static call (on aarch64 a
 * direct call, patched to the module's callback when in reach, else to
 * its trampoline; on the generic back end through its pointer). A defining
 * unit built with -mfunction-return=thunk defines ULSM_RETURN_THUNK as 1,
 * so that the entries return through __x86_return_thunk too. Every unit
 * built with -mindirect-branch=thunk or -mretpoline defines
 * ULSM_RETPOLINE as 1, so that an entry's jump to a callback out of
 * reach (a plug-in's) goes through a retpoline, as the compiler's
 * indirect branches do (<ulsm/arch/x86_64.h>); a unit (or plug-in) built
 * with it and a defining unit built without fail to link, naming
 * ulsm_hook_set_<set>__RETPOLINE__define_ULSM_RETPOLINE_in_the_unit_that_defines_the_set_too__and_link_a_plugin_host_dynamically_with_rdynamic.
 *
 * Return types of hooks must be one of: void, int, long, bool, unsigned,
 * size_t, ssize_t, uint32_t, uint64_t, or a pointer typedef'd by the
 * application to one token with a matching ULSM__LSM_DEFAULT_<type> macro.
 *
 * Several sets may be expanded in one program (each in its own header);
 * in one translation unit, MAX_LSM_COUNT is shared by all of them.
 */
#include <ulsm/grace.h>
#include <ulsm/lsm.h>
#include <ulsm/pp.h>
#include <ulsm/tracepoint.h>

#if !defined(ULSM_LSM_SET) || !defined(ULSM_LSM_HOOK_DEFS) || \
	!defined(MAX_LSM_COUNT)
# error "define ULSM_LSM_SET, ULSM_LSM_HOOK_DEFS and MAX_LSM_COUNT first"
#endif

/*
 * MAX_LSM_COUNT is pasted into macro names (UNROLL), so anything but a
 * decimal literal from 1 to 64 (or a macro that expands to one) fails
 * there with a message about pasting. Say it in words instead, then
 * carry on with 1 so that this is the only error. The literal is looked
 * up in unroll.h's table: ULSM__UNROLL_<n> exists for exactly 0..64 and
 * calls its macro n times; a leading parenthesis is caught first, since
 * it cannot be pasted at all.
 */
#ifndef ULSM__LSM_COUNT_OK
# define ULSM__SECOND_(a, b, ...)	b
# define ULSM__SECOND(...)		ULSM__SECOND_(__VA_ARGS__)
# define ULSM__PAREN_PROBE(...)		~, 1
# define ULSM__IS_PAREN(x)		ULSM__SECOND(ULSM__PAREN_PROBE x, 0, ~)
# define ULSM__COUNT_ONE(i, x)		, 1
# define ULSM__LSM_COUNT_OK(n)						\
	ULSM__SECOND(~ ULSM__CAT(ULSM__UNROLL_, n)(ULSM__COUNT_ONE, ~), 0, ~)
#endif
#if ULSM__IS_PAREN(MAX_LSM_COUNT)
# error "MAX_LSM_COUNT must be a decimal integer literal from 1 to 64, such as 4: no parentheses, no expression"
# undef MAX_LSM_COUNT
# define MAX_LSM_COUNT 1
#elif !ULSM__LSM_COUNT_OK(MAX_LSM_COUNT)
# error "MAX_LSM_COUNT must be a decimal integer literal from 1 to 64, such as 4: no suffix, no expression"
# undef MAX_LSM_COUNT
# define MAX_LSM_COUNT 1
#endif

/* ---- once per translation unit: the dispatch machinery ---------------- */
#ifndef ULSM_LSM_HOOKS_ONCE
#define ULSM_LSM_HOOKS_ONCE

/* The type of a slot's guard and of its inner call (ULSM__DEF_GUARD). */
typedef long ulsm__guard_fn(long, long, long, long, long, long);

/* Paste a set's name and a suffix, the set name being a macro. */
#define ULSM__P(SET, x)			ULSM__CAT(SET, x)
#define ULSM__SLOT_NAME(SET, HOOK, NUM)	SET##_##HOOK##_##NUM

/*
 * Defaults: one constant per non-void hook, by the hook's return type.
 *
 * Each call_*_hook() also refers to a name that exists only for its kind
 * of hook: call_int_hook() to S_lsm_default_NAME, call_void_hook() to
 * S_lsm_void_NAME (in sizeof, which costs no code). For the other kind,
 * that name is an object of an incomplete type whose name says what to
 * write instead, which gcc and clang print in their error ("'struct
 * ulsm__hook_file_free_is_void_use_call_void_hook'"); a name left
 * undeclared would say nothing of the fix, and gcc would suggest the
 * default of a hook with a similar name. These objects are declared, never
 * defined: code that compiles never refers to them.
 *
 * call_void_hook() on a hook that returns a value compiles in the kernel,
 * and runs every module, dropping their decisions: a denial that nobody
 * checks. Here it is refused like its converse.
 */
#define ULSM__LSM_DEFAULT_(SET, RET, NAME, DEFAULT)			\
	static const RET __attribute__((unused))			\
		SET##_lsm_default_##NAME = (DEFAULT);			\
	extern struct ulsm__hook_##NAME##_returns_a_value_use_call_int_hook \
		SET##_lsm_void_##NAME;
#define ULSM__LSM_DEFAULT_void(SET, NAME, DEFAULT)			\
	extern struct ulsm__hook_##NAME##_is_void_use_call_void_hook	\
		SET##_lsm_default_##NAME;				\
	enum { SET##_lsm_void_##NAME = 1 };
#define ULSM__LSM_DEFAULT_int(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, int, NAME, DEFAULT)
#define ULSM__LSM_DEFAULT_long(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, long, NAME, DEFAULT)
#define ULSM__LSM_DEFAULT_bool(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, bool, NAME, DEFAULT)
/* <stdbool.h> makes bool a macro, expanded before the paste. */
#define ULSM__LSM_DEFAULT__Bool(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, bool, NAME, DEFAULT)
#define ULSM__LSM_DEFAULT_unsigned(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, unsigned, NAME, DEFAULT)
#define ULSM__LSM_DEFAULT_size_t(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, size_t, NAME, DEFAULT)
#define ULSM__LSM_DEFAULT_ssize_t(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, ssize_t, NAME, DEFAULT)
#define ULSM__LSM_DEFAULT_uint32_t(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, uint32_t, NAME, DEFAULT)
#define ULSM__LSM_DEFAULT_uint64_t(SET, NAME, DEFAULT)			\
	ULSM__LSM_DEFAULT_(SET, uint64_t, NAME, DEFAULT)
#define ULSM__LSM_DEFAULT(SET, RET, NAME, DEFAULT)			\
	ULSM__CAT(ULSM__LSM_DEFAULT_, RET)(SET, NAME, DEFAULT)

#define ULSM__SLOT_KEY(SET, HOOK, NUM)	(&SET##_lsm_keys.k.HOOK[NUM])
#define ULSM__SLOT_SCK(SET, HOOK, NUM)	(&SET##_lsm_sealed.calls.HOOK[NUM])

#define ULSM__TAIL_KEY(SET, HOOK, NUM)	(&SET##_lsm_keys.t.HOOK[NUM])

/*
 * One slot of the unrolled walk, two static keys:
 *
 *   the tail key, on while this slot and every later one are empty: a jmp
 *   to OUT, so that a walk ends at the first empty slot with one taken
 *   branch, however many slots follow;
 *
 *   the slot key (the kernel's SECURITY_HOOK_ACTIVE_KEY), laid out as the
 *   kernel's CONFIG_SECURITY_HOOK_LIKELY does: a NOP while the slot is on,
 *   so an active slot's call is inline, and a jmp over it while off (a
 *   disabled module between two enabled ones).
 *
 * The framework keeps both in step (src/lsm/slots.c, one batch per change).
 */
#ifdef ULSM__ARCH_HAS_SC_TRAMP
/*
 * The slot's trampoline: a direct call, never NULL, recorded as a call
 * site so that the library can make it call the module's callback itself.
 */
# define ULSM__SLOT_LIVE(fn)	1
# define ULSM__SLOT_SITE_BEGIN()	ULSM__ARCH_CALL_SITE_BEGIN()
# define ULSM__SLOT_SITE(SET, HOOK, NUM)				\
	ULSM__ARCH_CALL_SITE(ULSM__SLOT_SCK(SET, HOOK, NUM))
#else
/*
 * Generic: the key and the pointer are two loads that a weakly ordered
 * CPU may satisfy out of order; a slot whose pointer is not visible yet
 * is treated as off.
 */
# define ULSM__SLOT_LIVE(fn)	(fn)
# define ULSM__SLOT_SITE_BEGIN()	((void)0)
# define ULSM__SLOT_SITE(SET, HOOK, NUM)	((void)0)
#endif

#define ULSM__SLOT_CALL(SET, HOOK, NUM, OUT, CALL)			\
	if (static_branch_unlikely(ULSM__TAIL_KEY(SET, HOOK, NUM)))	\
		goto OUT;						\
	if (static_branch_likely(ULSM__SLOT_KEY(SET, HOOK, NUM))) {	\
		__extension__ ULSM__AUTO ulsm__fn = ulsm_static_call_keyed( \
			ULSM__SLOT_NAME(SET, HOOK, NUM),		\
			ULSM__SLOT_SCK(SET, HOOK, NUM));		\
		if (ULSM__SLOT_LIVE(ulsm__fn)) {			\
			CALL;						\
		}							\
	}

#define ULSM__INT_SLOT(NUM, R, SET, HOOK, LABEL, ...)			\
	ULSM__SLOT_CALL(SET, HOOK, NUM, LABEL,				\
		ULSM__SLOT_SITE_BEGIN();				\
		R = ulsm__fn(__VA_ARGS__);				\
		ULSM__SLOT_SITE(SET, HOOK, NUM);			\
		if (R != SET##_lsm_default_##HOOK)			\
			goto LABEL)

#define ULSM__VOID_SLOT(NUM, SET, HOOK, LABEL, ...)			\
	ULSM__SLOT_CALL(SET, HOOK, NUM, LABEL,				\
		ULSM__SLOT_SITE_BEGIN();				\
		ulsm__fn(__VA_ARGS__);					\
		ULSM__SLOT_SITE(SET, HOOK, NUM))

/* call_void_hook() on a hook that returns a value: see the defaults. */
#define ULSM__VOID_HOOK_CHECK(SET, HOOK)				\
	((void)sizeof(SET##_lsm_void_##HOOK))

/*
 * The walk while the hook is traced (docs/hook-framework.md, "Tracing the
 * dispatch"): each active slot's module called from the set's table, its
 * time taken, and each step given to the defining unit's
 * S_lsm_trace_step(), which counts it and hits the set's tracepoint. The
 * same rule as the walk's: stop at the first result that is not DEFAULT.
 * A slot whose module is not set yet (it arrives) is skipped.
 */
#define ULSM__TRACED_SLOT(SET, HOOK, i)					\
	const struct lsm_static_call *ulsm__s =				\
		&SET##_lsm_sealed.table.HOOK[i];			\
	/*								\
	 * Pairs with the release store of hl in store_word()		\
	 * (src/engine/txn.c): the module's list is seen with it.	\
	 */								\
	const struct SET##_hook_list *ulsm__hl = (const void *)		\
		__atomic_load_n(&ulsm__s->hl, __ATOMIC_ACQUIRE);	\
	unsigned long long ulsm__t0;					\
									\
	if (!static_key_enabled(&ulsm__s->active->key) || !ulsm__hl)	\
		continue;						\
	ulsm__t0 = ulsm__trace_ns()
#define ULSM__TRACED_INT_HOOK(SET, HOOK, ...)				\
__extension__ ({							\
	__typeof__(SET##_lsm_default_##HOOK + 0) ulsm__trc =		\
		SET##_lsm_default_##HOOK;				\
	for (unsigned int ulsm__i = 0; ulsm__i < MAX_LSM_COUNT; ulsm__i++) { \
		ULSM__TRACED_SLOT(SET, HOOK, ulsm__i);			\
		__typeof__(SET##_lsm_default_##HOOK + 0) ulsm__tr_r =	\
			ulsm__hl->hook.HOOK(__VA_ARGS__);		\
		int ulsm__d = ulsm__tr_r != SET##_lsm_default_##HOOK;	\
									\
		SET##_lsm_trace_step(SET##_hook_idx_##HOOK, ulsm__i,	\
				     (long)ulsm__tr_r, ulsm__t0, ulsm__d); \
		if (ulsm__d) {						\
			ulsm__trc = ulsm__tr_r;				\
			break;						\
		}							\
	}								\
	ulsm__trc;							\
})
#define ULSM__TRACED_VOID_HOOK(SET, HOOK, ...)				\
do {									\
	for (unsigned int ulsm__i = 0; ulsm__i < MAX_LSM_COUNT; ulsm__i++) { \
		ULSM__TRACED_SLOT(SET, HOOK, ulsm__i);			\
		ulsm__hl->hook.HOOK(__VA_ARGS__);			\
		SET##_lsm_trace_step(SET##_hook_idx_##HOOK, ulsm__i, 0,	\
				     ulsm__t0, 0);			\
	}								\
} while (0)

#define ULSM__WALK_INT_HOOK(SET, HOOK, ...)				\
__extension__ ({							\
	__label__ ulsm__out;						\
	__typeof__(SET##_lsm_default_##HOOK + 0) ulsm__rc =		\
		SET##_lsm_default_##HOOK;				\
	if (static_branch_unlikely(&SET##_lsm_trace_keys.HOOK)) {	\
		ulsm__rc = ULSM__TRACED_INT_HOOK(SET, HOOK, __VA_ARGS__); \
		goto ulsm__out;						\
	}								\
	UNROLL(MAX_LSM_COUNT, ULSM__INT_SLOT, ulsm__rc, SET, HOOK,	\
	       ulsm__out, __VA_ARGS__)					\
ulsm__out:								\
	ulsm__rc;							\
})

#define ULSM__WALK_VOID_HOOK(SET, HOOK, ...)				\
__extension__ ({							\
	__label__ ulsm__out;						\
	ULSM__VOID_HOOK_CHECK(SET, HOOK);				\
	if (static_branch_unlikely(&SET##_lsm_trace_keys.HOOK)) {	\
		ULSM__TRACED_VOID_HOOK(SET, HOOK, __VA_ARGS__);		\
		goto ulsm__out;						\
	}								\
	UNROLL(MAX_LSM_COUNT, ULSM__VOID_SLOT, SET, HOOK, ulsm__out,	\
	       __VA_ARGS__)						\
ulsm__out:								\
	;								\
})

/* ULSM__NARGS, ULSM__IS_VOID and the others: <ulsm/pp.h>. */

/*
 * Whether HOOK, called with these arguments (or declared with these
 * parameters), is dispatched by its entry: on a back end that has entries,
 * for at most six parameters (the SysV ABI passes them in registers),
 * unless the application defined ULSM_LSM_C_WALK_<hook> as 1 (a hook
 * whose parameters are not all integers or pointers; the defining unit
 * refuses to compile such a hook without it).
 */
#ifdef ULSM__ARCH_HAS_HOOK_ENTRY
# define ULSM_LSM_HAS_ENTRIES	1
# define ULSM__HOOK_ENTRY_P(HOOK, ...)					\
	ULSM__AND(ULSM__LE6(ULSM__NARGS(__VA_ARGS__)),			\
		  ULSM__NOT(ULSM__IS_ONE(ULSM_LSM_C_WALK_##HOOK)))
#else
# define ULSM__HOOK_ENTRY_P(HOOK, ...)	0
#endif

/*
 * Dispatch through the entry: one call of an ordinary function, which the
 * compiler may make a tail call (return call_int_hook(...)).
 */
#define ULSM__ENTRY(SET, HOOK)		SET##_lsm_entry_##HOOK
#define ULSM__ENTRY_INT_HOOK(SET, HOOK, ...)				\
	((__typeof__(SET##_lsm_default_##HOOK + 0))			\
	 ULSM__ENTRY(SET, HOOK)(__VA_ARGS__))
#define ULSM__ENTRY_VOID_HOOK(SET, HOOK, ...)				\
	(ULSM__VOID_HOOK_CHECK(SET, HOOK), ULSM__ENTRY(SET, HOOK)(__VA_ARGS__))

#define ULSM__CALL_INT_HOOK_(SET, HOOK, ...)				\
	ULSM__IIF(ULSM__HOOK_ENTRY_P(HOOK, __VA_ARGS__))(		\
		ULSM__ENTRY_INT_HOOK, ULSM__WALK_INT_HOOK)		\
		(SET, HOOK, __VA_ARGS__)
#define ULSM__CALL_VOID_HOOK_(SET, HOOK, ...)				\
	ULSM__IIF(ULSM__HOOK_ENTRY_P(HOOK, __VA_ARGS__))(		\
		ULSM__ENTRY_VOID_HOOK, ULSM__WALK_VOID_HOOK)		\
		(SET, HOOK, __VA_ARGS__)

/*
 * A set that allows unloading (ULSM_LSM_UNLOADABLE) must not unmap a
 * module's object while a thread is in its code. A hook that has an entry
 * calls such a module through its slot's guard (the defining unit's
 * ULSM__DEF_GUARD), which is a read-side section (<ulsm/grace.h>) of its
 * own: the modules of the program pay nothing. A hook dispatched by the C
 * walk is one read-side section as a whole. For the other hooks and sets
 * the constant condition folds away: the same code as without it.
 */
#define ULSM__WHOLE_SECTION(SET, HOOK)					\
	(SET##_lsm_unloadable && !SET##_lsm_has_entry_##HOOK)

static inline __attribute__((always_inline)) int ulsm__read_enter(int unloadable)
{
	if (unloadable)
		ulsm__read_lock_inline();	/* the tracepoints' read side */
	return unloadable;
}

static inline __attribute__((always_inline)) void ulsm__read_leave(int *unloadable)
{
	if (*unloadable)
		ulsm__read_unlock_inline();
}

#define ULSM__CALL_INT_HOOK(SET, HOOK, ...)				\
__extension__ ({							\
	int ulsm__rd = ulsm__read_enter(ULSM__WHOLE_SECTION(SET, HOOK)); \
	__typeof__(SET##_lsm_default_##HOOK + 0) ulsm__rv =		\
		ULSM__CALL_INT_HOOK_(SET, HOOK, __VA_ARGS__);		\
	ulsm__read_leave(&ulsm__rd);					\
	ulsm__rv;							\
})
#define ULSM__CALL_VOID_HOOK(SET, HOOK, ...)				\
do {									\
	int ulsm__rd = ulsm__read_enter(ULSM__WHOLE_SECTION(SET, HOOK)); \
	ULSM__CALL_VOID_HOOK_(SET, HOOK, __VA_ARGS__);			\
	ulsm__read_leave(&ulsm__rd);					\
} while (0)

/*
 * The walk of lsm_for_each_hook, in a read-side section for an unloadable
 * set; the section ends however the body leaves (break, return, goto):
 * the guard is a cleanup variable of an outer loop that runs once.
 */
/*
 * While the hook is traced (its trace key: read once, as the walk
 * begins), each module the walk reaches is timed from its turn to the
 * next module's, or to the walk's end however the body leaves: a step
 * with no result (0, not deciding), since the body's rule is the
 * caller's.
 */
struct ulsm__each_trace {
	void (*step)(unsigned int hook, unsigned int slot, long ret,
		     unsigned long long t0, int decided);
	unsigned int hook;
	int slot;			/* the module timed now, or -1 */
	unsigned long long t0;
};

static inline void ulsm__each_trace_end(struct ulsm__each_trace *t)
{
	if (__builtin_expect(t->slot >= 0, 0))
		t->step(t->hook, (unsigned int)t->slot, 0, t->t0, 0);
	t->slot = -1;
}

static inline __attribute__((always_inline)) int
ulsm__each_trace_turn(struct ulsm__each_trace *t, long slot)
{
	if (__builtin_expect(t->step != 0, 0)) {
		ulsm__each_trace_end(t);
		t->slot = (int)slot;
		t->t0 = ulsm__trace_ns();
	}
	return 1;
}

#define ULSM__FOR_EACH_HOOK(SET, scall, HOOK)				\
	for (int ULSM__CAT(ulsm__rd, __LINE__)				\
		__attribute__((unused, cleanup(ulsm__read_leave))) =	\
		ulsm__read_enter(SET##_lsm_unloadable),			\
	     ULSM__CAT(ulsm__once, __LINE__) = 1;			\
	     ULSM__CAT(ulsm__once, __LINE__);				\
	     ULSM__CAT(ulsm__once, __LINE__) = 0)			\
	for (struct ulsm__each_trace ULSM__CAT(ulsm__tr, __LINE__)	\
		__attribute__((cleanup(ulsm__each_trace_end))) = {	\
			static_branch_unlikely(&SET##_lsm_trace_keys.HOOK) ? \
				SET##_lsm_trace_step : 0,		\
			SET##_hook_idx_##HOOK, -1, 0 };			\
	     ULSM__CAT(ulsm__once, __LINE__);				\
	     ULSM__CAT(ulsm__once, __LINE__) = 0)			\
	for ((scall) = SET##_lsm_sealed.table.HOOK;			\
	     (scall) - SET##_lsm_sealed.table.HOOK < MAX_LSM_COUNT;	\
	     (scall)++)							\
		if (static_key_enabled(&(scall)->active->key) &&	\
		    ulsm__each_trace_turn(&ULSM__CAT(ulsm__tr, __LINE__), \
			(scall) - SET##_lsm_sealed.table.HOOK))

#define ULSM__HOOK_FN(SET, scall, HOOK)					\
	(((struct SET##_hook_list *)(scall)->hl)->hook.HOOK)

/* The set-first forms (any set), and the kernel's names (ULSM_LSM_SET). */
#define ulsm_call_int_hook(SET, HOOK, ...)				\
	ULSM__CALL_INT_HOOK(SET, HOOK, __VA_ARGS__)
#define ulsm_call_void_hook(SET, HOOK, ...)				\
	ULSM__CALL_VOID_HOOK(SET, HOOK, __VA_ARGS__)
#define ulsm_lsm_for_each_hook(SET, scall, HOOK)			\
	ULSM__FOR_EACH_HOOK(SET, scall, HOOK)
#define ulsm_lsm_hook_fn(SET, scall, HOOK)				\
	ULSM__HOOK_FN(SET, scall, HOOK)
/*
 * DEFINE_LSM_HOOK_ENTRY(security_file_permission, file_permission): make
 * the function security_file_permission the hook's entry itself, rather
 * than a function whose body is "return call_int_hook(...)" (which the
 * compiler turns into a jump to the entry). In the set's defining unit, for
 * a hook that has an entry (ULSM_LSM_HAS_ENTRIES); FUNC gets the hook's
 * type. Elsewhere, write the function around call_int_hook().
 */
#define ulsm_define_lsm_hook_entry(SET, FUNC, HOOK)			\
	ULSM__DEFINE_LSM_HOOK_ENTRY(SET, FUNC, HOOK)
#define ULSM__DEFINE_LSM_HOOK_ENTRY(SET, FUNC, HOOK)			\
	ULSM__STATIC_ASSERT(SET##_lsm_defining_unit &&			\
			    SET##_lsm_has_entry_##HOOK,			\
		"DEFINE_LSM_HOOK_ENTRY: the hook has no entry (more than "	\
		"six parameters, ULSM_LSM_C_WALK_<hook>, or a back end "	\
		"without entries)");					\
	ULSM__STATIC_ASSERT(!SET##_lsm_unloadable,			\
		"DEFINE_LSM_HOOK_ENTRY: the set allows unloading "	\
		"(ULSM_LSM_UNLOADABLE), whose dispatch is in a read-side "	\
		"section: write the function around call_int_hook()");	\
	ULSM__EXTERN SET##_hook_fn_##HOOK FUNC;				\
	__asm__(".globl " #FUNC "\n\t"					\
		".type " #FUNC ", @function\n\t"			\
		".set " #FUNC ", " ULSM__STR(ULSM__ENTRY(SET, HOOK)) "\n\t" \
		".size " #FUNC ", " ULSM__STR(ULSM__ENTRY(SET, HOOK)) "_end - " \
			ULSM__STR(ULSM__ENTRY(SET, HOOK)))

#define ulsm_lsm_hook_init(SET, NAME, CALLBACK)				\
	{ .scalls = ULSM__CAT(SET, _lsm_sealed).table.NAME,		\
	  .hook = { .NAME = ULSM__HOOK_CALLBACK(SET, NAME, CALLBACK) } }
#ifdef __cplusplus
/* A callback of another type is already an error in C++. */
# define ULSM__HOOK_CALLBACK(SET, NAME, CALLBACK)	CALLBACK
#else
/*
 * In C, a callback of another type is only a warning (gcc before 14,
 * clang before 16), and its module would be called with the wrong
 * arguments: refuse it, naming the hook. Accepted: a function of the
 * hook's type, a pointer to one, or a void * (NULL: no callback).
 * LSM_HOOK_INIT is an initialiser, at file scope too, so the check is an
 * expression: a _Static_assert (before C11, a bit-field that names the
 * fault: ULSM__MEMBER_ASSERT) in a structure whose size is the constant
 * condition of __builtin_choose_expr, which is then the callback itself
 * (the same data), or a null pointer of the hook's type on error (no second
 * diagnostic about the conversion).
 */
# define ULSM__HOOK_CALLBACK_OK(SET, NAME, CALLBACK)			\
	(__builtin_types_compatible_p(__typeof__(CALLBACK),		\
				      SET##_hook_fn_##NAME) ||		\
	 __builtin_types_compatible_p(__typeof__(CALLBACK),		\
				      SET##_hook_fn_##NAME *) ||	\
	 __builtin_types_compatible_p(__typeof__(CALLBACK), void *))
# define ULSM__HOOK_CALLBACK(SET, NAME, CALLBACK)			\
	__builtin_choose_expr(						\
		sizeof(struct {						\
			ULSM__MEMBER_ASSERT(				\
				ULSM__HOOK_CALLBACK_OK(SET, NAME, CALLBACK), \
				"LSM_HOOK_INIT(" #NAME "): the type of the " \
				"callback is not that of the hook",	\
				LSM_HOOK_INIT_callback_of_another_type); \
			int ulsm__ok;					\
		}) && ULSM__HOOK_CALLBACK_OK(SET, NAME, CALLBACK),	\
		CALLBACK, (SET##_hook_fn_##NAME *)0)
#endif
#ifdef __cplusplus
# define ULSM__CHECK_HOOKS(SET, hooks)	((void)0)
#else
/* Hooks of another set would only fail at run time: refuse to compile. */
# define ULSM__CHECK_HOOKS(SET, hooks)					\
	ULSM__STATIC_ASSERT(__builtin_types_compatible_p(		\
		__typeof__((hooks)[0]), struct SET##_hook_list),	\
		"security_add_hooks: these hooks belong to another set")
#endif
#define ulsm_security_add_hooks_to(SET, hooks, count, lsmid)		\
	ULSM__ADD_HOOKS(SET, hooks, count, lsmid)
#define ULSM__ADD_HOOKS(SET, hooks, count, lsmid)			\
__extension__ ({							\
	ULSM__CHECK_HOOKS(SET, hooks);					\
	ulsm_security_add_hooks(&SET##_hook_set,			\
				(struct security_hook_list *)(void *)(hooks), \
				(count), (lsmid));			\
})

/*
 * The kernel's allocation pattern (security_file_alloc and friends): a
 * zeroed blob of @TYPE in *@blobp, then the modules' ALLOC hook; if one
 * fails, every module's FREE hook runs and the blob is freed. Evaluates to
 * 0 or the error. The FREE form runs the FREE hooks, then frees the blob.
 */
#define ulsm_lsm_alloc_blob_hooks(SET, TYPE, blobp, ALLOC, FREE, ...)	\
	ULSM__ALLOC_BLOB_HOOKS(SET, TYPE, blobp, ALLOC, FREE, __VA_ARGS__)
#define ulsm_lsm_free_blob_hooks(SET, blobp, FREE, ...)		\
	ULSM__FREE_BLOB_HOOKS(SET, blobp, FREE, __VA_ARGS__)
#define ULSM__ALLOC_BLOB_HOOKS(SET, TYPE, blobp, ALLOC, FREE, ...)	\
__extension__ ({							\
	int ulsm__r = ulsm_lsm_blob_alloc(&SET##_hook_set, (TYPE),	\
					  (void **)(blobp));		\
	if (!ulsm__r) {							\
		ulsm__r = ULSM__CALL_INT_HOOK(SET, ALLOC, __VA_ARGS__);	\
		if (ulsm__r) {						\
			ULSM__CALL_VOID_HOOK(SET, FREE, __VA_ARGS__);	\
			ulsm_lsm_blob_free((void **)(blobp));		\
		}							\
	}								\
	ulsm__r;							\
})
#define ULSM__FREE_BLOB_HOOKS(SET, blobp, FREE, ...)			\
do {									\
	ULSM__CALL_VOID_HOOK(SET, FREE, __VA_ARGS__);			\
	ulsm_lsm_blob_free((void **)(blobp));				\
} while (0)

#define lsm_alloc_blob_hooks(TYPE, blobp, ALLOC, FREE, ...)		\
	ulsm_lsm_alloc_blob_hooks(ULSM_LSM_SET, TYPE, blobp, ALLOC, FREE, \
				  __VA_ARGS__)
#define lsm_free_blob_hooks(blobp, FREE, ...)				\
	ulsm_lsm_free_blob_hooks(ULSM_LSM_SET, blobp, FREE, __VA_ARGS__)

#define call_int_hook(HOOK, ...)					\
	ulsm_call_int_hook(ULSM_LSM_SET, HOOK, __VA_ARGS__)
#define call_void_hook(HOOK, ...)					\
	ulsm_call_void_hook(ULSM_LSM_SET, HOOK, __VA_ARGS__)
#define lsm_for_each_hook(scall, HOOK)					\
	ulsm_lsm_for_each_hook(ULSM_LSM_SET, scall, HOOK)
#define lsm_hook_fn(scall, HOOK)					\
	ulsm_lsm_hook_fn(ULSM_LSM_SET, scall, HOOK)
#define LSM_HOOK_INIT(NAME, CALLBACK)					\
	ulsm_lsm_hook_init(ULSM_LSM_SET, NAME, CALLBACK)
#define DEFINE_LSM_HOOK_ENTRY(FUNC, HOOK)				\
	ulsm_define_lsm_hook_entry(ULSM_LSM_SET, FUNC, HOOK)
#define security_add_hooks(hooks, count, lsmid)				\
	ulsm_security_add_hooks_to(ULSM_LSM_SET, hooks, count, lsmid)

#endif /* ULSM_LSM_HOOKS_ONCE */

/* ---- once per set: types and declarations ------------------------------ */

union ULSM__P(ULSM_LSM_SET, _list_options) {
#define LSM_HOOK(RET, DEFAULT, NAME, ...) RET (*NAME)(__VA_ARGS__);
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
	void *lsm_callback;
};

/* Same layout as struct security_hook_list, typed. */
struct ULSM__P(ULSM_LSM_SET, _hook_list) {
	struct lsm_static_call *scalls;
	union ULSM__P(ULSM_LSM_SET, _list_options) hook;
	const struct lsm_id *lsmid;
};

/*
 * Whether the set allows unloading its modules' objects (define
 * ULSM_LSM_UNLOADABLE with the set's other macros, in every unit of the
 * set; docs/hook-framework.md, "Modules that come and go").
 */
#undef ULSM__UNLOADABLE_NAME
#ifdef ULSM_LSM_UNLOADABLE
enum { ULSM__P(ULSM_LSM_SET, _lsm_unloadable) = 1 };
# define ULSM__UNLOADABLE_NAME	1
#else
enum { ULSM__P(ULSM_LSM_SET, _lsm_unloadable) = 0 };
# define ULSM__UNLOADABLE_NAME	0
#endif

/*
 * The set's own blob types, if it declares them (ULSM_LSM_BLOB_DEFS: a
 * file of LSM_BLOB(name) lines), instead of the kernel's four: an index
 * S_blob_NAME for each (what ulsm_lsm_blob_size(), ulsm_lsm_blob_alloc()
 * and lsm_alloc_blob_hooks() take), S_blob_types, and the modules'
 * request struct S_blob_sizes { int lbs_NAME; ... } (an lsm_info's .blobs).
 */
#ifdef ULSM_LSM_BLOB_DEFS
enum {
#define LSM_BLOB(NAME)	ULSM__P(ULSM_LSM_SET, _blob_##NAME),
#include ULSM_LSM_BLOB_DEFS
#undef LSM_BLOB
	ULSM__P(ULSM_LSM_SET, _blob_types)
};
struct ULSM__P(ULSM_LSM_SET, _blob_sizes) {
#define LSM_BLOB(NAME)	int lbs_##NAME;
#include ULSM_LSM_BLOB_DEFS
#undef LSM_BLOB
};
ULSM__STATIC_ASSERT(ULSM__P(ULSM_LSM_SET, _blob_types) <= ULSM_BLOB_TYPES_MAX,
		    "ULSM_LSM_BLOB_DEFS: more blob types than "
		    "ULSM_BLOB_TYPES_MAX");
#endif

/* The callback type of each hook, for its slots' trampolines. */
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	typedef RET ULSM__P(ULSM_LSM_SET, _hook_fn_##NAME)(__VA_ARGS__);
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK

#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	ULSM__LSM_DEFAULT(ULSM_LSM_SET, RET, NAME, DEFAULT)
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK

enum {
#define LSM_HOOK(RET, DEFAULT, NAME, ...) ULSM__P(ULSM_LSM_SET, _hook_idx_##NAME),
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
	ULSM__P(ULSM_LSM_SET, _nhooks)
};

struct ULSM__P(ULSM_LSM_SET, _static_calls_table) {
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	struct lsm_static_call NAME[MAX_LSM_COUNT];
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
};

struct ULSM__P(ULSM_LSM_SET, _slot_calls) {
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	struct static_call_key NAME[MAX_LSM_COUNT];
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
};

struct ULSM__P(ULSM_LSM_SET, _slot_keys) {
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	struct static_key_false NAME[MAX_LSM_COUNT];
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
};

/*
 * Page-aligned, so that sealing protects exactly these pages (the size of
 * a page-aligned structure is a multiple of the page size).
 */
struct ULSM__P(ULSM_LSM_SET, _lsm_sealed) {
	struct ULSM__P(ULSM_LSM_SET, _static_calls_table) table;
	struct ULSM__P(ULSM_LSM_SET, _slot_calls) calls;
	struct ulsm_hook_entry entry[ULSM__P(ULSM_LSM_SET, _nhooks)];
#ifdef ULSM_LSM_UNLOADABLE
	struct ULSM__P(ULSM_LSM_SET, _slot_calls) inner;	/* the guards' */
#endif
} __attribute__((aligned(4096)));

struct ULSM__P(ULSM_LSM_SET, _tail_keys) {
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	struct static_key_true NAME[MAX_LSM_COUNT];
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
};

struct ULSM__P(ULSM_LSM_SET, _lsm_keys) {
	struct ULSM__P(ULSM_LSM_SET, _slot_keys) k;
	struct ULSM__P(ULSM_LSM_SET, _tail_keys) t;
} __attribute__((aligned(4096)));

extern struct ULSM__P(ULSM_LSM_SET, _lsm_sealed) ULSM__P(ULSM_LSM_SET, _lsm_sealed);
extern struct ULSM__P(ULSM_LSM_SET, _lsm_keys) ULSM__P(ULSM_LSM_SET, _lsm_keys);
extern struct ulsm_hook_set ULSM__P(ULSM_LSM_SET, _hook_set);

/*
 * Tracing the dispatch: a key per hook (the C walk's, and the entries'
 * R sites follow it), never sealed; the step each traced walk reports
 * (the defining unit's); and the set's tracepoint, lsm_hook_<set>, whose
 * events say, for each module a traced walk ran: the hook, the module,
 * its result (as a long; 0 for a void hook), the nanoseconds it took,
 * and whether it decided (an int hook's first result that is not the
 * default: the walk stops there).
 */
struct ULSM__P(ULSM_LSM_SET, _lsm_trace_keys) {
#define LSM_HOOK(RET, DEFAULT, NAME, ...) struct static_key_false NAME;
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
};
extern struct ULSM__P(ULSM_LSM_SET, _lsm_trace_keys)
	ULSM__P(ULSM_LSM_SET, _lsm_trace_keys);
ULSM__EXTERN_C_BEGIN
void ULSM__P(ULSM_LSM_SET, _lsm_trace_step)(unsigned int hook,
	unsigned int slot, long ret, unsigned long long t0, int decided);
ULSM__EXTERN_C_END
#define ULSM__HOOK_TP_PROTO						\
	TP_PROTO(const char *hook, const char *module, long ret,	\
		 unsigned long ns, bool decided)
#define ULSM__HOOK_TP_ARGS	TP_ARGS(hook, module, ret, ns, decided)
#define ULSM__HOOK_TP_NAME(SET)	ULSM__CAT(lsm_hook_, SET)
#define ULSM__HOOK_TP_DECLARE(NAME)					\
	DECLARE_TRACEPOINT(NAME, ULSM__HOOK_TP_PROTO, ULSM__HOOK_TP_ARGS)
#define ULSM__HOOK_TP_DECLARE_(NAME)	ULSM__HOOK_TP_DECLARE(NAME)
ULSM__HOOK_TP_DECLARE_(ULSM__HOOK_TP_NAME(ULSM_LSM_SET));

/*
 * Every unit that expands the set refers to this symbol, and only the unit
 * with ULSM_LSM_DEFINE defines it; its name carries the unit's
 * MAX_LSM_COUNT and whether it has ULSM_LSM_UNLOADABLE. So the linker
 * names it among the set's missing (or doubled) symbols, and the name
 * says what to do, when:
 *
 *   - no unit (or two) defines the set;
 *   - a unit (or a plug-in) was compiled with another MAX_LSM_COUNT than
 *     the defining unit: the tables' layout depends on it, and such a unit
 *     would address other slots (a callback called for another hook, with
 *     its arguments); or without ULSM_LSM_UNLOADABLE where the defining
 *     unit has it (its dispatch would not be waited for at unloading);
 *   - a plug-in (a shared object whose units expand the host's set) is
 *     loaded by a host that does not export its symbols (link the host
 *     with -rdynamic; CMake: ENABLE_EXPORTS): dlopen() fails naming it.
 *
 * One symbol for the three: dlopen() names only the first it misses.
 */
#define ULSM__DEFINE_REF_(SET, N, U)					\
	ulsm_hook_set_##SET##__MAX_LSM_COUNT_##N##_UNLOADABLE_##U##__define_ULSM_LSM_DEFINE_in_exactly_one_unit_with_the_same_settings__and_link_a_plugin_host_dynamically_with_rdynamic
#define ULSM__DEFINE_REF__(SET, N, U)	ULSM__DEFINE_REF_(SET, N, U)
#define ULSM__DEFINE_REF(SET)						\
	ULSM__DEFINE_REF__(SET, MAX_LSM_COUNT, ULSM__UNLOADABLE_NAME)
extern const char ULSM__DEFINE_REF(ULSM_LSM_SET);
static const char *const ULSM__P(ULSM_LSM_SET, _lsm_define_ref)
	__attribute__((used)) = &ULSM__DEFINE_REF(ULSM_LSM_SET);

/*
 * The same for ULSM_RETPOLINE (<ulsm/arch/x86_64.h>), which chooses how
 * the entries' stubs jump (x86-64): a unit built with it refers to a
 * symbol that only a defining unit built with it defines, so a unit
 * built for retpolines cannot link with a set whose entries were not
 * (a unit built without it may: its own code is not hardened anyway).
 * A symbol of its own, referred to only by such units, so that the
 * other check's name, and the error dlopen() gives a plug-in of a host
 * linked without -rdynamic, stay what they are for every other build;
 * that advice is in this one's name too, since dlopen() names only the
 * first symbol it misses.
 */
#if ULSM__RETPOLINE
# define ULSM__RETPOLINE_REF_(SET)					\
	ulsm_hook_set_##SET##__RETPOLINE__define_ULSM_RETPOLINE_in_the_unit_that_defines_the_set_too__and_link_a_plugin_host_dynamically_with_rdynamic
# define ULSM__RETPOLINE_REF(SET)	ULSM__RETPOLINE_REF_(SET)
extern const char ULSM__RETPOLINE_REF(ULSM_LSM_SET);
static const char *const ULSM__P(ULSM_LSM_SET, _lsm_retpoline_ref)
	__attribute__((used)) = &ULSM__RETPOLINE_REF(ULSM_LSM_SET);
#endif

/*
 * The hook list as text (each hook's return type, name and parameters),
 * which every unit that expands the set has, and which DEFINE_LSM hands
 * to the set with its module: a module compiled against another hook list
 * than the defining unit's is refused when it registers, loudly. (The
 * preprocessor cannot put a list into a symbol's name, so this one is
 * caught at run time.)
 */
static const char ULSM__P(ULSM_LSM_SET, _lsm_signature)[]
	__attribute__((unused)) =
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	#RET " " #NAME "(" #__VA_ARGS__ ");"
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
#ifdef ULSM_LSM_BLOB_DEFS
#define LSM_BLOB(NAME)	"blob " #NAME ";"
#include ULSM_LSM_BLOB_DEFS
#undef LSM_BLOB
#endif
	"";

/*
 * Each hook's entry (a declaration; the defining unit emits it for the
 * hooks that have one), and whether it has one (ULSM__HOOK_ENTRY_P, as a
 * constant: DEFINE_LSM_HOOK_ENTRY checks it).
 */
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	ULSM__EXTERN ULSM__P(ULSM_LSM_SET, _hook_fn_##NAME)		\
		ULSM__P(ULSM_LSM_SET, _lsm_entry_##NAME);		\
	enum { ULSM__P(ULSM_LSM_SET, _lsm_has_entry_##NAME) =		\
	       ULSM__HOOK_ENTRY_P(NAME, __VA_ARGS__) };
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK

/* Each slot's trampoline (a declaration; the defining unit emits it). */
#define ULSM__DECL_SLOT(NUM, SET, NAME)					\
	ULSM__EXTERN ULSM__P(SET, _hook_fn_##NAME)			\
		STATIC_CALL_TRAMP(ULSM__SLOT_NAME(SET, NAME, NUM));
#define ULSM__DECL_SLOTS(SET, NAME)					\
	UNROLL(MAX_LSM_COUNT, ULSM__DECL_SLOT, SET, NAME)
#define LSM_HOOK(RET, DEFAULT, NAME, ...) ULSM__DECL_SLOTS(ULSM_LSM_SET, NAME)
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK

/* ---- in the one defining unit: tables, keys, trampolines --------------- */
#ifdef ULSM_LSM_DEFINE

#define ULSM__DEF_SLOT(NUM, SET, NAME)					\
	ULSM_DEFINE_STATIC_CALL_NULL_KEYED(ULSM__SLOT_NAME(SET, NAME, NUM), \
		ULSM__P(SET, _hook_fn_##NAME),				\
		&ULSM__P(SET, _lsm_sealed).calls.NAME[NUM]);
#define ULSM__DEF_SLOTS(SET, NAME)					\
	UNROLL(MAX_LSM_COUNT, ULSM__DEF_SLOT, SET, NAME)
#define LSM_HOOK(RET, DEFAULT, NAME, ...) ULSM__DEF_SLOTS(ULSM_LSM_SET, NAME)
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK


/*
 * The hooks' entries (<ulsm/arch/x86_64.h>), each emitted from a function
 * that is never called. Before that, each parameter is checked: the entry
 * keeps parameters in the six integer registers of the SysV ABI, so each
 * must be an integer or a pointer. The check passes a pointer to each
 * parameter's type, which converts to an integer or pointer (the warning
 * for integers is silenced) and fails to compile for anything else:
 * for a hook with a floating-point or structure parameter, define
 * ULSM_LSM_C_WALK_<hook> as 1 to dispatch it with the unrolled C walk.
 * The entry's assembly is one string longer than the 4095 characters ISO
 * C promises: in a statement expression marked __extension__, which
 * clang's -Wpedantic (-Woverlength-strings) then leaves alone.
 */
#ifdef ULSM__ARCH_HAS_HOOK_ENTRY
# define ULSM__PROBE_PARAM(decl)					\
	{								\
		void (*ulsm_hook_param_is_not_an_integer_or_pointer)(decl) = 0; \
		(void)sizeof((ulsm_hook_param_is_not_an_integer_or_pointer((void *)0), 0)); \
	}
# define ULSM__PROBE_1(a)		ULSM__PROBE_PARAM(a)
# define ULSM__PROBE_2(a, ...)		ULSM__PROBE_PARAM(a) ULSM__PROBE_1(__VA_ARGS__)
# define ULSM__PROBE_3(a, ...)		ULSM__PROBE_PARAM(a) ULSM__PROBE_2(__VA_ARGS__)
# define ULSM__PROBE_4(a, ...)		ULSM__PROBE_PARAM(a) ULSM__PROBE_3(__VA_ARGS__)
# define ULSM__PROBE_5(a, ...)		ULSM__PROBE_PARAM(a) ULSM__PROBE_4(__VA_ARGS__)
# define ULSM__PROBE_6(a, ...)		ULSM__PROBE_PARAM(a) ULSM__PROBE_5(__VA_ARGS__)
# define ULSM__PROBE_PARAMS(...)					\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")		\
	ULSM__WHEN(ULSM__NOT(ULSM__IS_VOID(ULSM__FIRST(__VA_ARGS__, ~))))( \
		ULSM__CAT(ULSM__PROBE_, ULSM__NARGS(__VA_ARGS__))(__VA_ARGS__)) \
	_Pragma("GCC diagnostic pop")
# define ULSM__NPARAMS(...)						\
	(ULSM__NARGS(__VA_ARGS__) - ULSM__IS_VOID(ULSM__FIRST(__VA_ARGS__, ~)))

# define ULSM__EMIT_ENTRY(SET, RET, DEFAULT, NAME, ...)			\
	__attribute__((used)) static void				\
	ULSM__P(SET, _lsm_emit_##NAME)(void)				\
	{								\
		static const void *const ulsm__href			\
			__attribute__((used)) = (const char *)		\
			&ULSM__P(SET, _lsm_sealed).entry[		\
				ULSM__P(SET, _hook_idx_##NAME)] + 1;	\
		ULSM__PROBE_PARAMS(__VA_ARGS__)				\
		__extension__ ({ ULSM__ARCH_HOOK_ENTRY(SET, NAME,	\
			MAX_LSM_COUNT,					\
			ULSM__P(SET, _lsm_entry_##NAME),		\
			ULSM__P(SET, _lsm_map_##NAME),			\
			ULSM__NPARAMS(__VA_ARGS__),			\
			ULSM__RET_SIZE(RET),				\
			ULSM__RET_DEF(RET, DEFAULT),			\
			&ULSM__P(SET, _lsm_sealed_local).calls.NAME[0],	\
			&ulsm__href,					\
			ULSM__IS_ONE(ULSM_RETURN_THUNK)); });		\
	}
# define ULSM__ENTRY_MAP(SET, NAME)	ULSM__P(SET, _lsm_map_##NAME)
# define ULSM__DECL_MAP(SET, NAME)					\
	extern const int32_t ULSM__P(SET, _lsm_map_##NAME)[] ULSM__HIDDEN;
#else
# define ULSM__EMIT_ENTRY(SET, RET, DEFAULT, NAME, ...)
# define ULSM__ENTRY_MAP(SET, NAME)	NULL
# define ULSM__DECL_MAP(SET, NAME)
#endif

#define ULSM__RET_SIZE(RET)						\
	ULSM__IIF(ULSM__IS_VOID(RET))(0, (int)sizeof(RET))
#define ULSM__RET_DEF(RET, DEFAULT)					\
	ULSM__IIF(ULSM__IS_VOID(RET))(0LL, (long long)(RET)(DEFAULT))

/*
 * The slots' guards (struct ulsm_hook_guard, <ulsm/lsm.h>), in a set that
 * allows unloading, for the hooks that have an entry: what the framework
 * aims a slot at when its module's object may be unmapped. A guard is a
 * read-side section around a static call (its inner call) of the module's
 * callback; when the module leaves, the inner call is aimed at the hook's
 * default (S_lsm_dflt_HOOK) before the grace period, so a thread that reaches
 * the guard after it never enters the module. The entry keeps its
 * parameters in the six integer registers and its result in the first,
 * so the guard takes six integers and returns one, whatever the hook's
 * own parameters (the module's callback ignores those it does not have,
 * and the entry reads as many bytes of the result as the hook returns).
 */
#if defined(ULSM_LSM_UNLOADABLE) && defined(ULSM__ARCH_HAS_HOOK_ENTRY)
# define ULSM__HAS_GUARDS	1
/*
 * The inner call. A guarded module is a plug-in, which the loader maps out
 * of rel32 reach of a PIE, so the trampoline's far form is what a patched
 * site would call: "call tramp; jmp *key.func". Without retpolines the
 * guard calls through the key itself ("call *key.func"), one jump fewer;
 * the load is inside the section, so a thread that read a leaving
 * module's callback is waited for, and one that enters after the update
 * reads its new target (stored in the update, before its guards open).
 * In a retpoline build an indirect call would be a thunk's: the guard
 * keeps the static call, whose site is patched to a direct call when the
 * module is in reach and whose far form goes through the thunk.
 */
# if ULSM__RETPOLINE
#  define ULSM__GUARD_CALL(SET, NAME, NUM)				\
	ULSM__ARCH_CALL_SITE_BEGIN();					\
	r = STATIC_CALL_TRAMP(SET##_lsm_inner_##NAME##_##NUM)(		\
		a, b, c, d, e, f);					\
	ULSM__ARCH_CALL_SITE(&SET##_lsm_sealed.inner.NAME[NUM])
# else
#  define ULSM__GUARD_CALL(SET, NAME, NUM)				\
	/*								\
	 * Pairs with the release store of func in store_word()		\
	 * (src/engine/txn.c): the new target's module is set up.	\
	 */								\
	r = (__extension__ (ulsm__guard_fn *)__atomic_load_n(		\
		&SET##_lsm_sealed.inner.NAME[NUM].func,			\
		__ATOMIC_ACQUIRE))(a, b, c, d, e, f)
# endif
/*
 * The common case (the outermost section of a thread with its record)
 * in line, with no frame to speak of; the others (nested, the thread's
 * first section) out of line, with the library's lock.
 */
# define ULSM__DEF_GUARD(NUM, SET, NAME)				\
	ULSM_DEFINE_STATIC_CALL_NULL_KEYED(SET##_lsm_inner_##NAME##_##NUM, \
		ulsm__guard_fn, &SET##_lsm_sealed.inner.NAME[NUM]);	\
	__attribute__((noinline, cold)) static long			\
	SET##_lsm_guard_slow_##NAME##_##NUM(long a, long b, long c,	\
					    long d, long e, long f)	\
	{								\
		long r;							\
									\
		ulsm_read_lock();					\
		ULSM__GUARD_CALL(SET, NAME, NUM);			\
		ulsm_read_unlock();					\
		return r;						\
	}								\
	static long SET##_lsm_guard_##NAME##_##NUM(long a, long b, long c, \
						   long d, long e, long f) \
	{								\
		long r;							\
									\
		if (__builtin_expect(!ulsm__read_lock_outermost(), 0))	\
			return SET##_lsm_guard_slow_##NAME##_##NUM(	\
				a, b, c, d, e, f);			\
		ULSM__GUARD_CALL(SET, NAME, NUM);			\
		if (__builtin_expect(!ulsm__read_unlock_outermost(), 0)) \
			return ulsm__read_unlock_ret(r);		\
		return r;						\
	}
# define ULSM__DEF_GUARDS(SET, RET, DEFAULT, NAME)			\
	static long SET##_lsm_dflt_##NAME(void)				\
	{								\
		return (long)ULSM__RET_DEF(RET, DEFAULT);		\
	}								\
	UNROLL(MAX_LSM_COUNT, ULSM__DEF_GUARD, SET, NAME)
# define ULSM__INIT_GUARD(NUM, SET, NAME)				\
	[SET##_hook_idx_##NAME * MAX_LSM_COUNT + NUM] = {		\
		.fn = __extension__ (void *)SET##_lsm_guard_##NAME##_##NUM, \
		.inner = &SET##_lsm_sealed.inner.NAME[NUM],		\
		.inner_tramp = STATIC_CALL_TRAMP_ADDR(			\
			SET##_lsm_inner_##NAME##_##NUM),		\
		.dflt = __extension__ (void *)SET##_lsm_dflt_##NAME,	\
	},
# define ULSM__INIT_GUARDS(SET, NAME)					\
	UNROLL(MAX_LSM_COUNT, ULSM__INIT_GUARD, SET, NAME)
# define ULSM__DEF_GUARDS_(SET, RET, DEFAULT, NAME)			\
	ULSM__DEF_GUARDS(SET, RET, DEFAULT, NAME)
# define ULSM__INIT_GUARDS_(SET, NAME)	ULSM__INIT_GUARDS(SET, NAME)
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	ULSM__WHEN(ULSM__HOOK_ENTRY_P(NAME, __VA_ARGS__))(		\
		ULSM__DEF_GUARDS_(ULSM_LSM_SET, RET, DEFAULT, NAME))
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
/* One more, empty, element: a set whose hooks have no entry has no guard. */
static const struct ulsm_hook_guard
ULSM__P(ULSM_LSM_SET, _lsm_guards)[ULSM__P(ULSM_LSM_SET, _nhooks) * MAX_LSM_COUNT + 1] = {
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	ULSM__WHEN(ULSM__HOOK_ENTRY_P(NAME, __VA_ARGS__))(		\
		ULSM__INIT_GUARDS_(ULSM_LSM_SET, NAME))
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
	[ULSM__P(ULSM_LSM_SET, _nhooks) * MAX_LSM_COUNT] = { 0 },
};
#else
# define ULSM__HAS_GUARDS	0
#endif

#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	ULSM__WHEN(ULSM__HOOK_ENTRY_P(NAME, __VA_ARGS__))(		\
		ULSM__DECL_MAP(ULSM_LSM_SET, NAME))
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK

/*
 * The tracing of the dispatch (above, "Tracing the dispatch"): the keys,
 * the counters, the set's tracepoint and its step.
 */
struct ULSM__P(ULSM_LSM_SET, _lsm_trace_keys)
	ULSM__P(ULSM_LSM_SET, _lsm_trace_keys);
static unsigned long ULSM__P(ULSM_LSM_SET, _lsm_trace_counts)
	[ULSM__P(ULSM_LSM_SET, _nhooks) * MAX_LSM_COUNT * 2];
#define ULSM__HOOK_TP_DEFINE(NAME)					\
	DEFINE_TRACEPOINT(NAME, ULSM__HOOK_TP_PROTO, ULSM__HOOK_TP_ARGS)
#define ULSM__HOOK_TP_DEFINE_(NAME)	ULSM__HOOK_TP_DEFINE(NAME)
ULSM__HOOK_TP_DEFINE_(ULSM__HOOK_TP_NAME(ULSM_LSM_SET));
#define ULSM__TRACE_STEP(SET)						\
	void ULSM__P(SET, _lsm_trace_step)(unsigned int hook,		\
		unsigned int slot, long ret, unsigned long long t0,	\
		int decided)						\
	{								\
		unsigned long *c = &ULSM__P(SET, _lsm_trace_counts)[	\
			(hook * MAX_LSM_COUNT + slot) * 2];		\
		const struct lsm_static_call *s =			\
			&((const struct lsm_static_call *)		\
			  &ULSM__P(SET, _lsm_sealed).table)[		\
				hook * MAX_LSM_COUNT + slot];		\
		/*							\
		 * Pairs with the release store of hl in		\
		 * store_word() (src/engine/txn.c).			\
		 */							\
		const struct security_hook_list *hl =			\
			__atomic_load_n(&s->hl, __ATOMIC_ACQUIRE);	\
		unsigned long long ns = ulsm__trace_ns() - t0;		\
									\
		__atomic_add_fetch(&c[0], 1, __ATOMIC_RELAXED);		\
		if (decided)						\
			__atomic_add_fetch(&c[1], 1, __ATOMIC_RELAXED);	\
		ULSM__CAT(trace_, ULSM__HOOK_TP_NAME(SET))(		\
			ULSM__P(SET, _hook_names)[hook],		\
			hl && hl->lsmid ? hl->lsmid->name : "?", ret,	\
			(unsigned long)ns, decided != 0);		\
	}

/*
 * A hook's traced walk, for a hook that has an entry: the entry's R site
 * jumps here while the hook is traced. It has the entry's ABI (six
 * integer registers in, one out, as a guard has), calls each active
 * slot's module from the set's table, and stops at the first result that
 * is not DEFAULT (truncated to the hook's return type first). In a set
 * that allows unloading, a read-side section as a whole (the modules are
 * called directly, not through their guards).
 */
#define ULSM__TRACED_FN(SET, NAME)	ULSM__P(SET, _lsm_traced_##NAME)
#define ULSM__TRACED_RESULT(RET, DEFAULT, r)				\
	ULSM__IIF(ULSM__IS_VOID(RET))(0, ((RET)(r) != (RET)(DEFAULT)))
#define ULSM__DEF_TRACED(SET, RET, DEFAULT, NAME)			\
	static long ULSM__TRACED_FN(SET, NAME)(long a, long b, long c,	\
					       long d, long e, long f)	\
	{								\
		long rc = (long)ULSM__RET_DEF(RET, DEFAULT);		\
		int rd = ulsm__read_enter(ULSM__P(SET, _lsm_unloadable)); \
									\
		for (unsigned int i = 0; i < MAX_LSM_COUNT; i++) {	\
			const struct lsm_static_call *s =		\
				&ULSM__P(SET, _lsm_sealed).table.NAME[i]; \
			/*						\
			 * Pairs with the release store of hl in	\
			 * store_word() (src/engine/txn.c): the		\
			 * module's list is seen with it.		\
			 */						\
			const struct security_hook_list *hl =		\
				__atomic_load_n(&s->hl, __ATOMIC_ACQUIRE); \
			unsigned long long t0;				\
			long r;						\
			int decided;					\
									\
			if (!static_key_enabled(&s->active->key) || !hl) \
				continue;				\
			t0 = ulsm__trace_ns();				\
			r = ((ulsm__guard_fn *)(uintptr_t)		\
			     hl->hook.lsm_callback)(a, b, c, d, e, f);	\
			decided = ULSM__TRACED_RESULT(RET, DEFAULT, r);	\
			ULSM__P(SET, _lsm_trace_step)(			\
				ULSM__P(SET, _hook_idx_##NAME), i,	\
				ULSM__IIF(ULSM__IS_VOID(RET))(0L,	\
					(long)(RET)r), t0, decided);	\
			if (decided) {					\
				rc = r;					\
				break;					\
			}						\
		}							\
		ulsm__read_leave(&rd);					\
		return rc;						\
	}
#define ULSM__DEF_TRACED_(SET, RET, DEFAULT, NAME)			\
	ULSM__DEF_TRACED(SET, RET, DEFAULT, NAME)
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	ULSM__WHEN(ULSM__HOOK_ENTRY_P(NAME, __VA_ARGS__))(		\
		ULSM__DEF_TRACED_(ULSM_LSM_SET, RET, DEFAULT, NAME))
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK

#define ULSM__INIT_SLOT(NUM, SET, NAME)					\
	{								\
		.key = &ULSM__P(SET, _lsm_sealed).calls.NAME[NUM],	\
		.trampoline = STATIC_CALL_TRAMP_ADDR(			\
			ULSM__SLOT_NAME(SET, NAME, NUM)),		\
		.hl = NULL,						\
		.active = &ULSM__P(SET, _lsm_keys).k.NAME[NUM],		\
	},
#define ULSM__INIT_SLOTS(SET, NAME)					\
	UNROLL(MAX_LSM_COUNT, ULSM__INIT_SLOT, SET, NAME)

struct ULSM__P(ULSM_LSM_SET, _lsm_sealed) ULSM__P(ULSM_LSM_SET, _lsm_sealed) = {
	.table = {
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
		.NAME = { ULSM__INIT_SLOTS(ULSM_LSM_SET, NAME) },
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
	},
	.entry = {
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
		[ULSM__P(ULSM_LSM_SET, _hook_idx_##NAME)] = {		\
			.set = &ULSM__P(ULSM_LSM_SET, _hook_set),	\
			.map = ULSM__IIF(ULSM__HOOK_ENTRY_P(NAME, __VA_ARGS__))( \
				ULSM__ENTRY_MAP(ULSM_LSM_SET, NAME), NULL), \
			.hook = ULSM__P(ULSM_LSM_SET, _hook_idx_##NAME),	\
			.ret_size = ULSM__RET_SIZE(RET),		\
			.def = ULSM__RET_DEF(RET, DEFAULT),		\
			.traced = ULSM__IIF(ULSM__HOOK_ENTRY_P(NAME, __VA_ARGS__))( \
				__extension__ (void *)			\
				ULSM__TRACED_FN(ULSM_LSM_SET, NAME), NULL), \
			.trace_key = &ULSM__P(ULSM_LSM_SET, _lsm_trace_keys).NAME, \
		},
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
	},
};

/* A hidden name for the sealed tables, which the entries address. */
extern struct ULSM__P(ULSM_LSM_SET, _lsm_sealed)
	ULSM__P(ULSM_LSM_SET, _lsm_sealed_local)
	__attribute__((visibility("hidden"),
		       alias(ULSM__STR(ULSM__P(ULSM_LSM_SET, _lsm_sealed)))));

/* DEFINE_LSM_HOOK_ENTRY is for this unit only (the entries are here). */
enum { ULSM__P(ULSM_LSM_SET, _lsm_defining_unit) = 1 };

#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	ULSM__WHEN(ULSM__HOOK_ENTRY_P(NAME, __VA_ARGS__))(		\
		ULSM__EMIT_ENTRY(ULSM_LSM_SET, RET, DEFAULT, NAME,	\
				 __VA_ARGS__))
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK

#define ULSM__INIT_TAIL(NUM, x)	STATIC_KEY_TRUE_INIT,
struct ULSM__P(ULSM_LSM_SET, _lsm_keys) ULSM__P(ULSM_LSM_SET, _lsm_keys) = {
	.t = {
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
		.NAME = { UNROLL(MAX_LSM_COUNT, ULSM__INIT_TAIL, x) },
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
	},
};

static const char *const ULSM__P(ULSM_LSM_SET, _hook_names)[] = {
#define LSM_HOOK(RET, DEFAULT, NAME, ...) #NAME,
#include ULSM_LSM_HOOK_DEFS
#undef LSM_HOOK
};

ULSM__TRACE_STEP(ULSM_LSM_SET)

#ifndef ULSM_LSM_BUILTIN_ORDER
# define ULSM_LSM_BUILTIN_ORDER NULL
#endif

#ifdef ULSM_LSM_BLOB_DEFS
static const char *const ULSM__P(ULSM_LSM_SET, _blob_names)[] = {
#define LSM_BLOB(NAME)	#NAME,
#include ULSM_LSM_BLOB_DEFS
#undef LSM_BLOB
};
#endif

const char ULSM__DEFINE_REF(ULSM_LSM_SET) = 0;
#if ULSM__RETPOLINE
const char ULSM__RETPOLINE_REF(ULSM_LSM_SET) = 0;
#endif

struct ulsm_hook_set ULSM__P(ULSM_LSM_SET, _hook_set) = {
	.size = sizeof(struct ulsm_hook_set),
	.name = ULSM__STR(ULSM_LSM_SET),
	.table = (struct lsm_static_call *)&ULSM__P(ULSM_LSM_SET, _lsm_sealed).table,
	.nhooks = ULSM__P(ULSM_LSM_SET, _nhooks),
	.slots = MAX_LSM_COUNT,
	.hook_names = ULSM__P(ULSM_LSM_SET, _hook_names),
	.sealed = &ULSM__P(ULSM_LSM_SET, _lsm_sealed),
	.sealed_size = sizeof(ULSM__P(ULSM_LSM_SET, _lsm_sealed)),
	.keys = &ULSM__P(ULSM_LSM_SET, _lsm_keys),
	.keys_size = sizeof(ULSM__P(ULSM_LSM_SET, _lsm_keys)),
	.tails = (struct static_key_true *)&ULSM__P(ULSM_LSM_SET, _lsm_keys).t,
	.builtin_order = ULSM_LSM_BUILTIN_ORDER,
	.state = NULL,
	.entries = ULSM__P(ULSM_LSM_SET, _lsm_sealed).entry,
	.signature = ULSM__P(ULSM_LSM_SET, _lsm_signature),
	.unloadable = ULSM__P(ULSM_LSM_SET, _lsm_unloadable),
#if ULSM__HAS_GUARDS
	.guards = ULSM__P(ULSM_LSM_SET, _lsm_guards),
#endif
	.trace_keys = (struct static_key_false *)
		&ULSM__P(ULSM_LSM_SET, _lsm_trace_keys),
	.trace_keys_size = sizeof(ULSM__P(ULSM_LSM_SET, _lsm_trace_keys)),
	.trace_counts = ULSM__P(ULSM_LSM_SET, _lsm_trace_counts),
	.tracepoint = &ULSM__CAT(__tracepoint_, ULSM__HOOK_TP_NAME(ULSM_LSM_SET)),
#ifdef ULSM_LSM_BLOB_DEFS
	.nblobs = ULSM__P(ULSM_LSM_SET, _blob_types),
	.blob_names = ULSM__P(ULSM_LSM_SET, _blob_names),
#endif
};

#undef ULSM_LSM_BUILTIN_ORDER
#undef ULSM__DEF_SLOT
#undef ULSM__DEF_SLOTS
#undef ULSM__INIT_SLOT
#undef ULSM__INIT_SLOTS
#undef ULSM__INIT_TAIL
#undef ULSM__HAS_GUARDS
#endif /* ULSM_LSM_DEFINE */

#undef ULSM__DECL_SLOT
#undef ULSM__DECL_SLOTS
