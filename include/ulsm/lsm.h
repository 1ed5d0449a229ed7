/* SPDX-License-Identifier: MIT */
/*
 * ulsm/lsm.h - the hook framework's run-time side: modules, order, slots,
 * blobs, sealing, introspection.
 *
 * This is the kernel's LSM framework (security/security.c after "lsm:
 * replace indirect LSM hook calls with static calls") for user space. An
 * application lists its hooks once, in the kernel's X-macro form, and
 * <ulsm/lsm_hooks.h> turns the list into a *hook set*: per hook, a table of
 * MAX_LSM_COUNT slots, each a static call guarded by a static key, and
 * typed dispatch (call_int_hook, call_void_hook, lsm_for_each_hook): on
 * x86-64 a patched entry per hook, elsewhere an unrolled walk
 * (<ulsm/lsm_hooks.h>). Modules (DEFINE_LSM) fill the slots in module
 * order when the set is initialised with an order string (the kernel's
 * lsm=), and in their place when they arrive later, from a plug-in
 * (docs/hook-framework.md, "Modules that come and go").
 *
 * The kernel's rules kept here:
 *   - order: modules marked LSM_ORDER_FIRST, then the order string (from
 *     the call, else $ULSM_LSM, else the set's built-in default), then
 *     modules marked LSM_ORDER_LAST; unknown names and duplicates ignored
 *     (reported with ULSM_DEBUG=1); modules not listed stay off; only the
 *     first exclusive module that comes up is kept (one whose init fails
 *     keeps no other out);
 *   - a module's hooks go to the first free slot of each hook, so slot
 *     order is module order; a module that does not fit is refused whole
 *     (-ENOSPC) and nothing of it is registered;
 *   - blob sizes become offsets into one allocation per object type;
 *   - after ulsm_lsm_seal() the tables and slot keys are read-only
 *     (mprotect, and mseal where the kernel has it).
 * A set's slot and tail keys are the framework's from ulsm_lsm_init() on,
 * and its slot calls from ulsm_lsm_seal() on: the public update functions
 * (static_branch_enable(), static_call_update(), ...) refuse them with
 * -EPERM before any write (docs/hook-framework.md).
 * Beyond the kernel: "!name" removes a module from the order; several
 * independent sets per process; modules in shared objects loaded before
 * initialisation; a run-time toggle of one module's slots (opt in before
 * sealing with ulsm_lsm_allow_toggle()).
 *
 * See examples/lsm_demo/ for a complete host program with three modules.
 */
#ifndef ULSM_LSM_H
#define ULSM_LSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ulsm/compiler.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/unroll.h>

ULSM__EXTERN_C_BEGIN

/* The kernel's LSM_RET_VOID: the DEFAULT of hooks that return nothing. */
#define LSM_RET_VOID	((void)0)

enum lsm_order {
	LSM_ORDER_FIRST = -1,	/* before the order string, always on */
	LSM_ORDER_MUTABLE = 0,	/* placed by the order string */
	LSM_ORDER_LAST = 1,	/* after the order string, always on */
};

#define LSM_FLAG_LEGACY_MAJOR	(1UL << 0)
#define LSM_FLAG_EXCLUSIVE	(1UL << 1)

/* The kernel's struct lsm_id: a module's name and numeric id. */
struct lsm_id {
	const char *name;
	uint64_t id;
};

/*
 * Blob sizes a module asks for; at initialisation each becomes the
 * module's offset into the shared blob of that object type. A total is at
 * most INT_MAX: a module whose requests would pass it, or that asks for a
 * negative size, is refused whole (it stays off; ulsm_lsm_init).
 */
enum ulsm_blob_type {
	ULSM_BLOB_CRED,
	ULSM_BLOB_FILE,
	ULSM_BLOB_INODE,
	ULSM_BLOB_TASK,
	ULSM_BLOB_TYPES
};

/* The most object types a set may declare (ULSM_LSM_BLOB_DEFS). */
#define ULSM_BLOB_TYPES_MAX	16

struct lsm_blob_sizes {
	int lbs_cred;
	int lbs_file;
	int lbs_inode;
	int lbs_task;
};

struct security_hook_list;

/* One slot: a static call and the static key that guards it. */
struct lsm_static_call {
	struct static_call_key *key;
	void *trampoline;
	struct security_hook_list *hl;
	struct static_key_false *active;
};

