// SPDX-License-Identifier: MIT
/*
 * The control endpoint's fault walk (issue 38): a session of clients
 * (requests pipelined, a switch flipped, a module toggled, a recording,
 * the program forking while they are connected) is run once to count the
 * system calls and allocations the endpoint makes, then again with each
 * of them failing in turn (once; then from it on, for a run of calls).
 * Every run must end with the program serving (a new client gets hello
 * and show), a thread dispatching all along, each request answered or
 * its connection closed (never a client left waiting), the forked child
 * alive, and, once the endpoint stops, no descriptor left open.
 *
 * --stride N walks every N-th call (make check uses 1 on a native
 * build; the emulator and the sanitizers walk fewer).
 */
#include <poll.h>
#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include <ulsm/control.h>
#include <ulsm/lsm.h>
#include <ulsm/tracepoint.h>

#include "base/sys.h"
#include "runtime.h"
#include "tap.h"
#include "child.h"
#include "control_client.h"
#include "control_tl.h"
#include "test_lsm.h"

DEFINE_STATIC_SWITCH(walk_switch, "the walk's switch");
DECLARE_TRACEPOINT(walk_event, TP_PROTO(int i), TP_ARGS(i));
DEFINE_TRACEPOINT(walk_event, TP_PROTO(int i), TP_ARGS(i));

/* The endpoint's kinds of call. */
#define WALK_KINDS	((1u << ULSM_SYS_SOCKET) | (1u << ULSM_SYS_RECV) | \
			 (1u << ULSM_SYS_SEND) | (1u << ULSM_SYS_POLL) |   \
			 (1u << ULSM_SYS_ALLOC) | (1u << ULSM_SYS_OPEN) |  \
			 (1u << ULSM_SYS_READ))

static volatile bool stop_dispatch;
static unsigned long dispatched;

static void *dispatcher(void *arg)
{
	struct t_file f = { 0 };

	(void)arg;
	while (!__atomic_load_n(&stop_dispatch, __ATOMIC_RELAXED)) {
		trace_walk_event(1);
		(void)call_int_hook(file_open, &f);
		tl_trace_reset();
		__atomic_add_fetch(&dispatched, 1, __ATOMIC_RELAXED);
		/* Dispatching all along, leaving a core to the endpoint. */
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
	}
	return NULL;
}

static int count_fds(void)
{
	int n = cc_entries("/proc/self/fd");

	return n < 0 ? -1 : n - 1;	/* opendir's own */
}

/*
 * Whether @fd has something to read (or its end) within @ms. A signal
 * does not end the wait: poll() is never restarted (signal(7)), and the
 * library's core syncs signal every thread where membarrier cannot do
 * it (under an emulator), so an interrupted poll is not a silent peer.
 */
static bool readable_within(int fd, int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int left = ms;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, left);

		if (r > 0)
			return true;
		if (r == 0 || errno != EINTR)
			return false;
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
				  (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left < 0)
			left = 0;
	}
}

/* recv(), again when a signal interrupts it. */
static ssize_t recv_some(int fd, void *buf, size_t n)
{
	ssize_t r;

	while ((r = recv(fd, buf, n, 0)) < 0 && errno == EINTR)
		;
	return r;
}

/*
 * A line within @ms: its length, -1 at the end (the connection closed),
 * -2 when none came (the client would wait for ever).
 */
static int line_within(int fd, char *line, size_t size, int ms)
{
	size_t n = 0;

	while (n + 1 < size) {
		char ch;
		ssize_t r;

		if (!readable_within(fd, ms))
			return -2;
		r = recv_some(fd, &ch, 1);
		if (r <= 0)
			return -1;
		if (ch == '\n') {
			line[n] = '\0';
			return (int)n;
		}
		line[n++] = ch;
	}
	return -1;
}

/* Skip @n bytes within @ms: 0, -1 (closed), -2 (none came). */
static int skip_within(int fd, unsigned long n, int ms)
{
	char buf[4096];

	while (n) {
		ssize_t r;

		if (!readable_within(fd, ms))
			return -2;
		r = recv_some(fd, buf, n < sizeof(buf) ? n : sizeof(buf));
		if (r <= 0)
			return -1;
		n -= (unsigned long)r;
	}
	return 0;
}

