// SPDX-License-Identifier: MIT
/*
 * src/trace/tracepoint.c - every loaded tracepoint, and its probes
 * (<ulsm/tracepoint.h>).
 *
 * A tracepoint's site calls its static call with its data inside a
 * read-side section. What the static call targets follows the probes:
 *
 *   none        key off, call NULL
 *   one (p)     key on, call p, data p's; or, for one grace period after
 *               the change that left p alone, call the iterator
 *   several     key on, call the iterator, which walks funcs (the data is
 *               ignored): through its slots, static calls patched to the
 *               probes of the array in slotted, if that is the array it
 *               read; else through pointers
 *
 * funcs, a new array at each change, always lists every probe. The site
 * loads the data and then calls, so a thread may pair an old data with a
 * new target. Each change is one transaction of the engine (struct
 * ulsm_txn, src/engine/txn.c; a thousand tracepoints: one transaction,
 * three stages), and its entries put every pair right: the data before
 * any code; the key and the call in their stages (a key that opens
 * last, a call retargeted while only keys open in both states lead to
 * it); slotted, funcs and the tracepoint's records after the last
 * stage's code, where a commit arrives only when every stage succeeded:
 *
 *   0 -> 1      data, then key and call, to p. A thread that passed the
 *               key while it was last on may enter its section late, with
 *               the old data: if the tracepoint was on before, the data is
 *               stored first (a transaction of its own) and a grace period
 *               passes (without the lock) before the change; if it changed
 *               meanwhile, or the grace period failed, the call goes to
 *               the iterator, and to p after a grace period;
 *   1 -> 2+     call -> iterator, then funcs published (until then the
 *               iterator calls the one probe of the old array);
 *   2+ -> 2+    funcs published;
 *   2 -> 1 (q)  data = q's, then funcs published (the iterator stays);
 *   1 -> 0      key off, call NULL, then funcs NULL.
 *
 * No change orders a store or undoes one by itself: when a commit fails,
 * the engine puts back every site and every word, and a new array, which
 * only a successful commit publishes, is freed at once.
 *
 * A tracepoint left on its iterator with one probe gets the direct call
 * after a grace period (every thread that loaded another data has called
 * the iterator), unless it changed again meanwhile (its gen); if that
 * transaction fails, the iterator stays, right and slower. An old array is
 * freed only after a grace period, whatever the change: an iterator that
 * began before the last few changes may still read it (a freed one, reused
 * for another array, once paired a probe with another's data under the
 * stress test).
 *
 * The slots (2 to ULSM_TP_SLOTS probes) follow the same rule: every change
 * sets slotted to NULL before it publishes its array, so an iterator that
 * reads the new array calls through pointers; after the grace period
 * that follows (no iterator still runs the slots for an older array), if
 * the tracepoint is unchanged, one transaction patches the slots for the
 * array, and then sets slotted to it. A failed one leaves the pointers:
 * right, slower. A tracepoint that was never on has no reader
 * that could run its slots: its first array (globs attached as its object
 * loads) gets them in the change's own update.
 *
 * A detach returns after the grace period that follows the probe's
 * unpublication: no thread is inside it any more. Probes attached by glob
 * are kept, and attached to tracepoints that appear later (an object
 * loaded with dlopen: its constructor adds its tracepoints here).
 *
 * One lock (trace_lock) orders every change; it is taken before the
 * update lock. It is never held across a grace period: the changes are
 * made under it, and their grace periods (and what waits for them: the
 * frees, the direct calls) come after it. A thread inside a read-side
 * section (a probe, or code between ulsm_read_lock and unlock) may take
 * it, to find a tracepoint, write the recorder's file, or load or unload
 * an object, while another thread's grace period waits for that thread:
 * the lock's holder never waits for it. Such a thread may not attach or
 * detach (what follows the change would wait for itself): -EDEADLK, and
 * nothing changed. fork(): the child gets the lock free and the lists
 * whole (the handlers, registered by the start-up after the patch lock's,
 * take it before the patch lock, in the lock order).
 */
#include <errno.h>
#include <stddef.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "base/sys.h"
#include "engine/engine.h"
#include "static/static.h"
#include "trace/trace.h"

/* A probe attached by glob (func NULL: the recorder). */
struct glob_probe {
	char *glob;
	void *func, *data;
	struct glob_probe *next;
};

/* The name of each id, kept after the tracepoint's object goes. */
struct tp_name {
	uint32_t id;
	int nargs;
	unsigned char types[ULSM_TRACE_MAX_ARGS];
	char *name, *args;
	struct tp_name *next;
};

/*
 * Why a tracepoint's own probe (tp->usdt: its USDT probe, which counts
 * hits in *data) is attached: a USDT tracer listens (the semaphore is not
 * 0), or hits are counted (ulsm_trace_count_begin). Kept by the library,
 * not in the tracepoint (its object's memory), and freed with the
 * tracepoint: the probe's data points at @hits. @attached and @with
 * change with the tracepoint, in its transaction.
 */
struct usage {
	struct ulsm_tracepoint *tp;
	unsigned long hits;
	bool attached;
	void *with;		/* attached with: &hits (counting) or NULL */
	struct usage *next;
};

/*
 * One tracepoint's change: its new array and the entries of its
 * transaction, committed under the lock (apply), then, after it, the
 * grace period, the free of its old array and the direct call or the
 * slots it may be owed (finish).
 */
struct change {
	struct ulsm_tracepoint *tp;
	struct ulsm_tp_funcs *old, *nf;	/* nf NULL: no probe left */
	struct usage *usage;		/* tp's own probe moves: its record */
	void *usage_with;		/* and the data it is attached with */
	bool usage_on;
	uint32_t id;			/* tp's id and gen after the change */
	unsigned int gen;
	bool promote;			/* one probe, on the iterator */
	bool slots;			/* 2+ probes: the slots, after */
	bool settled;			/* 0 -> 1 may call directly */
};

