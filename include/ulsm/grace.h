/* SPDX-License-Identifier: MIT */
/*
 * ulsm/grace.h - grace periods: wait until no thread is still inside code
 * that is about to go away.
 *
 * After an update has unpublished a function (a hook module's slots turned
 * off, a plug-in about to be unloaded), a thread may still be running it,
 * or be between the patched site and the call. The kernel waits for such
 * threads with synchronize_rcu(); ulsm_synchronize() is that wait for the
 * read-side sections below, which the hook framework puts around the calls
 * of modules that may be unloaded, in the sets that allow it
 * (ULSM_LSM_UNLOADABLE, <ulsm/lsm_hooks.h>).
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
 * every thread that dispatches. Sections nest, with no depth a program
 * can reach (past 2^63 - 1 on a 64-bit target, 2^31 - 1 on a 32-bit one,
 * the deeper sections are counted apart, more slowly). The read side is
 * a few loads and stores of the thread's own counter; the writer makes
 * every thread run a full memory barrier (membarrier, or the library's
 * signal round), so readers need no fence of their own.
 *
 * A thread's sections still count after its exit handler has run: a
 * pthread key destructor of the program's that runs after the library's
 * may enter them (or dispatch). An unlock outside any section is a
 * mistake that is reported once (ulsm_set_log()) and changes nothing.
 *
 * Caveats: a section must not block on anything that waits for a grace
 * period (ulsm_synchronize() inside a section of the same thread returns
 * -EDEADLK); a thread that stays inside a section for good (blocked)
 * keeps every later grace period waiting (the writer reports it every
 * few seconds). A thread that ends inside one (cancelled, or
 * pthread_exit() from a callback) has left its code: it is not waited
 * for.
 */
#ifndef ULSM_GRACE_H
#define ULSM_GRACE_H

#include <ulsm/compiler.h>

ULSM__EXTERN_C_BEGIN

/**
 * ulsm_read_lock - enter a read-side section
 *
 * Async-signal-safe once the thread's counter is on the writer's list:
 * its first section puts it there (no memory is allocated), and a thread
 * whose counter could not be tries again at its next outermost section.
 * Never fails: without a pthread key for its exit handler (reported
 * once), the thread counts in a shared counter, more slowly; so do
 * sections entered after the thread's exit handler.
 */
void ulsm_read_lock(void);

/**
 * ulsm_read_unlock - leave the innermost read-side section
 *
 * Async-signal-safe. Outside any section (a mistake): reported once,
 * and ignored.
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
 * The read side inline, for hot paths (the tracepoints' sites, the hook
 * framework's guards); the functions above are this same code out of line
 * (src/engine/grace.c says how it works and why it is enough). The
 * thread's record is the library's, in initial-exec TLS: its counter is
 * at a fixed offset from the thread pointer, one load with no pointer to
 * follow, as urcu-memb's. The grace-period counter is the library's too.
 *
 * A counter holds, in bit 0 (ULSM__GRACE_PHASE), the phase of the
 * grace-period counter its thread saw when it entered its outermost
 * section, and above it the nesting depth, in units of ULSM__GRACE_NEST.
 * A thread is inside a section while its counter is at least
 * ULSM__GRACE_NEST; outside, only a stale phase bit is left. The
 * grace-period counter is ULSM__GRACE_NEST plus its phase, so that the
 * outermost lock just copies it. The depth may reach the counter's
 * width less one bit (2^63 - 1 on a 64-bit target, 2^31 - 1 on a 32-bit
 * one); the lock that would carry out of the top goes to the slow path,
 * which counts the deeper sections in 64 bits of the thread's own, and
 * so does an unlock outside any section (reported and ignored), or a
 * thread whose counter is not its sections' (@fast zero: its first
 * section, or while it counts elsewhere).
 */
#define ULSM__GRACE_PHASE	1UL
#define ULSM__GRACE_NEST	2UL

