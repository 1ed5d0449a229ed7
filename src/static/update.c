// SPDX-License-Identifier: MIT
/*
 * src/static/update.c - many keys and calls in one all-or-nothing update
 * (<ulsm/update.h>).
 *
 * An update is a list of changes. The commit, under the patch lock,
 * merges them (the last change of a key or call wins), checks each as the
 * single-change functions do, and adds every change to one transaction
 * of the engine (ulsm_key_queue, ulsm_call_queue; src/engine/txn.c),
 * which orders the sites and the stores, and undoes them on failure:
 * keys turned off first, then the calls, then keys turned on
 * (docs/patching-protocol.md, "Stages"), so that a key on leads to a
 * call already retargeted. The caller's stores (ulsm_update_store_ptr)
 * are entries of the same transaction: before the first stage's code, or
 * after the last stage's, where a failed commit has stopped short of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/update.h>

#include "base/base.h"
#include "base/sys.h"
#include "static/static.h"

enum change_kind { CHANGE_KEY, CHANGE_CALL };

struct change {
	enum change_kind kind;
	void *obj;		/* struct static_key * or struct static_call_key * */
	void *tramp;		/* calls: the trampoline */
	void *func;		/* calls: the new target */
	bool on;		/* keys: the new state */
	size_t seq;		/* order of recording, for "the last wins" */
};

/* A store of the caller's, in the order recorded (never merged). */
struct store {
	void *addr;
	const void *ptr;	/* a pointer's new value */
	int val;		/* an int's */
	bool is_ptr;
	uint8_t when;		/* enum ulsm_update_when */
};

struct ulsm_update {
	size_t n, cap;
	struct change *v;
	size_t nstores, capstores;
	struct store *stores;
	int error;		/* a change that could not be recorded */
};

ULSM_API struct ulsm_update *ulsm_update_new(void)
{
	struct ulsm_update *u = ulsm_calloc(1, sizeof(*u));

	if (!u)
		errno = ENOMEM;
	return u;
}

ULSM_API void ulsm_update_reset(struct ulsm_update *u)
{
	if (!u)
		return;
	u->n = 0;
	u->nstores = 0;
	u->error = 0;
}

ULSM_API void ulsm_update_free(struct ulsm_update *u)
{
	if (!u)
		return;
	ulsm_free(u->v);
	ulsm_free(u->stores);
	ulsm_free(u);
}

/* No memory to record @what number @i: the commit fails until a reset. */
static int no_room(struct ulsm_update *u, const char *what, size_t i)
{
	u->error = -ENOMEM;
	return ulsm_error(-ENOMEM, "ulsm_update: no memory for %s %zu; the "
			  "commit will fail until ulsm_update_reset()", what,
			  i);
}

static int record(struct ulsm_update *u, const struct change *c)
{
	struct change *v = ulsm_grow_array(u->v, u->n, &u->cap, sizeof(*v),
					   16);

	if (!v)
		return no_room(u, "change", u->n + 1);
	u->v = v;
	u->v[u->n] = *c;
	u->v[u->n].seq = u->n;
	u->n++;
	return 0;
}

ULSM_API int ulsm_update_key(struct ulsm_update *u, struct static_key *key,
			     bool enabled)
{
	struct change c = { .kind = CHANGE_KEY, .obj = key, .on = enabled };

	if (!u || !key)
		return ulsm_error(-EINVAL, "ulsm_update_key: NULL %s",
				  u ? "key" : "update");
	return record(u, &c);
}

ULSM_API int ulsm_update_call(struct ulsm_update *u,
			      struct static_call_key *key, void *tramp,
			      void *func)
{
	struct change c = {
		.kind = CHANGE_CALL, .obj = key, .tramp = tramp, .func = func,
	};

	if (!u || !key)
		return ulsm_error(-EINVAL, "ulsm_update_call: NULL %s",
				  u ? "key" : "update");
	return record(u, &c);
}

static int record_store(struct ulsm_update *u, const struct store *st)
{
	struct store *v = ulsm_grow_array(u->stores, u->nstores,
					  &u->capstores, sizeof(*v), 8);

	if (!v)
		return no_room(u, "store", u->nstores + 1);
	u->stores = v;
	u->stores[u->nstores++] = *st;
	return 0;
}

static int store_check(const struct ulsm_update *u, const void *addr,
		       size_t size, enum ulsm_update_when when,
		       const char *what)
{
	if (!u || !addr)
		return ulsm_error(-EINVAL, "%s: NULL %s", what,
				  u ? "address" : "update");
	if ((uintptr_t)addr % size)
		return ulsm_error(-EINVAL, "%s: %p is not aligned to %zu "
				  "bytes", what, addr, size);
	if (when != ULSM_UPDATE_BEFORE && when != ULSM_UPDATE_AFTER)
		return ulsm_error(-EINVAL, "%s: when is neither "
				  "ULSM_UPDATE_BEFORE nor ULSM_UPDATE_AFTER "
				  "(%d)", what, (int)when);
	return 0;
}

ULSM_API int ulsm_update_store_ptr(struct ulsm_update *u, void *addr,
				   const void *val, enum ulsm_update_when when)
{
	struct store st = {
		.addr = addr, .ptr = val, .is_ptr = true,
		.when = (uint8_t)when,
	};
	int ret = store_check(u, addr, sizeof(void *), when,
			      "ulsm_update_store_ptr");

	return ret ? ret : record_store(u, &st);
}

