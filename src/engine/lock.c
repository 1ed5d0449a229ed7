// SPDX-License-Identifier: MIT
/*
 * The patch lock: one lock serialises batches, object registration and
 * configuration changes.
 *
 * FIFO. Each updater takes a ticket and waits until its number is served,
 * so updaters are served in arrival order. A plain mutex lets the thread
 * that just unlocked take the lock again before a sleeping waiter wakes:
 * one thread flipping a key in a loop kept another's static_branch_inc()
 * waiting for 9.9 s of a 10 s run. The tickets sit behind a small mutex
 * and a condition variable rather than a hand-made futex lock, so that
 * ThreadSanitizer and helgrind understand it; the mutex is only held for a
 * few instructions, never across a batch.
 *
 * Same-thread re-entry (an update from a signal handler that interrupted
 * an update): the thread marks itself *before* it takes a ticket and
 * unmarks itself only *after* the lock is released, so a handler that runs
 * anywhere in between sees the mark and gets -EDEADLK instead of waiting
 * for its own thread. The mark is a thread-local only read by the same
 * thread, so a compiler barrier orders it against the handler.
 *
 * fork(): a child inherits the parent's text. If another thread of the
 * parent is between writing int3 and writing the last byte of a batch, the
 * child's text holds int3 bytes that nobody will ever finish. The prepare
 * handler therefore takes the lock, so no batch is in flight at the fork.
 * The child resets the lock: the parent's other waiters do not exist there,
 * and their tickets would never be served.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "engine/engine.h"

struct ticket_lock {
	pthread_mutex_t m;
	pthread_cond_t turn;
	unsigned long next;	/* the next ticket to hand out */
	unsigned long serving;	/* the ticket that holds the lock */
};

static struct ticket_lock patch_lock = {
	PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0
};

/* 0: not involved; 1: taking or holding the lock; 2: releasing it. */
static __thread volatile int lock_mark;
static bool atfork_locked;

/* Test hook: called once the ticket is taken, before waiting for it. */
void (*ulsm_test_lock_hook)(unsigned long ticket);

static void record_wait(uint64_t ns)
{
	unsigned long cur = __atomic_load_n(&ulsm_stats.lock_wait_max_ns,
					    __ATOMIC_RELAXED);

	while (ns > cur &&
	       !__atomic_compare_exchange_n(&ulsm_stats.lock_wait_max_ns, &cur,
					    (unsigned long)ns, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void ticket_take(struct ticket_lock *l)
{
	uint64_t t0 = ulsm_now_ns();
	unsigned long mine;
	bool waited = false;

	pthread_mutex_lock(&l->m);
	mine = l->next++;
	if (ulsm_test_lock_hook)
		ulsm_test_lock_hook(mine);
	while (l->serving != mine) {
		waited = true;
		pthread_cond_wait(&l->turn, &l->m);
	}
	pthread_mutex_unlock(&l->m);
	if (waited) {
		ulsm_stat_add(lock_waits, 1);
		record_wait(ulsm_now_ns() - t0);
	}
}

static void ticket_release(struct ticket_lock *l)
{
	pthread_mutex_lock(&l->m);
	l->serving++;
	pthread_cond_broadcast(&l->turn);
	pthread_mutex_unlock(&l->m);
}

int ulsm_trylock(void)
{
	int ret = -EBUSY;

	if (lock_mark)
		return -EDEADLK;
	lock_mark = 1;
	/*
	 * Pairs with the check of lock_mark at the top of ulsm_lock() and
	 * ulsm_trylock(), in a signal handler on this thread: the mark is set
	 * before the lock is taken.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(&patch_lock.m);
	if (patch_lock.next == patch_lock.serving) {
		patch_lock.next++;
		ret = 0;
	}
	pthread_mutex_unlock(&patch_lock.m);
	if (ret) {
		/*
		 * Pairs with the check of lock_mark at the top of ulsm_lock()
		 * and ulsm_trylock(), in a signal handler on this thread: the
		 * mutex is free before the mark goes.
		 */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		lock_mark = 0;
	}
	return ret;
}

int ulsm_lock(void)
{
	if (lock_mark)
		return ulsm_error(-EDEADLK,
			"update from a signal handler that interrupted an update");
	lock_mark = 1;
	/*
	 * Pairs with the check of lock_mark at the top of ulsm_lock() and
	 * ulsm_trylock(), in a signal handler on this thread: the mark is set
	 * before the lock is taken.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ticket_take(&patch_lock);
	return 0;
}

void ulsm_unlock(void)
{
	if (lock_mark != 1)
		ulsm_die("unlock of a patch lock this thread does not hold");
	lock_mark = 2;
	/*
	 * Pairs with the check of lock_mark in ulsm_lock(), ulsm_trylock() and
	 * ulsm_unlock(), in a signal handler on this thread: marked before the
	 * release starts.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ticket_release(&patch_lock);
	/*
	 * Pairs with the same checks, in a signal handler on this thread: the
	 * mark goes only once the lock is released.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lock_mark = 0;
}

bool ulsm_lock_held(void)
{
	return lock_mark == 1;
}

void ulsm_lock_fork_prepare(void)
{
	/* A fork from a signal handler inside an update: we hold it already. */
	atfork_locked = !lock_mark;
	if (atfork_locked)
		ticket_take(&patch_lock);
}

void ulsm_lock_fork_parent(void)
{
	if (atfork_locked)
		ticket_release(&patch_lock);
}

void ulsm_lock_fork_child(void)
{
	pthread_mutex_init(&patch_lock.m, NULL);
	pthread_cond_init(&patch_lock.turn, NULL);
	/* The forking thread's ticket, if it holds the lock; no one waits. */
	patch_lock.next = patch_lock.serving + (atfork_locked || lock_mark);
	if (atfork_locked)
		ticket_release(&patch_lock);
}