/* A tracepoint whose data was stored before a grace period (settle). */
struct settled {
	struct ulsm_tracepoint *tp;
	uint32_t id;
	unsigned int gen;
};

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ulsm_tracepoint *tracepoints;
static struct glob_probe *globs;
static struct tp_name *names;
static uint32_t next_id = 1;

static struct usage *usages;
static unsigned int counting;		/* count sessions open */
static unsigned long removals;		/* tracepoints removed, ever */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static struct ulsm_tp_funcs *funcs_of(const struct ulsm_tracepoint *tp)
{
	return __atomic_load_n(&tp->funcs, __ATOMIC_RELAXED);
}

static int nprobes(const struct ulsm_tracepoint *tp)
{
	struct ulsm_tp_funcs *f = funcs_of(tp);

	return f ? f->n : 0;
}

/* The probe as @tp lists it: func NULL is the recorder, without data. */
static struct ulsm_tp_probe probe_of(const struct ulsm_tracepoint *tp,
				     void *func, void *data)
{
	return (struct ulsm_tp_probe){ func ? func : tp->record,
				       func ? data : NULL };
}

static int find(const struct ulsm_tp_funcs *f, struct ulsm_tp_probe p)
{
	for (int i = 0; f && i < f->n; i++)
		if (f->probes[i].func == p.func && f->probes[i].data == p.data)
			return i;
	return -1;
}

static struct ulsm_tp_funcs *funcs_alloc(int n)
{
	struct ulsm_tp_funcs *f;

	f = ulsm_malloc(sizeof(*f) + (size_t)n * sizeof(f->probes[0]));
	if (f)
		f->n = 0;
	return f;
}

/*
 * Plan @c: @tp's probes without probe @skip (-1: none), plus @add if
 * given. No probe left: nf NULL.
 */
static int plan(struct change *c, struct ulsm_tracepoint *tp, int skip,
		const struct ulsm_tp_probe *add)
{
	struct ulsm_tp_funcs *old = funcs_of(tp);
	int n = old ? old->n : 0;

	*c = (struct change){ .tp = tp, .old = old };
	if (n - (skip >= 0) + (add != NULL) == 0)
		return 0;
	c->nf = funcs_alloc(n + 1);
	if (!c->nf)
		return ulsm_error(-ENOMEM, "tracepoint %s: no memory for its "
				  "probes", tp->name);
	for (int i = 0; i < n; i++)
		if (i != skip)
			c->nf->probes[c->nf->n++] = old->probes[i];
	if (add)
		c->nf->probes[c->nf->n++] = *add;
	return 0;
}

static void unplan(struct change *c, int n)
{
	for (int i = 0; i < n; i++)
		ulsm_free(c[i].nf);
}

/* Whether @f's probes fit the iterator's slots. */
static bool fits_slots(const struct ulsm_tp_funcs *f)
{
	return f && f->n >= 2 && f->n <= ULSM_TP_SLOTS;
}

/*
 * @tp's key to be on or off, in @t: as the public update turns a key on
 * or off (src/static/update.c), in the stage the key's direction asks for.
 */
static int queue_key(struct ulsm_txn *t, struct ulsm_tracepoint *tp, bool on)
{
	struct static_key *k = &tp->key->key;
	int ret = ulsm_key_check(k, "tracepoint");

	if (ret)
		return ret;
	if (!on && k->enabled > 1)
		return ulsm_error(-EBUSY, "tracepoint %s: its key is reference "
				  "counted (count %d)", tp->name, k->enabled);
	if (on == (k->enabled > 0))
		return 0;
	return ulsm_key_queue(t, k, on, ulsm_key_stage(on));
}

/* Static call @key (trampoline @tramp) to call @func, in @t. */
static int queue_call(struct ulsm_txn *t, struct static_call_key *key,
		      void *tramp, void *func)
{
	int ret = ulsm_call_check(key, "tracepoint");

	return ret ? ret : ulsm_call_queue(t, key, tramp, func, NULL);
}

/* Aim @tp's slots at @f's probes, in @t (the stage of targets). */
static int aim_slots(struct ulsm_txn *t, struct ulsm_tracepoint *tp,
		     const struct ulsm_tp_funcs *f)
{
	int ret = 0;

	for (int i = 0; i < f->n && !ret; i++)
		ret = queue_call(t, tp->slot_call[i], tp->slot_tramp[i],
				 f->probes[i].func);
	return ret;
}

/*
 * The words @c publishes, and the records it changes: entries after the
 * last stage's code, which a commit reaches only when every stage has
 * succeeded. A change that fails never showed its new array to anyone.
 */
static int queue_publish(struct ulsm_txn *t, struct change *c,
			 struct ulsm_tp_funcs *slotted)
{
	struct ulsm_tracepoint *tp = c->tp;
	int ret;