/*
 * A module's hook, untyped; <ulsm/lsm_hooks.h> defines a typed twin with
 * the same layout for each set (LSM_HOOK_INIT fills it).
 */
struct security_hook_list {
	struct lsm_static_call *scalls;
	union {
		void *lsm_callback;
	} hook;
	const struct lsm_id *lsmid;
};

struct ulsm_hook_set;

/*
 * A hook's entry: the function that dispatches the hook (call_int_hook and
 * call_void_hook call it), emitted as assembly by <ulsm/lsm_hooks.h> in the
 * set's defining unit on back ends that have one (x86-64), and patched by
 * the library as the hook's slots change (docs/hook-framework.md,
 * "Dispatch"). One per hook, in the set's sealed pages.
 * @set:      the set
 * @map:      NULL if the hook has no entry (dispatched by the unrolled C
 *            walk); else where the entry's sites and stubs are, as offsets
 *            each relative to its own element (ULSM__HOOK_MAP_*)
 * @hook:     the hook's index in the set
 * @ret_size: 0 for a void hook, else sizeof the return type
 * @def:      the hook's DEFAULT, converted to its return type
 */
struct ulsm_hook_entry {
	struct ulsm_hook_set *set;
	const int32_t *map;
	unsigned int hook;
	int ret_size;
	long long def;
	void *traced;			/* the hook's traced walk (R jumps
					   there while its trace key is on) */
	struct static_key_false *trace_key;
};

/*
 * The map of an entry: the return site (the first instruction after the
 * entry's constant prologue), the return thunk the entry returns through
 * (0: a plain return), then per slot i the slot's switch site X, its call
 * site C, the end of the slot N (where X skips to), the slot's indirect
 * stub I (calls through the slot's key, or returns DEFAULT for NULL) and
 * the emulation stub M (makes the call of C through I, then continues after
 * C). Internal to the library and the arch headers.
 */
#define ULSM__HOOK_MAP_RET	0
#define ULSM__HOOK_MAP_THUNK	1
#define ULSM__HOOK_MAP_SLOT	2	/* slot i's five start at 2 + 5 * i */
#define ULSM__HOOK_MAP_PER_SLOT	5
enum { ULSM__HOOK_MAP_X, ULSM__HOOK_MAP_C, ULSM__HOOK_MAP_N, ULSM__HOOK_MAP_I,
       ULSM__HOOK_MAP_M };

/* The kernel's struct lsm_info, plus the set it belongs to. */
struct lsm_info {
	const char *name;
	enum lsm_order order;
	unsigned long flags;
	int *enabled;			/* NULL: on when listed */
	int (*init)(void);
	void *blobs;			/* struct lsm_blob_sizes, or the
					   set's struct S_blob_sizes */
	const struct lsm_id *id;	/* for introspection and toggling */
	/* filled by the framework */
	struct ulsm_hook_set *set;
	struct lsm_info *next;
	int ulsm_state;
};

/*
 * A slot's guard (a set that allows unloading, for a hook that has an
 * entry): what a module whose object may be unmapped is called through,
 * so that only such modules pay for the read-side section. @fn, the
 * guard, enters a section and makes the static call @inner, which aims
 * at the module's callback, or at @dflt (the hook's default, doing
 * nothing else) once the module is leaving. NULL @fn: the slot has no
 * guard (its hook is dispatched inside a section, by the C walk).
 */
struct ulsm_hook_guard {
	void *fn;
	struct static_call_key *inner;
	void *inner_tramp;
	void *dflt;
};

struct ulsm_tracepoint;

/*
 * Per-set description, emitted by <ulsm/lsm_hooks.h> (ULSM_LSM_DEFINE).
 * @size: sizeof(struct ulsm_hook_set) in the defining unit: a later
 *        library reads no field past it (docs/abi.md)
 */