ULSM_API int ulsm_update_store_int(struct ulsm_update *u, int *addr, int val,
				   enum ulsm_update_when when)
{
	struct store st = {
		.addr = addr, .val = val, .is_ptr = false,
		.when = (uint8_t)when,
	};
	int ret = store_check(u, addr, sizeof(int), when,
			      "ulsm_update_store_int");

	return ret ? ret : record_store(u, &st);
}

/*
 * The caller's stores, as entries of @t: before the first stage's code
 * (its keys turned off), or after the last stage's (its keys turned on),
 * which a commit reaches only when every stage succeeded. In the order
 * recorded; the engine puts them back in reverse if the commit fails.
 */
static int queue_stores(const struct ulsm_update *u, struct ulsm_txn *t)
{
	int ret = 0;

	for (size_t i = 0; i < u->nstores && !ret; i++) {
		const struct store *st = &u->stores[i];
		bool before = st->when == ULSM_UPDATE_BEFORE;
		enum ulsm_stage stage = before ? ULSM_STAGE_GUARDS_OFF :
					ULSM_STAGE_GUARDS_ON;
		enum ulsm_when when = before ? ULSM_BEFORE : ULSM_AFTER;

		if (st->is_ptr)
			ret = ulsm_txn_store_ptr(t, stage, when, st->addr,
						 st->ptr);
		else
			ret = ulsm_txn_store_int(t, stage, when, st->addr,
						 st->val);
	}
	return ret;
}

/* By object, then by order of recording: the last of a run wins. */
static int by_object(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	if (x->obj != y->obj)
		return (uintptr_t)x->obj < (uintptr_t)y->obj ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * Keep, for each key and call, its last change. The same object recorded
 * as a key and as a call is a caller's mistake.
 */
static int merge(struct ulsm_update *u)
{
	size_t i, out = 0;

	if (!u->n)
		return 0;	/* u->v may be NULL: qsort() wants an array */
	qsort(u->v, u->n, sizeof(*u->v), by_object);
	for (i = 0; i < u->n; i++) {
		struct change *c = &u->v[i];

		if (i + 1 < u->n && u->v[i + 1].obj == c->obj) {
			if (u->v[i + 1].kind != c->kind)
				return ulsm_error(-EINVAL, "ulsm_update: %p is "
						  "recorded as a key and as a "
						  "call", c->obj);
			continue;
		}
		u->v[out] = *c;
		u->v[out].seq = out;
		out++;
	}
	u->n = out;
	return 0;
}

/* Check one change as the single-change function would, and add it. */
static int queue(const struct change *c, struct ulsm_txn *t)
{
	int ret;

	if (c->kind == CHANGE_KEY) {
		struct static_key *k = c->obj;

		ret = ulsm_key_check(k, "ulsm_update_commit");
		if (ret)
			return ret;
		if (!c->on && k->enabled > 1)
			return ulsm_error(-EBUSY, "ulsm_update_commit: key %p is "
					  "reference counted (count %d): use "
					  "static_key_slow_dec", (void *)k,
					  k->enabled);
		/* On and counted, or off: nothing to change. */
		if (c->on == (k->enabled > 0))
			return 0;
		return ulsm_key_queue(t, k, c->on, ulsm_key_stage(c->on));
	}

	struct static_call_key *key = c->obj;

	ret = ulsm_call_check(key, "ulsm_update_commit");
	if (!ret)
		ret = ulsm_call_queue(t, key, c->tramp, c->func, NULL);
	return ret;
}

/*
 * Every key and call recorded is still in a loaded object's memory: the
 * caller may have recorded one of a shared object that was unloaded
 * since (its memory gone, or reused). Refused before anything of it is
 * read.
 */
static int check_alive(const struct ulsm_update *u)
{
	struct ulsm_ranges r;
	int ret = ulsm_loaded_writable(&r);

	for (size_t i = 0; !ret && i < u->n; i++) {
		const struct change *c = &u->v[i];
		size_t size = c->kind == CHANGE_KEY ? sizeof(struct static_key) :
			      sizeof(struct static_call_key);

		if (!ulsm_ranges_hold(&r, c->obj, size))
			ret = ulsm_error(-ENOENT, "ulsm_update_commit: %s %p is "
					 "in no loaded object (was its object "
					 "unloaded?); nothing written",
					 c->kind == CHANGE_KEY ? "key" : "call",
					 c->obj);
	}
	ulsm_ranges_free(&r);
	return ret;
}

ULSM_API int ulsm_update_commit(struct ulsm_update *u)
{
	struct ulsm_txn t = ULSM_TXN_INIT;
	size_t i;
	int ret;

	if (!u)
		return ulsm_error(-EINVAL, "ulsm_update_commit: NULL update");
	if (u->error)
		return ulsm_error(u->error, "ulsm_update_commit: a change "
				  "could not be recorded; nothing written");
	ulsm_config_init();
	ulsm_clear_error();
	/*
	 * Before the patch lock: the dynamic linker's list is read there,
	 * and a constructor that registers an object holds the linker's
	 * lock while it waits for ours.
	 */
	ret = merge(u);
	if (!ret)
		ret = check_alive(u);
	if (!ret)
		ret = ulsm_update_lock();
	if (ret)
		return ret;
	for (i = 0; !ret && i < u->n; i++)
		ret = queue(&u->v[i], &t);
	if (!ret)
		ret = queue_stores(u, &t);
	return ulsm_txn_finish(&t, ret);
}

ULSM_API size_t ulsm_update_count(const struct ulsm_update *u)
{
	return u ? u->n + u->nstores : 0;
}