	/*
	 * Pairs with the acquire load of slotted in __traceiter_NAME()
	 * (DEFINE_TRACEPOINT, <ulsm/tracepoint.h>): stored before funcs, so
	 * that an iterator that reads the new array reads this slotted or a
	 * later one, never an older one that names another array's slots.
	 */
	ret = ulsm_txn_store_ptr(t, ULSM_STAGE_GUARDS_ON, ULSM_AFTER,
				 &tp->slotted, slotted);
	/*
	 * Pairs with the acquire load of funcs in __traceiter_NAME(): an
	 * iterator that reads the new array reads the probes written into
	 * it before the commit, and the slotted stored just above.
	 */
	if (!ret)
		ret = ulsm_txn_store_ptr(t, ULSM_STAGE_GUARDS_ON, ULSM_AFTER,
					 &tp->funcs, c->nf);
	/*
	 * The records (read under trace_lock only, so they pair with no
	 * load) go with the change: a failed one leaves them as they were.
	 */
	if (!ret)
		ret = ulsm_txn_store_bool(t, ULSM_STAGE_GUARDS_ON, ULSM_AFTER,
					  &tp->was_on, tp->was_on || c->nf);
	if (!ret)
		ret = ulsm_txn_store_int(t, ULSM_STAGE_GUARDS_ON, ULSM_AFTER,
					 (int *)&tp->gen, (int)c->gen);
	if (!ret && c->usage)
		ret = ulsm_txn_store_bool(t, ULSM_STAGE_GUARDS_ON, ULSM_AFTER,
					  &c->usage->attached, c->usage_on);
	if (!ret && c->usage)
		ret = ulsm_txn_store_ptr(t, ULSM_STAGE_GUARDS_ON, ULSM_AFTER,
					 &c->usage->with, c->usage_with);
	return ret;
}

/*
 * Add @c to @t: the data its site is to pass, its key and call, its
 * slots when it was never on, and what it publishes. Every change adds
 * or removes one probe, or starts from none. Patch lock held.
 */
static int queue_change(struct ulsm_txn *t, struct change *c)
{
	struct ulsm_tracepoint *tp = c->tp;
	struct ulsm_tp_funcs *slotted = NULL;
	int from = c->old ? c->old->n : 0;
	int to = c->nf ? c->nf->n : 0;
	void *call = __atomic_load_n(&tp->call->func, __ATOMIC_RELAXED);
	int ret = 0;

	c->id = tp->id;
	c->gen = tp->gen + 1;
	/* Never on: no iterator ran its slots, aimed now. */
	c->slots = fits_slots(c->nf);
	if (c->slots && !tp->was_on) {
		ret = aim_slots(t, tp, c->nf);
		c->slots = false;
		slotted = c->nf;
	}
	/*
	 * The data changes only where the site's call ignores it: off
	 * (0 -> 1), or the iterator (2+ -> 1). Pairs with the relaxed load
	 * of data in trace_NAME() (DECLARE_TRACEPOINT, <ulsm/tracepoint.h>),
	 * which a thread makes after the key site and before the call:
	 * stored before the first stage's code, it is ordered before any
	 * new code a thread runs by the stages' core syncs.
	 */
	if (!ret && to == 1 && from != 1)
		ret = ulsm_txn_store_ptr(t, ULSM_STAGE_GUARDS_OFF, ULSM_BEFORE,
					 &tp->data, c->nf->probes[0].data);
	if (ret)
		return ret;
	if (to == 0) {
		ret = queue_key(t, tp, false);
		if (!ret)
			ret = queue_call(t, tp->call, tp->tramp, NULL);
	} else if (from == 0) {
		bool direct = to == 1 && (!tp->was_on || c->settled);

		ret = queue_key(t, tp, true);
		if (!ret)
			ret = queue_call(t, tp->call, tp->tramp, direct ?
					 c->nf->probes[0].func : tp->iter);
		c->promote = to == 1 && !direct;
	} else if (to == 1) {
		c->promote = true;	/* from 2+: the iterator */
	} else if (call != tp->iter) {
		ret = queue_call(t, tp->call, tp->tramp, tp->iter);
	}
	return ret ? ret : queue_publish(t, c, slotted);
}

/*
 * Make the @n planned changes, under the lock: one transaction for every
 * key, call, data and array that changes (a thousand tracepoints: one
 * transaction, three stages). On failure none changed (the engine put
 * back every site and word), and the new arrays, never published, are
 * freed.
 */
static int apply(struct change *c, int n)
{
	struct ulsm_txn t = ULSM_TXN_INIT;
	int ret;

	if (!n)
		return 0;
	ulsm_config_init();
	ulsm_clear_error();
	ret = ulsm_update_lock();
	if (!ret) {
		for (int i = 0; i < n && !ret; i++)
			ret = queue_change(&t, &c[i]);
		ret = ulsm_txn_finish(&t, ret);
	}
	if (ret)
		unplan(c, n);
	return ret;
}

/* Is @c's tracepoint still loaded, unchanged since @c? Under the lock. */
static bool unchanged(const struct change *c, unsigned long removals_then)
{
	if (removals != removals_then) {
		struct ulsm_tracepoint *tp = tracepoints;

		/* Its object may be gone: look before reading. */
		while (tp && tp != c->tp)
			tp = tp->next;
		if (!tp)
			return false;
	}
	return c->tp->id == c->id && c->tp->gen == c->gen &&
	       __atomic_load_n(&c->tp->call->func, __ATOMIC_RELAXED) ==
	       c->tp->iter;
}

/*
 * After the lock: the grace period (if @wait, or if an old array, a
 * direct call or the slots wait for it), then the frees, and the direct
 * calls and the slots of the tracepoints unchanged since, in one
 * transaction.
 * Return: 0, or the error of the grace period (the old arrays are kept,
 * the iterators stay, through pointers).
 */
