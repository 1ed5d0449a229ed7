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
 *     other threads.
 *
 * --swaps N sets the stress's length (make stress runs it longer).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/grace.h>
#include <ulsm/ulsm.h>

#include "runtime.h"
#include "tap.h"

static volatile int entered, left;

static void *sleeper(void *arg)
{
	(void)arg;
	ulsm_read_lock();
	__atomic_store_n(&entered, 1, __ATOMIC_SEQ_CST);
	nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
	__atomic_store_n(&left, 1, __ATOMIC_SEQ_CST);
	ulsm_read_unlock();
	return NULL;
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
	return done_testing();
}
