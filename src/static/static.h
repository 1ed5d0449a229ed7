/* SPDX-License-Identifier: MIT */
/*
 * src/static/static.h - static keys and static calls, for the layers above
 * them (src/lsm/, src/trace/, start-up and the dump). Never installed.
 *
 * Keys and calls are clients of the engine: each defines kinds of site
 * (a key's branch sites; a call's trampoline and its call sites), which
 * start-up registers with the engine, and adds its sites' changes, and
 * the stores of its counts and targets, to the engine's one transaction
 * (struct ulsm_txn). A layer above may
 *
 *   - add key and call changes to a transaction of its own, to move many
 *     keys and calls in one all-or-nothing update (ulsm_key_queue,
 *     ulsm_call_queue);
 *   - add sites of its own to a call's key, which follow the call's
 *     target: their kind's ops is a struct ulsm_call_follower;
 *   - claim keys and calls that only it may change: the public update
 *     functions refuse them with -EPERM (ulsm_key_claim, ulsm_call_claim),
 *     and a describer it registers words the refusal;
 *   - list the keys and calls with what their sites say, from one copy
 *     of the registry (ulsm_keys_snapshot_take: the dump, the control
 *     endpoint's show).
 *
 * Every function here has hidden visibility, as in src/base/base.h.
 */
#ifndef ULSM_SRC_STATIC_H
#define ULSM_SRC_STATIC_H

#include <ulsm/static_call.h>
#include <ulsm/static_key.h>

#include "engine/engine.h"

/* --- kinds of site (registered by src/init.c) -------------------------- */

extern const struct ulsm_site_kind ulsm_kind_key_site;	/* src/static/static_key.c */
extern const struct ulsm_site_kind ulsm_kind_trampoline; /* src/static/static_call.c */
extern const struct ulsm_site_kind ulsm_kind_call_site;	/* src/static/static_call.c */

/* --- adding changes to a transaction ---------------------------------- */

/*
 * The stage of a key turned on or off, as the public API sees keys: on
 * means the code it guards runs (docs/patching-protocol.md, "Stages").
 * A layer whose key means the opposite (the hook framework's tail keys,
 * on: the walk ends) names the stage itself.
 */
static inline enum ulsm_stage ulsm_key_stage(bool on)
{
	return on ? ULSM_STAGE_GUARDS_ON : ULSM_STAGE_GUARDS_OFF;
}

/*
 * Add to @t: @key's count becomes @count, stored after @stage; if that
 * turns the key on or off, every site of the key moves in @stage. The
 * caller has checked the key (ulsm_key_check). Patch lock held.
 */
int ulsm_key_queue(struct ulsm_txn *t, struct static_key *key, int count,
		   enum ulsm_stage stage);

/*
 * Add to @t: static call @key retargeted to @func, in
 * ULSM_STAGE_TARGETS: its trampoline @tramp (NULL: a call without code
 * of its own, a pointer, as on the generic back end), every site that
 * follows its target but those of kind @skip (NULL: none), which the
 * caller adds itself, and the store of @func (before the code when a
 * site reads it meanwhile: the indirect form, a follower's stub).
 * Nothing when @func is the target already. Patch lock held.
 */
int ulsm_call_queue(struct ulsm_txn *t, struct static_call_key *key,
		    void *tramp, void *func, const struct ulsm_site_kind *skip);

/*
 * How many call sites @key has (its followers' calls included), and in
 * *@direct how many call its target directly now. Patch lock held.
 */
int ulsm_call_sites_count(const struct static_call_key *key, int *direct);

/*
 * Checks that the public update functions make, patch lock held: a key
 * claimed by a layer above, or with a negative count; a sealed call.
 * 0, or a negative errno with a message that starts with @what.
 */
int ulsm_key_check(const struct static_key *key, const char *what);
int ulsm_call_check(const struct static_call_key *key, const char *what);

/* --- sites that follow a static call's target -------------------------- */

/*
 * The ops of a kind whose sites are registered under a static call's key
 * and follow its target (the hook framework's entries).
 * @retarget:   the key's target changes from @from to @to: add the
 *              change of site @s to @t (ULSM_STAGE_TARGETS), if it has one
 * @callee:     if @s is a call of the key's target (counted among its call
 *              sites), 1 with its current callee in *callee, else 0
 * @reads_func: the kind's sites may call through the key's func while
 *              their stage is applied: it is stored before that stage
 */
struct ulsm_call_follower {
	int (*retarget)(const struct ulsm_site *s, const void *from,
			const void *to, struct ulsm_txn *t);
	int (*callee)(const struct ulsm_site *s, uintptr_t *callee);
	bool reads_func;
};

/* --- keys and calls that only their owner changes ---------------------- */

/*
 * Claim @key: from now on the public update functions (static_branch_*,
 * static_key_*) refuse it with -EPERM, and the claimant changes it with
 * ulsm_key_queue. Seal @key: static_call_update refuses it with -EPERM
 * (its page is about to be read-only); unseal undoes it while the page is
 * still writable. Patch lock held, so that no public update is half-way
 * past its check.
 */
void ulsm_key_claim(struct static_key *key);
void ulsm_call_claim(struct static_call_key *key);
void ulsm_call_unclaim(struct static_call_key *key);

/*
 * The claimant's words for a refused @key, for the error message ("a slot
 * key of hook set x: only the framework changes it"); NULL if it does not
 * know the key. Registered once by the layer that claims keys; called
 * with the patch lock held.
 */
void ulsm_claims_describe(const char *(*describe)(const void *key));
/* Those words for @key, or NULL. */
const char *ulsm_claim_words(const void *key);

/* --- the registry by key, for listings (src/static/snapshot.c) -------- */

/*
 * One key of the registry and what its sites say: a static key when it
 * has branch sites (@key_sites; then @count is its count), a static call
 * when it has a trampoline (@tramps; then @tramp, @target, @call_sites and
 * @direct are its). Hook slots' keys and calls are among them: the layers
 * above know the sets, and leave them out or show them apart.
 */
struct ulsm_key_summary {
	const void *key;	/* struct static_key or static_call_key */
	size_t key_sites;	/* of kind ulsm_kind_key_site */
	size_t tramps;		/* of kind ulsm_kind_trampoline */
	uintptr_t tramp;	/* the first trampoline's address */
	int count;		/* a key's count */
	const void *target;	/* a call's target (its func) */
	int call_sites, direct;	/* a call's, ulsm_call_sites_count()'s */
};

/*
 * The registry as the dump and the control endpoint's show list it,
 * copied once under the patch lock, so that each only formats it: every
 * live site in key order (then address), and one summary a key, in the
 * order of the keys' addresses. Plain data: it may be read after the
 * lock is released (the pointers in it only named, never read).
 */
struct ulsm_keys_snapshot {
	struct ulsm_site *sites;
	size_t nsites;
	struct ulsm_key_summary *keys;
	size_t nkeys;
};

/*
 * Take @snap; patch lock held. Return 0, or -ENOMEM with nothing to free
 * (@snap->nsites still says how many sites there are).
 */
int ulsm_keys_snapshot_take(struct ulsm_keys_snapshot *snap);
/* Free what ulsm_keys_snapshot_take() gave @snap; no lock needed. */
void ulsm_keys_snapshot_free(struct ulsm_keys_snapshot *snap);

#endif /* ULSM_SRC_STATIC_H */