static int finish(struct change *c, int n, unsigned long removals_then,
		  bool wait)
{
	struct ulsm_txn t = ULSM_TXN_INIT;
	bool promote = false;
	int ret;

	for (int i = 0; i < n; i++) {
		wait = wait || c[i].old;
		promote = promote || c[i].promote || c[i].slots;
	}
	if (!wait && !promote)
		return 0;
	ret = ulsm_synchronize();
	if (ret)
		return ret;
	for (int i = 0; i < n; i++)
		ulsm_free(c[i].old);
	if (!promote)
		return 0;
	pthread_mutex_lock(&trace_lock);
	ret = ulsm_update_lock();
	if (!ret) {
		for (int i = 0; i < n && !ret; i++) {
			struct ulsm_tracepoint *tp = c[i].tp;

			if ((!c[i].promote && !c[i].slots) ||
			    !unchanged(&c[i], removals_then))
				continue;
			if (c[i].promote) {
				ret = queue_call(&t, tp->call, tp->tramp,
						 c[i].nf->probes[0].func);
				continue;
			}
			ret = aim_slots(&t, tp, c[i].nf);
			/*
			 * Pairs with the acquire load of slotted in
			 * __traceiter_NAME() (DEFINE_TRACEPOINT,
			 * <ulsm/tracepoint.h>): after the last stage, so
			 * that an iterator that finds its array slotted
			 * finds every slot aimed at its probes.
			 */
			if (!ret)
				ret = ulsm_txn_store_ptr(&t,
						ULSM_STAGE_GUARDS_ON, ULSM_AFTER,
						&tp->slotted, c[i].nf);
		}
		ret = ulsm_txn_finish(&t, ret);
	}
	pthread_mutex_unlock(&trace_lock);
	if (ret)
		ulsm_clear_error();	/* the iterators stay, right and slower */
	return 0;
}

/*
 * The end of every attach and detach: drop the lock and, if the @n
 * changes of @c were made (@ret 0), finish them. An attach is done
 * whatever the grace period does (its old arrays are kept if it fails);
 * a detach waits for one and returns its error.
 */
static int unlock_finish(struct change *c, int n, int ret, bool detach)
{
	unsigned long removals_then = removals;

	pthread_mutex_unlock(&trace_lock);
	if (ret)
		return ret;
	if (detach)
		return finish(c, n, removals_then, n > 0);
	if (finish(c, n, removals_then, false))
		ulsm_clear_error();	/* attached; the old arrays are kept */
	return 0;
}

/*
 * An attach to a tracepoint that has no probe but had one would go through
 * the iterator (0 -> 1 above), and cost a second transaction after the
 * grace period. Instead, before the change: store the probe's data now, in
 * a transaction of its own (settle_wait: the site ignores it while off),
 * wait for a grace period without the lock, and if the tracepoint has not
 * changed meanwhile, its late readers are gone: the change calls the
 * probe directly, in one transaction.
 * Return: 1 if @tp's settle is added to @t (@s says what it will be), 0
 * if it needs none, or -ENOMEM.
 */
static int settle_begin(struct ulsm_txn *t, struct settled *s,
			struct ulsm_tracepoint *tp, struct ulsm_tp_probe p)
{
	int ret;

	if (funcs_of(tp) || !tp->was_on)
		return 0;
	/*
	 * Pairs with the relaxed load of data in trace_NAME()
	 * (DECLARE_TRACEPOINT, <ulsm/tracepoint.h>): the key is off, and a
	 * thread that passed it while it was last on and loads this data
	 * late calls the call that went NULL then; the grace period that
	 * follows (settle_wait) outlasts every such thread.
	 */
	ret = ulsm_txn_store_ptr(t, ULSM_STAGE_GUARDS_OFF, ULSM_BEFORE,
				 &tp->data, p.data);
	/* A change of its own (gen: read under trace_lock only). */
	if (!ret)
		ret = ulsm_txn_store_int(t, ULSM_STAGE_GUARDS_OFF, ULSM_BEFORE,
					 (int *)&tp->gen, (int)(tp->gen + 1));
	*s = (struct settled){ tp, tp->id, tp->gen + 1 };
	return ret ? ret : 1;
}

/*
 * Called with the lock, returns with it: commit @t, the settles of @n
 * tracepoints (negative: the error of adding them), and wait for the
 * grace period that follows. Return how many are settled: @n, or 0 if
 * the commit or the grace period failed (their changes then go through
 * the iterator).
 */
static int settle_wait(struct ulsm_txn *t, int n)
{
	int ret = n < 0 ? n : 0;

	if (n > 0) {
		ulsm_config_init();
		ret = ulsm_update_lock();
		if (!ret) {
			ret = ulsm_txn_commit(t);
			ulsm_unlock();
		}
	}
	ulsm_txn_free(t);
	if (ret) {
		ulsm_clear_error();
		return 0;
	}
	if (!n)
		return 0;
	pthread_mutex_unlock(&trace_lock);
	if (ulsm_synchronize()) {
		ulsm_clear_error();
		n = 0;		/* then through the iterator */
	}
	pthread_mutex_lock(&trace_lock);
	return n;
}

/* Is @tp (loaded) among the @n settled, unchanged since? */
static bool is_settled(const struct settled *s, int n,
		       const struct ulsm_tracepoint *tp)
{
	for (int i = 0; i < n; i++)
		if (s[i].tp == tp)
			return s[i].id == tp->id && s[i].gen == tp->gen;
	return false;
}

static int refuse_inside(const char *what)
{
	return ulsm_error(-EDEADLK, "%s: called from inside a read-side "
			  "section (a probe?): the grace period that follows "
			  "would wait for it", what);
}

/*
 * A tracepoint's record is compiled into the program or a plug-in by its
 * headers (docs/abi.md, "Records in your objects"): 0.2.0's is the first
 * sized layout, and a later library compares with 0.2.0's size, not its
 * own. A shorter record is never listed, so nothing reads it.
 */
static bool tp_readable(const struct ulsm_tracepoint *tp)
{
	return tp->size >= sizeof(*tp);
}