/*
 * A reply: 0 (ok or error), -1 (the connection closed: allowed, a fault
 * may close it), -2 (nothing came: a client left waiting).
 */
static int reply_within(int fd, int ms)
{
	char line[1100];
	unsigned long n;
	int r = line_within(fd, line, sizeof(line), ms);

	if (r < 0)
		return r;
	if (!strncmp(line, "error ", 6))
		return 0;
	if (sscanf(line, "ok %lu", &n) != 1)
		return -1;
	return skip_within(fd, n, ms);
}

static int connect_greeted(pid_t me)
{
	char line[256];
	int fd = cc_connect_raw(me, 2000);

	if (fd < 0)
		return -1;
	if (line_within(fd, line, sizeof(line), 2000) < 0 ||
	    strncmp(line, "ulsm-control 1 ", 15)) {
		close(fd);
		return -1;
	}
	return fd;
}

struct outcome {
	int waited;	/* requests left without reply or close */
	int child_bad;	/* a child of fork that did not exit 0 */
};

/* Send @req and expect its reply, or the end of the connection. */
static void ask(int fd, const char *req, int nreplies, struct outcome *o)
{
	if (fd < 0 || cc_send(fd, req))
		return;
	for (int i = 0; i < nreplies; i++) {
		int r = reply_within(fd, 2000);

		if (r == -2)
			o->waited++;
		if (r)
			return;
	}
}

/* A recording of a few events, then stop: every chunk, or the end. */
static void record(int fd, struct outcome *o)
{
	char line[256];
	int r;

	if (fd < 0 || cc_send(fd, "record walk_*\n"))
		return;
	r = reply_within(fd, 2000);
	if (r == -2)
		o->waited++;
	if (r)
		return;
	for (int i = 0; i < 50; i++)
		trace_walk_event(i);
	if (cc_send(fd, "stop\n"))
		return;
	for (;;) {
		unsigned long n;

		r = line_within(fd, line, sizeof(line), 2000);
		if (r == -2)
			o->waited++;
		if (r < 0)
			return;
		/* A failed read of the rings ends the stream so. */
		if (!strncmp(line, "error ", 6))
			return;
		if (sscanf(strchr(line, ' ') ? strchr(line, ' ') + 1 : "",
			   "%lu", &n) != 1)
			return;
		r = skip_within(fd, n, 2000);
		if (r == -2)
			o->waited++;
		if (r || !strncmp(line, "end ", 4))
			return;
	}
}

static void session(struct outcome *o)
{
	pid_t me = getpid(), child;
	int a = connect_greeted(me), b = connect_greeted(me), status;

	ask(a, "hello\nshow\n", 2, o);
	child = fork();
	if (!child)
		_exit(0);
	ask(b, "switch walk_switch on\n", 1, o);
	ask(b, "toggle tl beta off\n", 1, o);
	ask(a, "toggle tl beta on\n", 1, o);
	record(b, o);
	ask(b, "switch walk_switch off\n", 1, o);
	waitpid(child, &status, 0);
	o->child_bad += !WIFEXITED(status) || WEXITSTATUS(status);
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

/* Whether a new client gets hello and show (within 2 s, a few tries). */
static bool serving(void)
{
	for (int tries = 0; tries < 20; tries++) {
		int fd = connect_greeted(getpid());
		bool ok;

		if (fd < 0) {
			usleep(100000);
			continue;
		}
		ok = !cc_send(fd, "hello\n") && !reply_within(fd, 2000) &&
		     !cc_send(fd, "show\n") && !reply_within(fd, 2000);
		close(fd);
		if (ok)
			return true;
		usleep(100000);
	}
	return false;
}

static void faults(unsigned long from, unsigned long to)
{
	/* Atomic: the endpoint's thread reads them at each system call. */
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.kinds, WALK_KINDS, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.fail_to, to, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.err, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.calls, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.fail_from, from, __ATOMIC_SEQ_CST);
}