struct ulsm_hook_set {
	unsigned int size;
	const char *name;
	struct lsm_static_call *table;	/* nhooks * slots, hook-major */
	size_t nhooks;
	unsigned int slots;
	const char *const *hook_names;
	void *sealed;			/* table and slot calls' keys */
	size_t sealed_size;
	void *keys;			/* the slots' and tails' static keys */
	size_t keys_size;
	struct static_key_true *tails;	/* nhooks * slots, hook-major */
	const char *builtin_order;	/* NULL: every module, as defined */
	struct ulsm_lsm_state *state;	/* private */
	const struct ulsm_hook_entry *entries;	/* nhooks; NULL: no entries */
	const char *signature;		/* the hook list, as text */
	int unloadable;			/* ULSM_LSM_UNLOADABLE */
	unsigned int nblobs;		/* 0: the kernel's four types */
	const char *const *blob_names;	/* nblobs names */
	const struct ulsm_hook_guard *guards;	/* nhooks * slots; NULL: none */
	/*
	 * Tracing the dispatch (docs/hook-framework.md, "Tracing the
	 * dispatch"): a key per hook, on while it is traced (never sealed);
	 * the calls and refusals of each slot while traced, two counters a
	 * slot, hook-major; and the set's tracepoint, lsm_hook_<set>.
	 */
	struct static_key_false *trace_keys;	/* nhooks */
	size_t trace_keys_size;
	unsigned long *trace_counts;		/* nhooks * slots * 2 */
	struct ulsm_tracepoint *tracepoint;
};

/**
 * ulsm_lsm_register - make a module known (DEFINE_LSM does it)
 * @info: the module
 * @set:  the hook set it belongs to
 *
 * Before ulsm_lsm_init() the module waits for it; after it (a plug-in's
 * constructor), it comes up at once in its place in the order, or stays
 * off with its reason (ulsm_lsm_module_reason()).
 *
 * Return: 0 (also for a late module that stays off: see its reason),
 * -EINVAL, -ENOMEM, -EPROTO (compiled with another hook list than the
 * set), -EEXIST (a late module of a name the set has), or the error of a
 * late module that could not come up (-EPERM: the set is sealed to
 * plug-ins; -EBUSY, -ENOSPC, or its init's).
 */
int ulsm_lsm_register(struct lsm_info *info, struct ulsm_hook_set *set);

/*
 * What DEFINE_LSM calls: ulsm_lsm_register(), with the hook list the
 * module's unit was compiled with (its set's signature). A module compiled
 * against another hook list than the set's defining unit is refused with
 * -EPROTO, and the reason is printed (and kept: ulsm_lsm_module_reason).
 */
int ulsm__lsm_register(struct lsm_info *info, struct ulsm_hook_set *set,
		       const char *signature);

/*
 * What DEFINE_LSM's destructor calls when the module's object is unloaded
 * (dlclose, or exit): the module leaves its set first
 * (docs/hook-framework.md, "Modules that come and go"). Returns only when
 * no thread is, or will be, in the module's code.
 */
void ulsm__lsm_unregister(struct lsm_info *info);

/**
 * ulsm_lsm_init - order the modules, lay out blobs, run their init
 * @set:   the hook set
 * @order: comma-separated module names (the kernel's lsm=), "!name" to
 *         drop one; NULL: $ULSM_LSM, else the set's built-in order. An
 *         order of removals only ("!audit") means the default order (the
 *         built-in one, else every module) minus those. Blanks (space,
 *         tab) around a name, and between "!" and the name, are not part
 *         of it: " ! audit " removes audit. Empty entries are ignored.
 *         Parsing is linear in the length of @order.
 *
 * A module whose init fails, or whose hooks do not fit, stays off; the
 * others are initialised regardless (as in the kernel): ask
 * ulsm_lsm_module_active() or ulsm_lsm_list() what came up. So does a
 * module whose blob sizes would take a total past INT_MAX, or are
 * negative: none of its sizes becomes an offset, the others' offsets are
 * as if it had not asked, and ULSM_DEBUG=1 says why (-EOVERFLOW, -EINVAL).
 * From here on, static_branch_*() and static_key_*() refuse the set's
 * slot and tail keys (-EPERM): use ulsm_lsm_toggle().
 * Return: 0, -EALREADY if already initialised, -ENOMEM (then nothing
 * changed: no module was initialised, and the call may be retried), or
 * -ENOSPC (more than 64 hook sets in the process; nothing changed).
 */
int ulsm_lsm_init(struct ulsm_hook_set *set, const char *order);

