/* SPDX-License-Identifier: MIT */
/*
 * ulsm/grace.h - grace periods: wait until no thread is still inside code
 * that is about to go away.
 *
 * After an update has unpublished a function (a hook module's slots turned
 * off, a plug-in about to be unloaded), a thread may still be running it,
 * or be between the patched site and the call. The kernel waits for such
 * threads with synchronize_rcu(); ulsm_synchronize() is that wait for the
 * read-side sections below, which the hook framework puts around dispatch
 * for the sets that allow unloading (ULSM_LSM_UNLOADABLE,
 * <ulsm/lsm_hooks.h>).
 *
 *	ulsm_read_lock();		// any thread: no registration
 *	... call what may be unpublished ...
 *	ulsm_read_unlock();
 *
 *	unpublish(f);			// an update that returned 0
 *	ulsm_synchronize();		// no thread is still inside f
 *	dlclose(the object of f);
 *
 * A thread registers itself on its first ulsm_read_lock() (and leaves at
 * its exit), as liburcu's "bulletproof" flavour does: a host need not know
 * every thread that dispatches. Sections nest. The read side is a few
 * loads and stores of the thread's own counter; the writer makes every
 * thread run a full memory barrier (membarrier, or the library's signal
 * round), so readers need no fence of their own.
 *
 * Caveats: a section must not block on anything that waits for a grace
 * period (ulsm_synchronize() inside a section of the same thread returns
 * -EDEADLK); a thread cancelled or killed inside a section keeps every
 * later grace period waiting (the writer reports it every few seconds).
 */
#ifndef ULSM_GRACE_H
#define ULSM_GRACE_H

#include <ulsm/compiler.h>

ULSM__EXTERN_C_BEGIN

/**
 * ulsm_read_lock - enter a read-side section
 *
 * Async-signal-safe once the thread has entered one section before (the
 * first one allocates the thread's record). Never fails: without memory
 * for the record, the thread counts in a shared one.
 */
void ulsm_read_lock(void);

/**
 * ulsm_read_unlock - leave the innermost read-side section
 */
void ulsm_read_unlock(void);

/**
 * ulsm_synchronize - wait until every read-side section that had begun
 * when it was called has ended
 *
 * Return: 0; -EDEADLK if the calling thread is inside a section; or the
 * error of the barrier it makes every thread run (the sync method's,
 * ulsm_runtime(3)), in which case nothing is known of the readers and the
 * caller must not free what they may use.
 */
int ulsm_synchronize(void);

/*
 * The read side inline, for hot paths (the tracepoints' sites): the same
 * as ulsm_read_lock()/ulsm_read_unlock() (src/engine/grace.c says how it
 * works) without the two calls. The thread's record, whose first word is
 * its counter, and the grace-period counter are the library's.
 */
struct ulsm__grace_reader {
	unsigned long ctr;
};
extern __thread struct ulsm__grace_reader *ulsm__grace_self
	__attribute__((tls_model("initial-exec")));
extern unsigned long ulsm__grace_gp;

static inline __attribute__((always_inline)) void ulsm__read_lock_inline(void)
{
	struct ulsm__grace_reader *r = ulsm__grace_self;
	unsigned long c;

	if (__builtin_expect(!r, 0)) {
		ulsm_read_lock();	/* the thread's first section */
		return;
	}
	c = r->ctr;
	c = (c & 0xffffUL) ? c + 1 :
		__atomic_load_n(&ulsm__grace_gp, __ATOMIC_RELAXED);
	__atomic_store_n(&r->ctr, c, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline __attribute__((always_inline)) void ulsm__read_unlock_inline(void)
{
	struct ulsm__grace_reader *r = ulsm__grace_self;

	if (__builtin_expect(!r, 0)) {
		ulsm_read_unlock();
		return;
	}
	__atomic_store_n(&r->ctr, r->ctr - 1, __ATOMIC_RELEASE);
}

ULSM__EXTERN_C_END

#endif /* ULSM_GRACE_H */