struct ulsm__grace_reader {
	unsigned long ctr;
	unsigned long fast;	/* nonzero: @ctr counts this thread's sections */
};
extern __thread struct ulsm__grace_reader ulsm__grace_me
	__attribute__((tls_model("initial-exec")));
extern unsigned long ulsm__grace_gp;
void ulsm__read_lock_slow(void);
void ulsm__read_unlock_slow(void);

static inline __attribute__((always_inline)) void ulsm__read_lock_inline(void)
{
	unsigned long c;

	if (__builtin_expect(!ulsm__grace_me.fast, 0)) {
		ulsm__read_lock_slow();
		return;
	}
	c = ulsm__grace_me.ctr;
	if (__builtin_expect(c < ULSM__GRACE_NEST, 1))
		c = __atomic_load_n(&ulsm__grace_gp, __ATOMIC_RELAXED);
	else if (__builtin_expect(__builtin_add_overflow(c, ULSM__GRACE_NEST,
							 &c), 0)) {
		ulsm__read_lock_slow();
		return;
	}
	__atomic_store_n(&ulsm__grace_me.ctr, c, __ATOMIC_RELAXED);
	/*
	 * Pairs with barrier_all() in ulsm_synchronize() (src/engine/grace.c),
	 * which stands for the fence: the section stays after the store.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * The outermost lock alone, for a caller that has a slow path of its own
 * (the hook framework's guards): enter a section and return true if this
 * thread counts in its own counter and is in no section yet (the common
 * case, the lock above without its other branches); else change nothing
 * and return false, and the caller takes ulsm_read_lock().
 */
static inline __attribute__((always_inline)) int ulsm__read_lock_outermost(void)
{
	if (__builtin_expect(!ulsm__grace_me.fast ||
			     ulsm__grace_me.ctr >= ULSM__GRACE_NEST, 0))
		return 0;
	__atomic_store_n(&ulsm__grace_me.ctr,
			 __atomic_load_n(&ulsm__grace_gp, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	/*
	 * Pairs with barrier_all() in ulsm_synchronize() (src/engine/grace.c),
	 * which stands for the fence: the section stays after the store.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

static inline __attribute__((always_inline)) void ulsm__read_unlock_inline(void)
{
	unsigned long c;

	if (__builtin_expect(!ulsm__grace_me.fast, 0) ||
	    __builtin_expect(__builtin_sub_overflow(ulsm__grace_me.ctr,
						    ULSM__GRACE_NEST, &c), 0)) {
		ulsm__read_unlock_slow();
		return;
	}
	/*
	 * Pairs with the acquire load in old_reader() (src/engine/grace.c).
	 * Release, which costs nothing more than a store on x86-64: the
	 * writer's barrier would do, but this also tells ThreadSanitizer
	 * that the section happens before the writer's acquire load.
	 */
	__atomic_store_n(&ulsm__grace_me.ctr, c, __ATOMIC_RELEASE);
}

/*
 * The unlock of an outermost section (ulsm__read_lock_outermost), for the
 * same callers: leave it and return true, or change nothing and return
 * false (the thread's sections are counted elsewhere meanwhile), and the
 * caller returns through ulsm__read_unlock_ret(), which is
 * ulsm_read_unlock() and then @ret, so that the caller's own return can
 * be a tail call and the common path needs no frame.
 */
static inline __attribute__((always_inline)) int ulsm__read_unlock_outermost(void)
{
	unsigned long c;

	if (__builtin_expect(!ulsm__grace_me.fast, 0) ||
	    __builtin_expect(__builtin_sub_overflow(ulsm__grace_me.ctr,
						    ULSM__GRACE_NEST, &c), 0))
		return 0;
	/* Pairs with the acquire load in old_reader() (src/engine/grace.c). */
	__atomic_store_n(&ulsm__grace_me.ctr, c, __ATOMIC_RELEASE);
	return 1;
}
long ulsm__read_unlock_ret(long ret);

ULSM__EXTERN_C_END

#endif /* ULSM_GRACE_H */
