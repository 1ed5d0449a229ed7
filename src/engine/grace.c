// SPDX-License-Identifier: MIT
/*
 * Grace periods (<ulsm/grace.h>): the read side is a per-thread counter,
 * the writer makes every thread run a full barrier and waits for the
 * counters, as liburcu's membarrier and "bulletproof" flavours do
 * (Desnoyers et al., "User-Level Implementations of Read-Copy Update",
 * IEEE TPDS 2012). Written here rather than taken from liburcu because
 * the library is built for musl and cross-built for aarch64, where
 * liburcu is not at hand, and because the barrier must be the engine's
 * own (membarrier or its signal round, with their failure handling).
 *
 * Each reader's counter (<ulsm/grace.h> defines it, for the inline read
 * side) holds its nesting depth, in units of NEST, and in bit PHASE the
 * phase of the grace-period counter it saw when it entered its outermost
 * section; it is inside while the counter is NEST or more.
 * ulsm_synchronize():
 *
 *   1. barrier on every thread: the caller's unpublishing (an update that
 *      returned 0) is ordered before whatever each reader does next, and
 *      each reader's counter store before it is visible here;
 *   2. twice: flip the phase, wait until no reader is inside a section
 *      entered in the old phase. Twice, because a reader may have read
 *      the old phase just before the flip and stored it just after the
 *      wait looked at it: the second flip waits for that one too;
 *   3. barrier on every thread again: whatever the readers did inside
 *      their sections is over before the caller frees.
 *
 * A reader's lock and unlock are plain loads and stores of its own
 * counter with compiler barriers: the writer's barriers (1, 3) stand for
 * the fences a reader would otherwise need, which is what membarrier is
 * for. The waits in 2 hold no lock the readers could need: a reader may
 * update keys from inside its section.
 *
 * Where the depth sits changes nothing of that argument: a counter is
 * still written only by its thread, with one store per lock or unlock,
 * and a store that makes it inside carries the phase read just before.
 * The phase bit left behind by the last unlock is never read as inside,
 * since "inside" is the depth alone (the old layout's 16-bit depth could
 * carry into the phase bit, and a reader 65,536 deep looked outside).
 *
 * Some sections are not counted in the thread's own counter (the slow
 * path, below). A thread that has none on the list (no pthread key for
 * its exit handler, or after that handler) counts in the shared record, with atomic changes since other
 * threads change it too, and no fence more: the writer's barriers order
 * them as they order a thread's own stores. That record keeps the phase of
 * the first thread in until the last is out, which can only be older than
 * a later thread's: a reader seen inside through both halves of 2, in
 * whatever phase, is old in one of them. Sections deeper than the
 * counter's limit are counted in the thread's own state, while its counter
 * (or the shared record) stays inside, in the phase of its outermost
 * section. Every later section of a thread goes where its outer ones went,
 * until they end.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>

#include <ulsm/grace.h>

#include "engine/engine.h"

#define PHASE		ULSM__GRACE_PHASE
#define NEST		ULSM__GRACE_NEST

/* A counter on the writer's list: a thread's (in its TLS), or the shared one. */
struct reader {
	struct ulsm__grace_reader *rd;
	struct reader *next;
	pid_t tid;
};

/*
 * PHASE flips at each half of a grace period; NEST is there too, so that
 * the outermost lock copies it as it is. Exported, with the thread's
 * counter, for the inline read side of <ulsm/grace.h>.
 */
ULSM_API unsigned long ulsm__grace_gp = NEST;
#define gp_ctr	ulsm__grace_gp

/*
 * The record the threads without their own counter count in, atomically
 * (no pthread key for the exit handler, or a section taken after that
 * handler took theirs off the list): while one of them is
 * inside, a grace period that sees the record's phase old waits for all
 * of them. Slower, never wrong. It is always on the list.
 */
static struct ulsm__grace_reader shared_rd;
static struct reader shared = { .rd = &shared_rd };
static struct reader *readers = &shared;	/* under readers_lock */
static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t reader_key;

/*
 * A thread counts at most SHARED_MAX sections in the shared record, and
 * the deeper ones in its own state (over): a process has fewer than 2^22
 * threads (the kernel's largest pid_max), so the shared record's depth
 * stays below 2^30 even on a 32-bit target, where the counter has 31
 * bits for it.
 */
#define SHARED_MAX	256UL
_Static_assert(sizeof(unsigned long) * CHAR_BIT - 1 >= 22 + 8,
	       "the shared record's depth must not carry into its phase");

