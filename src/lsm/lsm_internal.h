/* SPDX-License-Identifier: MIT */
/*
 * src/lsm/lsm_internal.h - what the hook framework's files share. Never
 * installed.
 *
 * The hook framework's run-time side is the kernel's security/security.c
 * (after "lsm: replace indirect LSM hook calls with static calls"), for
 * user space and for several independent sets, one job per file:
 *
 *   state.c     the framework lock and each set's private state
 *   order.c     registration, module order, ulsm_lsm_init()
 *   blobs.c     blob sizes and blob allocation
 *   slots.c     the slot plan and filling slots with a module's hooks
 *   dispatch.c  the hooks' entries: their sites (a kind of site that
 *               follows the slots' static calls), derived from the slots
 *   seal.c      sealing, the opt-in to toggling before it, and claiming
 *               the keys the public update API must leave alone
 *   toggle.c    turning one module's slots off and on
 *   query.c     introspection
 *   notes.c     why a module is not active, kept and reported
 *
 * The framework is a client of static keys and calls (src/static/static.h)
 * and, through them, of the engine: it queues their changes into one batch
 * per change of slots, defines one kind of site (the hooks' entries), and
 * claims its keys so that the public update functions refuse them.
 *
 * Locking: one recursive mutex for the framework's state, because a
 * module's init (called by ulsm_lsm_init with the mutex held) registers its
 * hooks; the patch lock is taken only around the batch that fills slots.
 *
 * Every function here has hidden visibility, as in src/base/base.h.
 */
#ifndef ULSM_SRC_LSM_INTERNAL_H
#define ULSM_SRC_LSM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "static/static.h"

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
	struct ulsm_lsm_note *notes;	/* why modules are not active */
};

/* --- the framework lock and state (state.c) -------------------- */

void ulsm_lsm_lock(void);
void ulsm_lsm_unlock(void);
/* The framework lock if it is free now: 0 or -EBUSY (dump at exit). */
int ulsm_lsm_trylock(void);
/* The initialised sets, up to @max of them into @out; how many there are. */
size_t ulsm_lsm_sets(struct ulsm_hook_set **out, size_t max);

/* @set's state, allocated on first use; NULL if that fails. Lock held. */
struct ulsm_lsm_state *ulsm_lsm_state_of(struct ulsm_hook_set *set);

/* --- modules and order (order.c) ------------------------------- */

/* The module of @st named by the @len bytes at @name, or NULL. Lock held. */
struct lsm_info *ulsm_lsm_find_module(struct ulsm_lsm_state *st,
				      const char *name, size_t len);

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

/* --- blobs (blobs.c) ------------------------------------------- */

/*
 * Turn @m's blob requests into offsets, growing @st's sizes. Lock held.
 * Return 0, or -EOVERFLOW (a total would pass INT_MAX) or -EINVAL (a
 * negative request) with nothing changed, explained by ulsm_error().
 */
int ulsm_lsm_prepare_blobs(struct ulsm_lsm_state *st, struct lsm_info *m);

/* --- sealing, and the keys the public API must leave alone (seal.c) -- */

/*
 * Claim @set's slot and tail keys (ulsm_key_claim): from now on the public
 * update functions refuse them, and once it is sealed its slot calls
 * (ulsm_call_seal). Idempotent. Framework lock held (it takes the patch
 * lock). Return 0, -ENOSPC (too many sets) or -EDEADLK.
 */
int ulsm_lsm_claim(struct ulsm_hook_set *set);

/* --- the slot plan (slots.c) ----------------------------------- */

/*
 * A change to a set's slots, planned before it is queued: @on holds every
 * slot's key as it will be after the batch, @tail every tail key, and @fn
 * the slots' new targets (NULL: unchanged). Tail key i of a hook is on
 * while slots i and after of that hook are all off: the unrolled C walk
 * (<ulsm/lsm_hooks.h>) ends there with one jmp. A hook with an entry has
 * its entry's sites derived from @on and the targets (dispatch.c).
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

/* --- hook entries (dispatch.c) ---------------------------------------- */

/* The kind of site of the hooks' entries (registered by src/init.c). */
extern const struct ulsm_site_kind ulsm_kind_hook_site;

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
