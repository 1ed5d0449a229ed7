/* SPDX-License-Identifier: MIT */
/*
 * ulsm/apr_hooks.h - APR-util's hooks (<apr_hooks.h>), dispatched by
 * static calls.
 *
 * APR's ns_run_NAME() walks an array of function pointers, one indirect
 * call per registered function (a retpoline on hardened builds). This
 * header keeps APR's API, its registration and its sort (libaprutil is
 * still linked and does both), and replaces only the dispatch: each hook
 * gets ULSM_APR_SLOTS static calls (32 unless defined before the first
 * include, at most 64), and after every change of the hook's array (a
 * registration, apr_hook_sort_all(), apr_hook_deregister_all()) the
 * library puts the array's first functions into them, in one update. The
 * hook's run function then makes one direct call per function, unrolled,
 * with the arguments kept in registers (RUN_FIRST and VOID hooks jump to
 * their last function, as a compiler's chain of calls does); functions
 * after the first ULSM_APR_SLOTS are called through the array, as APR
 * calls them.
 *
 * A program switches by its include path, with no change to its sources:
 *
 *	cc $(pkg-config --cflags ulsm-apr) ... $(pkg-config --libs ulsm-apr)
 *
 * puts ulsm's shadow directory (<ulsm/apr/>) before APR's, so that
 * #include <apr_hooks.h> and <apr_optional_hooks.h> get the real headers
 * and then this one, and links libulsm-apr. Every translation unit that
 * implements a hook or calls apr_hook_sort_all() or
 * apr_hook_deregister_all() should be compiled that way: those two are
 * macros for ulsm_apr_hook_sort_all() and ulsm_apr_hook_deregister_all(),
 * which call APR's and then bring every hook's slots in line. If a unit
 * built without it (a library, a module built elsewhere) calls
 * libaprutil's own, each hook's run function notices that its array is
 * no longer the one its slots were filled from (APR's sort makes a new
 * array, its deregistration leaves NULL), says so once on standard error,
 * and walks APR's array, as APR would, until the hook next changes through
 * the drop-in: the answers stay APR's, at APR's cost.
 *
 * The thread rule is APR's: no thread may run a hook while hooks are
 * registered, sorted or deregistered. Between changes, any number of
 * threads may run them. (The library's updates themselves are safe while
 * other threads run code; it is APR's arrays that are not.)
 *
 * What is the same as APR, by construction: the order (APR sorts), the
 * arrays ns_hook_get_NAME() returns, the results (ok, decline, the first
 * other value; RUN_FIRST's first value that is not decline), the debug
 * output (APR prints it), the optional hooks and functions (APR's own, and
 * dispatched through APR's arrays). tests/t_apr_diff runs one program
 * against both and compares their output byte for byte.
 *
 * On x86-64, a C unit's RUN_FIRST and VOID run functions pass the
 * caller's registers on to the functions (ULSM__APR_TAIL, below): their
 * args_use must name the parameters of args_decl, in order, as APR's own
 * macros do. Where it does not (a swap, an expression), a hook of at
 * most six parameters fails to compile rather than pass the wrong
 * arguments; one of more is not checked, and would get them wrong when
 * it has one function.
 *
 * Not taken over: a program built with APR_HOOK_PROBES_ENABLED keeps
 * APR's run functions (the probes need each call's module name). If an
 * update of the slots fails (out of memory, a system call refused), it
 * changed nothing, and a message says so: each hook is dispatched as it
 * was (through APR's array where the change replaced it) until it changes
 * again (ulsm_apr(3), "When an update fails").
 */
#ifndef ULSM_APR_HOOKS_H
#define ULSM_APR_HOOKS_H

#include <apr_hooks.h>

#include <ulsm/compiler.h>
#include <ulsm/pp.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/unroll.h>

/*
 * 32: httpd's busiest hooks have 20 to 40 functions. Each slot costs about
 * 150 bytes per hook (code, trampoline, key, call, records) and nothing
 * per dispatch while unused; a function past the last slot is called
 * through APR's array, at APR's cost (docs/performance.md, "The APR hooks
 * drop-in").
 */
#ifndef ULSM_APR_SLOTS
# define ULSM_APR_SLOTS	32
#endif

ULSM__EXTERN_C_BEGIN

/*
 * One hook, as the library sees it: its name, APR's array, and its keys
 * and calls. Made by the unit that implements the hook; the library
 * fills its slots from the array.
 * @direct:  on while the slots hold the array's first functions; off:
 *           the run function walks the array from its start, as APR
 * @single:  on while exactly one function is registered, in a hook
 *           without a run call (@run): RUN_FIRST and VOID hooks jump to
 *           it (a tail call), RUN_ALL calls it without saving registers,
 *           as a compiler would
 * @tail:    tail[i] on: no function from slot i on (the walk ends there;
 *           RUN_FIRST and VOID hooks jump to slot i - 1's function)
 * @calls:   the slots' static calls, and @tramps their trampolines
 * @run:     where a RUN_FIRST or VOID run function jumps after its check
 *           (ULSM__ARCH_APR_BODY, C): the one function when exactly one
 *           is registered, else @run_walk, the slots (in assembly right
 *           after that jump, which is then a NOP, or the C slots
 *           function); @run_tramp its trampoline. NULL elsewhere:
 *           @single does it
 * @tcalls:  where the slots are in assembly (@tnext[0] not 0): before
 *           slot i, a tail site of static call tcalls[i] (@ttramps[i]
 *           its trampoline), aimed at slot i's function when it is the
 *           last, else at the instruction right after the site (which
 *           makes it a NOP), at tnext[i] bytes from &tnext[i]. NULL
 *           elsewhere: the tail keys do it
 */
