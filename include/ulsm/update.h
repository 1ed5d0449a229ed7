/* SPDX-License-Identifier: MIT */
/*
 * ulsm/update.h - change many static keys and static calls in one
 * all-or-nothing update.
 *
 * static_branch_enable() and static_call_update() each make one update:
 * three core syncs, whatever the number of sites. Flipping a thousand keys
 * one by one costs a thousand updates, and a failure half-way leaves some
 * flipped. An update object collects changes and commits them as one
 * batch:
 *
 *	struct ulsm_update *u = ulsm_update_new();
 *
 *	ulsm_update_branch(u, &trace_open, true);	// a DEFINE_STATIC_KEY_*
 *	ulsm_update_branch(u, &trace_close, true);
 *	ulsm_update_static_call(u, hash, careful_hash);	// type-checked
 *	rc = ulsm_update_commit(u);	// 0: every change made; else none
 *	ulsm_update_free(u);
 *
 * Keys are set as booleans (static_key_enable / static_key_disable): on
 * sets a count of 0 to 1 and leaves a count above 0; off sets 1 to 0 and
 * refuses a count above 1 (-EBUSY: the key is reference counted). When a
 * key or a call is named twice, the last change wins. The commit patches every site of every key and call
 * in one batch of the patching protocol (docs/patching-protocol.md): when
 * it returns 0, every thread is synchronised and runs the new code; when
 * it returns a negative errno, every site, count and target is as before.
 *
 * Data that goes with the code goes in the update too, so that nothing
 * is stored by hand around the commit, and nothing undone by hand when it
 * fails: ulsm_update_store_ptr() and ulsm_update_store_int() record a
 * store of a pointer or an int of the program's, made by the commit
 * before any site changes (ULSM_UPDATE_BEFORE: what the new code reads)
 * or once every site is new (ULSM_UPDATE_AFTER: what says the code is
 * new), and put back if the commit fails:
 *
 *	ulsm_update_static_call(u, hash, careful_hash);
 *	ulsm_update_store_ptr(u, &hash_table_in_use, careful_table,
 *			      ULSM_UPDATE_AFTER);
 *	rc = ulsm_update_commit(u);	// 0: both; else neither
 *
 * Return values, besides those of static_branch_enable() and
 * static_call_update() (<ulsm/static_key.h>, <ulsm/static_call.h>):
 *   -EINVAL  NULL update, key or call
 *   -ENOMEM  a change could not be recorded; the update keeps this error,
 *            and its commit returns it without changing anything, until
 *            ulsm_update_reset()
 *   -EBUSY   a key to turn off has a count above 1
 *   -EPERM   a key or call that only a hook set changes (its slots)
 * An update is used by one thread at a time; the commit takes the same
 * lock as every other update.
 */
#ifndef ULSM_UPDATE_H
#define ULSM_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include <ulsm/compiler.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>

ULSM__EXTERN_C_BEGIN

struct ulsm_update;

/*
 * When a store of an update is made (ulsm_update_store_ptr()): before any
 * site of the update changes, or once every site is new.
 */
enum ulsm_update_when {
	ULSM_UPDATE_BEFORE,
	ULSM_UPDATE_AFTER,
};

/**
 * ulsm_update_new - an empty update
 *
 * Return: the update, or NULL (errno ENOMEM).
 */
struct ulsm_update *ulsm_update_new(void);

/**
 * ulsm_update_key - record that @key is to be on (@enabled) or off
 *
 * Return: 0, -EINVAL or -ENOMEM (kept by the update: see above).
 */
int ulsm_update_key(struct ulsm_update *u, struct static_key *key,
		    bool enabled);

/**
 * ulsm_update_call - record that a static call is to call @func
 * @key:   STATIC_CALL_KEY(name)
 * @tramp: STATIC_CALL_TRAMP_ADDR(name)
 * @func:  the new target, NULL, or __static_call_return0
 *
 * Return: 0, -EINVAL or -ENOMEM (kept by the update).
 */
int ulsm_update_call(struct ulsm_update *u, struct static_call_key *key,
		     void *tramp, void *func);

/**
 * ulsm_update_store_ptr - record that the pointer at @addr is to become
 * @val with the update
 * @addr: a pointer of any object type (void *, struct x *, ...), aligned,
 *        whose memory stays valid until the commit returns
 * @val:  its new value
 * @when: ULSM_UPDATE_BEFORE, stored before any site of the update changes:
 *        a thread that runs a new site finds it stored (as the engine
 *        stores a call's target before its sites change); or
 *        ULSM_UPDATE_AFTER, stored once every site is new and every thread
 *        synchronised, only when the commit succeeds: a thread that reads
 *        the new value (with acquire) runs every site of the update new
 *
 * The commit makes the stores of each kind in the order they were
 * recorded, each a release store (__atomic_store_n, __ATOMIC_RELEASE); if
 * it fails, it puts back the value each word had when it was stored, the
 * last first. Stores are never merged: a word recorded twice is stored
 * twice, in order. A store is no change of a key or a call: the same
 * word may be recorded with either.
 *
 * Return: 0, -EINVAL (NULL update or address, an address not aligned for
 * a pointer, or another @when) or -ENOMEM (kept by the update).
 */
int ulsm_update_store_ptr(struct ulsm_update *u, void *addr, const void *val,
			  enum ulsm_update_when when);

/**
 * ulsm_update_store_int - record that the int at @addr is to become @val
 * with the update (as ulsm_update_store_ptr())
 *
 * Return: 0, -EINVAL or -ENOMEM (kept by the update).
 */
int ulsm_update_store_int(struct ulsm_update *u, int *addr, int val,
			  enum ulsm_update_when when);

/**
 * ulsm_update_commit - make every recorded change and store, or none
 *
 * The update keeps its changes: ulsm_update_reset() empties it.
 *
 * Return: 0 when every site is new and every store made, or a negative
 * errno with every site, key count, call target and stored word as
 * before the call.
 */
int ulsm_update_commit(struct ulsm_update *u);

/**
 * ulsm_update_count - how many changes and stores @u holds (a key or call
 * named twice counts once after a commit)
 */
size_t ulsm_update_count(const struct ulsm_update *u);

/** ulsm_update_reset - forget every change, every store and a kept error */
void ulsm_update_reset(struct ulsm_update *u);

/** ulsm_update_free - free @u (NULL is allowed) */
void ulsm_update_free(struct ulsm_update *u);

/*
 * The typed forms: any key made by DEFINE_STATIC_KEY_TRUE/FALSE (or a
 * struct static_key), and a static call by name, its target's type
 * checked as static_call_update() checks it.
 */
#define ulsm_update_branch(u, x, enabled)				\
	ulsm_update_key((u), ULSM__TO_KEY(x), (enabled))

#define ulsm_update_static_call(u, name, func)				\
__extension__ ({							\
	ULSM__SC_CHECK_TYPE(name, func);				\
	__typeof__(&STATIC_CALL_TRAMP(name)) ulsm__uf = (func);		\
	ulsm_update_call((u), &STATIC_CALL_KEY(name),			\
			 STATIC_CALL_TRAMP_ADDR(name),			\
			 (void *)(uintptr_t)ulsm__uf);			\
})

ULSM__EXTERN_C_END

#endif /* ULSM_UPDATE_H */