ULSM_API int tracepoint_probe_register(struct ulsm_tracepoint *tp,
				       void *probe, void *data)
{
	struct ulsm_tp_probe p = { probe, data };
	struct ulsm_txn st = ULSM_TXN_INIT;
	struct settled s;
	struct change c;
	int ret, ns;

	if (!tp || !probe)
		return ulsm_error(-EINVAL, "tracepoint_probe_register: NULL %s",
				  tp ? "probe" : "tracepoint");
	if (!tp_readable(tp))
		return ulsm_error(-EPROTO, "tracepoint at %p is from headers "
				  "older than this library", (void *)tp);
	if (ulsm_read_inside())
		return refuse_inside("tracepoint_probe_register");
	pthread_mutex_lock(&trace_lock);
	ns = settle_wait(&st, settle_begin(&st, &s, tp, p));
	if (find(funcs_of(tp), p) >= 0) {
		ret = -EEXIST;
	} else if (!(ret = plan(&c, tp, -1, &p))) {
		c.settled = is_settled(&s, ns, tp);
		ret = apply(&c, 1);
	}
	return unlock_finish(&c, 1, ret, false);
}

ULSM_API int tracepoint_probe_unregister(struct ulsm_tracepoint *tp,
					 void *probe, void *data)
{
	struct ulsm_tp_probe p = { probe, data };
	struct change c;
	int i, ret;

	if (!tp || !probe)
		return ulsm_error(-EINVAL, "tracepoint_probe_unregister: NULL %s",
				  tp ? "probe" : "tracepoint");
	if (ulsm_read_inside())
		return refuse_inside("tracepoint_probe_unregister");
	pthread_mutex_lock(&trace_lock);
	i = find(funcs_of(tp), p);
	if (i < 0)
		ret = -ENOENT;
	else if (!(ret = plan(&c, tp, i, NULL)))
		ret = apply(&c, 1);
	return unlock_finish(&c, 1, ret, true);
}

static bool matches(const char *glob, const struct ulsm_tracepoint *tp)
{
	return !fnmatch(glob, tp->name, 0);
}

static struct glob_probe **glob_find(const char *glob, void *func,
				     void *data)
{
	struct glob_probe **pp;

	for (pp = &globs; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->glob, glob) && (*pp)->func == func &&
		    (*pp)->data == data)
			return pp;
	return NULL;
}

/* How many of the loaded tracepoints @glob matches. Under the lock. */
static int matching(const char *glob)
{
	int n = 0;

	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next)
		n += matches(glob, tp);
	return n;
}

/*
 * *@c: room for a change to each tracepoint @glob matches (and one
 * more). Under the lock. Return: 0, or -ENOMEM, said for @what.
 */
static int changes_alloc(const char *glob, const char *what,
			 struct change **c)
{
	*c = ulsm_calloc((size_t)matching(glob) + 1, sizeof(**c));
	return *c ? 0 : ulsm_error(-ENOMEM, "%s: no memory", what);
}

/*
 * The @n changes planned in @c: applied, or freed if planning (or
 * changes_alloc()) failed.
 */
static int apply_planned(struct change *c, int n, int ret)
{
	if (ret) {
		unplan(c, n);
		return ret;
	}
	return apply(c, n);
}

static void glob_free(struct glob_probe *g)
{
	if (g)
		ulsm_free(g->glob);
	ulsm_free(g);
}

/* Does a glob other than @g attach the same probe to @tp? */
static bool kept_by_another(const struct glob_probe *g,
			    const struct ulsm_tracepoint *tp)
{
	for (struct glob_probe *o = globs; o; o = o->next)
		if (o != g && o->func == g->func && o->data == g->data &&
		    matches(o->glob, tp))
			return true;
	return false;
}

/*
 * Attach @func to every tracepoint that matches @glob and does not have
 * it yet, in one update, and keep the glob for those that appear later.
 * Returns how many; on a failure, none changed.
 */
static int glob_attach(const char *glob, void *func, void *data)
{
	struct ulsm_txn st = ULSM_TXN_INIT;
	struct settled *s = NULL;
	struct change *c = NULL;
	struct glob_probe *g;
	int n = 0, ns = 0, ret = 0;

	if (!glob)
		return ulsm_error(-EINVAL, "ulsm_trace_attach: NULL glob");
	if (ulsm_read_inside())
		return refuse_inside("ulsm_trace_attach");
	g = ulsm_calloc(1, sizeof(*g));
	if (g)
		g->glob = ulsm_strdup(glob);
	if (!g || !g->glob) {
		glob_free(g);
		return ulsm_error(-ENOMEM, "ulsm_trace_attach: no memory");
	}
	g->func = func;
	g->data = data;
	pthread_mutex_lock(&trace_lock);
	if (glob_find(glob, func, data)) {
		ret = -EEXIST;	/* the same glob, probe and data */
		goto out;
	}
	s = ulsm_calloc((size_t)matching(glob) + 1, sizeof(*s));
	for (struct ulsm_tracepoint *tp = tracepoints; s && tp && ns >= 0;
	     tp = tp->next) {
		int r = matches(glob, tp) ?
			settle_begin(&st, &s[ns], tp, probe_of(tp, func, data)) :
			0;

		ns = r < 0 ? r : ns + r;
	}
	ns = settle_wait(&st, ns);
	if (ns && glob_find(glob, func, data)) {
		ret = -EEXIST;	/* attached meanwhile */
		goto out;
	}
	ret = changes_alloc(glob, "ulsm_trace_attach", &c);
	for (struct ulsm_tracepoint *tp = tracepoints; tp && !ret;
	     tp = tp->next) {
		struct ulsm_tp_probe p = probe_of(tp, func, data);

		if (matches(glob, tp) && find(funcs_of(tp), p) < 0 &&
		    !(ret = plan(&c[n], tp, -1, &p)))
			c[n++].settled = is_settled(s, ns, tp);
	}
	ret = apply_planned(c, n, ret);
	if (!ret) {
		g->next = globs;
		globs = g;
		g = NULL;
	}
out:
	ret = unlock_finish(c, n, ret, false);
	ulsm_free(c);
	ulsm_free(s);
	glob_free(g);
	return ret ? ret : n;
}