struct ulsm_apr_hook {
	const char *name;
	apr_array_header_t **link;
	apr_array_header_t *from;	/* the library's: *link when filled
					   (stored by the update) */
	struct static_key_false *direct;
	struct static_key_false *single;
	struct static_key_false *tail;
	struct static_call_key *calls;
	void *const *tramps;
	struct static_call_key *run;
	void *run_tramp;
	void *run_walk;
	struct static_call_key *tcalls;
	void *const *ttramps;
	const int32_t *tnext;
	int nslots;
	int filled;		/* the library's: slots in use */
	struct ulsm_apr_hook *next;
};

/** ulsm_apr_hook_attach - a hook's unit is loaded (its constructor) */
void ulsm_apr_hook_attach(struct ulsm_apr_hook *h);
/** ulsm_apr_hook_detach - a hook's unit is unloaded (its destructor) */
void ulsm_apr_hook_detach(struct ulsm_apr_hook *h);
/** ulsm_apr_hook_changed - @h's array changed: fill its slots from it */
void ulsm_apr_hook_changed(struct ulsm_apr_hook *h);
/**
 * ulsm_apr_hook_stale - @h's array changed behind its slots (the run
 * function found *link != from): say so, once per process
 */
void ulsm_apr_hook_stale(const struct ulsm_apr_hook *h);
/** ulsm_apr_hook_sort_all - apr_hook_sort_all(), then fill every hook */
void ulsm_apr_hook_sort_all(void);
/**
 * ulsm_apr_hook_deregister_all - apr_hook_deregister_all(), then empty
 * every hook's slots
 */
void ulsm_apr_hook_deregister_all(void);
/**
 * ulsm_apr_hook_slots - how hook @name is dispatched now
 *
 * Return: how many of its functions are called through slots (0 to
 * ULSM_APR_SLOTS), -1 if it walks APR's array (it has not been filled
 * yet, or its array is not the one it was filled from: changed behind the
 * drop-in, or replaced by a change whose update failed), -ENOENT if no
 * loaded unit implements it.
 */
int ulsm_apr_hook_slots(const char *name);

ULSM__EXTERN_C_END

/*
 * Also in a unit built with APR's probes: hooks of other units must be
 * refilled after a sort or a deregistration made there
 * (t_apr_diff caught it).
 */
#define apr_hook_sort_all		ulsm_apr_hook_sort_all
#define apr_hook_deregister_all		ulsm_apr_hook_deregister_all

#ifndef APR_HOOK_PROBES_ENABLED

/* --- what the implementing unit defines per hook ----------------------- */

#define ULSM__APR_P(ns, name, what)	ulsm__apr_##ns##__##name##_##what
#define ULSM__APR_SC(ns, name, i)	ulsm_apr__##ns##__##name##_##i

#define ULSM__APR_KEY_INIT(i, x)	STATIC_KEY_FALSE_INIT,
/*
 * A row of ULSM_APR_SLOTS static calls of the hook's type: their keys
 * @keys, their trampolines' addresses @tramps; @SC names slot i's call.
 * The slots' calls (@calls), and their tail calls (@tcalls).
 */
#define ULSM__APR_DEF_CALL(i, ns, name, keys, SC)			\
	ULSM_DEFINE_STATIC_CALL_NULL_KEYED(SC(ns, name, i),		\
		ns##_HOOK_##name##_t, &ULSM__APR_P(ns, name, keys)[i]);
#define ULSM__APR_CALL_TRAMP(i, ns, name, keys, SC)			\
	STATIC_CALL_TRAMP_ADDR(SC(ns, name, i)),
#define ULSM__APR_DEF_CALLS(ns, name, keys, tramps, SC)			\
	static struct static_call_key					\
		ULSM__APR_P(ns, name, keys)[ULSM_APR_SLOTS];		\
	UNROLL(ULSM_APR_SLOTS, ULSM__APR_DEF_CALL, ns, name, keys, SC)	\
	static void *const ULSM__APR_P(ns, name, tramps)[ULSM_APR_SLOTS] = { \
		UNROLL(ULSM_APR_SLOTS, ULSM__APR_CALL_TRAMP,		\
		       ns, name, keys, SC)				\
	};

/*
 * The run call of a RUN_FIRST or VOID hook, where the back end has tail
 * sites (C only: C++ has no naked functions everywhere, and its
 * trampolines start as "ret"): its key, aimed at the slots function (the
 * trampoline is compiled to jump there, so the run function works before
 * any patching, and when none can be done), and the key's reference for
 * the tail site's record.
 */
#if defined(ULSM__ARCH_APR_BODY) && !defined(__cplusplus) &&		\
    (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8))
# define ULSM__APR_TAIL	1	/* naked functions: gcc 8, clang */
#endif
#define ULSM__APR_RUN_SC(ns, name)	ulsm_apr__##ns##__##name##_run
#define ULSM__APR_RUN_0(ns, name)	NULL, NULL, NULL, NULL, NULL, NULL
#define ULSM__APR_TSC(ns, name, i)	ulsm_apr__##ns##__##name##_t##i

/*
 * Where the run call goes while the hook has 0 or 2 and more functions:
 * the slots in assembly right after the run call's tail site, where the
 * back end writes them (ULSM__ARCH_APR_BODY, ULSM__APR_TAIL: the
 * prototype decides in the assembler, ULSM__APR_SHAPE), else the C slots
 * function.
 */
#ifdef ULSM__APR_TAIL
# define ULSM__APR_WALK_TO(ns, name)	ULSM__APR_P(ns, name, body)
# define ULSM__APR_WALK_DECL(ns, name)					\
	extern ns##_HOOK_##name##_t ULSM__APR_WALK_TO(ns, name) ULSM__HIDDEN;