/*
 * The thread's counter for the inline read side; while its @fast is zero
 * the thread takes the slow path, which goes by its state below.
 * Initial-exec, like that state: no __tls_get_addr, which may allocate,
 * in a signal handler. Its entry on the writer's list is in its TLS too,
 * so that a thread's first section needs no memory.
 */
ULSM_API __thread struct ulsm__grace_reader ulsm__grace_me
	__attribute__((tls_model("initial-exec")));
#define mine_rd		ulsm__grace_me

static __thread struct reader node __attribute__((tls_model("initial-exec")));

static __thread struct {
	struct reader *mine;	/* its entry on the list, once it is there */
	unsigned long shared;	/* its sections in the shared record */
	uint64_t over;		/* its sections beyond the counter's limit */
	bool exited;		/* reader_exit() took it off the list */
	bool joining;		/* reader_new() is putting it there */
} me __attribute__((tls_model("initial-exec")));

/*
 * At the thread's exit (a pthread key destructor). Other destructors may
 * run after this one and enter sections, and their sections must still
 * count: they go to the shared record. The thread's counter leaves the
 * list now, while its TLS is still there, so that no writer reads it once
 * the thread is gone. A thread that ends inside a section (cancelled, or
 * pthread_exit() in a callback) has left the code it was in: both unwind
 * its frames before the key destructors run. So its counter goes too: a
 * grace period that waited for it would wait for ever.
 */
