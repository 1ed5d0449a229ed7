// SPDX-License-Identifier: MIT
/*
 * Per-object tables: each executable and shared object registers its own
 * "ulsm_jump_table" from a constructor (include/ulsm/object.h) and takes it
 * back from a destructor (dlclose). Many translation units of one object
 * register the same table: a reference count per table.
 *
 * Registration decodes each entry, checks that the site holds the
 * instruction it was compiled with (a site that does not is refused and
 * never patched), records the sites, and patches those whose key changed
 * state before the object was loaded, as one batch.
 *
 * An object that cannot be registered for want of a resource (memory, a
 * descriptor, a sync) is kept pending, in a static table so that keeping
 * it needs no memory either: its sites stay as compiled and unknown to the
 * registry, and every update first retries it (ulsm_update_lock), so no
 * update returns 0 while an object's sites disagree with their keys.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct object {
	const struct ulsm_jump_entry *jump_start;
	unsigned long refs;
	struct object *next;
};

static struct object *objects;

/* Objects whose registration failed for want of a resource. */
#define MAX_PENDING	256
static struct pending {
	const struct ulsm_object_tables *tables;
	unsigned long refs;
} pending[MAX_PENDING];
static int npending;

/* Decode @e into @s; refuse it (nonzero) if the site is not as compiled. */
static int decode_entry(const struct ulsm_jump_entry *e, const void *owner,
			struct ulsm_site *s)
{
	const void *const *kref = (const void *const *)ulsm_rel(&e->kref);
	bool compiled_jump = e->flags & ULSM_JUMP_COMPILED_JUMP;
	struct ulsm_insn insn;

	memset(s, 0, sizeof(*s));
	s->addr = ulsm_rel(&e->code);
	s->target = ulsm_rel(&e->target);
	s->key = (void *)(uintptr_t)*kref;
	s->owner = owner;
	s->kind = ULSM_SITE_BRANCH;
	s->branch = !!(e->flags & ULSM_JUMP_BRANCH);

	if (!s->key)
		return ulsm_error(-EINVAL, "site %#lx has a NULL key",
				  (unsigned long)s->addr);
	if (arch_encode_branch(s->addr, s->target, compiled_jump, &insn))
		return ulsm_error(-EINVAL, "site %#lx: jump out of reach",
				  (unsigned long)s->addr);
	if (memcmp((const void *)s->addr, insn.bytes, insn.len))
		return ulsm_error(-EILSEQ, "site %#lx does not hold the "
				  "instruction it was compiled with; refused",
				  (unsigned long)s->addr);
	return 0;
}

/* Sites whose key is not in the compiled state: queue them in @b. */
static int bring_in_line(const struct ulsm_site *sites, const bool *compiled,
			 size_t n, struct ulsm_batch *b)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		const struct ulsm_site *s = &sites[i];
		const struct static_key *key = s->key;
		bool want = (__atomic_load_n(&key->enabled,
					     __ATOMIC_RELAXED) > 0) ^ s->branch;
		struct ulsm_insn old, new;

		if (want == compiled[i])
			continue;
		ret = arch_encode_branch(s->addr, s->target, compiled[i], &old);
		if (!ret)
			ret = arch_encode_branch(s->addr, s->target, want, &new);
		if (!ret)
			ret = ulsm_batch_add(b, s->addr, &old, &new);
	}
	return ret;
}

static bool has_call_table(const struct ulsm_object_tables *t)
{
	return t->size >= offsetof(struct ulsm_object_tables, call_stop) +
			  sizeof(t->call_stop) && t->call_start;
}

static bool has_site_table(const struct ulsm_object_tables *t)
{
	return t->size >= offsetof(struct ulsm_object_tables, site_stop) +
			  sizeof(t->site_stop) && t->site_start;
}

