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
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lsm_internal.h"


/* --- leaving ------------------------------------------------------------ */

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

		if (!ulsm_lsm_slot_owned_by(s, m->name))
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
	return ulsm_txn_finish(&t, ret);
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

/*
 * Whether a failed step of a departure begun at @start may be tried again
 * (for @within ms).
 */
static bool try_again(uint64_t start, unsigned int within)
{
	if (ulsm_now_ms() - start >= within)
		return false;
	nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	return true;
}

/* What failed in a departure. */
struct departure {
	const char *step;
	int err;
};

/*
 * The departure's steps, each tried again while it fails for want of a
 * resource, for @within ms. Return 0 when nothing of the set reaches the
 * module any more, or the error of the step that failed (in @d).
 */
static int depart(struct ulsm_hook_set *set, struct lsm_info *m,
		  struct departure *d, unsigned int within)
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
	if (ulsm_lsm_module_owns(set, m, false))
		while ((ret = ulsm_lsm_switch_module(set, m->name, false)) &&
		       try_again(start, within))
			;
	if (ret)
		goto failed;
	if (m->ulsm_state == MOD_ACTIVE) {
		m->ulsm_state = MOD_OFF;
		ulsm_lsm_list_refresh(set);
	}
	if (!ulsm_lsm_module_owns(set, m, false))
		return 0;
	/*
	 * 2. A grace period, without the framework's lock: a thread inside
	 * the module may call the framework.
	 */
	d->step = "waiting for the threads inside it";
	ulsm_lsm_unlock();
	while ((ret = ulsm_synchronize()) && try_again(start, within))
		;
	ulsm_lsm_lock();
	if (ret)
		goto failed;
	/* 3. Nothing points at it any more. */
	d->step = "emptying its slots";
	while ((ret = empty_slots(set, m)) && try_again(start, within))
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

/* --- departures finished later ------------------------------------------ */

/*
 * A departure that stopped for want of a resource (memory, descriptors,
 * a sync that did not answer) is finished later, once the resource is
 * back (docs/hook-framework.md, "A departure that cannot finish"): its
 * object stays mapped for good (sealed), and the module leaves, freeing
 * its name, when a later try succeeds. Tries: a thread of the library's
 * ("ulsm-depart"), every 100 ms and then less often, up to every 5 s,
 * while such a departure waits; and ulsm_retry_pending(). A departure
 * refused by policy (EPERM, EACCES: seccomp, a hardened kernel) is
 * tried by ulsm_retry_pending() only: a filter does not go away.
 *
 * At most LEAVING_MAX wait at once; one more stays as before (where its
 * step left it, object mapped), and its note says it is not tried again.
 */
#define LEAVING_MAX		64
#define RETRY_FIRST_MS		100
#define RETRY_MAX_MS		5000

static struct leaving {
	struct ulsm_hook_set *set;
	struct lsm_info *m;
	bool policy;		/* refused by policy: not on the timer */
} leaving[LEAVING_MAX];
static unsigned int nleaving;	/* framework lock */
static bool retrier_on;		/* the thread runs (framework lock) */
static bool finishing;		/* a finish_leaving() is under way */

static bool refused_by_policy(int err)
{
	return err == -EPERM || err == -EACCES;
}

/*
 * Try each waiting departure once (@policy: also those refused by
 * policy); finish those that can. Framework lock held (released during
 * a grace period: the table may grow meanwhile, never shrink). Return 0,
 * or the error of the first that still cannot finish.
 */
static int finish_leaving(bool policy)
{
	int first = 0;

	if (finishing)
		return 0;	/* another thread is at it */
	finishing = true;
	for (unsigned int i = 0; i < nleaving;) {
		struct leaving *l = &leaving[i];
		struct departure d;
		int ret;

		/*
		 * Pairs with the release store in mark_exiting() (this file):
		 * the flag alone, nothing else is published with it.
		 */
		if ((l->policy && !policy) ||
		    __atomic_load_n(&l->set->state->exiting, __ATOMIC_ACQUIRE)) {
			i++;
			continue;
		}
		ret = depart(l->set, l->m, &d, 0);
		if (ret) {
			l->policy = refused_by_policy(d.err);
			if (!first)
				first = ulsm_error(ret, "set %s: module %s "
						   "still cannot leave: %s "
						   "failed (%s)", l->set->name,
						   l->m->name, d.step,
						   strerror(-d.err));
			i++;
			continue;
		}
		ulsm_lsm_note(l->set, l->m->name, false, "unloaded (its "
			      "object was closed; its departure finished "
			      "later; its object stays mapped)");
		forget(l->set, l->m);
		ulsm_lsm_list_refresh(l->set);
		*l = leaving[--nleaving];
	}
	finishing = false;
	return first;
}

