// SPDX-License-Identifier: MIT
/*
 * The one transaction (docs/patching-protocol.md, "One transaction: every
 * change of code"). Every change of code in the process is added here as
 * entries (code in a stage; stores before or after a stage's code) and
 * committed once: the order of stages and stores, and the undo, are
 * written in this file and nowhere else.
 *
 *   commit:  step 0 for every stage (src/engine/patch.c), then for each
 *            stage: its before-stores, its code, its after-stores;
 *   failure: the failed stage rolled back and its before-stores put back,
 *            then each earlier stage undone in reverse, the mirror of how
 *            it was applied. Stores cannot fail; a rollback whose writes
 *            keep failing strands the sites (patch.c) and returns -EIO.
 *
 * On a back end that patches no code (generic), a transaction is its
 * stores, in the same order.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine.h"

int ulsm_txn_code(struct ulsm_txn *t, enum ulsm_stage stage, uintptr_t addr,
		  const struct ulsm_insn *old, const struct ulsm_insn *new)
{
	if (old->len == new->len && !memcmp(old->bytes, new->bytes, old->len))
		return 0;
	return ulsm_batch_add(&t->code, addr, old, new, stage);
}

static int add_store(struct ulsm_txn *t, enum ulsm_stage stage,
		     enum ulsm_when when, void *addr, uintptr_t val,
		     size_t size)
{
	struct ulsm_store *st;

	if (t->nstores == t->capstores) {
		size_t cap = t->capstores ? 2 * t->capstores : 16;
		struct ulsm_store *v = ulsm_reallocarray(t->stores, cap,
							 sizeof(*v));

		if (!v)
			return ulsm_error(-ENOMEM, "no memory for a transaction "
					  "of %zu stores", cap);
		t->stores = v;
		t->capstores = cap;
	}
	st = &t->stores[t->nstores++];
	st->addr = addr;
	st->val = val;
	st->old = 0;
	st->size = (uint8_t)size;
	st->stage = (uint8_t)stage;
	st->when = (uint8_t)when;
	st->done = false;
	return 0;
}

int ulsm_txn_store_int(struct ulsm_txn *t, enum ulsm_stage stage,
		       enum ulsm_when when, int *addr, int val)
{
	return add_store(t, stage, when, addr, (uintptr_t)(unsigned int)val,
			 sizeof(int));
}

int ulsm_txn_store_ptr(struct ulsm_txn *t, enum ulsm_stage stage,
		       enum ulsm_when when, void *addr, const void *val)
{
	return add_store(t, stage, when, addr, (uintptr_t)val, sizeof(void *));
}

int ulsm_txn_store_bool(struct ulsm_txn *t, enum ulsm_stage stage,
			enum ulsm_when when, bool *addr, bool val)
{
	return add_store(t, stage, when, addr, val, sizeof(bool));
}

void ulsm_txn_free(struct ulsm_txn *t)
{
	ulsm_batch_free(&t->code);
	ulsm_free(t->stores);
	t->stores = NULL;
	t->nstores = t->capstores = 0;
}

int ulsm_txn_finish(struct ulsm_txn *t, int ret)
{
	if (!ret)
		ret = ulsm_txn_commit(t);
	ulsm_txn_free(t);
	ulsm_unlock();
	return ret;
}

/*
 * Release stores: a reader that acquires the word sees what came before.
 * The readers: static_key_count() (ulsm/static_key.h) for a key's count;
 * static_call_query() and ulsm_static_call_keyed() (ulsm/static_call.h)
 * for a call's target; the hook walks (ulsm/lsm_hooks.h) for a slot's
 * list; __traceiter_NAME() (ulsm/tracepoint.h) for funcs and slotted; and
 * the user's own for the words of an update (ulsm/update.h).
 */
