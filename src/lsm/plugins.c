// SPDX-License-Identifier: MIT
/*
 * Modules that come and go (docs/hook-framework.md, "Modules that come and
 * go"): a module that arrives after ulsm_lsm_init() (a plug-in's
 * constructor), and one that leaves when its object is unloaded (its
 * destructor). Placement (place.c) never shifts a module, so arrival and
 * departure only turn slots on and off, which the slot plan already does
 * safely while other threads dispatch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lsm_internal.h"

/* --- arriving ----------------------------------------------------------- */

static bool asks_blobs(const struct lsm_info *m)
{
	const struct lsm_blob_sizes *b = m->blobs;

	return b && (b->lbs_cred || b->lbs_file || b->lbs_inode || b->lbs_task);
}

static struct lsm_info *exclusive_on(struct ulsm_lsm_state *st)
{
	for (struct lsm_info *m = st->modules; m; m = m->next)
		if (m->ulsm_state == MOD_ACTIVE &&
		    (m->flags & LSM_FLAG_EXCLUSIVE))
			return m;
	return NULL;
}

static void list_update(struct ulsm_hook_set *set)
{
	char *list = ulsm_lsm_list_build(set);

	if (!list)
		return;		/* the old list stays: stale, never wrong memory */
	ulsm_free(set->state->list);
	set->state->list = list;
}

int ulsm_lsm_arrive(struct ulsm_hook_set *set, struct lsm_info *m)
{
	struct ulsm_lsm_state *st = set->state;
	const struct lsm_position *p = ulsm_lsm_position_of(st, m->name);
	struct lsm_info *x;
	int ret, cls;

	if (st->sealed && !st->plugins_allowed) {
		ulsm_lsm_note(set, m->name, true, "arrived after the set was "
			      "sealed (ulsm_lsm_allow_plugins opens a set to "
			      "them before sealing)");
		return -EPERM;
	}
	if (!p && st->explicit_order && m->order == LSM_ORDER_MUTABLE) {
		ulsm_lsm_note(set, m->name, false, "not listed in the order");
		return 0;
	}
	if (m->enabled && !*m->enabled) {
		ulsm_lsm_note(set, m->name, false, "disabled (its enabled flag "
			      "is 0)");
		return 0;
	}
	if ((m->flags & LSM_FLAG_EXCLUSIVE) && (x = exclusive_on(st))) {
		ulsm_lsm_note(set, m->name, true, "exclusive, and the exclusive "
			      "module %s is already on", x->name);
		return -EBUSY;
	}
	if (asks_blobs(m)) {
		ulsm_lsm_note(set, m->name, true, "asks for blob space after "
			      "the set's blobs were laid out (ulsm_lsm_init); "
			      "a module that arrives later may not");
		return -ENOSPC;
	}
	if (!p) {
		cls = m->order == LSM_ORDER_FIRST ? POS_FIRST :
		      m->order == LSM_ORDER_LAST ? POS_LAST : POS_LISTED;
		ret = ulsm_lsm_position_add(st, m->name, strlen(m->name), cls);
		if (ret) {
			ulsm_lsm_note(set, m->name, true, "no memory for its "
				      "place");
			return ret;
		}
	}
	m->ulsm_state = MOD_ORDERED;
	ulsm_clear_error();
	st->arriving = true;
	ret = m->init ? m->init() : 0;
	st->arriving = false;
	m->ulsm_state = ret ? MOD_FAILED : MOD_ACTIVE;
	if (ret) {
		ulsm_lsm_note(set, m->name, true, "its init failed (%d%s%s)", ret,
			      *ulsm_last_error() ? ": " : "",
			      ulsm_last_error());
		return ret;
	}
	ulsm_lsm_note_clear(set, m->name);
	if (!set->unloadable)
		ulsm_lsm_pin_object(set, m);
	list_update(set);
	ulsm_debug("set %s: %s arrived: %s", set->name, m->name, st->list);
	return 0;
}

/* --- leaving ------------------------------------------------------------ */

static bool owned_by(const struct lsm_static_call *s, const struct lsm_info *m)
{
	return s->hl && !strcmp(s->hl->lsmid->name, m->name);
}

/*
 * Empty @m's slots (their keys are off): their calls go back to no
 * target, in one batch, so that a module that takes a slot later is never
 * reached through a call still aimed at @m, and then nothing of the set
 * points into @m's object. The hook entries' sites follow the slots'
 * calls (their follower ops), in the same batch.
 */
