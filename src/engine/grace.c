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
 * Each reader's counter holds its nesting depth (NEST bits) and, while
 * it is inside, the phase of the grace-period counter it saw on entry.
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
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <ulsm/grace.h>

#include "engine/engine.h"

#define NEST_MASK	0xffffUL
#define PHASE		0x10000UL

struct reader {
	unsigned long ctr;		/* first: the inline read side's */
	struct reader *next;
	pid_t tid;
};

/*
 * Bit PHASE flips at each half of a grace period; NEST is 1. Exported,
 * with the thread's record, for the inline read side of <ulsm/grace.h>.
 */
ULSM_API unsigned long ulsm__grace_gp = 1;
#define gp_ctr	ulsm__grace_gp

static struct reader *readers;		/* under readers_lock */
static pthread_mutex_t readers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t gp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t grace_once = PTHREAD_ONCE_INIT;
static pthread_key_t reader_key;

/*
 * The thread's record; the shared one when there was no memory for it
 * (its threads count atomically, and while one of them is inside, a grace
 * period waits for all of them: slower, never wrong).
 */
ULSM_API __thread struct ulsm__grace_reader *ulsm__grace_self
	__attribute__((tls_model("initial-exec")));	/* no __tls_get_addr */
#define self	((struct reader *)(void *)ulsm__grace_self)
static struct reader shared = { 0, NULL, 0 };

static void reader_exit(void *arg)
{
	struct reader *r = arg, **pp;

	pthread_mutex_lock(&readers_lock);
	for (pp = &readers; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	pthread_mutex_unlock(&readers_lock);
	ulsm_free(r);
}

/*
 * In the child of fork(), only the forking thread exists: the others'
 * records would keep every grace period waiting. Drop them (their memory
 * was the parent's heap, copied; left as it is).
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&readers_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&readers_lock);
}

static void fork_child(void)
{
	struct reader *me = self && self != &shared ? self : NULL;

	shared.ctr = 0;
	shared.next = me;
	if (me)
		me->next = NULL;
	readers = &shared;
	pthread_mutex_unlock(&readers_lock);
	/* A synchronize of another thread may have held it: gone with it. */
	pthread_mutex_init(&gp_lock, NULL);
}

static void grace_init(void)
{
	if (pthread_key_create(&reader_key, reader_exit))
		ulsm_die("pthread_key_create failed");
	if (pthread_atfork(fork_prepare, fork_parent, fork_child))
		ulsm_die("pthread_atfork failed");
	/* The shared record is always looked at. */
	readers = &shared;
}

static struct reader *reader_new(void)
{
	struct reader *r;

	pthread_once(&grace_once, grace_init);
	r = ulsm_calloc(1, sizeof(*r));
	if (!r || pthread_setspecific(reader_key, r)) {
		ulsm_free(r);
		return &shared;
	}
	r->tid = ulsm_sys_gettid();
	pthread_mutex_lock(&readers_lock);
	r->next = readers;
	__atomic_store_n(&readers, r, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&readers_lock);
	ulsm__grace_self = (struct ulsm__grace_reader *)(void *)r;
	return r;
}

/* The first section of a thread, or one without memory for its record. */
__attribute__((noinline, cold)) static void read_lock_slow(void)
{
	struct reader *r = self ? self : reader_new();

	if (r != &shared) {
		ulsm_read_lock();
		return;
	}
	/* Several threads: atomic, entered in the phase of the first. */
	if (!(__atomic_fetch_add(&r->ctr, 1, __ATOMIC_RELAXED) & NEST_MASK))
		__atomic_fetch_or(&r->ctr, __atomic_load_n(&gp_ctr,
				  __ATOMIC_RELAXED) & PHASE, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

__attribute__((noinline, cold)) static void read_unlock_shared(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if ((__atomic_sub_fetch(&shared.ctr, 1, __ATOMIC_RELEASE) &
	     NEST_MASK) == 0)
		__atomic_fetch_and(&shared.ctr, ~PHASE, __ATOMIC_RELAXED);
}

ULSM_API void ulsm_read_lock(void)
{
	struct reader *r = self;
	unsigned long c;

	if (__builtin_expect(!r || r == &shared, 0)) {
		read_lock_slow();
		return;
	}
	c = r->ctr;
	if (!(c & NEST_MASK))
		__atomic_store_n(&r->ctr, __atomic_load_n(&gp_ctr,
				 __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	else
		__atomic_store_n(&r->ctr, c + 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

ULSM_API void ulsm_read_unlock(void)
{
	struct reader *r = self;

	if (__builtin_expect(!r || r == &shared, 0)) {
		read_unlock_shared();
		return;
	}
	/*
	 * Release, which costs nothing more than a store on x86-64: the
	 * barrier would do, but this also tells ThreadSanitizer that the
	 * section happens before the writer's acquire load below.
	 */
	__atomic_store_n(&r->ctr, r->ctr - 1, __ATOMIC_RELEASE);
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
	unsigned long c = __atomic_load_n(&r->ctr, __ATOMIC_ACQUIRE);

	return (c & NEST_MASK) &&
	       ((c ^ __atomic_load_n(&gp_ctr, __ATOMIC_RELAXED)) & PHASE);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Flip the phase, then wait for the readers of the old one. */
static void flip_and_wait(void)
{
	uint64_t start = now_ms(), next_report = start + 5000;
	unsigned int spins = 0;

	__atomic_store_n(&gp_ctr, gp_ctr ^ PHASE, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (;;) {
		pid_t waiting = 0;

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
		if (now_ms() >= next_report) {
			ulsm_report("a grace period has waited %llu s for thread "
				    "%d, which is still inside a read-side "
				    "section (a callback that blocks, or a thread "
				    "cancelled inside one?)",
				    (unsigned long long)(now_ms() - start) / 1000,
				    (int)waiting);
			next_report += 5000;
		}
	}
}

ULSM_API int ulsm_synchronize(void)
{
	int ret;

	pthread_once(&grace_once, grace_init);
	if (self && (self->ctr & NEST_MASK))
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
