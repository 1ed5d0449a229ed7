// SPDX-License-Identifier: MIT
/*
 * Grace periods (<ulsm/grace.h>): ulsm_synchronize() returns only after
 * every read-side section that had begun when it was called has ended.
 *
 *   - a reader that sleeps inside its section: the writer, started after
 *     it entered, returns after it left (an ordering, not a timing);
 *   - nesting, -EDEADLK from inside a section, threads that exit;
 *   - the classic use, as a stress: readers follow a pointer inside their
 *     sections and check what it points to; the writer swaps it, waits a
 *     grace period, poisons the old object and frees it. A reader that
 *     ever sees poison is a grace period that did not wait;
 *   - fork(): the child's grace periods do not wait for the parent's
 *     other threads;
 *   - each in a child process of its own, which a grace period that
 *     never returns fails by a timeout: every pthread key taken before
 *     the first section (the thread counts in the shared record); a
 *     section in a pthread key destructor that runs after the library's;
 *     a thread that ends inside a section; a section nested 65,536 deep;
 *     one nested beyond the counter's limit (set there by hand); a
 *     thread that counts in the shared record (its record could not be
 *     allocated) and nests, memory back; an unlock outside any section.
 *
 * --swaps N sets the stress's length (make stress runs it longer).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/grace.h>
#include <ulsm/ulsm.h>

#include "engine/engine.h"
#include "child.h"
#include "runtime.h"
#include "tap.h"

static volatile int entered, left;

/* From inside a section: say so, stay 0.2 s, say it is over. */
static void stay_inside(void)
{
	__atomic_store_n(&entered, 1, __ATOMIC_SEQ_CST);
	nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
	__atomic_store_n(&left, 1, __ATOMIC_SEQ_CST);
}

static void *sleeper(void *arg)
{
	(void)arg;
	ulsm_read_lock();
	stay_inside();
	ulsm_read_unlock();
	return NULL;
}

/*
 * Once another thread is inside (stay_inside), a grace period must return
 * only after it has left: 0 if so, else a message. An ordering, not a
 * timing.
 */
static const char *writer_waits(void)
{
	int ret, was_left;

	while (!__atomic_load_n(&entered, __ATOMIC_SEQ_CST))
		sched_yield();
	ret = ulsm_synchronize();
	was_left = __atomic_load_n(&left, __ATOMIC_SEQ_CST);
	if (ret)
		return "ulsm_synchronize() failed";
	return was_left ? NULL : "ulsm_synchronize() returned while the "
				 "reader was still inside";
}

/*
 * waits_for - a grace period waits for @reader, a thread that goes inside
 * a section (stay_inside), writer_waits() checking
 * @reader_err: the reader's own verdict, read once it has ended (NULL: none)
 * @after: where not NULL, a grace period after the reader must then
 *	return 0, and this says it did not
 * Return: NULL, or the first of these that went wrong.
 */
static const char *waits_for(void *(*reader)(void *),
			     const char *const *reader_err, const char *after)
{
	const char *err;
	pthread_t t;

	pthread_create(&t, NULL, reader, NULL);
	err = writer_waits();
	pthread_join(t, NULL);
	if (!err && reader_err)
		err = *reader_err;
	if (!err && after && ulsm_synchronize())
		err = after;
	return err;
}

struct grace_case {
	const char *(*fn)(void);
};

static void grace_child(void *arg)
{
	const struct grace_case *c = arg;
	const char *err;

	alarm(under_emulator() ? 60 : 10);
	entered = left = 0;
	err = c->fn();
	if (err)
		diag("  %s", err);
	fflush(stdout);
	_exit(err ? 1 : 0);
}

/*
 * A case in a child process of its own (tests/lib/child.h): @fn returns
 * NULL, or what went wrong. A grace period that never returns is a
 * timeout, not a hang.
 */
static int grace_case(const char *(*fn)(void), const char *what)
{
	struct grace_case c = { fn };

	if (in_child(what, grace_child, &c, NULL, 0) >= 0 &&
	    WIFSIGNALED(child_status) && WTERMSIG(child_status) == SIGALRM)
		diag("  a grace period that never returned?");
	return ok(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0,
		  "%s", what);
}

/* The library's messages, kept (ulsm_set_log). */
static char log_seen[1024];

static void keep_log(const char *msg, void *arg)
{
	(void)arg;
	if (strlen(log_seen) + strlen(msg) + 2 < sizeof(log_seen)) {
		strcat(log_seen, msg);
		strcat(log_seen, "\n");
	}
}

static volatile int got_record;