static int walk(unsigned long stride, unsigned long run)
{
	struct outcome ref = { 0 }, o;
	unsigned long ncalls, bad_serve = 0, bad_wait = 0, bad_child = 0,
		      bad_dispatch = 0, bad_fds = 0, runs = 0;
	int fds0 = count_fds();
	pthread_t t;

	tl_seal_toggleable();
	pthread_create(&t, NULL, dispatcher, NULL);
	/* The reference: how many calls a session makes. */
	check(ulsm_control_start() == 0, "start");
	faults(0, 0);
	session(&ref);
	ncalls = __atomic_load_n(&ulsm_fault.calls, __ATOMIC_SEQ_CST);
	ulsm_control_stop();
	check(!ref.waited && !ref.child_bad && ncalls > 0,
	      "the session without faults: %lu calls", ncalls);
	printf("# %lu calls in a session; walking every %lu-th, each once, "
	       "and every fourth of those, %lu from it on\n", ncalls, stride,
	       run);
	for (unsigned long k = 1; k <= ncalls + 5; k += stride) {
		/* A run of failures from every fourth call on. */
		for (int pass = 0; pass < ((k - 1) / stride % 4 ? 1 : 2);
		     pass++) {
			unsigned long before;
			int fds;

			o = (struct outcome){ 0 };
			if (ulsm_control_start()) {
				/* Its own calls are walked too: try again. */
				faults(0, 0);
				continue;
			}
			faults(k, pass ? k + run : k);
			session(&o);
			faults(0, 0);
			before = __atomic_load_n(&dispatched, __ATOMIC_RELAXED);
			if (!serving()) {
				bad_serve++;
				printf("# call %lu (%s, %s) failing: the program "
				       "does not serve\n", k,
				       pass ? "a run" : "once",
				       k <= ULSM_FAULT_LOG ?
				       ulsm_sys_name(ulsm_fault.log[k - 1]) : "?");
			}
			if (o.waited) {
				bad_wait++;
				printf("# call %lu (%s, %s) failing: %d request(s) "
				       "left waiting\n", k, pass ? "a run" : "once",
				       k <= ULSM_FAULT_LOG ?
				       ulsm_sys_name(ulsm_fault.log[k - 1]) : "?",
				       o.waited);
			}
			bad_child += o.child_bad != 0;
			for (int ms = 0; ms < 1000 &&
			     __atomic_load_n(&dispatched, __ATOMIC_RELAXED) ==
			     before; ms++)
				usleep(1000);
			bad_dispatch += __atomic_load_n(&dispatched,
							__ATOMIC_RELAXED) == before;
			ulsm_control_stop();
			fds = count_fds();
			if (fds != fds0) {
				bad_fds++;
				printf("# call %lu failing: %d descriptors open "
				       "after stop, %d before\n", k, fds, fds0);
			}
			runs++;
		}
	}
	__atomic_store_n(&stop_dispatch, true, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	check(!bad_serve, "every run ends with the program serving (%lu of "
	      "%lu do not)", bad_serve, runs);
	check(!bad_wait, "no request left waiting (%lu runs)", bad_wait);
	check(!bad_child, "every forked child lives (%lu runs)", bad_child);
	check(!bad_dispatch, "the program's thread dispatches all along "
	      "(%lu runs)", bad_dispatch);
	check(!bad_fds, "no descriptor left open (%lu runs)", bad_fds);
	return failures;
}

static unsigned long stride_arg = 1;

static int walk_main(void)
{
	return walk(stride_arg, 30);
}

int main(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--stride"))
			stride_arg = strtoul(argv[++i], NULL, 10);
	if (!stride_arg)
		stride_arg = 1;
	if (under_emulator() && stride_arg == 1)
		stride_arg = 5;
	tl_endpoint_init("3000");
#ifdef UNDER_TSAN
	skip_all("the walk forks a multi-threaded process for each call: "
		 "too slow under ThreadSanitizer (t_control_door races it)");
#endif
	cc_case("the endpoint's fault walk", walk_main);
	return done_testing();
}