/*
 * Undo glob_attach(): detach the probe from every tracepoint that matches
 * @glob, has it, and is matched by no other glob of the same probe, in one
 * update and one grace period. Returns how many; on a failure (but the
 * grace period's), none changed.
 */
static int glob_detach(const char *glob, void *func, void *data)
{
	struct glob_probe **pp, *g = NULL;
	struct change *c = NULL;
	int n = 0, ret = 0;

	if (!glob)
		return ulsm_error(-EINVAL, "ulsm_trace_detach: NULL glob");
	if (ulsm_read_inside())
		return refuse_inside("ulsm_trace_detach");
	pthread_mutex_lock(&trace_lock);
	pp = glob_find(glob, func, data);
	if (!pp) {
		ret = -ENOENT;
		goto out;
	}
	ret = changes_alloc(glob, "ulsm_trace_detach", &c);
	for (struct ulsm_tracepoint *tp = tracepoints; tp && !ret;
	     tp = tp->next) {
		int i = find(funcs_of(tp), probe_of(tp, func, data));

		if (i >= 0 && matches(glob, tp) && !kept_by_another(*pp, tp) &&
		    !(ret = plan(&c[n], tp, i, NULL)))
			n++;
	}
	ret = apply_planned(c, n, ret);
	if (!ret) {
		g = *pp;
		*pp = g->next;
	}
out:
	ret = unlock_finish(c, n, ret, true);
	ulsm_free(c);
	glob_free(g);
	return ret ? ret : n;
}

ULSM_API int ulsm_trace_attach(const char *glob, void *probe, void *data)
{
	if (!probe)
		return ulsm_error(-EINVAL, "ulsm_trace_attach: NULL probe");
	return glob_attach(glob, probe, data);
}

ULSM_API int ulsm_trace_detach(const char *glob, void *probe, void *data)
{
	if (!probe)
		return ulsm_error(-EINVAL, "ulsm_trace_detach: NULL probe");
	return glob_detach(glob, probe, data);
}

/* The loaded tracepoints that @glob matches now. */
static int count_matching(const char *glob)
{
	int n;

	pthread_mutex_lock(&trace_lock);
	n = matching(glob);
	pthread_mutex_unlock(&trace_lock);
	return n;
}

ULSM_API int ulsm_trace_enable(const char *glob)
{
	int ret = glob_attach(glob, NULL, NULL);

	/*
	 * Outside the lock: the program's log handler may call us. 0 is
	 * also a glob whose tracepoints all record already (another glob's):
	 * only one that matches none is reported.
	 */
	if (!ret && !count_matching(glob))
		ulsm_report("ulsm_trace_enable: \"%s\" matches no tracepoint "
			    "(yet: it is attached to those loaded later)", glob);
	return ret;
}

ULSM_API int ulsm_trace_disable(const char *glob)
{
	return glob_detach(glob, NULL, NULL);
}

char *ulsm_trace_next_glob(char **rest)
{
	char *g = *rest + strspn(*rest, ","), *end;

	if (!*g)
		return NULL;
	end = g + strcspn(g, ",");
	*rest = *end ? end + 1 : end;
	*end = '\0';
	return g;
}

/* ULSM_TRACE=glob,glob,...: the recorder on those, from the start. */
static void env_init(void)
{
	const char *env = getenv("ULSM_TRACE");
	char *copy, *rest;

	if (!env || !*env)
		return;
	copy = ulsm_strdup(env);
	if (!copy)
		return;
	rest = copy;
	for (char *g; (g = ulsm_trace_next_glob(&rest));) {
		struct glob_probe *gp;

		if (glob_find(g, NULL, NULL))
			continue;	/* named twice */
		gp = ulsm_calloc(1, sizeof(*gp));
		if (!gp || !(gp->glob = ulsm_strdup(g))) {
			ulsm_free(gp);
			ulsm_report("ULSM_TRACE: no memory for \"%s\"", g);
			continue;
		}
		gp->next = globs;
		globs = gp;
	}
	ulsm_free(copy);
}

static void remember_name(struct ulsm_tracepoint *tp)
{
	struct tp_name *n = ulsm_calloc(1, sizeof(*n));

	tp->id = next_id++;
	if (!n || !(n->name = ulsm_strdup(tp->name)) || !(n->args = ulsm_strdup(tp->args))) {
		if (n)
			ulsm_free(n->name);
		ulsm_free(n);
		return;		/* its events will be written without a name */
	}
	n->id = tp->id;
	n->nargs = tp->nargs;
	for (int i = 0; i < tp->nargs && i < ULSM_TRACE_MAX_ARGS; i++)
		n->types[i] = tp->types ? tp->types[i] :
			      ULSM_TP_UNSIGNED | 8;	/* as version 2 read it */
	n->next = names;
	names = n;
}

/*
 * The probes of the globs that match @tp, which has none yet, in one
 * change from none: no old array, and no grace period to wait for (it was
 * never on), so that this may run in a thread inside a read-side section
 * (dlopen from a probe), and from a constructor.
 */
