/* SPDX-License-Identifier: MIT */
/*
 * src/lsm/lsm_internal.h - what the hook framework's files share. Never
 * installed.
 *
 * The hook framework's run-time side is the kernel's security/security.c
 * (after "lsm: replace indirect LSM hook calls with static calls"), for
 * user space and for several independent sets, one job per file:
 *
 *   state.c     the framework lock, each set's private state, modules
 *               by name
 *   order.c     registration, module order, ulsm_lsm_init(), and the
 *               one bring-up of a module, at init or when it arrives
 *   blobs.c     blob sizes and blob allocation
 *   slots.c     the slot plan and filling slots with a module's hooks
 *   dispatch.c  the hooks' entries: their sites (a kind of site that
 *               follows the slots' static calls), derived from the slots
 *   seal.c      sealing, the opt-in to toggling before it, and claiming
 *               the keys the public update API must leave alone
 *   toggle.c    turning one module's slots off and on
 *   query.c     introspection
 *   notes.c     why a module is not active, kept and reported
 *   place.c     places in the order, and the slot a module's hook gets
 *   pin.c       keeping the objects of modules that may not leave
 *   plugins.c   modules that leave on dlclose
 *
 * The framework is a client of static keys and calls (src/static/static.h)
 * and, through them, of the engine: it adds their changes to one
 * transaction per change of slots, defines one kind of site (the hooks'
 * entries), and claims its keys so that the public update functions
 * refuse them.
 *
 * Locking: one recursive mutex for the framework's state, because a
 * module's init (called by ulsm_lsm_init with the mutex held) registers its
 * hooks; the patch lock is taken only around the transaction that
 * changes slots.
 *
 * Every function here has hidden visibility, as in src/base/base.h.
 */
#ifndef ULSM_SRC_LSM_INTERNAL_H
#define ULSM_SRC_LSM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/hook_sets.h"
#include "static/static.h"

#include <ulsm/grace.h>
#include <ulsm/lsm.h>

enum module_state {
	MOD_REGISTERED,		/* known, not (yet) ordered */
	MOD_OFF,		/* not listed, removed, disabled, excluded,
				   or its set is sealed */
	MOD_ORDERED,		/* in the order, about to come up */
	MOD_ACTIVE,		/* initialised */
	MOD_FAILED,		/* its blobs, its place or its init failed */
};

/*
 * A place in the set's order (docs/hook-framework.md, "Placement"): the
 * modules ordered at initialisation, the names the order lists that were
 * not registered then (kept for modules that arrive later), and the late
 * modules the default order appends. Keys compare by class, then index.
 */
enum { POS_FIRST, POS_LISTED, POS_LAST, POS_REMOVED };

struct lsm_position {
	char *name;			/* a copy */
	int cls;
	long idx;
};

struct ulsm_lsm_state {
	bool initialised, sealed, toggle_allowed;
	bool explicit_order;		/* an order lists the modules */
	bool plugins_allowed;		/* late modules even once sealed */
	bool arriving;			/* a module's init runs (bring-up) */
	bool blobs_fixed;		/* init is over: no more blob space */
	bool exiting;			/* exit() has begun */
	bool traced;			/* its dispatch is traced (trace.c) */
	unsigned int trace_holders;	/* recordings and counts that want it */
	struct lsm_position *pos;	/* in order of keys */
	size_t npos, cappos;
	struct lsm_info *modules;	/* registration order */
	struct lsm_info **ordered;
	size_t nordered;
	int blob_sizes[ULSM_BLOB_TYPES_MAX];
	char no_room[200];		/* why the last slot choice failed */
	char *list;			/* active modules, comma-separated */
	char **shown;			/* every list ulsm_lsm_list() gave */
	size_t nshown;
	struct ulsm_lsm_note *notes;	/* why modules are not active */
	char **texts;			/* every note's text, kept (notes.c) */
	size_t ntexts;
};

/* --- the framework lock and state (state.c) -------------------- */

void ulsm_lsm_lock(void);
/* Its fork handlers, which src/init.c calls in the lock order. */
void ulsm_lsm_fork_prepare(void);
void ulsm_lsm_fork_parent(void);
void ulsm_lsm_fork_child(void);
void ulsm_lsm_unlock(void);
/* The framework lock if it is free now: 0 or -EBUSY (dump at exit). */
int ulsm_lsm_trylock(void);
/* The initialised sets, up to @max of them into @out; how many there are. */
size_t ulsm_lsm_sets(struct ulsm_hook_set **out, size_t max);

/* 0, or -EPROTO: @set's record is from headers this library cannot read. */
int ulsm_lsm_set_check(const struct ulsm_hook_set *set);

