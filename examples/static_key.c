// SPDX-License-Identifier: MIT
/*
 * A static key flipped by the main thread while two threads run its site.
 * Build: cc static_key.c $(pkg-config --cflags --libs ulsm) -pthread
 *
 * Around each flip the main thread moves a phase: odd while flipping, even
 * once the flip returned (4k: off, 4k+2: on). A pass over the site between
 * two reads of the same even phase must take that phase's path: what ulsm
 * promises once an update returns 0.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <ulsm/static_key.h>

DEFINE_STATIC_KEY_FALSE(verbose);	/* a global or a static, not a local */

static unsigned long phase, seen[2], passes[2], wrong;

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ADD(x, n)	__atomic_add_fetch(&(x), (n), __ATOMIC_ACQ_REL)

static void *worker(void *arg)
{
	unsigned long *mine = arg, p;

	while ((p = LOAD(phase)) != ~0UL) {
		int on = static_branch_unlikely(&verbose);	/* NOP or JMP */

		if (p != LOAD(phase) || p % 2)
			continue;	/* a flip overlapped: either path */
		ADD(passes[on], 1);
		ADD(wrong, on != (p % 4 == 2));
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
		pthread_create(&t[i], NULL, worker, &seen[i]);
	for (int i = 0; i < 100 && !err; i++) {
		ADD(phase, 1);
		err = i % 2 ? static_branch_disable(&verbose)
			    : static_branch_enable(&verbose);
		p = ADD(phase, 1);
		while (!err && (LOAD(seen[0]) != p || LOAD(seen[1]) != p))
			sched_yield();	/* until both ran the new code */
	}
	__atomic_store_n(&phase, ~0UL, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("100 flips while 2 threads ran the site: %s\n"
	       "checked passes: %lu off, %lu on, %lu on the wrong path\n",
	       err ? "one failed" : "all returned 0",
	       passes[0], passes[1], wrong);
	return err || wrong;
}