static int register_sites(struct object *obj,
			  const struct ulsm_object_tables *t)
{
	size_t nj = (size_t)(t->jump_stop - t->jump_start), good = 0;
	size_t nc = has_call_table(t) ?
		    (size_t)(t->call_stop - t->call_start) : 0, ncalls = 0;
	size_t ns = has_site_table(t) ?
		    (size_t)(t->site_stop - t->site_start) : 0, n;
	struct ulsm_batch b = ULSM_BATCH_INIT;
	struct ulsm_site *sites;
	bool *compiled;
	int ret = 0, refused = 0;

	if (!nj && !nc && !ns)
		return 0;
	sites = ulsm_calloc(nj + nc + ns, sizeof(*sites));
	compiled = ulsm_calloc(nj + 1, sizeof(*compiled));
	if (!sites || !compiled) {
		ulsm_free(sites);
		ulsm_free(compiled);
		return ulsm_error(-ENOMEM, "no memory to decode %zu sites",
				  nj + nc + ns);
	}
	for (size_t i = 0; i < nj; i++) {
		const struct ulsm_jump_entry *e = &t->jump_start[i];

		if (decode_entry(e, obj, &sites[good])) {
			refused++;
			continue;
		}
		compiled[good] = e->flags & ULSM_JUMP_COMPILED_JUMP;
		good++;
	}
	ret = bring_in_line(sites, compiled, good, &b);
	if (!ret && nc)
		ret = ulsm_calls_collect(t->call_start, t->call_stop, obj,
					 sites + good, &ncalls, &refused, &b);
	n = good + ncalls;
	if (!ret && ns)
		ret = ulsm_call_sites_collect(t->site_start, t->site_stop, obj,
					      sites, &n, &b);
	/* Known first, so that traps on them are recognised. */
	if (!ret)
		ret = ulsm_registry_set_owner(obj, sites, n);
	if (!ret) {
		ret = ulsm_batch_apply(&b);
		if (ret)
			ulsm_registry_set_owner(obj, NULL, 0);
	}
	ulsm_batch_free(&b);
	ulsm_free(sites);
	ulsm_free(compiled);
	if (!ret && refused)
		ret = ulsm_error(-EILSEQ, "%d of %zu sites refused", refused,
				 nj + nc);
	return ret;
}

static bool tables_valid(const struct ulsm_object_tables *t)
{
	return t && t->size >= offsetof(struct ulsm_object_tables, call_start) &&
	       t->jump_start <= t->jump_stop &&
	       !t->jump_start == !t->jump_stop &&
	       (!has_call_table(t) || t->call_start <= t->call_stop) &&
	       (!has_site_table(t) || t->site_start <= t->site_stop);
}

static struct object *find_object(const struct ulsm_object_tables *t,
				  struct object ***link)
{
	struct object **pp, *obj;

	for (pp = &objects; (obj = *pp); pp = &obj->next)
		if (obj->jump_start == t->jump_start)
			break;
	if (link)
		*link = pp;
	return obj;
}

static struct pending *find_pending(const struct ulsm_object_tables *t)
{
	for (int i = 0; i < npending; i++)
		if (pending[i].tables->jump_start == t->jump_start)
			return &pending[i];
	return NULL;
}

/*
 * Register @t with @refs references. Return 0, -EILSEQ (registered, with
 * some sites refused), or another negative errno (nothing registered).
 */
static int register_object(const struct ulsm_object_tables *t,
			   unsigned long refs)
{
	struct object *obj = ulsm_calloc(1, sizeof(*obj));
	int ret = 0;

	if (!obj)
		return ulsm_error(-ENOMEM, "no memory to register an object");
	obj->jump_start = t->jump_start;
	obj->refs = refs;
	if (arch_protocol != ULSM_PROTO_NONE)
		ret = register_sites(obj, t);
	if (ret && ret != -EILSEQ) {
		ulsm_free(obj);
		return ret;
	}
	obj->next = objects;
	objects = obj;
	return ret;
}