static void *has_record(void *arg)
{
	(void)arg;
	ulsm_read_lock();
	ulsm_read_unlock();
	got_record = ulsm__grace_me.fast != 0;
	return NULL;
}

/* Every pthread key taken before the first section. */
static const char *no_key_case(void)
{
	static pthread_key_t keys[8192];
	const char *err;
	pthread_t t;
	int n = 0;

	ulsm_set_log(keep_log, NULL);
	while (n < 8192 && !pthread_key_create(&keys[n], NULL))
		n++;
	if (n == 8192)
		return "pthread_key_create() never fails here";
	ulsm_read_lock();
	if (ulsm_synchronize() != -EDEADLK)
		return "no -EDEADLK from inside a section";
	ulsm_read_unlock();
	if (ulsm_synchronize())
		return "a grace period after the section failed";
	err = waits_for(sleeper, NULL, NULL);
	if (err)
		return err;
	if (!strstr(log_seen, "pthread_key_create"))
		return "the missing key was not reported";
	/* A key free again: the next thread gets a record of its own. */
	pthread_key_delete(keys[--n]);
	entered = left = 0;
	err = waits_for(sleeper, NULL, NULL);
	if (err)
		return err;
	pthread_create(&t, NULL, has_record, NULL);
	pthread_join(t, NULL);
	return got_record ? NULL : "a key freed later was not used";
}

static pthread_key_t late_key;
static void (*late_first)(void);	/* what late_thread() runs */
static void (*late_section)(void);	/* what late_destructor() runs */

/*
 * The destructor of a key of the program's. It sets its key again on its
 * first call, so that its second one comes in the next round, after the
 * library's destructor has run in the first: then it runs late_section.
 */
static void late_destructor(void *arg)
{
	if (arg == (void *)1) {
		pthread_setspecific(late_key, (void *)2);
		return;
	}
	late_section();
}

/* A thread that runs late_first, then sets late_key for its exit. */
static void *late_thread(void *arg)
{
	(void)arg;
	late_first();
	pthread_setspecific(late_key, (void *)1);
	return NULL;
}

/*
 * late_case - a thread that runs @first, then, in a destructor that runs
 * after the library's own (late_destructor()), @section; checked as
 * waits_for() checks, with @section_err
 */
static const char *late_case(void (*first)(void), void (*section)(void),
			     const char *const *section_err)
{
	late_first = first;
	late_section = section;
	pthread_key_create(&late_key, late_destructor);
	return waits_for(late_thread, section_err,
			 "a grace period after the thread's exit failed");
}

static const char *late_err;

static void late_inside(void)
{
	ulsm_read_lock();
	if (!ulsm_read_inside())
		late_err = "not inside";
	stay_inside();
	ulsm_read_unlock();
	if (ulsm_read_inside())
		late_err = "still inside after the unlock";
}

static void late_reader(void)
{
	ulsm_read_lock();
	ulsm_read_unlock();
}

/* A section in a destructor that runs after the library's own. */
static const char *late_destructor_case(void)
{
	return late_case(late_reader, late_inside, &late_err);
}

static void *exits_inside(void *arg)
{
	(void)arg;
	ulsm_read_lock();
	pthread_exit(NULL);
}

static volatile int synchronized;

