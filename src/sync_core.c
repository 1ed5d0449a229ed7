// SPDX-License-Identifier: MIT
/*
 * Core synchronisation: after it returns, every thread of the process has
 * executed a core-serialising instruction (or will before it next runs user
 * code), so none can still execute stale instruction bytes.
 *
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) does exactly that,
 * from the kernel. Where it is missing (old kernels, some emulators), every
 * other thread gets a real-time signal whose handler executes a serialising
 * instruction and acknowledges; the caller waits for all acknowledgements.
 * See docs/patching-protocol.md, "Core synchronisation".
 */

#include <dirent.h>
#include <errno.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

enum sync_method { SYNC_NONE, SYNC_MEMBARRIER, SYNC_SIGNAL };

static enum sync_method method;
static bool membarrier_registered;
static bool signal_installed;

/* One round of the signal fallback, read by the handler. */
struct round {
	size_t n;
	pid_t *tids;
	int *acked;
	int remaining;		/* futex word: acknowledgements still due */
};

static struct round *active_round;
static struct ulsm_quiesce sync_quiesce;

static int sys_membarrier(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

static int membarrier_prepare(void)
{
	int mask;

	if (membarrier_registered)
		return 0;
	mask = sys_membarrier(MEMBARRIER_CMD_QUERY);
	if (mask < 0 || !(mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE))
		return -ENOSYS;
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE))
		return -errno;
	membarrier_registered = true;
	return 0;
}

static void ack(struct round *r, size_t i)
{
	int zero = 0;

	if (!__atomic_compare_exchange_n(&r->acked[i], &zero, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	if (__atomic_sub_fetch(&r->remaining, 1, __ATOMIC_ACQ_REL) == 0)
		syscall(SYS_futex, &r->remaining, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
}

static void sync_signal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t self = (pid_t)syscall(SYS_gettid);
	struct round *r;

	(void)sig;
	(void)si;
	(void)uc;
	arch_serialize();
	ulsm_handler_enter(&sync_quiesce);
	r = __atomic_load_n(&active_round, __ATOMIC_SEQ_CST);
	if (r)
		for (size_t i = 0; i < r->n; i++)
			if (r->tids[i] == self)
				ack(r, i);
	ulsm_handler_leave(&sync_quiesce);
	errno = saved;
}

static int signal_prepare(void)
{
	struct sigaction sa;

	if (signal_installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sync_signal_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(ulsm_config.sync_signal, &sa, NULL))
		return -errno;
	signal_installed = true;
	return 0;
}

int ulsm_sync_prepare(void)
{
	int ret;

	switch (ulsm_config.sync_mode) {
	case ULSM_SYNC_SIGNAL:
		break;
	case ULSM_SYNC_MEMBARRIER:
		ret = membarrier_prepare();
		if (ret)
			return ulsm_error(-ENOSYS, "membarrier SYNC_CORE is not "
					  "available (%s)", strerror(-ret));
		method = SYNC_MEMBARRIER;
		return 0;
	case ULSM_SYNC_AUTO:
		if (!membarrier_prepare()) {
			method = SYNC_MEMBARRIER;
			return 0;
		}
		ulsm_debug("no membarrier SYNC_CORE: using the signal fallback");
		break;
	}
	ret = signal_prepare();
	if (ret)
		return ulsm_error(-ENOSYS, "no way to synchronise cores: "
				  "membarrier unavailable and signal %d cannot be "
				  "installed (%s)", ulsm_config.sync_signal,
				  strerror(-ret));
	method = SYNC_SIGNAL;
	return 0;
}

static int list_threads(pid_t self, pid_t **out, size_t *count)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	size_t n = 0, cap = 16;
	pid_t *v = malloc(cap * sizeof(*v));

	if (!d || !v) {
		int err = d ? -ENOMEM : -errno;

		if (d)
			closedir(d);
		free(v);
		return err;
	}
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || tid == self)
			continue;
		if (n == cap) {
			pid_t *nv = realloc(v, 2 * cap * sizeof(*v));

			if (!nv) {
				closedir(d);
				free(v);
				return -ENOMEM;
			}
			v = nv;
			cap *= 2;
		}
		v[n++] = tid;
	}
	closedir(d);
	*out = v;
	*count = n;
	return 0;
}

static int sync_by_signal(void)
{
	pid_t pid = getpid(), self = (pid_t)syscall(SYS_gettid);
	struct round r = { 0, NULL, NULL };
	unsigned long waits = 0;
	int ret;

	ret = list_threads(self, &r.tids, &r.n);
	if (ret)
		return ret;
	r.acked = calloc(r.n ? r.n : 1, sizeof(*r.acked));
	if (!r.acked) {
		free(r.tids);
		return -ENOMEM;
	}
	r.remaining = (int)r.n;
	__atomic_store_n(&active_round, &r, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < r.n; i++)
		if (syscall(SYS_tgkill, pid, r.tids[i], ulsm_config.sync_signal))
			ack(&r, i);	/* gone: nothing to serialise */

	/*
	 * Sleep rather than spin: with more threads than CPUs the threads we
	 * wait for need our CPU to run their handlers. Every millisecond,
	 * count threads that exited without answering as done.
	 */
	for (;;) {
		int left = __atomic_load_n(&r.remaining, __ATOMIC_ACQUIRE);
		struct timespec ms = { 0, 1000000 };

		if (!left)
			break;
		syscall(SYS_futex, &r.remaining, FUTEX_WAIT_PRIVATE, left, &ms,
			NULL, 0);
		for (size_t i = 0; i < r.n; i++)
			if (!__atomic_load_n(&r.acked[i], __ATOMIC_ACQUIRE) &&
			    syscall(SYS_tgkill, pid, r.tids[i], 0) &&
			    errno == ESRCH)
				ack(&r, i);
		if (++waits == 1000)
			ulsm_debug("a thread has not answered the sync signal "
				   "for a second: is signal %d blocked there?",
				   ulsm_config.sync_signal);
	}

	__atomic_store_n(&active_round, NULL, __ATOMIC_SEQ_CST);
	ulsm_wait_for_handlers(&sync_quiesce);
	free(r.tids);
	free(r.acked);
	return 0;
}

int ulsm_sync_cores(void)
{
	int ret = 0;

	ulsm_stat_add(core_syncs, 1);
	arch_serialize();
	if (method == SYNC_MEMBARRIER) {
		if (!sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE))
			return 0;
		ulsm_debug("membarrier failed (%s): using the signal fallback",
			   strerror(errno));
		ret = signal_prepare();
		if (ret)
			return ret;
		method = SYNC_SIGNAL;
	}
	if (method == SYNC_SIGNAL)
		ret = sync_by_signal();
	else
		ret = -ENOSYS;
	return ret;
}

const char *ulsm_sync_name(void)
{
	switch (method) {
	case SYNC_MEMBARRIER:
		return "membarrier";
	case SYNC_SIGNAL:
		return "signal";
	default:
		return arch_protocol == ULSM_PROTO_NONE ? "none" : "unused";
	}
}
