// SPDX-License-Identifier: MIT
/*
 * Per-object tables: each executable and shared object registers its own
 * "ulsm_jump_table" from a constructor (include/ulsm/object.h) and takes it
 * back from a destructor (dlclose). Many translation units of one object
 * register the same table: a reference count per table.
 *
 * Registration hands each record of the tables to the kind of site that
 * collects that table (struct ulsm_site_kind, registered by the layers
 * above at start-up): the kind checks that the site holds the instruction
 * it was compiled with (a site that does not is refused and never
 * patched), records it, and queues the change that brings it in line with
 * its state (a key enabled, a call retargeted before the object was
 * loaded); the engine registers the sites and applies those changes as
 * one transaction.
 *
 * An object that cannot be registered for want of a resource (memory, a
 * descriptor, a sync) is kept pending: its sites stay as compiled and
 * unknown to the registry, and every update first retries it
 * (ulsm_update_lock), so no update returns 0 while an object's sites
 * disagree with their keys. The first PENDING_RESERVE pending objects
 * need no memory (a static table); more grow the table. An object that
 * cannot even be kept pending (no memory to grow it) is counted as lost,
 * and every update fails until it is unregistered: a table that fills up
 * never drops an object while updates report success.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

struct object {
	const struct ulsm_jump_entry *jump_start;
	unsigned long refs;
	struct object *next;
};

static struct object *objects;

/* Objects whose registration failed for want of a resource. */
#define PENDING_RESERVE	256
struct pending {
	const struct ulsm_object_tables *tables;
	unsigned long refs;
};
static struct pending reserve[PENDING_RESERVE];
static struct pending *pending = reserve;
static int npending, cappending = PENDING_RESERVE;
/* Objects neither registered nor pending, and not yet unregistered. */
static unsigned long lost;

/* The kinds of site, one per table; set at start-up, before any object. */
static const struct ulsm_site_kind *kinds[ULSM_TABLES];

void ulsm_site_kind_register(const struct ulsm_site_kind *kind)
{
	if (kind->table >= ULSM_TABLES)
		ulsm_die("a kind of site for table %d", (int)kind->table);
	/*
	 * Pairs with the acquire load in ulsm_site_kind_of() (this file): a
	 * reader that finds the kind sees its fields.
	 */
	__atomic_store_n(&kinds[kind->table], kind, __ATOMIC_RELEASE);
}

const struct ulsm_site_kind *ulsm_site_kind_of(enum ulsm_table table)
{
	/*
	 * Pairs with the release store in ulsm_site_kind_register() (this
	 * file).
	 */
	return table < ULSM_TABLES ?
	       __atomic_load_n(&kinds[table], __ATOMIC_ACQUIRE) : NULL;
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

/* Is @e a record of the tagged kind (<ulsm/object.h>, engine.h)? */
static bool record_tagged(const struct ulsm_call_site *e)
{
	const void *const *kref = (const void *const *)ulsm_rel(&e->kref);

	return (uintptr_t)*kref & 1;
}

/* Hand each record of one table to its kind, in table order. */
static int collect_table(struct ulsm_collect *c, enum ulsm_table table,
			 const void *start, size_t n, size_t size)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		const void *rec = (const char *)start + i * size;
		enum ulsm_table which = table;
		const struct ulsm_site_kind *kind;

		if (table == ULSM_TABLE_SITE && record_tagged(rec))
			which = ULSM_TABLE_SITE_TAGGED;
		kind = ulsm_site_kind_of(which);
		if (kind)
			ret = kind->collect(c, rec);
		else
			ulsm_debug("a record of table %d left as compiled: no "
				   "kind of site collects it", (int)which);
	}
	return ret;
}

/*
 * Collect every site of @t, in the order of the tables (a call site looks
 * its trampoline up among the object's own, collected before it), record
 * them, and bring them in line with their state in one transaction.
 */
