// SPDX-License-Identifier: MIT
/*
 * A server for t_usdt (bpftrace on the USDT probes of a running program):
 * a tracepoint with a negative argument, srv_req(worker, status), and a
 * hook set "usdt" of two modules, allow (0) and deny (-13 for an odd
 * request). It starts its control endpoint (nothing else turns USDT on),
 * prints its pid, then reads commands on standard input:
 *
 *   burst N    N requests: each a hook call and an event; prints
 *              "done N NS" (NS: nanoseconds the burst took)
 *   quit       exits
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/control.h>
#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#define ULSM_LSM_SET		usdt
#define ULSM_LSM_HOOK_DEFS	"usdt_hook_defs.h"
#define MAX_LSM_COUNT		2
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

DECLARE_TRACEPOINT(srv_req, TP_PROTO(int worker, int status),
		   TP_ARGS(worker, status));
DEFINE_TRACEPOINT(srv_req, TP_PROTO(int worker, int status),
		  TP_ARGS(worker, status));

#include "req_modules.h"	/* allow and deny */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	       (unsigned long long)ts.tv_nsec;
}

int main(void)
{
	char line[128];

	if (ulsm_lsm_init(&usdt_hook_set, "allow,deny") ||
	    ulsm_control_start()) {
		fprintf(stderr, "usdt_server: %s\n", ulsm_last_error());
		return 1;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		long n;

		if (sscanf(line, "burst %ld", &n) == 1) {
			unsigned long long t0 = now_ns();

			for (long i = 0; i < n; i++) {
				int rc = call_int_hook(req_check, (int)i);

				trace_srv_req((int)(i % 4), rc ? rc : -(int)(i & 1));
			}
			printf("done %ld %llu\n", n, now_ns() - t0);
			fflush(stdout);
		} else if (!strncmp(line, "quit", 4)) {
			break;
		}
	}
	return 0;
}