static int empty_slots(struct ulsm_hook_set *set, const struct lsm_info *m)
{
	struct ulsm_batch b = ULSM_BATCH_INIT;
	size_t n = set->nhooks * set->slots;
	bool first, any_first = false;
	int ret;

	ret = ulsm_update_lock();
	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		struct lsm_static_call *s = &set->table[i];

		if (!owned_by(s, m) || arch_protocol == ULSM_PROTO_NONE)
			continue;
		ret = ulsm_call_queue(s->key, (uintptr_t)s->trampoline, NULL,
				      &b, &first, NULL);
		any_first |= first;
	}
	if (!ret) {
		void **old = ulsm_calloc(n + 1, sizeof(*old));

		ret = old ? 0 : -ENOMEM;
		for (size_t i = 0; i < n && !ret; i++)
			if (owned_by(&set->table[i], m))
				old[i] = set->table[i].key->func;
		/* The stubs call through the keys: stored first (fill_slots). */
		for (size_t i = 0; i < n && !ret && any_first; i++)
			if (owned_by(&set->table[i], m))
				__atomic_store_n(&set->table[i].key->func, NULL,
						 __ATOMIC_RELEASE);
		if (!ret)
			ret = ulsm_batch_apply(&b);
		for (size_t i = 0; old && i < n; i++)
			if (owned_by(&set->table[i], m))
				__atomic_store_n(&set->table[i].key->func,
						 ret ? old[i] : NULL,
						 __ATOMIC_RELEASE);
		if (!ret)
			for (size_t i = 0; i < n; i++)
				if (owned_by(&set->table[i], m))
					set->table[i].hl = NULL;
		ulsm_free(old);
	}
	ulsm_unlock();
	ulsm_batch_free(&b);
	return ret;
}

static void forget(struct ulsm_hook_set *set, struct lsm_info *m)
{
	struct ulsm_lsm_state *st = set->state;
	struct lsm_info **pp;
	size_t j = 0;

	for (pp = &st->modules; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	for (size_t i = 0; i < st->nordered; i++)
		if (st->ordered[i] != m)
			st->ordered[j++] = st->ordered[i];
	st->nordered = j;
	m->set = NULL;
	m->next = NULL;
}

/*
 * A step of a departure failed (no memory, no descriptor, a sync that did
 * not answer): its object is about to be unmapped, so the module must
 * leave before this returns. Say so, wait a little, and try again: a step
 * only fails for good if the process lost, after the module arrived, the
 * right to patch its text or to synchronise its threads.
 */
static void retry(struct ulsm_hook_set *set, const struct lsm_info *m,
		  const char *step, int err)
{
	ulsm_report("set %s: module %s is leaving (its object is being "
		    "unloaded) and %s failed (%s): trying again", set->name,
		    m->name, step, strerror(-err));
	nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
}

ULSM_API void ulsm__lsm_unregister(struct lsm_info *m)
{
	struct ulsm_hook_set *set = m ? m->set : NULL;
	struct ulsm_lsm_state *st;
	int ret;

	if (!set)
		return;
	ulsm_lsm_lock();
	st = set->state;
	if (!st || m->set != set) {
		ulsm_lsm_unlock();
		return;
	}
	/*
	 * At the end of exit(), nothing is unmapped: leave the set as it is
	 * (other threads may still dispatch, and a wait could hang exit).
	 * An active module of a set that does not allow unloading, or of a
	 * sealed one, had its object pinned: this runs at exit only.
	 */
	if (__atomic_load_n(&st->exiting, __ATOMIC_ACQUIRE) ||
	    (m->ulsm_state == MOD_ACTIVE &&
	     (!set->unloadable || (st->sealed && !st->plugins_allowed)))) {
		ulsm_lsm_unlock();
		return;
	}
	if (m->ulsm_state == MOD_ACTIVE) {
		/* 1. Its slots off: no dispatch that starts now reaches it. */
		while ((ret = ulsm_lsm_switch_module(set, m->name, false)))
			retry(set, m, "turning its slots off", ret);
		m->ulsm_state = MOD_OFF;
		list_update(set);
		/*
		 * 2. A grace period, without the framework's lock: a thread
		 * inside the module may call the framework.
		 */
		ulsm_lsm_unlock();
		while ((ret = ulsm_synchronize()))
			retry(set, m, "waiting for the threads inside it", ret);
		ulsm_lsm_lock();
		/* 3. Nothing points at it any more. */
		while ((ret = empty_slots(set, m)))
			retry(set, m, "emptying its slots", ret);
	}
	ulsm_lsm_note(set, m->name, false, "unloaded (its object was closed)");
	forget(set, m);
	list_update(set);
	ulsm_lsm_unlock();
}

static struct ulsm_hook_set *exit_sets[64];
static unsigned int nexit_sets;

static void mark_exiting(void)
{
	for (unsigned int i = 0; i < nexit_sets; i++)
		__atomic_store_n(&exit_sets[i]->state->exiting, true,
				 __ATOMIC_RELEASE);
}

/*
 * Armed from ulsm_lsm_init(), which runs after the dynamic linker has
 * registered the handler that runs the destructors at exit: this one runs
 * before it. (A handler armed from a constructor would run after.)
 */
void ulsm_lsm_watch_exit(struct ulsm_hook_set *set)
{
	if (nexit_sets == ARRAY_SIZE(exit_sets))
		return;
	exit_sets[nexit_sets++] = set;
	if (nexit_sets == 1)
		atexit(mark_exiting);
}
