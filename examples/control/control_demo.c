// SPDX-License-Identifier: MIT
/*
 * A program controlled from outside (docs/control.md): it serves fake
 * requests, each between two tracepoints, and logs them only while the
 * switch verbose_log is on. Run it with ULSM_CONTROL=1, then
 *
 *	ulsmctl list
 *	ulsmctl show -p PID
 *	ulsmctl switch -p PID verbose_log on
 *	ulsmctl record -p PID 'req_*' -d 1s -o demo.bin
 *
 * (make demo-control does this). It writes its pid to the file named by
 * its first argument, if any, and runs until SIGTERM or SIGINT, or for
 * the seconds of its second argument.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/control.h>
#include <ulsm/tracepoint.h>

DEFINE_STATIC_SWITCH(verbose_log, "log every request");

DECLARE_TRACEPOINT(req_start, TP_PROTO(int id, long len), TP_ARGS(id, len));
DEFINE_TRACEPOINT(req_start, TP_PROTO(int id, long len), TP_ARGS(id, len));
DECLARE_TRACEPOINT(req_end, TP_PROTO(int id, int status), TP_ARGS(id, status));
DEFINE_TRACEPOINT(req_end, TP_PROTO(int id, int status), TP_ARGS(id, status));

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

static int serve(int id)
{
	long len = 100 + id % 900;
	int status = id % 17 ? 200 : 404;

	trace_req_start(id, len);
	if (static_branch_unlikely(&verbose_log))
		printf("request %d: %ld bytes, status %d\n", id, len, status);
	trace_req_end(id, status);
	return status;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 0;
	struct timespec start, now;
	int id = 0;

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			perror(argv[1]);
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!done) {
		serve(++id);
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (seconds > 0 && (now.tv_sec - start.tv_sec) +
		    (now.tv_nsec - start.tv_nsec) / 1e9 >= seconds)
			break;
	}
	printf("served %d requests\n", id);
	return 0;
}
