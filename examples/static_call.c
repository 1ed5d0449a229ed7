// SPDX-License-Identifier: MIT
/*
 * A static call retargeted by the main thread while two threads call it.
 * Build: cc static_call.c $(pkg-config --cflags --libs ulsm) -pthread
 *
 * Same check as static_key.c: the main thread publishes a phase around
 * each update (odd while in progress); a call made between two reads of
 * the same even phase must reach that phase's target.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <ulsm/static_call.h>

static int one(int x) { return x + 1; }
static int two(int x) { return x + 2; }

DEFINE_STATIC_CALL(step, one);	/* callers make a direct call */

static unsigned long phase, checked[2], calls[3], wrong;

static void *caller(void *arg)
{
	unsigned long *mine = arg, p, q;
	int r;

	while ((p = __atomic_load_n(&phase, __ATOMIC_ACQUIRE)) != ~0UL) {
		r = static_call(step)(0);	/* 1 from one(), 2 from two() */
		q = __atomic_load_n(&phase, __ATOMIC_ACQUIRE);
		if (p != q || p % 2)
			continue;	/* an update overlapped the call */
		__atomic_add_fetch(&calls[r == 1 || r == 2 ? r : 0], 1,
				   __ATOMIC_RELAXED);
		if (r != (p % 4 == 2 ? 2 : 1))
			__atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
		__atomic_store_n(mine, p, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int err = 0;

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, caller, &checked[i]);
	for (int i = 0; i < 100 && !err; i++) {
		__atomic_add_fetch(&phase, 1, __ATOMIC_RELEASE);
		err = static_call_update(step, i % 2 ? one : two);
		__atomic_add_fetch(&phase, 1, __ATOMIC_RELEASE);
		while (!err && (__atomic_load_n(&checked[0], __ATOMIC_ACQUIRE) != phase ||
				__atomic_load_n(&checked[1], __ATOMIC_ACQUIRE) != phase))
			sched_yield();	/* until both threads called the new target */
	}
	__atomic_store_n(&phase, ~0UL, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("100 updates while 2 threads called: %s; target now %s\n",
	       err ? "an update failed" : "every update returned 0",
	       static_call_query(step) == one ? "one()" : "two()");
	printf("checked calls: %lu to one(), %lu to two(), %lu wrong\n",
	       calls[1], calls[2], calls[0] + wrong);
	return err || wrong || calls[0];
}
