// SPDX-License-Identifier: MIT
/*
 * A static call retargeted by the main thread while two threads call it.
 * Build: cc static_call.c $(pkg-config --cflags --libs ulsm) -pthread
 *
 * The check is static_key.c's: around each update the main thread moves a
 * phase (odd while updating); a call made between two reads of the same
 * even phase must reach that phase's target.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <ulsm/static_call.h>

static int one(int x) { return x + 1; }
static int two(int x) { return x + 2; }

DEFINE_STATIC_CALL(step, one);	/* callers make a direct call */

static unsigned long phase, seen[2], calls[3], wrong;

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ADD(x, n)	__atomic_add_fetch(&(x), (n), __ATOMIC_ACQ_REL)

static void *caller(void *arg)
{
	unsigned long *mine = arg, p;

	while ((p = LOAD(phase)) != ~0UL) {
		int r = static_call(step)(0);	/* 1: one(), 2: two() */

		if (p != LOAD(phase) || p % 2)
			continue;	/* an update overlapped the call */
		ADD(calls[r == 1 || r == 2 ? r : 0], 1);
		ADD(wrong, r != (p % 4 == 2 ? 2 : 1));
		__atomic_store_n(mine, p, __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	unsigned long p;
	int err = 0;

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, caller, &seen[i]);
	for (int i = 0; i < 100 && !err; i++) {
		ADD(phase, 1);
		err = static_call_update(step, i % 2 ? one : two);
		p = ADD(phase, 1);
		while (!err && (LOAD(seen[0]) != p || LOAD(seen[1]) != p))
			sched_yield();	/* until both called the new one */
	}
	__atomic_store_n(&phase, ~0UL, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("100 updates while 2 threads called: %s\n"
	       "checked calls: %lu to one(), %lu to two(), %lu wrong\n",
	       err ? "one failed" : "all returned 0", calls[1], calls[2],
	       calls[0] + wrong);
	return err || wrong || calls[0];
}
