// SPDX-License-Identifier: MIT
/*
 * trace_demo - tracepoints in a small multi-threaded "server", recorded
 * by ulsm's built-in recorder and turned into a Perfetto trace:
 *
 *	ULSM_TRACE='req_*,cache_miss' ULSM_TRACE_FILE=demo.bin ./trace_demo
 *	ulsm-trace --json demo.bin > demo.json	# open in ui.perfetto.dev
 *
 * Three workers (named worker-0 to worker-2) serve requests: req_start
 * and req_end make a slice per request (ulsm-trace pairs the _start and
 * _end names), cache_miss is an instant event inside some of them. Without ULSM_TRACE every tracepoint
 * is a NOP. Halfway, the main thread attaches a probe of its own to
 * req_end by name (it counts errors) and detaches it again, while the
 * workers run.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

DECLARE_TRACEPOINT(req_start, TP_PROTO(int id, int size), TP_ARGS(id, size));
DECLARE_TRACEPOINT(req_end, TP_PROTO(int id, int status), TP_ARGS(id, status));
DECLARE_TRACEPOINT(cache_miss, TP_PROTO(int id, long key), TP_ARGS(id, key));
DEFINE_TRACEPOINT(req_start, TP_PROTO(int id, int size), TP_ARGS(id, size));
DEFINE_TRACEPOINT(req_end, TP_PROTO(int id, int status), TP_ARGS(id, status));
DEFINE_TRACEPOINT(cache_miss, TP_PROTO(int id, long key), TP_ARGS(id, key));

#define REQUESTS	40

static void spin_us(long us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void *worker(void *arg)
{
	int w = (int)(long)arg;
	char name[16];

	/* The recording names its threads: Perfetto and speedscope show it. */
	snprintf(name, sizeof(name), "worker-%d", w);
	pthread_setname_np(pthread_self(), name);

	for (int i = 0; i < REQUESTS; i++) {
		int id = w * 1000 + i, size = 100 + (i * 37 + w * 11) % 400;

		trace_req_start(id, size);
		spin_us(size / 4);
		if ((i + w) % 5 == 0) {
			trace_cache_miss(id, (long)size * 7919);
			spin_us(60);
		}
		trace_req_end(id, size % 13 == 0 ? 500 : 200);
		spin_us(20);
	}
	return NULL;
}

static int errors;
static void count_errors(void *data, int id, int status)
{
	(void)data;
	(void)id;
	if (status >= 500)
		__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
}

int main(void)
{
	pthread_t t[3];
	int ret;

	for (long w = 0; w < 3; w++)
		pthread_create(&t[w], NULL, worker, (void *)w);
	spin_us(2000);
	ret = ulsm_trace_attach("req_end", (void *)count_errors, NULL);
	spin_us(3000);
	ulsm_trace_detach("req_end", (void *)count_errors, NULL);
	for (int w = 0; w < 3; w++)
		pthread_join(t[w], NULL);
	printf("trace_demo: 3 workers x %d requests; a probe attached to %d "
	       "tracepoint(s) for 3 ms counted %d errors\n", REQUESTS, ret,
	       errors);
	return ret == 1 ? 0 : 1;
}