static void *synchronizer(void *arg)
{
	(void)arg;
	ulsm_synchronize();
	__atomic_store_n(&synchronized, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * A thread that ends inside a section (pthread_exit from a callback) has
 * unwound out of the code it was in before its exit: a grace period must
 * not wait for it for ever (<ulsm/grace.h>, caveats). Done within 5 s.
 */
static const char *exit_inside_case(void)
{
	pthread_t t;

	pthread_create(&t, NULL, exits_inside, NULL);
	pthread_join(t, NULL);
	pthread_create(&t, NULL, synchronizer, NULL);
	for (int i = 0; i < 500; i++) {
		if (__atomic_load_n(&synchronized, __ATOMIC_SEQ_CST))
			break;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	if (!__atomic_load_n(&synchronized, __ATOMIC_SEQ_CST))
		return "the grace period still waits for a thread that exited";
	pthread_join(t, NULL);	/* done: joined (ThreadSanitizer: no leak) */
	return NULL;
}

#define DEEP	65536

static const char *deep_err;

static void *deep_reader(void *arg)
{
	(void)arg;
	for (int i = 0; i < DEEP; i++)
		ulsm_read_lock();
	if (ulsm_synchronize() != -EDEADLK)
		deep_err = "no -EDEADLK 65,536 sections deep";
	stay_inside();
	for (int i = 0; i < DEEP; i++)
		ulsm_read_unlock();
	return NULL;
}

/* Sections nested 65,536 deep (a 16-bit depth overflows there). */
static const char *deep_case(void)
{
	return waits_for(deep_reader, &deep_err,
			 "a grace period after the sections failed");
}

static const char *limit_err;

static void *limit_reader(void *arg)
{
	struct ulsm__grace_reader *r;
	unsigned long saved, max;

	(void)arg;
	ulsm_read_lock();
	r = &ulsm__grace_me;
	saved = r->ctr;
	/* As deep as the counter goes: the next lock would carry out. */
	max = (ULONG_MAX & ~ULSM__GRACE_PHASE) | (saved & ULSM__GRACE_PHASE);
	__atomic_store_n(&r->ctr, max, __ATOMIC_RELAXED);
	ulsm_read_lock();
	ulsm_read_lock();
	if (r->ctr != max || r->fast)
		limit_err = "the count did not stop at the limit";
	else if (!ulsm_read_inside() || ulsm_synchronize() != -EDEADLK)
		limit_err = "not inside beyond the limit";
	stay_inside();
	ulsm_read_unlock();
	ulsm_read_unlock();
	if (!limit_err && (!r->fast || r->ctr != max))
		limit_err = "not back at the limit after the deeper sections";
	__atomic_store_n(&r->ctr, saved, __ATOMIC_RELAXED);
	ulsm_read_unlock();
	if (!limit_err && ulsm_read_inside())
		limit_err = "still inside after the last unlock";
	return NULL;
}

/* Sections beyond the counter's limit (its depth set there by hand). */
static const char *limit_case(void)
{
	return waits_for(limit_reader, &limit_err,
			 "a grace period after the sections failed");
}

static const char *fallback_err;

#define SHARED_DEEP	300	/* more than a thread may count in the shared
				   record; the rest in its own state */

/*
 * In a destructor that runs after the library's (late_case()): the
 * thread's counter is off the list, so its sections count in the shared
 * record, SHARED_DEEP deep.
 */
static void deep_sections(void)
{
	for (int i = 0; i < SHARED_DEEP; i++)
		ulsm_read_lock();
	if (ulsm__grace_me.fast)
		fallback_err = "the sections after the exit handler counted "
			       "in the thread's own counter";
	else if (ulsm_synchronize() != -EDEADLK || !ulsm_read_inside())
		fallback_err = "not inside";
	stay_inside();
	for (int i = 0; i < SHARED_DEEP; i++)
		ulsm_read_unlock();
	if (!fallback_err && ulsm_read_inside())
		fallback_err = "still inside after the last unlock";
}

static void fallback_reader(void)
{
	/*
	 * Every allocation of this thread fails: its first section needs
	 * none (its counter is in its TLS).
	 */
	ulsm_fault.kinds = 1u << ULSM_SYS_ALLOC;
	ulsm_fault.calls = 0;
	ulsm_fault.failed = 0;
	ulsm_fault.err = 0;
	ulsm_fault.fail_to = 0;
	__atomic_store_n(&ulsm_fault.fail_from, 1, __ATOMIC_SEQ_CST);
	ulsm_read_lock();
	if (ulsm_fault.failed || !ulsm__grace_me.fast)
		fallback_err = "the first section allocated, or did not count "
			       "in the thread's own counter";
	ulsm_read_unlock();
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
}

/*
 * A thread's first section with every allocation failing counts in its
 * own counter; its sections after its exit handler count in the shared
 * record, 300 deep (past the shared record's limit for one thread).
 */
static const char *fallback_case(void)
{
	return late_case(fallback_reader, deep_sections, &fallback_err);
}

static void *unbalanced_reader(void *arg)
{
	(void)arg;
	ulsm_read_unlock();		/* before any section */
	ulsm_read_lock();
	ulsm_read_unlock();
	ulsm_read_unlock();		/* one more than it entered */
	return NULL;
}

/* Unlocks outside any section change nothing, and are reported. */
static const char *unbalanced_case(void)
{
	const char *err;
	pthread_t t;

	ulsm_set_log(keep_log, NULL);
	pthread_create(&t, NULL, unbalanced_reader, NULL);
	pthread_join(t, NULL);
	if (ulsm_synchronize())
		return "a grace period after the unlocks failed";
	err = waits_for(sleeper, NULL, NULL);
	if (!err && !strstr(log_seen, "outside any read-side section"))
		err = "the unlock was not reported";
	return err;
}

#define MAGIC	0x600dcafe
#define POISON	0xdeadbeef

struct obj {
	unsigned int magic;
	unsigned long serial;
};

static struct obj *current;
static volatile int stop;
static unsigned long reads, bad, progress;

static void *reader(void *arg)
{
	unsigned long n = 0, b = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		ulsm_read_lock();
		struct obj *o = __atomic_load_n(&current, __ATOMIC_ACQUIRE);

		for (int i = 0; i < 50; i++)
			if (__atomic_load_n(&o->magic, __ATOMIC_RELAXED) !=
			    MAGIC)
				b++;
		ulsm_read_unlock();
		n++;
		__atomic_store_n(&progress, n, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&reads, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&bad, b, __ATOMIC_RELAXED);
	return NULL;
}

static void *short_lived(void *arg)
{
	(void)arg;
	ulsm_read_lock();
	ulsm_read_unlock();
	return NULL;
}

int main(int argc, char **argv)
{
	long swaps = arg_count(argc, argv, "--swaps",
			       under_emulator() ? 50 : 300);
	pthread_t t, r[4];
	struct ulsm_stats st;
	int ret, status;
	pid_t pid;

	/* First: a process that has not taken the library's key yet. */
	grace_case(no_key_case, "every pthread key taken before the first "
		   "section: the sections count in the shared record");
	is_int(ulsm_synchronize(), 0, "a grace period with no reader");

	pthread_create(&t, NULL, sleeper, NULL);
	while (!__atomic_load_n(&entered, __ATOMIC_SEQ_CST))
		sched_yield();
	ret = ulsm_synchronize();
	ok(ret == 0 && __atomic_load_n(&left, __ATOMIC_SEQ_CST),
	   "a grace period waits for a reader inside its section (%d, left "
	   "%d)", ret, left);
	pthread_join(t, NULL);

	ulsm_read_lock();
	ulsm_read_lock();
	is_int(ulsm_synchronize(), -EDEADLK, "from inside a section: -EDEADLK");
	ulsm_read_unlock();
	is_int(ulsm_synchronize(), -EDEADLK, "  still inside (nested): -EDEADLK");
	ulsm_read_unlock();
	is_int(ulsm_synchronize(), 0, "  after the last unlock: 0");

	for (int i = 0; i < 20; i++) {
		pthread_create(&t, NULL, short_lived, NULL);
		pthread_join(t, NULL);
	}
	is_int(ulsm_synchronize(), 0, "threads that read and exited do not "
	       "hold grace periods");

	current = calloc(1, sizeof(*current));
	current->magic = MAGIC;
	for (int i = 0; i < 4; i++)
		pthread_create(&r[i], NULL, reader, NULL);
	/* The readers run before and while the writer swaps. */
	while (!__atomic_load_n(&progress, __ATOMIC_RELAXED))
		sched_yield();
	ret = 0;
	for (long i = 0; i < swaps && !ret; i++) {
		struct obj *o = calloc(1, sizeof(*o)), *old;

		o->magic = MAGIC;
		o->serial = (unsigned long)i;
		old = __atomic_exchange_n(&current, o, __ATOMIC_ACQ_REL);
		ret = ulsm_synchronize();
		old->magic = POISON;
		free(old);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(r[i], NULL);
	ok(ret == 0 && bad == 0 && reads > (unsigned long)swaps, "%ld swaps under 4 readers: %lu "
	   "sections, %lu reads of a freed object (%d)", swaps, reads, bad, ret);
	ulsm_get_stats(&st);
	ok(st.grace_periods >= (unsigned long)swaps, "  counted: %lu grace "
	   "periods", st.grace_periods);

	/* fork() while another thread sits in a section. */
	entered = left = 0;
	pthread_create(&t, NULL, sleeper, NULL);
	while (!__atomic_load_n(&entered, __ATOMIC_SEQ_CST))
		sched_yield();
	pid = fork();
	if (pid == 0)
		_exit(ulsm_synchronize() == 0 ? 0 : 1);
	status = -1;
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "in a child of "
	   "fork(), a grace period does not wait for the parent's readers");
	pthread_join(t, NULL);
	free(current);

	grace_case(late_destructor_case, "a section in a pthread key destructor "
		   "that runs after the library's: the grace period waits");
	grace_case(deep_case, "sections nested 65,536 deep: -EDEADLK inside, "
		   "and the grace period waits");
	grace_case(exit_inside_case, "a thread that ends inside a section is "
		   "not waited for: it has left its code");
	grace_case(limit_case, "sections beyond the counter's limit: the "
		   "deeper ones counted apart, and waited for");
	grace_case(fallback_case, "a first section allocates nothing; after "
		   "the exit handler, sections in the shared record nest 300 "
		   "deep: waited for, and the grace periods after them return");
	grace_case(unbalanced_case, "unlocks outside any section are reported "
		   "and change nothing");
	return done_testing();
}