/* @set's state, allocated on first use; NULL if that fails. Lock held. */
struct ulsm_lsm_state *ulsm_lsm_state_of(struct ulsm_hook_set *set);

/* The module of @st named by the @len bytes at @name, or NULL. Lock held. */
struct lsm_info *ulsm_lsm_find_module(struct ulsm_lsm_state *st,
				      const char *name, size_t len);
/* The exclusive module of @st that is up, or NULL. Lock held. */
struct lsm_info *ulsm_lsm_exclusive_on(struct ulsm_lsm_state *st);

/* --- the order (order.c) --------------------------------------------- */

/*
 * Decide @st's order from the order string @order (NULL: the built-in
 * one), @origin naming it in messages: st->ordered, each module's state,
 * the places kept. ulsm_lsm_init()'s parser, apart so that it can be
 * fuzzed on a scratch state (tests/fuzz/fuzz_order.c). 0 or -ENOMEM
 * (nothing changed). Lock held.
 */
int ulsm_lsm_order_decide(struct ulsm_hook_set *set, struct ulsm_lsm_state *st,
			  const char *order, const char *origin);

/* --- introspection (query.c), for the dump and the control endpoint -- */

/* A module's state, as a word ("active", "failed", ...). */
const char *ulsm_lsm_state_name(int state);

/*
 * For the table of src/base/hook_sets.h (its structs, and what each does),
 * which ulsm_lsm_claim() registers for the control endpoint; its each_set
 * is seal.c's own, beside the table of claimed sets it walks.
 */
void ulsm_lsm_each_module(struct ulsm_hook_set *set,
			  void (*fn)(void *arg,
				     const struct ulsm_lsm_module_info *),
			  void *arg);
int ulsm_lsm_toggle_report(struct ulsm_hook_set *set, const char *name,
			   bool enable,
			   void (*fn)(void *arg,
				      const struct ulsm_lsm_module_info *),
			   void *arg);
/* Each entry's R site as tracing @on asks, in @b (dispatch.c). */
int ulsm_lsm_plan_queue_trace(struct ulsm_hook_set *set, bool on,
			      struct ulsm_txn *b);

/*
 * Tracing a set's dispatch (trace.c): wanted while a recording or a count
 * holds it (@on: one more holder; off: one fewer), or a USDT tracer
 * listens at the set's tracepoint; ulsm_lsm_trace_sync() looks at every
 * set's semaphore. 0 or a negative errno (nothing changed).
 */
int ulsm_lsm_trace_sync_set(struct ulsm_hook_set *set);
/* Each module's calls and refusals while traced; framework lock taken. */
void ulsm_lsm_trace_counts(struct ulsm_hook_set *set,
			   void (*fn)(void *arg, const char *module,
				      unsigned long calls,
				      unsigned long refusals),
			   void *arg);

/*
 * Try again the departures of modules that could not leave when their
 * object was unloaded (plugins.c): 0 when none is left waiting, or the
 * error of the first that still cannot leave.
 */
int ulsm_lsm_finish_departures(void);
/* The child of fork(): no thread tries them (plugins.c). */
void ulsm_lsm_leaving_fork_child(void);

/* Modules the order lists that are not loaded (a plug-in to come). */
void ulsm_lsm_each_expected(struct ulsm_hook_set *set,
			    void (*fn)(void *arg, const char *name), void *arg);
/* @name's place in the order, from 1; 0: none (place.c). */
int ulsm_lsm_place_of(struct ulsm_lsm_state *st, const char *name);
/* The set's list of modules, made anew (place.c). Framework lock held. */
void ulsm_lsm_list_refresh(struct ulsm_hook_set *set);
/*
 * @text, kept for the set's life in *@texts (*@n of them): the copy
 * already kept if one is the same, else a new one; NULL without memory.
 * Framework lock held (state.c).
 */
const char *ulsm_lsm_keep_text(char ***texts, size_t *n, const char *text);
/* Whether slot @s is owned by the module named @name (state.c). */
bool ulsm_lsm_slot_owned_by(const struct lsm_static_call *s,
			    const char *name);
/* Whether @m owns a slot of @set (one that is on, if @on) (state.c). */
bool ulsm_lsm_module_owns(const struct ulsm_hook_set *set,
			  const struct lsm_info *m, bool on);
/* Active module @m toggled off: it owns slots, none on (state.c). */
bool ulsm_lsm_module_toggled_off(const struct ulsm_hook_set *set,
				 const struct lsm_info *m);

