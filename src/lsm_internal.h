/* SPDX-License-Identifier: MIT */
/*
 * src/lsm_internal.h - what the hook framework's files share. Never
 * installed.
 *
 * The hook framework's run-time side is the kernel's security/security.c
 * (after "lsm: replace indirect LSM hook calls with static calls"), for
 * user space and for several independent sets, one job per file:
 *
 *   src/lsm_state.c   the framework lock and each set's private state
 *   src/lsm_order.c   registration, module order, ulsm_lsm_init()
 *   src/lsm_blobs.c   blob sizes and blob allocation
 *   src/lsm_slots.c   the slot plan and filling slots with a module's hooks
 *   src/lsm_dispatch.c the hooks' entries: their sites, derived from the slots
 *   src/lsm_seal.c    sealing, the opt-in to toggling before it, and the
 *                     keys the public update API must leave alone
 *   src/lsm_toggle.c  turning one module's slots off and on
 *   src/lsm_query.c   introspection
 *
 * Locking: one recursive mutex for the framework's state, because a
 * module's init (called by ulsm_lsm_init with the mutex held) registers its
 * hooks; the patch lock is taken only around the batch that fills slots.
 *
 * Every function here has hidden visibility, as in src/internal.h.
 */
#ifndef ULSM_SRC_LSM_INTERNAL_H
#define ULSM_SRC_LSM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

#include <ulsm/lsm.h>

enum module_state {
	MOD_REGISTERED,		/* known, not (yet) ordered */
	MOD_OFF,		/* not listed, removed, disabled, or excluded */
	MOD_ORDERED,		/* in the order, about to be initialised */
	MOD_ACTIVE,		/* initialised */
	MOD_FAILED,		/* its init failed */
};

struct ulsm_lsm_state {
	bool initialised, sealed, toggle_allowed;
	struct lsm_info *modules;	/* registration order */
	struct lsm_info **ordered;
	size_t nordered;
	int blob_sizes[ULSM_BLOB_TYPES];
	char *list;			/* active modules, comma-separated */
};

/* --- the framework lock and state (src/lsm_state.c) -------------------- */

void ulsm_lsm_lock(void);
void ulsm_lsm_unlock(void);
/* The framework lock if it is free now: 0 or -EBUSY (dump at exit). */
int ulsm_lsm_trylock(void);
/* The initialised sets, up to @max of them into @out; how many there are. */
size_t ulsm_lsm_sets(struct ulsm_hook_set **out, size_t max);

/* @set's state, allocated on first use; NULL if that fails. Lock held. */
struct ulsm_lsm_state *ulsm_lsm_state_of(struct ulsm_hook_set *set);

/* --- modules and order (src/lsm_order.c) ------------------------------- */

/* The module of @st named by the @len bytes at @name, or NULL. Lock held. */
struct lsm_info *ulsm_lsm_find_module(struct ulsm_lsm_state *st,
				      const char *name, size_t len);

/* --- blobs (src/lsm_blobs.c) ------------------------------------------- */

/*
 * Turn @m's blob requests into offsets, growing @st's sizes. Lock held.
 * Return 0, or -EOVERFLOW (a total would pass INT_MAX) or -EINVAL (a
 * negative request) with nothing changed, explained by ulsm_error().
 */
int ulsm_lsm_prepare_blobs(struct ulsm_lsm_state *st, struct lsm_info *m);

/* --- sealing, and the keys the public API must leave alone (lsm_seal.c) - */

/*
 * Record @set's key ranges for ulsm_lsm_check_update(): from now on its
 * slot and tail keys, and once it is sealed its slot calls, are refused to
 * the public update functions. Idempotent. Framework lock held (it takes
 * the patch lock). Return 0, -ENOSPC (too many sets) or -EDEADLK.
 */
int ulsm_lsm_claim(struct ulsm_hook_set *set);

/*
 * For the public update functions (src/static_key.c, src/static_call.c),
 * with the patch lock held, before anything is queued: 0, or -EPERM (with
 * a message naming the set) if @key is a claimed set's slot or tail key,
 * or a sealed set's slot call. Takes no lock.
 */
int ulsm_lsm_check_update(const void *key);

/* --- the slot plan (src/lsm_slots.c) ----------------------------------- */

/*
 * A change to a set's slots, planned before it is queued: @on holds every
 * slot's key as it will be after the batch, @tail every tail key, and @fn
 * the slots' new targets (NULL: unchanged). Tail key i of a hook is on
 * while slots i and after of that hook are all off: the unrolled C walk
 * (<ulsm/lsm_hooks.h>) ends there with one jmp. A hook with an entry has
 * its entry's sites derived from @on and the targets (src/lsm_dispatch.c).
 *
 * begin, set @on (and @fn), take the patch lock, queue, apply the batch,
 * commit if it applied, release the patch lock, end.
 */
struct slot_plan {
	struct ulsm_hook_set *set;
	size_t n;
	bool *on;
	bool *tail;
	void **fn;
};

int ulsm_lsm_plan_begin(struct slot_plan *p, struct ulsm_hook_set *set);
int ulsm_lsm_plan_queue(struct slot_plan *p, struct ulsm_batch *b);
void ulsm_lsm_plan_commit(const struct slot_plan *p);
void ulsm_lsm_plan_end(struct slot_plan *p);

/* --- hook entries (src/lsm_dispatch.c) ------------------------------- */

/*
 * Queue the sites of every hook entry whose slots or targets the plan
 * changes (ulsm_lsm_plan_queue calls it). -EILSEQ if such an entry had a
 * site refused at registration.
 */
int ulsm_lsm_plan_queue_entries(const struct slot_plan *p,
				struct ulsm_batch *b);

/* Test hook: emulate entry calls mid-patch through the entry's stubs. */
extern bool ulsm_test_hook_call_stubs;

#endif /* ULSM_SRC_LSM_INTERNAL_H */