static bool timer_work(void)
{
	for (unsigned int i = 0; i < nleaving; i++)
		if (!leaving[i].policy)
			return true;
	return false;
}

static void *retrier(void *arg)
{
	unsigned int pause = RETRY_FIRST_MS;
	bool more;

	(void)arg;
	do {
		nanosleep(&(struct timespec){ pause / 1000,
				(long)(pause % 1000) * 1000000L }, NULL);
		pause = pause * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : pause * 2;
		ulsm_lsm_lock();
		finish_leaving(false);
		more = timer_work();
		if (!more)
			retrier_on = false;
		ulsm_lsm_unlock();
	} while (more);
	return NULL;
}

/* Start the thread, if a departure waits for it. Framework lock held. */
static void retrier_start(void)
{
	pthread_t t;

	if (retrier_on || !timer_work())
		return;
	retrier_on = !ulsm_thread_start(&t, true, retrier, NULL, "ulsm-depart");
}

/* A child of fork() has no thread: ulsm_retry_pending() tries there. */
void ulsm_lsm_leaving_fork_child(void)
{
	retrier_on = false;
	finishing = false;
}

int ulsm_lsm_finish_departures(void)
{
	int ret;

	ulsm_lsm_lock();
	ret = finish_leaving(true);
	retrier_start();
	ulsm_lsm_unlock();
	return ret;
}

/*
 * The departure of @m stopped at @d; its object stays mapped. Remember
 * it, so that it is finished later. Framework lock held.
 */
static void leave_later(struct ulsm_hook_set *set, struct lsm_info *m,
			const struct departure *d)
{
	const char *when = refused_by_policy(d->err) ?
		"tried again at ulsm_retry_pending()" :
		"tried again until it can leave";

	if (nleaving == LEAVING_MAX)
		when = "not tried again (64 departures wait already)";
	else
		leaving[nleaving++] = (struct leaving){ set, m,
			refused_by_policy(d->err) };
	ulsm_lsm_note(set, m->name, true, "could not leave when its object "
		      "was unloaded: %s failed (%s); it stays %s, its object "
		      "mapped; %s", d->step, strerror(-d->err),
		      ulsm_lsm_module_owns(set, m, true) ? "on" : "off", when);
	ulsm_lsm_list_refresh(set);
	retrier_start();
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
	 * Pairs with the release store in mark_exiting() (this file).
	 */
	if (__atomic_load_n(&st->exiting, __ATOMIC_ACQUIRE) ||
	    (m->ulsm_state == MOD_ACTIVE &&
	     (!set->unloadable || (st->sealed && !st->plugins_allowed)))) {
		ulsm_lsm_unlock();
		return;
	}
	while (depart(set, m, &d, ulsm_lsm_depart_ms)) {
		int seal = ulsm_lsm_keep_mapped(m);

		if (!seal) {
			/* It stays, where the step left it, and so does its object. */
			leave_later(set, m, &d);
			ulsm_lsm_unlock();
			return;
		}
		wait_to_leave(set, m, &d, seal, &reported);
	}
	ulsm_lsm_note(set, m->name, false, "unloaded (its object was closed)");
	forget(set, m);
	ulsm_lsm_list_refresh(set);
	ulsm_lsm_unlock();
}

static struct ulsm_hook_set *exit_sets[64];
static unsigned int nexit_sets;

static void mark_exiting(void)
{
	/*
	 * Pairs with the acquire loads of exiting in finish_leaving() and
	 * ulsm__lsm_unregister() (this file): the flag alone, nothing else.
	 */
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