/* What the table says of module @m of @set. Framework lock held. */
void ulsm_lsm_module_info(struct ulsm_hook_set *set, struct lsm_info *m,
			  struct ulsm_lsm_module_info *info);

/* --- notes (notes.c) ------------------------------------------------- */

/*
 * Record why module @name of @set is not active (a copy, kept by the set),
 * replacing an earlier note; print it on standard error if @loud (the
 * module could not come up) or ULSM_DEBUG is set. Framework lock held.
 */
void ulsm_lsm_note(struct ulsm_hook_set *set, const char *name, bool loud,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ulsm_lsm_note_clear(struct ulsm_hook_set *set, const char *name);
/* The note of @name, or NULL. Framework lock held. */
const char *ulsm_lsm_note_of(struct ulsm_lsm_state *st, const char *name);

/* --- placement (place.c), pinning (pin.c), arrival and departure ------ */

/* Add a place for @name (copied) at the end of class @cls. Lock held. */
int ulsm_lsm_position_add(struct ulsm_lsm_state *st, const char *name,
			  size_t len, int cls);
/* Forget the place @p (a pointer into @st's places). Lock held. */
void ulsm_lsm_position_drop(struct ulsm_lsm_state *st,
			    const struct lsm_position *p);
/* @name's place, or NULL. Lock held. */
const struct lsm_position *ulsm_lsm_position_of(struct ulsm_lsm_state *st,
						const char *name);
/*
 * The slot of @hook (its first slot, @scalls) for the module at @p (NULL:
 * a module with no place, which goes after every other), given the slots
 * @planned already chosen for it in this registration: see
 * docs/hook-framework.md, "Placement". -1 if it has no room in its place,
 * and then @set's no_room says why (which slots hold the modules around
 * its place, and whether the hook is full). Lock held.
 */
int ulsm_lsm_choose_slot(struct ulsm_hook_set *set,
			 const struct lsm_position *p,
			 const struct lsm_static_call *scalls,
			 struct lsm_static_call *const *planned, int nplanned);
/*
 * The active modules in place order, comma-separated: into @s, which has
 * room for every module's name and a separator (list_write), or into a
 * new string (list_build, NULL without memory).
 */
void ulsm_lsm_list_write(struct ulsm_hook_set *set, char *s);
char *ulsm_lsm_list_build(struct ulsm_hook_set *set);
/*
 * One transaction: every slot of module @name on or off (the toggle's,
 * and a departure's first step), and its slots' guards aimed at the
 * hook's default while off (the plan does it for every slot it leaves
 * off), so that a thread still on its way to one when the grace period
 * ends does not enter the module.
 */
int ulsm_lsm_switch_module(struct ulsm_hook_set *set, const char *name,
			   bool on);
/*
 * The objects a registration or an init keeps loaded for good, in a set
 * that does not allow unloading (src/lsm/pin.c): held before the
 * framework's lock, marked under it as their modules come up, the rest
 * dropped after it. With unloading allowed, all of it does nothing.
 */
struct ulsm_lsm_pins {
	struct ulsm_hold *h;		/* one per object, held */
	bool *keep;			/* h[i]'s reference kept for good */
	size_t n;
	struct lsm_info **late;		/* up with no hold: pinned after */
	size_t nlate, cap;
};
/*
 * Without the framework's lock: hold the objects that hold @addrs, one
 * reference per object, into @h (room for @n); how many entries it
 * filled. An object the dynamic linker will not hold gets an entry that
 * holds and covers nothing (said, with @refused, unless NULL).
 */
size_t ulsm_lsm_hold_objects(struct ulsm_hook_set *set, struct ulsm_hold *h,
			     const void *const *addrs, size_t n,
			     const char *refused);
/* Before the lock: hold the objects of @mods; 0 or -ENOMEM (none held). */
int ulsm_lsm_pins_hold(struct ulsm_hook_set *set, struct ulsm_lsm_pins *p,
		       const void *const *mods, size_t n);
/* Room for @n modules that came up with no hold: 0 or -ENOMEM. */
int ulsm_lsm_pins_room(struct ulsm_hook_set *set, struct ulsm_lsm_pins *p,
		       size_t n);
/* Lock held: @m came up, its object stays. */
void ulsm_lsm_pin_object(struct ulsm_hook_set *set, struct ulsm_lsm_pins *p,
			 struct lsm_info *m);
/* After the lock: pin the late ones, drop the references not kept. */
void ulsm_lsm_pins_finish(struct ulsm_hook_set *set, struct ulsm_lsm_pins *p);
/*
 * Keep @m's object mapped for good once its dlclose has begun (mseal of
 * its segments): 0, or the seal's negative errno with nothing sealed.
 */
int ulsm_lsm_keep_mapped(const struct lsm_info *m);
/* How long a departure tries a failing step again (1000 ms; tests). */
extern unsigned int ulsm_lsm_depart_ms;
/* From ulsm_lsm_init(): the end of exit() is told apart from dlclose(). */
void ulsm_lsm_watch_exit(struct ulsm_hook_set *set);

/* --- blobs (blobs.c) ------------------------------------------- */

/*
 * Turn @m's blob requests into offsets, growing @st's sizes. Lock held.
 * Return 0, or -EOVERFLOW (a total would pass INT_MAX) or -EINVAL (a
 * negative request) with nothing changed, explained by ulsm_error().
 */
int ulsm_lsm_prepare_blobs(struct ulsm_lsm_state *st, struct lsm_info *m);
/*
 * The first of @set's blob types @m asks room for (a request that is not
 * 0), or -1: @m's requests read as @set's own types, one int each.
 */
int ulsm_lsm_blob_asked(const struct ulsm_hook_set *set,
			const struct lsm_info *m);
/* How many blob types @set has, and the name of one. */
int ulsm_lsm_blob_types(const struct ulsm_hook_set *set);
const char *ulsm_lsm_blob_name(const struct ulsm_hook_set *set, int type);

/* --- sealing, and the keys the public API must leave alone (seal.c) -- */

/*
 * Claim @set's slot and tail keys (ulsm_key_claim): from now on the public
 * update functions refuse them, and once it is sealed its slot calls
 * (ulsm_call_claim). Idempotent. Framework lock held (it takes the patch
 * lock). Return 0, -ENOSPC (too many sets) or -EDEADLK.
 */
int ulsm_lsm_claim(struct ulsm_hook_set *set);

/* --- the slot plan (slots.c) ----------------------------------- */

/*
 * A change to a set's slots, planned before it is added to a
 * transaction: @on holds every slot's key as it will be after it, @tail
 * every tail key, and @fn and @hl the slots' new targets and owners
 * (NULL arrays, or a NULL @fn entry: unchanged). Tail key i of a hook is
 * on while slots i and after of that hook are all off: the unrolled C
 * walk (<ulsm/lsm_hooks.h>) ends there with one jmp. A hook with an entry
 * has its entry's sites derived from @on and the targets (dispatch.c).
 *
 * begin, set @on (plan_targets, then @fn and @hl), take the patch lock,
 * queue into a transaction, commit it, release the patch lock, end.
 */
struct slot_plan {
	struct ulsm_hook_set *set;
	size_t n;
	bool *on;
	bool *tail;
	void **fn;
	struct security_hook_list **hl;
	void **inner;		/* a guarded slot's callback (@fn: its guard) */
};

int ulsm_lsm_plan_begin(struct slot_plan *p, struct ulsm_hook_set *set);
int ulsm_lsm_plan_targets(struct slot_plan *p);
int ulsm_lsm_plan_queue(struct slot_plan *p, struct ulsm_txn *t);
void ulsm_lsm_plan_end(struct slot_plan *p);
int ulsm_lsm_aim_guards(struct ulsm_hook_set *set, const struct ulsm_hold *h,
			size_t n, bool *moved, bool back);

/* --- guards (guard.c) ------------------------------------------------- */

/*
 * Slot @idx's guard (struct ulsm_hook_guard), or NULL: a set that does
 * not allow unloading, or a hook without an entry (its walk is one
 * read-side section).
 */
const struct ulsm_hook_guard *ulsm_lsm_guard(const struct ulsm_hook_set *set,
					     size_t idx);
/*
 * Whether a module whose callback is @fn is called through its slots'
 * guards: its object may be unmapped (it is not the program).
 */
bool ulsm_lsm_needs_guard(const struct ulsm_hook_set *set, const void *fn);

/* --- hook entries (dispatch.c) ---------------------------------------- */

/* The kind of site of the hooks' entries (registered by src/init.c). */
extern const struct ulsm_site_kind ulsm_kind_hook_site;

/*
 * Queue the sites of every hook entry whose slots or targets the plan
 * changes (ulsm_lsm_plan_queue calls it). -EILSEQ if such an entry had a
 * site refused at registration.
 */
int ulsm_lsm_plan_queue_entries(const struct slot_plan *p,
				struct ulsm_txn *b);

/* Test hook: emulate entry calls mid-patch through the entry's stubs. */
extern bool ulsm_test_hook_call_stubs;

#endif /* ULSM_SRC_LSM_INTERNAL_H */