static void reader_exit(void *arg)
{
	struct reader *r = arg, **pp;

	mine_rd.fast = 0;
	me.mine = NULL;
	me.exited = true;
	/*
	 * Pairs with a signal handler on this thread (ulsm__read_lock_slow(),
	 * this file): its section counts in the shared record once the counter
	 * is off the list.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pthread_mutex_lock(&readers_lock);
	for (pp = &readers; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	pthread_mutex_unlock(&readers_lock);
}

/*
 * In the child of fork(), only the forking thread exists: the others'
 * counters would keep every grace period waiting. Drop them (their
 * memory was the parent's threads' TLS, copied; left as it is), and
 * their sections in the shared record.
 */
void ulsm_grace_fork_prepare(void)
{
	pthread_mutex_lock(&readers_lock);
}

void ulsm_grace_fork_parent(void)
{
	pthread_mutex_unlock(&readers_lock);
}

void ulsm_grace_fork_child(void)
{
	shared_rd.ctr = me.shared ? (shared_rd.ctr & PHASE) + me.shared * NEST
				  : 0;
	shared.next = me.mine;
	if (me.mine)
		me.mine->next = NULL;
	readers = &shared;
	pthread_mutex_unlock(&readers_lock);
	/* A synchronize of another thread may have held it: gone with it. */
	pthread_mutex_init(&gp_lock, NULL);
}

/*
 * What a thread's counter needs once per process: the key whose
 * destructor takes it off the list, and the fork handlers. Either may
 * fail (every key taken by the program, no memory); the threads then count in the shared record,
 * and the next thread's first section tries again. Not pthread_once():
 * it would make a failure final, and a fork racing with it can leave the
 * child's copy of the once-control waiting for good.
 */
enum { SETUP_NONE, SETUP_BUSY, SETUP_DONE };

struct setup {
	int state;
	bool said;			/* its failure reported */
	bool (*fn)(void);
	const char *what;
};

static bool key_setup(void)
{
	return !pthread_key_create(&reader_key, reader_exit);
}

static struct setup key_once = { .fn = key_setup,
				  .what = "pthread_key_create" };

static bool setup(struct setup *o)
{
	/*
	 * Pairs with the release store of state below: a thread that reads
	 * SETUP_DONE sees the key the setup made.
	 */
	int s = __atomic_load_n(&o->state, __ATOMIC_ACQUIRE);
	bool done;

	if (s == SETUP_DONE)
		return true;
	/*
	 * Another thread is at it: the shared record meanwhile. Pairs with
	 * the release store below, of an earlier attempt that failed.
	 */
	if (s == SETUP_BUSY ||
	    !__atomic_compare_exchange_n(&o->state, &s, SETUP_BUSY, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	done = o->fn();
	/*
	 * Pairs with the acquire load and compare-exchange of state above, in
	 * the next thread to look.
	 */
	__atomic_store_n(&o->state, done ? SETUP_DONE : SETUP_NONE,
			 __ATOMIC_RELEASE);
	if (!done && !__atomic_exchange_n(&o->said, true, __ATOMIC_RELAXED))
		ulsm_report("grace periods: %s failed; threads without a "
			    "counter of their own count their read-side "
			    "sections in a shared one (slower) until it "
			    "works", o->what);
	return done;
}


/*
 * The thread's own entry, on the list; or NULL. Its entry is one: a
 * signal handler's section that comes while it is being put there counts
 * in the shared record.
 */
static struct reader *reader_new(void)
{
	struct reader *r = &node;

	if (me.joining)
		return NULL;
	me.joining = true;
	/*
	 * Pairs with the check of me.joining at the top of this function, in a
	 * signal handler's section on this thread: it counts in the shared
	 * record meanwhile.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (!setup(&key_once) || pthread_setspecific(reader_key, r)) {
		r = NULL;
		goto out;
	}
	r->rd = &mine_rd;
	r->tid = ulsm_sys_gettid();
	pthread_mutex_lock(&readers_lock);
	r->next = readers;
	/*
	 * Pairs with readers_lock in flip_and_wait() (this file), which the
	 * list is read under: the release adds nothing to the mutex.
	 */
	__atomic_store_n(&readers, r, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&readers_lock);
	me.mine = r;
out:
	/*
	 * Pairs with the check of me.joining at the top of this function, in a
	 * signal handler on this thread: me.mine is set before joining is
	 * cleared.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	me.joining = false;
	return r;
}

/*
 * The shared record's lock and unlock: the same counter as a thread's,
 * changed atomically since several threads change it. The first thread
 * in stores the phase it saw, and the record stays inside, in that phase,
 * until the last one is out: the others join in a phase as old as theirs
 * or older, which only makes a grace period wait longer. Ordering is a
 * thread's own counter's: a compiler barrier, and the writer's barriers.
 */
static void shared_lock(void)
{
	unsigned long c = __atomic_load_n(&shared_rd.ctr, __ATOMIC_RELAXED);
	unsigned long n;

	do
		n = c >= NEST ? c + NEST
			      : __atomic_load_n(&gp_ctr, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&shared_rd.ctr, &c, n, true,
					    __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	/*
	 * Pairs with barrier_all() in ulsm_synchronize() (this file), which
	 * orders the record's change for other threads; this keeps the section
	 * after it on this one.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static void shared_unlock(void)
{
	/*
	 * Pairs with the acquire load in old_reader() (this file). Release,
	 * as the inline unlock's store, for ThreadSanitizer.
	 */
	__atomic_fetch_sub(&shared_rd.ctr, NEST, __ATOMIC_RELEASE);
}

/*
 * The inline lock's slow path: the thread's first section; a thread that
 * counts in the shared record, or beyond its counter's limit; or one
 * whose counter is at the limit (@fast is set then). Each count is raised
 * before the counter the writer sees, and lowered after it, so that a
 * signal handler's section in between nests in the same place. Once a
 * thread counts somewhere, its nested sections count there too: their
 * unlocks go to the same place.
 */
ULSM_API void ulsm__read_lock_slow(void)
{
	if (mine_rd.fast) {
		/* At the limit: the counter stays inside until these end. */
		me.over++;
		/*
		 * Pairs with the read-side lock and unlock of a signal
		 * handler on this thread: over is raised before fast is
		 * cleared, so the handler's section nests there.
		 */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		mine_rd.fast = 0;
		return;
	}
	if (me.over) {
		me.over++;
		return;
	}
	if (me.shared == SHARED_MAX) {
		me.over++;
		return;
	}
	if (me.shared || me.exited || (!me.mine && !reader_new())) {
		me.shared++;
		/*
		 * Pairs with the read-side lock and unlock of a signal
		 * handler on this thread: shared is raised before the record
		 * changes, so the handler's section nests there.
		 */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		shared_lock();
		return;
	}
	/* Its counter: new, or back from the limit. */
	mine_rd.fast = 1;
	ulsm__read_lock_inline();
}

static bool unbalanced_said;

ULSM_API void ulsm__read_unlock_slow(void)
{
	if (me.over) {
		if (!--me.over) {
			/*
			 * Pairs with the read-side lock of a signal handler
			 * on this thread: over is zero before fast is set
			 * again.
			 */
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			mine_rd.fast = me.mine != NULL;
		}
		return;
	}
	if (me.shared) {
		shared_unlock();
		/*
		 * Pairs with the read-side lock of a signal handler on this
		 * thread: the record is left before shared is lowered.
		 */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		me.shared--;
		return;
	}
	if (!mine_rd.fast && me.mine) {
		mine_rd.fast = 1;
		ulsm__read_unlock_inline();
		return;
	}
	/* Outside any section: a caller's mistake, which changes nothing. */
	if (!__atomic_exchange_n(&unbalanced_said, true, __ATOMIC_RELAXED))
		ulsm_report("ulsm_read_unlock() outside any read-side section "
			    "(thread %d): ignored", (int)ulsm_sys_gettid());
}

ULSM_API void ulsm_read_lock(void)
{
	ulsm__read_lock_inline();
}

ULSM_API void ulsm_read_unlock(void)
{
	ulsm__read_unlock_inline();
}

ULSM_API long ulsm__read_unlock_ret(long ret)
{
	ulsm__read_unlock_inline();
	return ret;
}

bool ulsm_read_inside(void)
{
	return me.shared ||
	       (me.mine &&
		__atomic_load_n(&mine_rd.ctr, __ATOMIC_RELAXED) >= NEST);
}

/* Every thread runs a full barrier (the engine's core sync does). */
static int barrier_all(void)
{
	struct ulsm_sync s;
	int ret = ulsm_lock();

	if (ret)
		return ret;
	ret = ulsm_sync_begin(&s);
	if (!ret) {
		ret = ulsm_sync_cores(&s);
		ulsm_sync_end(&s);
	}
	ulsm_unlock();
	return ret;
}

/* Is @r inside a section entered before the last flip? */
static bool old_reader(const struct reader *r)
{
	/*
	 * Pairs with the release stores in ulsm__read_unlock_inline() and
	 * ulsm__read_unlock_outermost() (include/ulsm/grace.h) and
	 * shared_unlock() (this file): a reader seen outside has finished its
	 * section.
	 */
	unsigned long c = __atomic_load_n(&r->rd->ctr, __ATOMIC_ACQUIRE);

	return c >= NEST &&
	       ((c ^ __atomic_load_n(&gp_ctr, __ATOMIC_RELAXED)) & PHASE);
}

/* Flip the phase, then wait for the readers of the old one. */
static void flip_and_wait(void)
{
	uint64_t start = ulsm_now_ms(), next_report = start + 5000;
	unsigned int spins = 0;

	__atomic_store_n(&gp_ctr, gp_ctr ^ PHASE, __ATOMIC_RELAXED);
	/*
	 * No fence of the read side pairs with this one: readers have only
	 * compiler barriers (ulsm__read_lock_inline(), include/ulsm/grace.h).
	 * It commits the flip before old_reader() reads the counters, so new
	 * readers take the new phase and the wait ends; the second flip covers
	 * a reader that read the old phase just before.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (;;) {
		pid_t waiting = 0;

		/* The shared record has no thread: -1. */
		pthread_mutex_lock(&readers_lock);
		for (struct reader *r = readers; r && !waiting; r = r->next)
			if (old_reader(r))
				waiting = r->tid ? r->tid : -1;
		pthread_mutex_unlock(&readers_lock);
		if (!waiting)
			return;
		if (++spins < 100) {
			sched_yield();
			continue;
		}
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
		if (ulsm_now_ms() >= next_report) {
			char who[48] = "a thread counted in the shared record";

			if (waiting > 0)
				snprintf(who, sizeof(who), "thread %d",
					 (int)waiting);
			ulsm_report("a grace period has waited %llu s for %s, "
				    "still inside a read-side section (a "
				    "callback that blocks, or a thread that ended "
				    "inside one?)",
				    (unsigned long long)(ulsm_now_ms() - start) / 1000,
				    who);
			next_report += 5000;
		}
	}
}

ULSM_API int ulsm_synchronize(void)
{
	int ret;

	if (ulsm_read_inside())
		return ulsm_error(-EDEADLK, "ulsm_synchronize: the calling "
				  "thread is inside a read-side section");
	ulsm_config_init();
	pthread_mutex_lock(&gp_lock);
	ret = barrier_all();
	if (!ret) {
		flip_and_wait();
		flip_and_wait();
		ret = barrier_all();
	}
	pthread_mutex_unlock(&gp_lock);
	if (!ret)
		ulsm_stat_add(grace_periods, 1);
	return ret;
}
