// SPDX-License-Identifier: MIT
/*
 * Modules that come and go (docs/hook-framework.md, "Modules that come and
 * go"): a module that leaves when its object is unloaded (its
 * destructor). One that arrives after ulsm_lsm_init() (a plug-in's
 * constructor) comes up as init brings up each module (order.c).
 * Placement (place.c) never shifts a module, so arrival and departure
 * only turn slots on and off, which the slot plan already does safely
 * while other threads dispatch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lsm_internal.h"

/*
 * The list of active modules after a module left (the arrival's side,
 * the bring-up, is in order.c: init and late modules share it).
 */
static void list_update(struct ulsm_hook_set *set)
{
	char *list = ulsm_lsm_list_build(set);

	if (!list)
		return;		/* the old list stays: stale, never wrong memory */
	ulsm_free(set->state->list);
	set->state->list = list;
}

/* --- leaving ------------------------------------------------------------ */

static bool owned_by(const struct lsm_static_call *s, const struct lsm_info *m)
{
	return s->hl && !strcmp(s->hl->lsmid->name, m->name);
}

/*
 * Empty @m's slots (their keys are off): their calls go back to no
 * target and their owners to none, in one transaction, so that a module
 * that takes a slot later is never reached through a call still aimed at
 * @m, and then nothing of the set points into @m's object. The hook
 * entries' sites follow the slots' calls (their follower ops), in the
 * same transaction.
 */
static int empty_slots(struct ulsm_hook_set *set, const struct lsm_info *m)
{
	struct ulsm_txn t = ULSM_TXN_INIT;
	size_t n = set->nhooks * set->slots;
	int ret;

	ret = ulsm_update_lock();
	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		struct lsm_static_call *s = &set->table[i];

		if (!owned_by(s, m))
			continue;
		/*
		 * A guarded slot keeps calling its guard, which calls the
		 * hook's default now: a thread still on its way there (it
		 * passed the slot's switch before step 1) gets the default,
		 * as if the slot were off.
		 */
		if (!ulsm_lsm_guard(set, i) ||
		    s->key->func != ulsm_lsm_guard(set, i)->fn)
			ret = ulsm_call_queue(&t, s->key, s->trampoline, NULL,
					      NULL);
		if (!ret)
			ret = ulsm_txn_store_ptr(&t, ULSM_STAGE_TARGETS,
						 ULSM_AFTER, &s->hl, NULL);
	}
	if (!ret)
		ret = ulsm_txn_commit(&t);
	ulsm_txn_free(&t);
	ulsm_unlock();
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
 * Departure (docs/hook-framework.md, "A departure that cannot finish").
 * Its object is about to be unmapped, so the module must leave before
 * this returns, or its object must stay. A step that fails is tried again
 * for up to a second (ulsm_lsm_depart_ms): no memory, no descriptor, a sync that did not
 * answer may pass, and even a refusal may (a membarrier denied mid-batch
 * makes the next batch use the signal sync). One that still fails (the
 * process lost, after the module arrived, the right to patch its text or
 * to synchronise its threads) leaves the module
 * where the step left it (on, or off) and keeps its object mapped for
 * good: sealed (mseal), so that the unmapping the dynamic linker does
 * next fails and the code stays where threads may still run it.
 */
unsigned int ulsm_lsm_depart_ms = 1000;	/* tests make it shorter */

/* Whether a failed step of a departure begun at @start may be tried again. */
static bool try_again(uint64_t start)
{
	if (ulsm_now_ms() - start >= ulsm_lsm_depart_ms)
		return false;
	nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	return true;
}

/* Whether @m owns a slot of @set (one that is on, if @on). */
static bool owns(struct ulsm_hook_set *set, const struct lsm_info *m, bool on)
{
	for (size_t i = 0; i < set->nhooks * set->slots; i++) {
		const struct lsm_static_call *s = &set->table[i];

		if (owned_by(s, m) && (!on || s->active->key.enabled > 0))
			return true;
	}
	return false;
}

/* What failed in a departure. */
struct departure {
	const char *step;
	int err;
};

/*
 * The departure's steps, each tried again while it fails for want of a
 * resource. Return 0 when nothing of the set reaches the module any
 * more, or the error of the step that failed (in @d).
 */
static int depart(struct ulsm_hook_set *set, struct lsm_info *m,
		  struct departure *d)
{
	uint64_t start = ulsm_now_ms();
	int ret = 0;

	/*
	 * 1. Its slots off, and their guards aimed at the hook's default: no
	 * dispatch that starts now reaches it. Also for a module whose init
	 * failed after it had added its hooks, and for one that was off
	 * already (a thread may still be on its way to a guard).
	 */
	d->step = "turning its slots off";
	if (owns(set, m, false))
		while ((ret = ulsm_lsm_switch_module(set, m->name, false)) &&
		       try_again(start))
			;
	if (ret)
		goto failed;
	if (m->ulsm_state == MOD_ACTIVE) {
		m->ulsm_state = MOD_OFF;
		list_update(set);
	}
	if (!owns(set, m, false))
		return 0;
	/*
	 * 2. A grace period, without the framework's lock: a thread inside
	 * the module may call the framework.
	 */
	d->step = "waiting for the threads inside it";
	ulsm_lsm_unlock();
	while ((ret = ulsm_synchronize()) && try_again(start))
		;
	ulsm_lsm_lock();
	if (ret)
		goto failed;
	/* 3. Nothing points at it any more. */
	d->step = "emptying its slots";
	while ((ret = empty_slots(set, m)) && try_again(start))
		;
	if (!ret)
		return 0;
failed:
	d->err = ret;
	return ret;
}

/*
 * The departure failed (@d) and the module's object cannot be kept
 * mapped either (@seal_err: a kernel without mseal, or one that refuses
 * it): returning would unmap code that threads may still run. The last
 * resort, and the one wait left without a bound: say so every few
 * seconds, and let the caller try the whole departure again.
 */
static void wait_to_leave(struct ulsm_hook_set *set, const struct lsm_info *m,
			  const struct departure *d, int seal_err,
			  uint64_t *reported)
{
	uint64_t now = ulsm_now_ms();

	if (!*reported || now - *reported >= 5000) {
		ulsm_report("set %s: module %s cannot leave (%s failed: %s), "
			    "and its object cannot be kept mapped (%s): its "
			    "dlclose waits until it can leave", set->name,
			    m->name, d->step, strerror(-d->err),
			    strerror(-seal_err));
		*reported = now;
	}
	ulsm_lsm_unlock();
	nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	ulsm_lsm_lock();
}

ULSM_API void ulsm__lsm_unregister(struct lsm_info *m)
{
	struct ulsm_hook_set *set = m ? m->set : NULL;
	struct ulsm_lsm_state *st;
	struct departure d;
	uint64_t reported = 0;

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
	while (depart(set, m, &d)) {
		int seal = ulsm_lsm_keep_mapped(m);

		if (!seal) {
			/* It stays, where the step left it, and so does its object. */
			ulsm_lsm_note(set, m->name, true, "could not leave when "
				      "its object was unloaded: %s failed (%s); "
				      "it stays %s, and its object stays mapped",
				      d.step, strerror(-d.err),
				      owns(set, m, true) ? "on" : "off");
			list_update(set);
			ulsm_lsm_unlock();
			return;
		}
		wait_to_leave(set, m, &d, seal, &reported);
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
