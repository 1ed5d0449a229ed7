// SPDX-License-Identifier: MIT
/*
 * src/static/update.c - many keys and calls in one all-or-nothing update
 * (<ulsm/update.h>).
 *
 * An update is a list of changes. The commit, under the patch lock,
 * merges them (the last change of a key or call wins), checks each as the
 * single-change functions do, queues every site into one batch
 * (ulsm_key_queue, ulsm_call_queue), applies it, and only then publishes
 * the keys' counts and the calls' targets. A failure before the batch is
 * applied changes nothing; the batch itself is all-or-nothing.
 *
 * Targets that a site reads while the batch runs (an indirect trampoline,
 * a hook entry's stub) are stored before the batch and put back if it
 * fails, as static_call_update() does.
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
	bool first;		/* calls: the target is stored before the batch */
	bool noop;		/* the commit found nothing to change */
	void *old_func;		/* calls: the target before the commit */
	size_t seq;		/* order of recording, for "the last wins" */
};

struct ulsm_update {
	size_t n, cap;
	struct change *v;
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
	u->error = 0;
}

ULSM_API void ulsm_update_free(struct ulsm_update *u)
{
	if (!u)
		return;
	ulsm_free(u->v);
	ulsm_free(u);
}

static int record(struct ulsm_update *u, const struct change *c)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 16;
		struct change *v = ulsm_reallocarray(u->v, cap, sizeof(*v));

		if (!v) {
			u->error = -ENOMEM;
			return ulsm_error(-ENOMEM, "ulsm_update: no memory for "
					  "change %zu; the commit will fail "
					  "until ulsm_update_reset()", u->n + 1);
		}
		u->v = v;
		u->cap = cap;
	}
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

/* Check one change as the single-change function would, and queue it. */
static int queue(struct change *c, struct ulsm_batch *b)
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
		/* On and counted, or off: nothing to write. */
		c->noop = c->on == (k->enabled > 0);
		return c->noop ? 0 : ulsm_key_queue(k, !c->on, c->on, b);
	}

	struct static_call_key *key = c->obj;

	ret = ulsm_call_check(key, "ulsm_update_commit");
	c->old_func = key->func;
	c->first = false;
	c->noop = key->func == c->func;
	if (ret || c->noop || arch_protocol == ULSM_PROTO_NONE)
		return ret;	/* generic: the pointer is all there is */
	return ulsm_call_queue(key, (uintptr_t)c->tramp, c->func, b, &c->first,
			       NULL);
}

/*
 * Targets, then counts: on the generic back end a reader that sees a key
 * on (an acquire of its count) then sees the calls changed with it.
 */
static void publish(struct ulsm_update *u, bool before_batch, bool undo)
{
	for (size_t i = 0; i < u->n; i++) {
		struct change *c = &u->v[i];

		if (c->noop || c->kind != CHANGE_CALL)
			continue;
		if (before_batch ? c->first : (!undo || c->first))
			ulsm_call_set_func(c->obj, undo ? c->old_func : c->func);
	}
	for (size_t i = 0; i < u->n && !before_batch && !undo; i++) {
		struct change *c = &u->v[i];

		if (!c->noop && c->kind == CHANGE_KEY)
			ulsm_key_set_count(c->obj, c->on);
	}
}

ULSM_API int ulsm_update_commit(struct ulsm_update *u)
{
	struct ulsm_batch b = ULSM_BATCH_INIT;
	size_t i;
	int ret;

	if (!u)
		return ulsm_error(-EINVAL, "ulsm_update_commit: NULL update");
	if (u->error)
		return ulsm_error(u->error, "ulsm_update_commit: a change "
				  "could not be recorded; nothing written");
	ulsm_config_init();
	ulsm_clear_error();
	ret = ulsm_update_lock();
	if (ret)
		return ret;
	ret = merge(u);
	for (i = 0; !ret && i < u->n; i++)
		ret = queue(&u->v[i], &b);
	if (!ret) {
		publish(u, true, false);
		ret = ulsm_batch_apply(&b);
		publish(u, false, ret != 0);
	}
	ulsm_batch_free(&b);
	ulsm_unlock();
	return ret;
}

ULSM_API size_t ulsm_update_count(const struct ulsm_update *u)
{
	return u ? u->n : 0;
}