static int attach_globs(struct ulsm_tracepoint *tp)
{
	struct change c = { .tp = tp };
	int n = 0;

	for (struct glob_probe *g = globs; g; g = g->next)
		n += matches(g->glob, tp);
	if (!n)
		return 0;
	c.nf = funcs_alloc(n);
	if (!c.nf)
		return ulsm_error(-ENOMEM, "no memory for them");
	for (struct glob_probe *g = globs; g; g = g->next) {
		struct ulsm_tp_probe p = probe_of(tp, g->func, g->data);

		if (matches(g->glob, tp) && find(c.nf, p) < 0)
			c.nf->probes[c.nf->n++] = p;
	}
	/* In the order their globs were attached (the list is newest first). */
	for (int i = 0, j = c.nf->n - 1; i < j; i++, j--) {
		struct ulsm_tp_probe t = c.nf->probes[i];

		c.nf->probes[i] = c.nf->probes[j];
		c.nf->probes[j] = t;
	}
	/*
	 * Nothing is owed after it: a tracepoint never on calls a single
	 * probe directly at once (one that was, stays on its iterator).
	 */
	return apply(&c, 1);
}

ULSM_API void ulsm__tracepoint_add(struct ulsm_tracepoint *tp)
{
	int ret = 0;

	if (!tp_readable(tp)) {
		ulsm_report("a tracepoint at %p is from headers older than "
			    "this library (its record is %u bytes, %zu at "
			    "least); it stays off", (void *)tp, tp->size,
			    sizeof(*tp));
		return;
	}
	pthread_mutex_lock(&trace_lock);
	pthread_once(&env_once, env_init);
	remember_name(tp);
	tp->next = tracepoints;
	tracepoints = tp;
	if (!funcs_of(tp))
		ret = attach_globs(tp);
	pthread_mutex_unlock(&trace_lock);
	/* Outside the lock: the program's log handler may call us. */
	if (ret)
		ulsm_report("tracepoint %s: the probes of its globs could not "
			    "be attached: %s", tp->name, ulsm_last_error());
}

/*
 * The tracepoint's object is being unloaded: its code and its probe
 * arrays go (no thread may run the object's code any more).
 */
ULSM_API void ulsm__tracepoint_remove(struct ulsm_tracepoint *tp)
{
	struct ulsm_tracepoint **pp;

	pthread_mutex_lock(&trace_lock);
	for (pp = &tracepoints; *pp; pp = &(*pp)->next) {
		if (*pp == tp) {
			*pp = tp->next;
			break;
		}
	}
	ulsm_free(funcs_of(tp));
	/* Not a transaction's word here: no thread runs its object's code. */
	tp->funcs = NULL;
	removals++;
	for (struct usage **up = &usages; *up; up = &(*up)->next)
		if ((*up)->tp == tp) {
			struct usage *u = *up;

			*up = u->next;
			ulsm_free(u);
			break;
		}
	pthread_mutex_unlock(&trace_lock);
}

ULSM_API struct ulsm_tracepoint *ulsm_tracepoint_find(const char *name)
{
	struct ulsm_tracepoint *tp;

	if (!name)
		return NULL;
	pthread_mutex_lock(&trace_lock);
	for (tp = tracepoints; tp; tp = tp->next)
		if (!strcmp(tp->name, name))
			break;
	pthread_mutex_unlock(&trace_lock);
	return tp;
}

/*
 * Take the trace lock, waiting at most @wait_ms for it (-1: as long as it
 * takes): 0, or -EBUSY (not taken).
 */
static int trace_lock_wait(int wait_ms)
{
	if (wait_ms < 0)
		return -pthread_mutex_lock(&trace_lock);
	for (int waited = 0; pthread_mutex_trylock(&trace_lock); waited++) {
		if (waited >= wait_ms)
			return -EBUSY;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return 0;
}

void ulsm_trace_names(ulsm_trace_name_fn *emit, void *arg)
{
	pthread_mutex_lock(&trace_lock);
	for (struct tp_name *n = names; n; n = n->next)
		emit(arg, n->id, n->name, n->args, n->nargs, n->types);
	pthread_mutex_unlock(&trace_lock);
}

int ulsm_trace_names_wait(ulsm_trace_name_fn *emit, void *arg, int wait_ms)
{
	if (trace_lock_wait(wait_ms))
		return -EBUSY;
	for (struct tp_name *n = names; n; n = n->next)
		emit(arg, n->id, n->name, n->args, n->nargs, n->types);
	pthread_mutex_unlock(&trace_lock);
	return 0;
}

/* Waits a second at most: at exit, a thread may hold the lock for good. */
void ulsm_trace_dump(FILE *f)
{
	if (trace_lock_wait(1000)) {
		fprintf(f, "tracepoints: busy (a probe is being attached or "
			"detached)\n");
		return;
	}
	fprintf(f, "tracepoints:\n");
	if (!tracepoints)
		fprintf(f, "  none\n");
	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next) {
		struct ulsm_tp_funcs *fs = funcs_of(tp);
		int n = nprobes(tp);

		fprintf(f, "  %s(%s) id %u: %s, %d probe%s\n", tp->name,
			tp->args, tp->id, n ? "on" : "off", n, n == 1 ? "" : "s");
		for (int i = 0; i < n; i++) {
			if (fs->probes[i].func == tp->record)
				fprintf(f, "    the recorder\n");
			else
				fprintf(f, "    %p (data %p)\n",
					fs->probes[i].func, fs->probes[i].data);
		}
	}
	for (struct glob_probe *g = globs; g; g = g->next) {
		if (g->func)
			fprintf(f, "  by glob \"%s\": %p (data %p)\n", g->glob,
				g->func, g->data);
		else
			fprintf(f, "  by glob \"%s\": the recorder\n", g->glob);
	}
	pthread_mutex_unlock(&trace_lock);
}

static struct usage *usage_of(const struct ulsm_tracepoint *tp)
{
	for (struct usage *u = usages; u; u = u->next)
		if (u->tp == tp)
			return u;
	return NULL;
}

/* Whether a USDT tracer listens at @tp's probe (its semaphore). */
static bool usdt_listens(const struct ulsm_tracepoint *tp)
{
	return tp->size >= offsetof(struct ulsm_tracepoint, usdt_sema) +
			   sizeof(tp->usdt_sema) && tp->usdt_sema &&
	       __atomic_load_n(tp->usdt_sema, __ATOMIC_RELAXED);
}