static int register_sites(struct object *obj,
			  const struct ulsm_object_tables *t)
{
	size_t nj = (size_t)(t->jump_stop - t->jump_start);
	size_t nc = has_call_table(t) ?
		    (size_t)(t->call_stop - t->call_start) : 0;
	size_t ns = has_site_table(t) ?
		    (size_t)(t->site_stop - t->site_start) : 0;
	struct ulsm_txn txn = ULSM_TXN_INIT;
	struct ulsm_collect c = { .owner = obj, .txn = &txn };
	int ret;

	if (!nj && !nc && !ns)
		return 0;
	c.sites = ulsm_calloc(nj + nc + ns, sizeof(*c.sites));
	if (!c.sites)
		return ulsm_error(-ENOMEM, "no memory to decode %zu sites",
				  nj + nc + ns);
	ret = collect_table(&c, ULSM_TABLE_JUMP, t->jump_start, nj,
			    sizeof(*t->jump_start));
	if (!ret)
		ret = collect_table(&c, ULSM_TABLE_CALL, t->call_start, nc,
				    sizeof(*t->call_start));
	if (!ret)
		ret = collect_table(&c, ULSM_TABLE_SITE, t->site_start, ns,
				    sizeof(*t->site_start));
	/* Known first, so that traps on them are recognised. */
	if (!ret)
		ret = ulsm_registry_set_owner(obj, c.sites, c.n);
	if (!ret) {
		ret = ulsm_txn_commit(&txn);
		if (ret)
			ulsm_registry_set_owner(obj, NULL, 0);
	}
	ulsm_txn_free(&txn);
	ulsm_free(c.sites);
	for (int i = 0; i < ULSM_TABLES; i++)
		ulsm_free(c.scratch[i]);
	if (!ret && c.refused)
		ret = ulsm_error(-EILSEQ, "%d of %zu sites refused", c.refused,
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
	if (ulsm_caps()->patches_code)
		ret = register_sites(obj, t);
	if (ret && ret != -EILSEQ) {
		ulsm_free(obj);
		return ret;
	}
	obj->next = objects;
	objects = obj;
	return ret;
}

/* Room for one more pending object, 0 or -ENOMEM. */
static int pending_room(void)
{
	struct pending *v;
	int cap;

	if (npending < cappending)
		return 0;
	if (__builtin_mul_overflow(cappending, 2, &cap))
		return -ENOMEM;
	v = pending == reserve ? ulsm_calloc((size_t)cap, sizeof(*v)) :
	    ulsm_reallocarray(pending, (size_t)cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (pending == reserve)
		memcpy(v, reserve, sizeof(reserve));
	pending = v;
	cappending = cap;
	return 0;
}

static void keep_pending(const struct ulsm_object_tables *t, int err)
{
	if (pending_room()) {
		lost++;
		ulsm_report("an object's sites cannot be registered (%s), nor "
			    "kept pending (no memory for a table of %d "
			    "objects): every update fails until it is "
			    "unloaded", strerror(-err), npending + 1);
		return;
	}
	pending[npending].tables = t;
	pending[npending].refs = 1;
	npending++;
	ulsm_report("an object's sites cannot be registered now (%s); it is "
		    "pending, and every update retries it",
		    ulsm_last_error()[0] ? ulsm_last_error() : strerror(-err));
}

static int retry_pending_locked(void)
{
	if (lost)
		return ulsm_error(-ENOMEM, "%lu object(s) could be neither "
				  "registered nor kept pending: their sites "
				  "may disagree with their keys; nothing "
				  "changed", lost);
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

int ulsm_objects_add(const struct ulsm_object_tables *t)
{
	struct pending *p;
	struct object *obj;
	int ret;

	if (!tables_valid(t))
		return ulsm_error(-EINVAL, "ulsm_object_register: bad tables");
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

int ulsm_objects_remove(const struct ulsm_object_tables *t)
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
	} else if (lost) {
		/* Most likely a lost one: its sites go with it. */
		lost--;
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

	ulsm_config_init();
	if (ulsm_lock())
		return npending + (int)lost;
	/* The lost ones too: their sites are not in line either. */
	n = npending + (int)lost;
	ulsm_unlock();
	return n;
}

int ulsm_objects_retry(void)
{
	int ret;

	ulsm_config_init();
	ulsm_clear_error();
	ret = ulsm_update_lock();
	if (!ret)
		ulsm_unlock();
	return ret;
}