/**
 * ulsm_security_add_hooks - register a module's hooks (security_add_hooks)
 * @set:   the hook set
 * @hooks: the module's hooks (LSM_HOOK_INIT)
 * @count: how many
 * @lsmid: the module's id
 *
 * Each hook goes to the first free slot of its hook; all of them are
 * patched in one batch. Return: 0, -ENOSPC (a hook has no free slot:
 * nothing registered), -EPERM (sealed), -EINVAL, or a patching error.
 */
int ulsm_security_add_hooks(struct ulsm_hook_set *set,
			    struct security_hook_list *hooks, int count,
			    const struct lsm_id *lsmid);

/**
 * ulsm_lsm_seal - make the set's tables and slot keys read-only
 * @set: the hook set
 *
 * Uses mprotect(PROT_READ), then mseal() where the kernel has it. After
 * this, registration returns -EPERM, static_call_update() of a slot call
 * returns -EPERM (before any write), and a write to the tables faults.
 * The slot keys stay writable if ulsm_lsm_allow_toggle() was called, for
 * ulsm_lsm_toggle() alone. All or nothing: if a protection fails, what was
 * done is undone and the set is not sealed; only if that undo fails too
 * does the set, half read-only, count as sealed, so that nothing writes
 * to it (the error is still returned).
 * Return: 0, -EALREADY, -ENOSPC (more than 64 hook sets), or a negative
 * errno from mprotect.
 */
int ulsm_lsm_seal(struct ulsm_hook_set *set);

/**
 * ulsm_lsm_allow_toggle - opt in to run-time toggling (before sealing)
 * @set: the hook set
 *
 * Return: 0 or -EPERM (already sealed).
 */
int ulsm_lsm_allow_toggle(struct ulsm_hook_set *set);

/**
 * ulsm_lsm_allow_plugins - opt in to modules that arrive after sealing
 * @set: the hook set
 *
 * A sealed set refuses a module that arrives later, and pins the objects
 * of its modules. One opened to plug-ins before sealing goes on taking
 * and releasing modules once sealed, so its memory stays writable: the
 * module that arrives or leaves writes its slots' calls, keys and
 * owners. Sealing it then closes the public update API (its keys and slot
 * calls, -EPERM), registration outside a module's arrival, and the
 * opt-ins; it protects no memory (docs/hook-framework.md).
 * Return: 0 or -EPERM (already sealed).
 */
int ulsm_lsm_allow_plugins(struct ulsm_hook_set *set);

/**
 * ulsm_lsm_trace - trace the set's dispatch, or stop tracing it
 * @set: an initialised hook set (sealed or not)
 * @on:  true: one more holder of the tracing; false: one fewer
 *
 * While traced (by any holder, or for a USDT tracer at the set's
 * tracepoint), each hook of the set is dispatched by its traced walk:
 * the same modules in the same order with the same results, each
 * module's call timed, counted, and reported to the set's tracepoint,
 * lsm_hook_<set> (hook, module, its result as a long, the nanoseconds it
 * took, whether it decided: the walk stopped there). Record it
 * (ulsm_trace_enable("lsm_hook_myset")), or attach a probe, perf or
 * bpftrace to it. Turning it on or off is one transaction, while threads
 * dispatch; off, dispatch costs what it did (docs/hook-framework.md,
 * "Tracing the dispatch").
 * Return: 0, or a negative errno (nothing changed): -ENOENT (the set is
 * not initialised), -EINVAL (off without a holder), or the update's.
 */
int ulsm_lsm_trace(struct ulsm_hook_set *set, bool on);

/**
 * ulsm_lsm_toggle - turn one module's slots off or on, as one batch
 * @set:    the hook set
 * @name:   the module's name
 * @enable: on or off
 *
 * Safe while other threads dispatch: a dispatcher sees each slot on or
 * off, never a half-patched slot; the callbacks stay in place. While off,
 * the module misses every hook, its alloc hooks included: objects created
 * meanwhile carry a zeroed part of the blob for it. ulsm_lsm_list() does
 * not name it while it is off; ulsm_lsm_module_active() still counts it.
 * Return: 0, -ENOENT (no such active module), -EPERM (not allowed), or a
 * patching error.
 */
int ulsm_lsm_toggle(struct ulsm_hook_set *set, const char *name, bool enable);