int ulsm_trace_each(void (*fn)(void *arg, const struct ulsm_trace_info *i),
		    void *arg, int wait_ms)
{
	if (trace_lock_wait(wait_ms))
		return -EBUSY;
	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next) {
		struct ulsm_tp_funcs *fs = funcs_of(tp);
		struct usage *u = usage_of(tp);
		struct ulsm_trace_info i = {
			.name = tp->name, .args = tp->args,
			.probes = nprobes(tp), .usdt = usdt_listens(tp),
			.counted = counting && u && u->attached,
			.hits = u ? __atomic_load_n(&u->hits,
						    __ATOMIC_RELAXED) : 0,
		};

		for (int k = 0; k < i.probes; k++)
			i.recorder |= fs->probes[k].func == tp->record;
		fn(arg, &i);
	}
	pthread_mutex_unlock(&trace_lock);
	return 0;
}

/* --- the tracepoint's own probe: USDT and counting ----------------------- */

/*
 * Whether @tp's own probe should be attached with @counts count sessions
 * open.
 */
static bool usage_wanted(const struct ulsm_tracepoint *tp, unsigned int counts)
{
	return tp->usdt && (counts || usdt_listens(tp));
}

/*
 * The data it should be attached with: its counter while hits are
 * counted; else none, so that a USDT tracer's hits cost no atomic
 * increment (6.0 ns a hit with it, 1.96 without, in a quick run here:
 * docs/performance.md, "USDT probes").
 */
static void *usage_data(struct usage *u, unsigned int counts)
{
	return counts ? &u->hits : NULL;
}

static bool usage_changes(const struct ulsm_tracepoint *tp,
			  unsigned int counts)
{
	struct usage *u = usage_of(tp);
	bool want = usage_wanted(tp, counts);

	if (!u)
		return want;
	return want != u->attached ||
	       (want && u->with != usage_data(u, counts));
}

/*
 * Attach, detach or re-attach (with other data) each tracepoint's own
 * probe as usage_wanted() and usage_data() say with @delta more count
 * sessions open, in one transaction (and one grace period, for those
 * detached or re-attached); then count them open. Lock held on entry;
 * released. Return how many changed, or a negative errno (none did, and
 * the sessions are as they were).
 */
static int usage_sync_locked(int delta)
{
	unsigned int counts = counting + (unsigned int)delta;
	unsigned long removals_then;
	struct change *c = NULL;
	bool removed = false;
	int n = 0, max = 0, ret = 0;

	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next)
		max += usage_changes(tp, counts);
	n = max;
	if (n)
		c = ulsm_calloc((size_t)n, sizeof(*c));
	if (n && !c)
		ret = ulsm_error(-ENOMEM, "tracepoints: no memory to attach "
				 "or detach their own probes");
	n = 0;
	/* A semaphore that changed since is for the next look. */
	for (struct ulsm_tracepoint *tp = tracepoints; c && tp && !ret &&
	     n < max; tp = tp->next) {
		struct usage *u = usage_of(tp);
		struct ulsm_tp_probe p;
		int old = -1;
		bool on;

		if (!usage_changes(tp, counts))
			continue;
		if (!u) {
			u = ulsm_calloc(1, sizeof(*u));
			if (!u) {
				ret = ulsm_error(-ENOMEM, "tracepoint %s: no "
						 "memory", tp->name);
				break;
			}
			u->tp = tp;
			u->next = usages;
			usages = u;
		}
		if (u->attached) {
			old = find(funcs_of(tp),
				   (struct ulsm_tp_probe){ tp->usdt, u->with });
			removed = true;
		}
		on = usage_wanted(tp, counts);
		p = (struct ulsm_tp_probe){ tp->usdt, usage_data(u, counts) };
		ret = plan(&c[n], tp, old, on ? &p : NULL);
		if (!ret) {
			c[n].usage = u;
			c[n].usage_on = on;
			c[n].usage_with = on ? p.data : NULL;
			n++;
		}
	}
	if (ret)
		unplan(c, n);
	else
		ret = apply(c, n);
	if (!ret)
		counting = counts;	/* the sessions asked for, served */
	removals_then = removals;
	pthread_mutex_unlock(&trace_lock);
	if (!ret && n && finish(c, n, removals_then, removed))
		ulsm_clear_error();	/* done; old arrays are kept */
	ulsm_free(c);
	return ret ? ret : n;
}

int ulsm_trace_usage_sync(int wait_ms)
{
	if (ulsm_read_inside())
		return refuse_inside("ulsm_trace_usdt_poll");
	if (trace_lock_wait(wait_ms))
		return -EBUSY;
	return usage_sync_locked(0);
}

int ulsm_trace_count_begin(void)
{
	int ret;

	if (ulsm_read_inside())
		return refuse_inside("counting tracepoint hits");
	pthread_mutex_lock(&trace_lock);
	ret = usage_sync_locked(1);	/* refused: as if never asked */
	return ret < 0 ? ret : 0;
}

void ulsm_trace_count_end(void)
{
	pthread_mutex_lock(&trace_lock);
	if (counting)
		counting--;
	/* A failure leaves it attached (counting): the next sync tries. */
	if (usage_sync_locked(0) < 0)
		ulsm_clear_error();
}

/*
 * fork(): taken in the prepare handler, so that the child never inherits
 * it held by a thread it does not have, nor the lists half changed.
 */
void ulsm_trace_fork_prepare(void)
{
	pthread_mutex_lock(&trace_lock);
}

void ulsm_trace_fork_release(void)
{
	pthread_mutex_unlock(&trace_lock);
}