#else
# define ULSM__APR_WALK_TO(ns, name)	ULSM__APR_SLOTS_FN(ns, name)
# define ULSM__APR_WALK_DECL(ns, name)					\
	static ns##_HOOK_##name##_t ULSM__APR_SLOTS_FN(ns, name);
#endif

#ifdef ULSM__APR_TAIL
# define ULSM__APR_RUN_DEF_0(ns, name)
# define ULSM__APR_RUN_DEF_1(ns, name)					\
	ULSM__APR_WALK_DECL(ns, name)					\
	static struct static_call_key ULSM__APR_P(ns, name, run) =	\
		{ (void *)&ULSM__APR_WALK_TO(ns, name), 0 };		\
	ULSM_DEFINE_STATIC_CALL_KEYED(ULSM__APR_RUN_SC(ns, name),	\
		ULSM__APR_WALK_TO(ns, name), &ULSM__APR_P(ns, name, run)); \
	static const void *const ULSM__APR_P(ns, name, run_ref)		\
		__attribute__((used)) = &ULSM__APR_P(ns, name, run);	\
	ULSM__APR_DEF_CALLS(ns, name, tcalls, ttramps, ULSM__APR_TSC)	\
	extern const int32_t ULSM__APR_P(ns, name, tnext)[ULSM_APR_SLOTS] \
		ULSM__HIDDEN;
# define ULSM__APR_RUN_1(ns, name)					\
	&ULSM__APR_P(ns, name, run),					\
	STATIC_CALL_TRAMP_ADDR(ULSM__APR_RUN_SC(ns, name)),		\
	(void *)&ULSM__APR_WALK_TO(ns, name),				\
	ULSM__APR_P(ns, name, tcalls), ULSM__APR_P(ns, name, ttramps),	\
	ULSM__APR_P(ns, name, tnext)
#else
# define ULSM__APR_RUN_DEF_0(ns, name)
# define ULSM__APR_RUN_DEF_1(ns, name)
# define ULSM__APR_RUN_1(ns, name)	ULSM__APR_RUN_0(ns, name)
#endif

/*
 * The keys, the calls and the descriptor; a constructor and a destructor
 * tell the library that the unit came and goes (a module's shared object
 * may define hooks, and be unloaded). @run: 1 for a RUN_FIRST or VOID
 * hook (its run call, ULSM__APR_TAIL), 0 otherwise.
 */
#define ULSM__APR_DEFINE(ns, name, run)					\
	static struct static_key_false ULSM__APR_P(ns, name, direct) =	\
		STATIC_KEY_FALSE_INIT;					\
	static struct static_key_false ULSM__APR_P(ns, name, single) =	\
		STATIC_KEY_FALSE_INIT;					\
	static struct static_key_false					\
		ULSM__APR_P(ns, name, tail)[ULSM_APR_SLOTS] = {		\
		UNROLL(ULSM_APR_SLOTS, ULSM__APR_KEY_INIT, ~)		\
	};								\
	ULSM__APR_DEF_CALLS(ns, name, calls, tramps, ULSM__APR_SC)	\
	ULSM__APR_RUN_DEF_##run(ns, name)				\
	static struct ulsm_apr_hook ULSM__APR_P(ns, name, hook) = {	\
		#name, &_hooks.link_##name, NULL,			\
		&ULSM__APR_P(ns, name, direct),				\
		&ULSM__APR_P(ns, name, single),				\
		ULSM__APR_P(ns, name, tail),				\
		ULSM__APR_P(ns, name, calls),				\
		ULSM__APR_P(ns, name, tramps),				\
		ULSM__APR_RUN_##run(ns, name),				\
		ULSM_APR_SLOTS, -1, NULL				\
	};								\
	__attribute__((constructor)) static void			\
	ULSM__APR_P(ns, name, attach)(void)				\
	{								\
		ulsm_apr_hook_attach(&ULSM__APR_P(ns, name, hook));	\
	}								\
	__attribute__((destructor)) static void				\
	ULSM__APR_P(ns, name, detach)(void)				\
	{								\
		ulsm_apr_hook_detach(&ULSM__APR_P(ns, name, hook));	\
	}

/*
 * Slot i's function, called directly: the trampoline's hidden alias (no
 * PLT in a shared object), its call site recorded so that the library
 * patches it to call the function itself; on the generic back end, the
 * slot's pointer.
 */
#ifdef ULSM__ARCH_HAS_SC_TRAMP
# define ULSM__APR_FN(ns, name, i)	ULSM__SC_LOCAL(ULSM__APR_SC(ns, name, i))
#else
# define ULSM__APR_FN(ns, name, i)					\
	ulsm_static_call_keyed(ULSM__APR_SC(ns, name, i),		\
			       &ULSM__APR_P(ns, name, calls)[i])
#endif
#if defined(ULSM__ARCH_HAS_SC_TRAMP) && defined(ULSM__ARCH_CALL_SITE)
# define ULSM__APR_SITE(ns, name, i)					\
	ULSM__ARCH_CALL_SITE(&ULSM__APR_P(ns, name, calls)[i])
#else
# define ULSM__APR_SITE(ns, name, i)	((void)0)
#endif

/* The walk ends at slot i (tail key on): nothing from i on. */
#define ULSM__APR_END(ns, name, i)					\
	if (static_branch_unlikely(&ULSM__APR_P(ns, name, tail)[i]))	\
		goto ulsm__apr_end;

/*
 * Slot i holds the last function (tail key i + 1 on). In a RUN_FIRST or
 * VOID hook its result is the hook's (RUN_FIRST: the first that is not
 * decline, and decline is what the walk returns at its end), so the slot
 * jumps to it, as a compiler does with the last call of a chain it knows:
 * a tail call through the slot's trampoline (a direct jump when the
 * function is in reach), with no frame and no compare after it. The last
 * slot has no key after it: the walk of the array's rest follows it
 * (ULSM__APR_NEXT names its own key there only to stay inside the array
 * in an expression the constant condition already discards).
 */