static void store_word(const struct ulsm_store *st, uintptr_t v)
{
	/* Pairs with no acquire: tracepoint records, read under trace_lock. */
	if (st->size == sizeof(bool))
		__atomic_store_n((bool *)st->addr, v != 0, __ATOMIC_RELEASE);
	/* Pairs with the acquire in static_key_count() and an update's user. */
	else if (st->size == sizeof(int))
		__atomic_store_n((int *)st->addr, (int)(unsigned int)v,
				 __ATOMIC_RELEASE);
	/* Pairs with the acquire loads of a target, a list or a probe array. */
	else
		__atomic_store_n((void **)st->addr, (void *)v, __ATOMIC_RELEASE);
}

static uintptr_t load_word(const struct ulsm_store *st)
{
	if (st->size == sizeof(bool))
		return __atomic_load_n((bool *)st->addr, __ATOMIC_RELAXED);
	if (st->size == sizeof(int))
		return (uintptr_t)(unsigned int)__atomic_load_n((int *)st->addr,
							__ATOMIC_RELAXED);
	return (uintptr_t)__atomic_load_n((void **)st->addr, __ATOMIC_RELAXED);
}

/* The stores of @stage that go @when, in the order they were added. */
static void stores_apply(struct ulsm_txn *t, int stage, int when)
{
	for (size_t i = 0; i < t->nstores; i++) {
		struct ulsm_store *st = &t->stores[i];

		if (st->stage != stage || st->when != when)
			continue;
		st->old = load_word(st);
		store_word(st, st->val);
		st->done = true;
	}
}

/* Put back the stores of @stage that went @when, in reverse order. */
static void stores_revert(struct ulsm_txn *t, int stage, int when)
{
	for (size_t i = t->nstores; i-- > 0;) {
		struct ulsm_store *st = &t->stores[i];

		if (st->stage != stage || st->when != when || !st->done)
			continue;
		store_word(st, st->old);
		st->done = false;
	}
}

/*
 * Stage @failed could not be applied: roll it back, then undo every
 * earlier stage in reverse order. Return the error to give the caller.
 */
static int undo(struct ulsm_txn *t, int failed, struct ulsm_session *x,
		int err)
{
	const char *why = ulsm_last_error();
	char cause[160];
	int bad = 0;

	snprintf(cause, sizeof(cause), "%s", *why ? why : strerror(-err));
	for (int stage = failed; stage >= 0; stage--) {
		if (stage != failed)
			stores_revert(t, stage, ULSM_AFTER);
		if (!bad)
			bad = ulsm_patch_undo(&t->code, stage, x);
		stores_revert(t, stage, ULSM_BEFORE);
	}
	if (bad) {
		ulsm_patch_strand(&t->code);
		return ulsm_error(-EIO, "a step failed (%s) and the rollback "
				  "could not finish: the sites run emulated "
				  "until an update can", cause);
	}
	return ulsm_error(err, "a step failed (%s); every site restored", cause);
}

int ulsm_txn_commit(struct ulsm_txn *t)
{
	struct ulsm_session x;
	size_t sites = t->code.n;
	int ret = 0, stage;

	if (!ulsm_lock_held())
		ulsm_die("a transaction committed without the patch lock");
	if (!sites) {
		for (stage = 0; stage < ULSM_STAGES; stage++) {
			stores_apply(t, stage, ULSM_BEFORE);
			stores_apply(t, stage, ULSM_AFTER);
		}
		return 0;
	}
	ret = ulsm_patch_open(&t->code, &x);
	if (ret)
		return ret;
	for (stage = 0; stage < ULSM_STAGES; stage++) {
		stores_apply(t, stage, ULSM_BEFORE);
		ret = ulsm_patch_stage(&t->code, stage, &x);
		if (ret)
			break;
		stores_apply(t, stage, ULSM_AFTER);
	}
	if (ret)
		ret = undo(t, stage, &x, ret);
	ulsm_patch_close(&t->code, &x);
	if (ret) {
		ulsm_stat_add(batches_failed, 1);
		return ret;
	}
	ulsm_stat_add(batches, 1);
	ulsm_stat_add(sites_patched, sites);
	return 0;
}
