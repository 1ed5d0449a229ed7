// SPDX-License-Identifier: MIT
/*
 * The control endpoint's defects found by a hostile client (issue 38),
 * each forced where it depends on timing: requests pipelined in one
 * write; a fork while the endpoint's thread has just freed a reply; a
 * client waiting while the process is out of descriptors; a recording
 * larger than a connection's buffer ended by stop; a toggle whose module
 * changes again before the reply is made. Each case runs in a child of
 * its own, with a socket directory of its own.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include <ulsm/control.h>
#include <ulsm/lsm.h>
#include <ulsm/tracepoint.h>

#include "control/control.h"
#include "runtime.h"
#include "tap.h"
#include "child.h"
#include "control_client.h"
#include "control_tl.h"
#include "test_lsm.h"

DECLARE_TRACEPOINT(door_event, TP_PROTO(int i, long v), TP_ARGS(i, v));
DEFINE_TRACEPOINT(door_event, TP_PROTO(int i, long v), TP_ARGS(i, v));

/* Read one reply ("ok n" and its payload, or an error line): 0, or -1. */
static int read_reply(int fd, bool *is_ok)
{
	char line[1100];
	unsigned long n;
	char *p;

	if (cc_line(fd, line, sizeof(line)) < 0)
		return -1;
	*is_ok = !strncmp(line, "ok ", 3);
	if (!*is_ok)
		return strncmp(line, "error ", 6) ? -1 : 0;
	if (sscanf(line, "ok %lu", &n) != 1)
		return -1;
	p = malloc(n + 1);
	if (!p || cc_bytes(fd, p, n)) {
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

/* 1. Requests in one write are all answered, in order. */
static int pipelined(void)
{
	pid_t me = getpid();
	int fd, answered = 0;
	bool is_ok;
	char *many;
	size_t len = 0;

	check(ulsm_control_start() == 0, "start");
	fd = cc_connect(me);
	check(fd >= 0, "connect");
	check(!cc_send(fd, "hello\nshow\n"), "hello and show in one write");
	check(!read_reply(fd, &is_ok) && is_ok, "hello answered");
	check(!read_reply(fd, &is_ok) && is_ok, "show answered too");
	/* 802 requests in one write: more than the 1024-byte line buffer. */
	many = malloc(802 * 6 + 1);
	for (int i = 0; i < 802; i++)
		len += (size_t)sprintf(many + len, "hello\n");
	check(send(fd, many, len, MSG_NOSIGNAL) == (ssize_t)len,
	      "802 requests in one write");
	free(many);
	while (answered < 802 && !read_reply(fd, &is_ok) && is_ok)
		answered++;
	check(answered == 802, "all 802 answered in order (%d)", answered);
	close(fd);
	ulsm_control_stop();
	return failures;
}

/* 2. A fork right after the endpoint's thread freed a sent reply. */
static sem_t at_point, forked;
static int point_hits;

static void stop_at_freed(enum ulsm_control_point p)
{
	if (p != ULSM_CTL_OUT_FREED || point_hits++)
		return;
	sem_post(&at_point);
	sem_wait(&forked);
}

static int wait_sem(sem_t *s, int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	while (sem_timedwait(s, &ts))
		if (errno != EINTR)
			return -1;
	return 0;
}

__attribute__((unused)) static int fork_after_free(void)
{
	pid_t me = getpid(), child;
	int fd, status;
	bool is_ok;

	sem_init(&at_point, 0, 0);
	sem_init(&forked, 0, 0);
	__atomic_store_n(&ulsm_control_test_point, stop_at_freed,
			 __ATOMIC_RELEASE);
	check(ulsm_control_start() == 0, "start");
	fd = cc_connect(me);	/* the greeting is the first reply freed */
	check(fd >= 0, "connect");
	check(wait_sem(&at_point, 5000) == 0,
	      "the thread stops right after freeing a reply");
	child = fork();
	if (!child) {
		/* The atfork handler has run: the child is alive after it. */
		_exit(0);
	}
	sem_post(&forked);
	waitpid(child, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "the child of that fork lives (status %#x%s)", status,
	      WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT ?
	      ": SIGABRT, a double free" : "");
	check(!cc_send(fd, "hello\n") && !read_reply(fd, &is_ok) && is_ok,
	      "the parent still serves the connection");
	close(fd);
	__atomic_store_n(&ulsm_control_test_point, NULL, __ATOMIC_RELEASE);
	ulsm_control_stop();
	return failures;
}

/*
 * The endpoint's thread's stat file, opened while descriptors are there:
 * its descriptor, or -1.
 */
static int control_stat_fd(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int fd = -1;

	while (d && fd < 0 && (e = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
		if (strncmp(comm, "ulsm-control", 12))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat",
			 e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (d)
		closedir(d);
	return fd;
}

/* The CPU time of the thread whose stat file is @fd, in ms, or -1. */
static long cpu_ms(int fd)
{
	char stat[1024], *p;
	unsigned long ut, st;
	ssize_t n = fd < 0 ? -1 : pread(fd, stat, sizeof(stat) - 1, 0);

	if (n <= 0)
		return -1;
	stat[n] = '\0';
	p = strrchr(stat, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
			 "%*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / (unsigned long)sysconf(_SC_CLK_TCK));
}

/*
 * 3. Out of descriptors with a client waiting: the endpoint's thread
 * must not spin, and the client is served once descriptors are back.
 */
static int out_of_descriptors(void)
{
	struct rlimit rl = { 256, 256 };
	pid_t me = getpid(), client;
	int hog[256], nhog = 0, status, fd, sfd;
	long before, after;

	check(!setrlimit(RLIMIT_NOFILE, &rl), "RLIMIT_NOFILE 256");
	check(ulsm_control_start() == 0, "start");
	sfd = control_stat_fd();
	check(sfd >= 0, "the endpoint's thread found");
	/* Every descriptor taken. */
	while (nhog < (int)ARRAY_SIZE(hog) && (fd = dup(0)) >= 0)
		hog[nhog++] = fd;
	check(errno == EMFILE, "the process is out of descriptors (%d taken)",
	      nhog);
	client = fork();
	if (!client) {
		char line[256];
		int c;

		for (int i = 0; i < 8; i++)
			close(hog[i]);
		c = cc_connect_raw(me, 6000);
		if (c < 0)
			_exit(2);
		/* The greeting, once the endpoint can accept it. */
		_exit(cc_line(c, line, sizeof(line)) > 0 &&
		      !strncmp(line, "ulsm-control 1 ", 15) ? 0 : 3);
	}
	usleep(200000);
	before = cpu_ms(sfd);
	usleep(1000000);
	after = cpu_ms(sfd);
	check(before >= 0 && after >= 0 && after - before <= 200,
	      "the endpoint's thread waits, not spins: %ld ms of CPU in 1 s",
	      after - before);
	while (nhog)
		close(hog[--nhog]);
	close(sfd);
	waitpid(client, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "the waiting client is served once descriptors are back "
	      "(status %#x)", status);
	fd = cc_connect(me);
	check(fd >= 0, "and new clients too");
	if (fd >= 0)
		close(fd);
	ulsm_control_stop();
	return failures;
}

/* ulsm-trace's summary of @file: events and lost, summed over threads. */
static int trace_counts(const char *file, long *events, long *lost)
{
	FILE *p = cc_trace_text(file);
	char line[512];

	*events = *lost = 0;
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		long e, l;
		char *s = strstr(line, " events, ");

		if (s && sscanf(s, " events, %ld lost", &l) == 1) {
			while (s > line && s[-1] >= '0' && s[-1] <= '9')
				s--;
			if (sscanf(s, "%ld", &e) == 1) {
				*events += e;
				*lost += l;
			}
		}
	}
	return pclose(p) ? -1 : 0;
}

/*
 * 4. Stop with more in the rings than a connection may hold: the rest
 * is sent as the client reads it, and the stream ends with "end".
 */
#define BIG_EVENTS	60000

static int stop_big(void)
{
	pid_t me = getpid();
	char *p, msg[600], file[300];
	long bytes, events, lost;
	bool ended;
	int fd;
	FILE *f;

	ulsm_control_out_max = 512 * 1024;
	check(ulsm_control_start() == 0, "start");
	fd = cc_connect(me);
	check(cc_request(fd, "record door_*\n", &p, msg, sizeof(msg)) == 0,
	      "record (%s)", msg);
	free(p);
	/* The client reads nothing while they are emitted. */
	for (int i = 0; i < BIG_EVENTS; i++)
		trace_door_event(i, -i);
	usleep(300000);
	snprintf(file, sizeof(file), "%s/big.bin", cc_xdg);
	f = fopen(file, "w");
	check(!cc_send(fd, "stop\n"), "stop");
	bytes = cc_stream(fd, f, &ended);
	fclose(f);
	check(ended, "the stream ends with its end chunk (%ld bytes)", bytes);
	check(bytes > (long)ulsm_control_out_max,
	      "more bytes than a connection holds (%ld)", bytes);
	check(!trace_counts(file, &events, &lost) &&
	      events + lost == BIG_EVENTS,
	      "recorded + lost = emitted: %ld + %ld = %d", events, lost,
	      BIG_EVENTS);
	close(fd);
	ulsm_control_stop();
	return failures;
}

/* 5. A toggle's reply says what the toggle did. */
static void toggle_back(enum ulsm_control_point p)
{
	if (p == ULSM_CTL_TOGGLED)
		ulsm_lsm_toggle(&tl_hook_set, "beta", true);
}

static int toggle_reply(void)
{
	tl_seal_toggleable();
	check(ulsm_control_start() == 0, "start");
	__atomic_store_n(&ulsm_control_test_point, toggle_back,
			 __ATOMIC_RELEASE);
	tl_beta_off("the reply says off, what the toggle did, though beta "
		    "was turned on again before the reply");
	__atomic_store_n(&ulsm_control_test_point, NULL, __ATOMIC_RELEASE);
	ulsm_control_stop();
	return failures;
}

int main(void)
{
	setenv("ULSM_TRACE_BUF", "65536", 1);
	tl_endpoint_init("5000");

	cc_case("requests in one write are all answered", pipelined);
#ifdef UNDER_TSAN
	ok(1, "# SKIP fork while the thread frees: ThreadSanitizer");
#else
	cc_case("a fork right after the thread freed a reply", fork_after_free);
#endif
	cc_case("out of descriptors: no spin, and served later",
		out_of_descriptors);
	cc_case("stop with more than a connection holds", stop_big);
	cc_case("a toggle's reply says what it did", toggle_reply);
	return done_testing();
}