#define ULSM__APR_NEXT(i)	((i) + 1 < ULSM_APR_SLOTS ? (i) + 1 : (i))
#define ULSM__APR_LAST(ns, name, i)					\
	((i) + 1 < ULSM_APR_SLOTS &&					\
	 static_branch_unlikely(&ULSM__APR_P(ns, name, tail)[ULSM__APR_NEXT(i)]))
/*
 * So such a walk can only end before slot 0 (no function), and only
 * slot 0 asks: the tail key of any other slot is its predecessor's LAST.
 */
#define ULSM__APR_NONE(ns, name, i)					\
	if ((i) == 0 &&							\
	    static_branch_unlikely(&ULSM__APR_P(ns, name, tail)[0]))	\
		goto ulsm__apr_end;

#define ULSM__APR_VOID_SLOT(i, ns, name, args_use)			\
	ULSM__APR_NONE(ns, name, i)					\
	if (ULSM__APR_LAST(ns, name, i)) {				\
		ULSM__APR_FN(ns, name, i) args_use;			\
		return;							\
	}								\
	ULSM__APR_FN(ns, name, i) args_use;				\
	ULSM__APR_SITE(ns, name, i);

#define ULSM__APR_ALL_SLOT(i, ns, name, args_use, ok, decline)		\
	ULSM__APR_END(ns, name, i)					\
	rv = ULSM__APR_FN(ns, name, i) args_use;			\
	ULSM__APR_SITE(ns, name, i);					\
	if (rv != ok && rv != decline)					\
		return rv;

#define ULSM__APR_FIRST_SLOT(i, ns, name, args_use, decline)		\
	ULSM__APR_NONE(ns, name, i)					\
	if (ULSM__APR_LAST(ns, name, i))				\
		return ULSM__APR_FN(ns, name, i) args_use;		\
	rv = ULSM__APR_FN(ns, name, i) args_use;			\
	ULSM__APR_SITE(ns, name, i);					\
	if (rv != decline)						\
		return rv;

/*
 * One function registered, and the hook's result is its result (RUN_FIRST,
 * VOID): jump to it through slot 0's trampoline (a tail call is no call
 * site to patch). The slots are in a function of their own, so that this
 * path saves no register: gcc saves them at the entry of a function that
 * needs them anywhere.
 */
#define ULSM__APR_SINGLE(ns, name, args_use)				\
	if (static_branch_unlikely(&ULSM__APR_P(ns, name, single)))	\
		return ULSM__APR_FN(ns, name, 0) args_use;
#define ULSM__APR_SLOTS_FN(ns, name)	ULSM__APR_P(ns, name, slots)
/*
 * The slots function is never in line (see above), and starts a cache
 * line, as the hook entries do: its branches then sit where they sit in
 * every build. Left to the compiler's 16 bytes, an unrelated change moved
 * RUN_ALL's from 1.00 to 1.08 times the hard-coded chain (bench_apr).
 */
#define ULSM__APR_SLOTS_ATTR	__attribute__((noinline, aligned(64), unused))

/*
 * The start of a run function: with the slots in line, fall into them;
 * else walk APR's array from its first function.
 */
#define ULSM__APR_START(ns, name)					\
	ns##_LINK_##name##_t *pHook;					\
	int n, ulsm__apr_from = ULSM_APR_SLOTS;				\
	if (!static_branch_likely(&ULSM__APR_P(ns, name, direct))) {	\
		ulsm__apr_from = 0;					\
		goto ulsm__apr_walk;					\
	}

/* APR's walk of the array, from function @from on. */
#define ULSM__APR_LOOP(ns, name, from, CALL)				\
	if (_hooks.link_##name) {					\
		pHook = (ns##_LINK_##name##_t *)_hooks.link_##name->elts; \
		for (n = (from); n < _hooks.link_##name->nelts; ++n) {	\
			CALL;						\
		}							\
	}
#define ULSM__APR_WALK(ns, name, CALL)					\
ulsm__apr_walk:								\
	ULSM__APR_LOOP(ns, name, ulsm__apr_from, CALL)

/*
 * The array is not the one the slots were filled from: libaprutil's
 * apr_hook_sort_all() or apr_hook_deregister_all() was called from a unit
 * built without the drop-in (the sort always puts a new array in the link,
 * while the old one is still allocated, and the deregistration puts NULL;
 * the only other change, a registration, is this unit's own and refills).
 * At the top of the run function, before the slots and the single path:
 * a load, a compare with memory and a branch not taken (three
 * instructions, two reads of data that stays in cache while the hook is
 * hot); the rest of the hook's code is untouched.
 */
#define ULSM__APR_STALE(ns, name)					\
	__builtin_expect(_hooks.link_##name !=				\
			 ULSM__APR_P(ns, name, hook).from, 0)

/*
 * The stale path: say so (once per process), then APR's walk from the
 * array's first function, cold, out of the run function's way.
 */
#define ULSM__APR_APR_FN(ns, name)	ULSM__APR_P(ns, name, apr)
#define ULSM__APR_WALK_FN(ns, name, what, attrs, first, from, ret,	\
			  args_decl, CALL, END)				\
__attribute__(attrs) static ret ULSM__APR_P(ns, name, what) args_decl	\
{									\
	ns##_LINK_##name##_t *pHook;					\
	int n;								\
	first;								\
	ULSM__APR_LOOP(ns, name, from, CALL)				\
	END;								\
}
#define ULSM__APR_APR_WALK(ns, name, ret, args_decl, CALL, END)		\
	ULSM__APR_WALK_FN(ns, name, apr, (noinline, cold),		\
		ulsm_apr_hook_stale(&ULSM__APR_P(ns, name, hook)), 0,	\
		ret, args_decl, CALL, END)

