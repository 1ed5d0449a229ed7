// SPDX-License-Identifier: MIT
/*
 * ULSM_USDT=1: a thread of the library's ("ulsm-usdt") looks at the USDT
 * semaphores every 100 ms, for a program that runs without the control
 * endpoint (whose thread looks at them too). The kernel adds one to a
 * probe's semaphore while a tracer is attached; nothing tells the
 * process, so someone must look (docs/tracepoints.md, "USDT").
 *
 * The thread takes none of the program's signals (the library's sync
 * signal stays open, as every thread's must), and a child of fork() has
 * none: it looks through its own endpoint, or ulsm_trace_usdt_poll().
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "base/hook_sets.h"
#include "trace/trace.h"

/*
 * One look: each tracepoint's own probe, then the hook sets whose
 * tracepoint a tracer listens at (through the framework's table). A
 * busy lock, or a failure: the next look tries again.
 */
void ulsm_trace_usdt_look(void)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();

	if (ulsm_trace_usage_sync(0) < 0)
		ulsm_clear_error();
	if (ops && ops->trace_sync())
		ulsm_clear_error();
}

ULSM_API int ulsm_trace_usdt_poll(void)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();
	int ret = ulsm_trace_usage_sync(-1);

	if (ret >= 0 && ops)
		ret = ops->trace_sync();
	return ret < 0 ? ret : 0;
}

static void *watch(void *unused)
{
	(void)unused;
	for (;;) {
		nanosleep(&(struct timespec){ 0, ULSM_USDT_POLL_MS * 1000000L },
			  NULL);
		ulsm_trace_usdt_look();
	}
	return NULL;
}

void ulsm_trace_usdt_from_env(void)
{
	pthread_t t;
	int ret;

	if (!ulsm_env_switch("ULSM_USDT"))
		return;
	ret = ulsm_thread_start(&t, true, watch, NULL, "ulsm-usdt");
	if (ret)
		ulsm_report("ULSM_USDT=1: cannot start its thread: %s",
			    strerror(-ret));
}
