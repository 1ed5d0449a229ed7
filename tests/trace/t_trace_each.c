// SPDX-License-Identifier: MIT
/*
 * The trace lock's bounded waits (src/trace/tracepoint.c,
 * trace_lock_wait): ulsm_trace_each() with -1 waits as long as another
 * thread holds the lock, as the header says, and with a bound gives
 * -EBUSY once it has passed, not at once. The lock is held by another
 * ulsm_trace_each(), whose callback waits for the main thread.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>

#include "local_tp.h"
#include "tap.h"
#include "trace/trace.h"

LOCAL_TRACEPOINT(te_event, TP_PROTO(int i), TP_ARGS(i));

static sem_t held, release;

/* At the first tracepoint only: the lock stays held until release. */
static void hold(void *arg, const struct ulsm_trace_info *i)
{
	bool *first = arg;

	(void)i;
	if (!*first)
		return;
	*first = false;
	sem_post(&held);
	sem_wait(&release);
}

static void *holder(void *arg)
{
	bool first = true;

	(void)arg;
	return (void *)(long)ulsm_trace_each(hold, &first, -1);
}

static void count(void *arg, const struct ulsm_trace_info *i)
{
	(void)i;
	(*(int *)arg)++;
}

static void *waiter(void *arg)
{
	int n = 0, ret = ulsm_trace_each(count, &n, -1);

	__atomic_store_n((int *)arg, n, __ATOMIC_RELAXED);
	return (void *)(long)ret;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int main(void)
{
	pthread_t h, w;
	struct timespec t0;
	void *ret;
	int n = 0;

	trace_te_event(1);	/* loaded: at least one tracepoint */
	sem_init(&held, 0, 0);
	sem_init(&release, 0, 0);
	pthread_create(&h, NULL, holder, NULL);
	sem_wait(&held);	/* the lock is held until release */

	clock_gettime(CLOCK_MONOTONIC, &t0);
	is_int(ulsm_trace_each(count, &n, 200), -EBUSY,
	       "a bound of 200 ms, the lock held: -EBUSY");
	ok(ms_since(&t0) >= 150, "after the bound, not at once (%ld ms)",
	   ms_since(&t0));
	is_int(n, 0, "and nothing given");

	n = -1;
	pthread_create(&w, NULL, waiter, &n);
	usleep(300000);
	ok(__atomic_load_n(&n, __ATOMIC_RELAXED) == -1,
	   "-1: still waiting 300 ms later (the lock held)");
	sem_post(&release);
	pthread_join(w, &ret);
	is_int((int)(long)ret, 0, "-1: given once the lock is free");
	ok(n >= 1, "every tracepoint given (%d)", n);
	pthread_join(h, &ret);
	is_int((int)(long)ret, 0, "the holder's walk ends");
	return done_testing();
}