/* --- APR's macros ------------------------------------------------------ */

/*
 * A RUN_FIRST or VOID run function where the back end writes its body
 * (ULSM__ARCH_APR_RUN): a naked function that checks the array as
 * ULSM__APR_STALE does, then jumps through the run call's tail site with
 * the caller's arguments untouched: to the one function registered (a
 * direct jump once patched, as a compiler's tail call), or on to the
 * slots, which follow the site (it is then a NOP). Naked: its parameters
 * are never named, hence the pragma.
 *
 * The slots are in assembly where the prototype fits (ULSM__APR_SHAPE):
 * at most six parameters, each an integer of at most eight bytes, an
 * enumeration, a boolean or a pointer (in registers, SysV ABI), passed
 * on in args_use in the order of args_decl, as APR's macros do; and a
 * RUN_FIRST hook's result an integer of 1, 4 or 8 bytes, its decline a
 * constant. Each parameter is declared as the member of a structure of
 * its own, named by args_use, and classified there (an array parameter
 * decays there as it does in the prototype). Anything else jumps to the
 * C slots function, one jump more. The run function starts a cache
 * line, as the slots functions and the hook entries do, so that its
 * branches sit where they sit in every build. The body passes the
 * caller's registers on, so args_use must name the parameters in their
 * order; up to sixteen parameters, anything else (a swap, an expression)
 * does not compile: the names are members of the structures, in order
 * (offsetof takes no expression; tests/compile/apr_bad_args_*.c). The
 * one-function jump of the head relies on it with any prototype, the
 * slots in assembly with at most six parameters.
 */
#define ULSM__APR_UNPAREN(...)		__VA_ARGS__
#define ULSM__APR_NPARAMS_(...)					\
	(ULSM__NARGS(__VA_ARGS__) - ULSM__IS_VOID(ULSM__FIRST(__VA_ARGS__, ~)))
/* Up to 16 parameters, args_use's order is checked (ULSM__APR_ORDER). */
#define ULSM__APR_LE16_0	1
#define ULSM__APR_LE16_1	1
#define ULSM__APR_LE16_2	1
#define ULSM__APR_LE16_3	1
#define ULSM__APR_LE16_4	1
#define ULSM__APR_LE16_5	1
#define ULSM__APR_LE16_6	1
#define ULSM__APR_LE16_7	1
#define ULSM__APR_LE16_8	1
#define ULSM__APR_LE16_9	1
#define ULSM__APR_LE16_10	1
#define ULSM__APR_LE16_11	1
#define ULSM__APR_LE16_12	1
#define ULSM__APR_LE16_13	1
#define ULSM__APR_LE16_14	1
#define ULSM__APR_LE16_15	1
#define ULSM__APR_LE16_16	1
#define ULSM__APR_CHECKED_(...)					\
	ULSM__AND(ULSM__IS_ONE(ULSM__CAT(ULSM__APR_LE16_,		\
					 ULSM__NARGS(__VA_ARGS__))),	\
		  ULSM__NOT(ULSM__IS_VOID(ULSM__FIRST(__VA_ARGS__, ~))))
#define ULSM__APR_EACH(m, ns, name, ...)				\
	ULSM__CAT(ULSM__APR_EACH_, ULSM__NARGS(__VA_ARGS__))(m, ns, name, \
							    __VA_ARGS__)
#define ULSM__APR_EACH_1(m, ns, name, a)	m(ns, name, 0, a)
#define ULSM__APR_EACH_2(m, ns, name, a, b)				\
	m(ns, name, 0, a) m(ns, name, 1, b)
#define ULSM__APR_EACH_3(m, ns, name, a, b, c)				\
	ULSM__APR_EACH_2(m, ns, name, a, b) m(ns, name, 2, c)
#define ULSM__APR_EACH_4(m, ns, name, a, b, c, d)			\
	ULSM__APR_EACH_3(m, ns, name, a, b, c) m(ns, name, 3, d)
#define ULSM__APR_EACH_5(m, ns, name, a, b, c, d, e)			\
	ULSM__APR_EACH_4(m, ns, name, a, b, c, d) m(ns, name, 4, e)
#define ULSM__APR_EACH_6(m, ns, name, a, b, c, d, e, f)		\
	ULSM__APR_EACH_5(m, ns, name, a, b, c, d, e) m(ns, name, 5, f)
#define ULSM__APR_EACH_7(m, ns, name, x0, x1, x2, x3, x4, x5, x6)	\
	ULSM__APR_EACH_6(m, ns, name, x0, x1, x2, x3, x4, x5)		\
	m(ns, name, 6, x6)
#define ULSM__APR_EACH_8(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7)	\
	ULSM__APR_EACH_7(m, ns, name, x0, x1, x2, x3, x4, x5, x6)	\
	m(ns, name, 7, x7)
#define ULSM__APR_EACH_9(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7,	\
			 x8)						\
	ULSM__APR_EACH_8(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7)	\
	m(ns, name, 8, x8)
#define ULSM__APR_EACH_10(m, ns, name, x0, x1, x2, x3, x4, x5, x6,	\
			 x7, x8, x9)					\
	ULSM__APR_EACH_9(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7,	\
			 x8)						\
	m(ns, name, 9, x9)
#define ULSM__APR_EACH_11(m, ns, name, x0, x1, x2, x3, x4, x5, x6,	\
			 x7, x8, x9, x10)				\
	ULSM__APR_EACH_10(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7,	\
			 x8, x9)					\
	m(ns, name, 10, x10)
#define ULSM__APR_EACH_12(m, ns, name, x0, x1, x2, x3, x4, x5, x6,	\
			 x7, x8, x9, x10, x11)				\
	ULSM__APR_EACH_11(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7,	\
			 x8, x9, x10)					\
	m(ns, name, 11, x11)
