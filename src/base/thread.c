// SPDX-License-Identifier: MIT
/*
 * The library's own threads (the control endpoint's, the USDT watcher,
 * the departures' retrier): each takes none of the program's signals,
 * which go to the program's threads (SIGINT, SIGCHLD, SIGPROF, SIGIO, its
 * real-time signals: every asynchronous one), and keeps open the engine's
 * sync signal, as every thread must, and the synchronous ones: the kernel
 * turns a blocked SIGTRAP, SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGSYS
 * into the default action, killing the process, and a library thread may
 * run a patch site as it meets an int3 (docs/patching-protocol.md). The
 * mask is inherited from the thread that starts it, so it is set around
 * pthread_create() and put back: the same in every library thread,
 * whatever the starting thread's.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "base/base.h"

int ulsm_thread_start(pthread_t *t, bool detached, void *(*fn)(void *),
		      void *arg, const char *name)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int ret;

	ret = pthread_attr_init(&attr);
	if (ret)
		return -ret;
	if (detached)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	sigdelset(&all, ulsm_config.sync_signal);
	for (const int *s = (const int[]){ SIGTRAP, SIGSEGV, SIGBUS, SIGILL,
					   SIGFPE, SIGSYS, 0 }; *s; s++)
		sigdelset(&all, *s);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(t, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (ret)
		return -ret;
	pthread_setname_np(*t, name);
	return 0;
}
