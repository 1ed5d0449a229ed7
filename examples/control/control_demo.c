// SPDX-License-Identifier: MIT
/*
 * A program controlled from outside (docs/control.md): four threads serve
 * fake requests, each between two tracepoints; a hook set "demo" whose
 * module "deny" refuses every tenth request (status 403) while it is on;
 * and a switch that logs every request while it is on. Run it with
 * ULSM_CONTROL=1, then
 *
 *	ulsmctl list
 *	ulsmctl show -p PID
 *	ulsmctl switch -p PID verbose_log on
 *	ulsmctl toggle -p PID demo deny off
 *	ulsmctl record -p PID 'req_*' -d 2s -o demo.bin
 *
 * (make demo-control does this). It writes its pid to the file named by
 * its first argument, if any, and runs until SIGTERM or SIGINT, or for
 * the seconds of its second argument.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/control.h>
#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#define ULSM_LSM_SET		demo
#define ULSM_LSM_HOOK_DEFS	"demo_hook_defs.h"
#define MAX_LSM_COUNT		1
#define ULSM_LSM_DEFINE
#define ULSM_LSM_BUILTIN_ORDER	"deny"
#include <ulsm/lsm_hooks.h>

#define WORKERS	4

DEFINE_STATIC_SWITCH(verbose_log, "log every request");

DECLARE_TRACEPOINT(req_start, TP_PROTO(int id, long len), TP_ARGS(id, len));
DEFINE_TRACEPOINT(req_start, TP_PROTO(int id, long len), TP_ARGS(id, len));
DECLARE_TRACEPOINT(req_end, TP_PROTO(int id, int status), TP_ARGS(id, status));
DEFINE_TRACEPOINT(req_end, TP_PROTO(int id, int status), TP_ARGS(id, status));
/* A refused request, with the hook's answer: a negative errno. */
DECLARE_TRACEPOINT(req_refused, TP_PROTO(int id, int err), TP_ARGS(id, err));
DEFINE_TRACEPOINT(req_refused, TP_PROTO(int id, int err), TP_ARGS(id, err));

/* The module: every tenth request refused. */
static const struct lsm_id deny_id = { .name = "deny", .id = 1 };

static int deny_req_check(int id)
{
	return id % 10 ? 0 : -EACCES;
}

static struct demo_hook_list deny_hooks[] = {
	LSM_HOOK_INIT(req_check, deny_req_check),
};

static int deny_init(void)
{
	return security_add_hooks(deny_hooks, 1, &deny_id);
}

DEFINE_LSM(deny) = { .name = "deny", .init = deny_init, .id = &deny_id };

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

static int serve(int id)
{
	long len = 100 + id % 900;
	int err = call_int_hook(req_check, id);
	int status = err ? 403 : 200;

	trace_req_start(id, len);
	if (err)
		trace_req_refused(id, err);
	if (static_branch_unlikely(&verbose_log))
		printf("request %d: %ld bytes, status %d\n", id, len, status);
	trace_req_end(id, status);
	return status;
}

static int next_id, served;

static void *worker(void *arg)
{
	(void)arg;
	while (!done) {
		serve(__atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED));
		__atomic_add_fetch(&served, 1, __ATOMIC_RELAXED);
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 ? atof(argv[2]) : 0;
	struct timespec start, now;
	pthread_t t[WORKERS];
	int err;

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);
	err = ulsm_lsm_allow_toggle(&demo_hook_set);
	if (!err)
		err = ulsm_lsm_init(&demo_hook_set, NULL);
	if (err) {
		fprintf(stderr, "control_demo: %s\n", ulsm_last_error());
		return 1;
	}
	if (argc > 1) {
		FILE *f = fopen(argv[1], "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			perror(argv[1]);
			return 1;
		}
	}
	for (int i = 0; i < WORKERS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL)) {
			fprintf(stderr, "control_demo: pthread_create failed\n");
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!done) {
		nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (seconds > 0 && (now.tv_sec - start.tv_sec) +
		    (now.tv_nsec - start.tv_nsec) / 1e9 >= seconds)
			done = 1;
	}
	for (int i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	printf("served %d requests\n", served);
	return 0;
}