#define ULSM__APR_EACH_13(m, ns, name, x0, x1, x2, x3, x4, x5, x6,	\
			 x7, x8, x9, x10, x11, x12)			\
	ULSM__APR_EACH_12(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7,	\
			 x8, x9, x10, x11)				\
	m(ns, name, 12, x12)
#define ULSM__APR_EACH_14(m, ns, name, x0, x1, x2, x3, x4, x5, x6,	\
			 x7, x8, x9, x10, x11, x12, x13)		\
	ULSM__APR_EACH_13(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7,	\
			 x8, x9, x10, x11, x12)				\
	m(ns, name, 13, x13)
#define ULSM__APR_EACH_15(m, ns, name, x0, x1, x2, x3, x4, x5, x6,	\
			 x7, x8, x9, x10, x11, x12, x13, x14)		\
	ULSM__APR_EACH_14(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7,	\
			 x8, x9, x10, x11, x12, x13)			\
	m(ns, name, 14, x14)
#define ULSM__APR_EACH_16(m, ns, name, x0, x1, x2, x3, x4, x5, x6,	\
			 x7, x8, x9, x10, x11, x12, x13, x14, x15)	\
	ULSM__APR_EACH_15(m, ns, name, x0, x1, x2, x3, x4, x5, x6, x7,	\
			 x8, x9, x10, x11, x12, x13, x14)		\
	m(ns, name, 15, x15)
/*
 * Parameter i's structure. Its name is what the compiler prints when
 * args_use does not name the parameters in order ("has no member").
 */