/**
 * ulsm_lsm_list - the active modules in order, comma-separated
 * @set: the hook set
 *
 * What /sys/kernel/security/lsm shows, less the modules toggled off
 * (ulsm_lsm_toggle). Return: a string owned by the set, valid and
 * unchanged for the set's whole life (modules that come and go later do
 * not touch it: call again for the list of then).
 */
const char *ulsm_lsm_list(struct ulsm_hook_set *set);

/**
 * ulsm_lsm_module_active - did a module come up?
 * @set:  the hook set
 * @name: the module's name
 *
 * A module toggled off by ulsm_lsm_toggle() is still active (its
 * callbacks keep their slots). Return: 1, 0 (off, failed, not listed,
 * or refused at registration: ulsm_lsm_module_reason() says why),
 * -ENOENT (no such module) or -EINVAL.
 */
int ulsm_lsm_module_active(struct ulsm_hook_set *set, const char *name);

/**
 * ulsm_lsm_module_reason - why is a module not active?
 * @set:  the hook set
 * @name: the module's name
 *
 * The set keeps a note for each module that is not active, whatever the
 * reason: not listed in the order, removed ("!name"), disabled, an
 * exclusive module already on, its blob sizes, its init failing (with its
 * error), or refused at registration (compiled against another hook list,
 * registered after ulsm_lsm_init()). Those that could not come up are
 * also printed on standard error when it happens, without ULSM_DEBUG; the
 * host's own choices (not listed, removed, disabled) only with it.
 * Return: the reason, a string owned by the set that stays valid until
 * the module's state changes; NULL if the module is active or unknown.
 */
const char *ulsm_lsm_module_reason(struct ulsm_hook_set *set,
				   const char *name);

/**
 * ulsm_lsm_slot_owner - which module sits in a slot
 * @set:  the hook set
 * @hook: the hook's name
 * @slot: 0 .. MAX_LSM_COUNT - 1
 *
 * Return: the module's lsm_id, or NULL (empty slot, unknown hook).
 */
const struct lsm_id *ulsm_lsm_slot_owner(struct ulsm_hook_set *set,
					 const char *hook, unsigned int slot);

/**
 * ulsm_lsm_blob_size - total blob size of an object type
 * @set:  the hook set
 * @type: an enum ulsm_blob_type, or the set's S_blob_NAME when it declares
 *        its own types (ULSM_LSM_BLOB_DEFS, <ulsm/lsm_hooks.h>)
 *
 * Return: the size in bytes, 0 to INT_MAX (0 if no module asked), or
 * -EINVAL (also for a type the set does not have).
 */
int ulsm_lsm_blob_size(struct ulsm_hook_set *set, int type);

/**
 * ulsm_lsm_blob_alloc - allocate a zeroed blob of an object type
 * @set:  the hook set
 * @type: an enum ulsm_blob_type
 * @blob: set to the blob (NULL when the size is 0)
 *
 * Return: 0, -ENOMEM or -EINVAL.
 */
int ulsm_lsm_blob_alloc(struct ulsm_hook_set *set, int type, void **blob);

/* ulsm_lsm_blob_free - free a blob and clear the pointer */
void ulsm_lsm_blob_free(void **blob);

/*
 * DEFINE_LSM(name) = { .name = "...", .init = ..., ... };
 *
 * Declares the module and registers it with the set named by
 * ULSM_LSM_SET (define it, or use DEFINE_LSM_IN(set, name)) from a
 * constructor, before main().
 */
#define DEFINE_LSM_IN(set, lsm)						\
	static struct lsm_info __lsm_##lsm;				\
	__attribute__((constructor)) static void __lsm_ctor_##lsm(void)	\
	{								\
		ulsm__lsm_register(&__lsm_##lsm, &ULSM__CAT(set, _hook_set), \
				   ULSM__CAT(set, _lsm_signature));	\
	}								\
	__attribute__((destructor)) static void __lsm_dtor_##lsm(void)	\
	{								\
		ulsm__lsm_unregister(&__lsm_##lsm);			\
	}								\
	static struct lsm_info __lsm_##lsm
#define DEFINE_LSM(lsm)		DEFINE_LSM_IN(ULSM_LSM_SET, lsm)

ULSM__EXTERN_C_END

#endif /* ULSM_LSM_H */
