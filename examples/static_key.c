// SPDX-License-Identifier: MIT
/*
 * A static key flipped by the main thread while two workers run its site.
 * Build: cc static_key.c $(pkg-config --cflags --libs ulsm) -pthread
 *
 * The main thread publishes a phase around each flip: odd while a flip is
 * in progress, even once it returned (4k: off, 4k+2: on). A worker that
 * reads the same even phase before and after a pass over the site must
 * have taken that phase's path: ulsm's promise once an update returns 0.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <ulsm/static_key.h>

DEFINE_STATIC_KEY_FALSE(verbose);	/* a global (or static): never a local */

static unsigned long phase, checked[2], passes[2], wrong;

static void *worker(void *arg)
{
	unsigned long *mine = arg, p, q;
	int on;

	while ((p = __atomic_load_n(&phase, __ATOMIC_ACQUIRE)) != ~0UL) {
		on = static_branch_unlikely(&verbose);	/* a NOP or a JMP */
		q = __atomic_load_n(&phase, __ATOMIC_ACQUIRE);
		if (p != q || p % 2)
			continue;	/* a flip overlapped: either path is right */
		__atomic_add_fetch(&passes[on], 1, __ATOMIC_RELAXED);
		if (on != (p % 4 == 2))
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
		pthread_create(&t[i], NULL, worker, &checked[i]);
	for (int i = 0; i < 100 && !err; i++) {
		__atomic_add_fetch(&phase, 1, __ATOMIC_RELEASE);	/* flipping */
		err = i % 2 ? static_branch_disable(&verbose)
			    : static_branch_enable(&verbose);
		__atomic_add_fetch(&phase, 1, __ATOMIC_RELEASE);	/* done */
		while (!err && (__atomic_load_n(&checked[0], __ATOMIC_ACQUIRE) != phase ||
				__atomic_load_n(&checked[1], __ATOMIC_ACQUIRE) != phase))
			sched_yield();	/* until both workers ran the new code */
	}
	__atomic_store_n(&phase, ~0UL, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("100 flips while 2 threads ran the site: %s\n",
	       err ? "an update failed" : "every update returned 0");
	printf("checked passes: %lu off, %lu on, %lu on the wrong path\n",
	       passes[0], passes[1], wrong);
	return err || wrong;
}