#define ULSM__APR_PS(ns, name, i)					\
	struct ULSM__APR_P(ns, name, args_use_in_order_##i)
#define ULSM__APR_PSTRUCT(ns, name, i, decl)				\
	ULSM__APR_PS(ns, name, i) { char ulsm__pad; decl; };
/* use names parameter i (else the compiler stops here) ... */
#define ULSM__APR_PORDER(ns, name, i, use)				\
	&& __builtin_offsetof(ULSM__APR_PS(ns, name, i), use) <		\
	   sizeof(ULSM__APR_PS(ns, name, i))
/*
 * args_use against args_decl, up to sixteen parameters, for every
 * RUN_FIRST and VOID hook on every back end: each name of args_use must
 * be a member of its parameter's structure, in order (the compiler
 * stops at the first that is not). Where the back end writes the run
 * function, its one-function jump passes the caller's arguments on as
 * they are; elsewhere the check keeps a program that compiles on one
 * machine compiling on the others. Not in C++, whose run functions are
 * always C (no naked functions), and where an array parameter would be a
 * flexible array member, which C++ does not have.
 */
#ifndef __cplusplus
# define ULSM__APR_ORDER(ns, name, args_decl, args_use)			\
	ULSM__WHEN(ULSM__APR_CHECKED_ args_decl)(ULSM__APR_EACH(	\
		ULSM__APR_PSTRUCT, ns, name, ULSM__APR_UNPAREN args_decl)) \
	enum { ULSM__APR_P(ns, name, order) = 1				\
	       ULSM__WHEN(ULSM__APR_CHECKED_ args_decl)(ULSM__APR_EACH(	\
		ULSM__APR_PORDER, ns, name, ULSM__APR_UNPAREN args_use)) };
#else
# define ULSM__APR_ORDER(ns, name, args_decl, args_use)
#endif

#ifdef ULSM__APR_TAIL
# define ULSM__APR_FITS_(...)						\
	ULSM__AND(ULSM__LE6(ULSM__NARGS(__VA_ARGS__)),			\
		  ULSM__NOT(ULSM__IS_VOID(ULSM__FIRST(__VA_ARGS__, ~))))
# define ULSM__APR_WORD(e)						\
	(__builtin_classify_type(e) >= 1 &&				\
	 __builtin_classify_type(e) <= 5 &&				\
	 !_Generic((e), __int128: 1, unsigned __int128: 1, default: 0))
/* ... and it is passed in an integer register. */
# define ULSM__APR_PWORD(ns, name, i, use)				\
	&& ULSM__APR_WORD(((ULSM__APR_PS(ns, name, i) *)0)->use)
# define ULSM__APR_SHAPE(ns, name, args_decl, args_use, retok)		\
	ULSM__APR_ORDER(ns, name, args_decl, args_use)			\
	enum { ULSM__APR_P(ns, name, shape) = (retok) &&		\
	       ULSM__APR_NPARAMS_ args_decl <= 6			\
	       ULSM__WHEN(ULSM__APR_FITS_ args_decl)(ULSM__APR_EACH(	\
		ULSM__APR_PWORD, ns, name, ULSM__APR_UNPAREN args_use)) };
/* A RUN_FIRST hook's result and decline (ULSM__ARCH_APR_RUN's compare). */
# define ULSM__APR_RET_OK(ns, name, ret, decline)			\
	struct ULSM__APR_P(ns, name, rt) { ret r; };			\
	enum { ULSM__APR_P(ns, name, retok) =				\
		__builtin_classify_type(				\
			((struct ULSM__APR_P(ns, name, rt) *)0)->r) >= 1 && \
		__builtin_classify_type(				\
			((struct ULSM__APR_P(ns, name, rt) *)0)->r) <= 4 && \
		(sizeof(ret) == 1 || sizeof(ret) == 4 || sizeof(ret) == 8) && \
		__builtin_constant_p(decline) };
# define ULSM__APR_DECLINE(decline)					\
	__builtin_choose_expr(__builtin_constant_p(decline),		\
			      (long long)(decline), 0LL)

/* The key references of the body's sites, and APR's walks it ends in. */
# define ULSM__APR_CREF(i, ns, name)	&ULSM__APR_P(ns, name, calls)[i],
# define ULSM__APR_KREF(i, ns, name)	&ULSM__APR_P(ns, name, tail)[i].key,
# define ULSM__APR_TRAMP_STR(ns, name, i)				\
	ULSM__STR(ULSM__SC_LOCAL(ULSM__APR_SC(ns, name, i)))
# define ULSM__APR_TREF(i, ns, name)	&ULSM__APR_P(ns, name, tcalls)[i],
# define ULSM__APR_TTRAMP_STR(ns, name, i)				\
	ULSM__STR(ULSM__SC_LOCAL(ULSM__APR_TSC(ns, name, i)))
# define ULSM__APR_BODY_PARTS(ns, name, ret, args_decl, CALL, END)	\
	static const void *const ULSM__APR_P(ns, name, crefs)[ULSM_APR_SLOTS] \
		__attribute__((used)) = {				\
		UNROLL(ULSM_APR_SLOTS, ULSM__APR_CREF, ns, name)	\
	};								\
	static const void *const ULSM__APR_P(ns, name, krefs)[ULSM_APR_SLOTS + 1] \
		__attribute__((used)) = {				\
		UNROLL(ULSM_APR_SLOTS, ULSM__APR_KREF, ns, name)	\
		&ULSM__APR_P(ns, name, direct).key			\
	};								\
	static const void *const ULSM__APR_P(ns, name, trefs)[ULSM_APR_SLOTS] \
		__attribute__((used)) = {				\
		UNROLL(ULSM_APR_SLOTS, ULSM__APR_TREF, ns, name)	\
	};								\
	ULSM__APR_WALK_FN(ns, name, walk, (noinline), (void)0, 0, ret,	\
			  args_decl, CALL, END)				\
	ULSM__APR_WALK_FN(ns, name, rest, (noinline), (void)0,		\
			  ULSM_APR_SLOTS, ret, args_decl, CALL, END)

# define ULSM__APR_TAIL_RUN(ns, link, ret, name, args_decl, rsize, def) \
_Pragma("GCC diagnostic push")						\
_Pragma("GCC diagnostic ignored \"-Wunused-parameter\"")		\
link##_DECLARE(ret) __attribute__((naked, aligned(64))) ns##_run_##name args_decl \
{									\
	ULSM__ARCH_APR_RUN(ULSM_APR_SLOTS, ULSM__APR_TRAMP_STR,	\
		ULSM__APR_TTRAMP_STR, ns, name,				\
		ULSM__APR_WALK_TO(ns, name), ULSM__APR_P(ns, name, tnext), \
		&_hooks.link_##name, &ULSM__APR_P(ns, name, hook).from,	\
		ULSM__APR_APR_FN(ns, name),				\
		&ULSM__SC_LOCAL(ULSM__APR_RUN_SC(ns, name)),		\
		&ULSM__APR_P(ns, name, run_ref),			\
		ULSM__APR_P(ns, name, crefs), ULSM__APR_P(ns, name, krefs), \
		ULSM__APR_P(ns, name, trefs),				\
		ULSM__APR_P(ns, name, walk), ULSM__APR_P(ns, name, rest), \
		__builtin_choose_expr(ULSM__APR_P(ns, name, shape),	\
				      ULSM__APR_P(ns, name, walk),	\
				      ULSM__APR_SLOTS_FN(ns, name)),	\
		ULSM__APR_NPARAMS_ args_decl, rsize, def,		\
		ULSM__IS_ONE(ULSM_RETURN_THUNK),			\
		ULSM__APR_P(ns, name, shape));				\
}									\
_Pragma("GCC diagnostic pop")
#endif

#undef APR_IMPLEMENT_EXTERNAL_HOOK_BASE
#define APR_IMPLEMENT_EXTERNAL_HOOK_BASE(ns,link,name)			\
	ULSM__APR_BASE(ns, link, name, 0)
#define ULSM__APR_BASE(ns,link,name,run)				\
ULSM__APR_DEFINE(ns, name, run)						\
link##_DECLARE(void) ns##_hook_##name(ns##_HOOK_##name##_t *pf,	\
				      const char * const *aszPre,	\
				      const char * const *aszSucc,	\
				      int nOrder)			\
{									\
	ns##_LINK_##name##_t *pHook;					\
									\
	if (!_hooks.link_##name) {					\
		_hooks.link_##name = apr_array_make(apr_hook_global_pool, 1, \
					sizeof(ns##_LINK_##name##_t));	\
		apr_hook_sort_register(#name, &_hooks.link_##name);	\
	}								\
	pHook = (ns##_LINK_##name##_t *)apr_array_push(_hooks.link_##name); \
	pHook->pFunc = pf;						\
	pHook->aszPredecessors = aszPre;				\
	pHook->aszSuccessors = aszSucc;					\
	pHook->nOrder = nOrder;						\
	pHook->szName = apr_hook_debug_current;				\
	if (apr_hook_debug_enabled)					\
		apr_hook_debug_show(#name, aszPre, aszSucc);		\
	ulsm_apr_hook_changed(&ULSM__APR_P(ns, name, hook));		\
}									\
APR_IMPLEMENT_HOOK_GET_PROTO(ns,link,name)				\
{									\
	return _hooks.link_##name;					\
}

#undef APR_IMPLEMENT_EXTERNAL_HOOK_VOID
#define APR_IMPLEMENT_EXTERNAL_HOOK_VOID(ns,link,name,args_decl,args_use) \
ULSM__APR_BASE(ns, link, name, 1)					\
ULSM__APR_APR_WALK(ns, name, void, args_decl,				\
		   pHook[n].pFunc args_use, return)			\
ULSM__APR_SLOTS_ATTR static void					\
ULSM__APR_SLOTS_FN(ns, name) args_decl					\
{									\
	ULSM__APR_START(ns, name)					\
	UNROLL(ULSM_APR_SLOTS, ULSM__APR_VOID_SLOT, ns, name, args_use)	\
	ULSM__APR_WALK(ns, name, pHook[n].pFunc args_use)		\
ulsm__apr_end:								\
	return;								\
}									\
ULSM__APR_VOID_RUN(ns, link, name, args_decl, args_use)

#ifdef ULSM__APR_TAIL
# define ULSM__APR_VOID_RUN(ns, link, name, args_decl, args_use)	\
	ULSM__APR_SHAPE(ns, name, args_decl, args_use, 1)		\
	ULSM__APR_BODY_PARTS(ns, name, void, args_decl,			\
			     pHook[n].pFunc args_use, return)		\
	ULSM__APR_TAIL_RUN(ns, link, void, name, args_decl, 0, 0LL)
#else
# define ULSM__APR_VOID_RUN(ns, link, name, args_decl, args_use)	\
ULSM__APR_ORDER(ns, name, args_decl, args_use)				\
link##_DECLARE(void) ns##_run_##name args_decl				\
{									\
	if (ULSM__APR_STALE(ns, name)) {				\
		ULSM__APR_APR_FN(ns, name) args_use;			\
		return;							\
	}								\
	if (static_branch_unlikely(&ULSM__APR_P(ns, name, single))) {	\
		ULSM__APR_FN(ns, name, 0) args_use;			\
		return;							\
	}								\
	ULSM__APR_SLOTS_FN(ns, name) args_use;				\
}
#endif

#undef APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL
#define APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(ns,link,ret,name,args_decl,args_use,ok,decline) \
APR_IMPLEMENT_EXTERNAL_HOOK_BASE(ns,link,name)				\
ULSM__APR_APR_WALK(ns, name, ret, args_decl,				\
		   ret rv = pHook[n].pFunc args_use;			\
		   if (rv != ok && rv != decline)			\
			return rv,					\
		   return ok)						\
ULSM__APR_SLOTS_ATTR static ret					\
ULSM__APR_SLOTS_FN(ns, name) args_decl					\
{									\
	ret rv;								\
	ULSM__APR_START(ns, name)					\
	UNROLL(ULSM_APR_SLOTS, ULSM__APR_ALL_SLOT, ns, name, args_use,	\
	       ok, decline)						\
	ULSM__APR_WALK(ns, name,					\
		rv = pHook[n].pFunc args_use;				\
		if (rv != ok && rv != decline)				\
			return rv)					\
ulsm__apr_end:								\
	return ok;							\
}									\
link##_DECLARE(ret) ns##_run_##name args_decl				\
{									\
	if (ULSM__APR_STALE(ns, name))					\
		return ULSM__APR_APR_FN(ns, name) args_use;		\
	if (static_branch_unlikely(&ULSM__APR_P(ns, name, single))) {	\
		ret rv = ULSM__APR_FN(ns, name, 0) args_use;		\
		ULSM__APR_SITE(ns, name, 0);				\
		return rv == decline ? ok : rv;				\
	}								\
	return ULSM__APR_SLOTS_FN(ns, name) args_use;			\
}

#undef APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST
#define APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(ns,link,ret,name,args_decl,args_use,decline) \
ULSM__APR_BASE(ns, link, name, 1)					\
ULSM__APR_APR_WALK(ns, name, ret, args_decl,				\
		   ret rv = pHook[n].pFunc args_use;			\
		   if (rv != decline)					\
			return rv,					\
		   return decline)					\
ULSM__APR_SLOTS_ATTR static ret					\
ULSM__APR_SLOTS_FN(ns, name) args_decl					\
{									\
	ret rv;								\
	ULSM__APR_START(ns, name)					\
	UNROLL(ULSM_APR_SLOTS, ULSM__APR_FIRST_SLOT, ns, name, args_use, \
	       decline)							\
	ULSM__APR_WALK(ns, name,					\
		rv = pHook[n].pFunc args_use;				\
		if (rv != decline)					\
			return rv)					\
ulsm__apr_end:								\
	return decline;							\
}									\
ULSM__APR_FIRST_RUN(ns, link, ret, name, args_decl, args_use, decline)

#ifdef ULSM__APR_TAIL
# define ULSM__APR_FIRST_RUN(ns, link, ret, name, args_decl, args_use,	\
			     decline)					\
	ULSM__APR_RET_OK(ns, name, ret, decline)			\
	ULSM__APR_SHAPE(ns, name, args_decl, args_use,			\
			ULSM__APR_P(ns, name, retok))			\
	ULSM__APR_BODY_PARTS(ns, name, ret, args_decl,			\
			     ret rv = pHook[n].pFunc args_use;		\
			     if (rv != decline)				\
				return rv,				\
			     return decline)				\
	ULSM__APR_TAIL_RUN(ns, link, ret, name, args_decl,		\
			   (int)sizeof(ret), ULSM__APR_DECLINE(decline))
#else
# define ULSM__APR_FIRST_RUN(ns, link, ret, name, args_decl, args_use,	\
			     decline)					\
ULSM__APR_ORDER(ns, name, args_decl, args_use)				\
link##_DECLARE(ret) ns##_run_##name args_decl				\
{									\
	if (ULSM__APR_STALE(ns, name))					\
		return ULSM__APR_APR_FN(ns, name) args_use;		\
	ULSM__APR_SINGLE(ns, name, args_use)				\
	return ULSM__APR_SLOTS_FN(ns, name) args_use;			\
}
#endif

#endif /* !APR_HOOK_PROBES_ENABLED */

#endif /* ULSM_APR_HOOKS_H */
