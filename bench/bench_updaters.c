// SPDX-License-Identifier: MIT
/*
 * Updaters under contention: how long can one update wait for the others?
 *
 * N threads dispatch (run key sites in a loop), more threads than CPUs;
 * one thread flips key A in a loop, as fast as it can; a second updater
 * calls static_branch_inc()/dec() on key B every few milliseconds and
 * times each call. The patch lock serialises updates: with an unfair lock
 * the flipper, which takes it again right after releasing it, can keep
 * the second updater waiting for seconds; with a FIFO lock it waits for at
 * most one flip ahead of it.
 *
 *   bench_updaters [--threads N] [--seconds S] [--quick]
 *
 * Prints the second updater's worst and median call time, and how many
 * flips and calls each made. Uses only <ulsm/static_key.h>, so the same
 * source measures an older build of the library too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/static_key.h>

DEFINE_STATIC_KEY_FALSE(key_a);
DEFINE_STATIC_KEY_FALSE(key_b);

static volatile int stop;

__attribute__((noinline)) static int site(void)
{
	return static_branch_unlikely(&key_a) + static_branch_unlikely(&key_b);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *dispatcher(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!stop)
		n += (unsigned long)site();
	return (void *)n;
}

static unsigned long flips;

static void *flipper(void *arg)
{
	(void)arg;
	while (!stop) {
		if ((flips & 1) ? static_branch_disable(&key_a) :
				  static_branch_enable(&key_a))
			break;
		flips++;
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long threads = 16;
	double seconds = 10, t_end;
	static double waits[100000];
	size_t nwaits = 0;
	pthread_t *t, f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--quick"))
			seconds = 2;
	}
	t = calloc((size_t)threads, sizeof(*t));
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, dispatcher, NULL);
	pthread_create(&f, NULL, flipper, NULL);

	t_end = now() + seconds;
	while (now() < t_end && nwaits < sizeof(waits) / sizeof(waits[0])) {
		double t0 = now();
		int ret = (nwaits & 1) ? static_branch_dec(&key_b) :
					 static_branch_inc(&key_b);

		waits[nwaits++] = now() - t0;
		if (ret) {
			fprintf(stderr, "update failed: %d\n", ret);
			break;
		}
		usleep(5000);
	}
	stop = 1;
	pthread_join(f, NULL);
	for (long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);

	qsort(waits, nwaits, sizeof(waits[0]), cmp_double);
	printf("updaters: %ld dispatching threads on %ld CPUs, %.0f s: "
	       "flipper %lu flips; second updater %zu calls, median %.3f ms, "
	       "worst %.3f ms\n", threads, sysconf(_SC_NPROCESSORS_ONLN),
	       seconds, flips, nwaits,
	       nwaits ? waits[nwaits / 2] * 1e3 : 0.0,
	       nwaits ? waits[nwaits - 1] * 1e3 : 0.0);
	return 0;
}