static void keep_pending(const struct ulsm_object_tables *t, int err)
{
	if (npending == MAX_PENDING) {
		fprintf(stderr, "ulsm: an object's sites cannot be registered "
			"(%s), and %d objects are pending already: its sites "
			"keep their compiled state\n", strerror(-err),
			MAX_PENDING);
		return;
	}
	pending[npending].tables = t;
	pending[npending].refs = 1;
	npending++;
	fprintf(stderr, "ulsm: an object's sites cannot be registered now "
		"(%s); it is pending, and every update retries it\n",
		ulsm_last_error()[0] ? ulsm_last_error() : strerror(-err));
}

static int retry_pending_locked(void)
{
	while (npending) {
		struct pending *p = &pending[0];
		int ret = register_object(p->tables, p->refs);

		if (ret && ret != -EILSEQ) {
			ulsm_debug("a pending object still cannot be "
				   "registered: %s", ulsm_last_error());
			return ulsm_error(ret, "a pending object cannot be "
					  "brought in line with its keys (%s); "
					  "nothing changed", strerror(-ret));
		}
		ulsm_debug("a pending object is registered");
		memmove(&pending[0], &pending[1],
			(size_t)--npending * sizeof(pending[0]));
	}
	return 0;
}

int ulsm_update_lock(void)
{
	int ret = ulsm_lock();

	if (ret)
		return ret;
	/* What earlier failures left: first the text, then the objects. */
	ulsm_text_restore_stuck();
	ret = ulsm_batch_repair();
	if (!ret)
		ret = retry_pending_locked();
	if (ret)
		ulsm_unlock();
	return ret;
}

ULSM_API int ulsm_object_register(const struct ulsm_object_tables *t)
{
	struct pending *p;
	struct object *obj;
	int ret;

	if (!tables_valid(t))
		return ulsm_error(-EINVAL, "ulsm_object_register: bad tables");
	ulsm_init();
	ret = ulsm_lock();
	if (ret)
		return ret;
	obj = find_object(t, NULL);
	p = obj ? NULL : find_pending(t);
	if (obj) {
		obj->refs++;
	} else if (p) {
		p->refs++;
		ret = retry_pending_locked();
	} else {
		ret = register_object(t, 1);
		if (ret && ret != -EILSEQ)
			keep_pending(t, ret);
	}
	ulsm_unlock();
	return ret;
}

ULSM_API int ulsm_object_unregister(const struct ulsm_object_tables *t)
{
	struct object **pp, *obj;
	struct pending *p;
	int ret;

	if (!t)
		return ulsm_error(-EINVAL, "ulsm_object_unregister: NULL tables");
	ret = ulsm_lock();
	if (ret)
		return ret;
	obj = find_object(t, &pp);
	p = obj ? NULL : find_pending(t);
	if (obj) {
		if (!--obj->refs) {
			ulsm_registry_set_owner(obj, NULL, 0);
			*pp = obj->next;
			ulsm_free(obj);
		}
	} else if (p) {
		if (!--p->refs)
			memmove(p, p + 1, (size_t)(&pending[--npending] - p) *
				sizeof(*p));
	} else {
		ret = ulsm_error(-ENOENT, "ulsm_object_unregister: not registered");
	}
	ulsm_unlock();
	return ret;
}

int ulsm_pending_count(void)
{
	return npending;
}

void ulsm_objects_for_each(void (*fn)(const void *owner,
				      const void *jump_start,
				      unsigned long refs, bool pending,
				      void *arg), void *arg)
{
	for (struct object *o = objects; o; o = o->next)
		fn(o, o->jump_start, o->refs, false, arg);
	for (int i = 0; i < npending; i++)
		fn(NULL, pending[i].tables->jump_start, pending[i].refs, true,
		   arg);
}

ULSM_API int ulsm_pending_objects(void)
{
	int n;

	ulsm_init();
	if (ulsm_lock())
		return npending;
	n = npending;
	ulsm_unlock();
	return n;
}

ULSM_API int ulsm_retry_pending(void)
{
	int ret;

	ulsm_init();
	ulsm_clear_error();
	ret = ulsm_update_lock();
	if (!ret)
		ulsm_unlock();
	return ret;
}
