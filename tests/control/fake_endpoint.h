/* SPDX-License-Identifier: MIT */
/*
 * tests/control/fake_endpoint.h - endpoints that ulsmctl meets in the
 * wild, good and hostile, for t_ulsmctl_door: each is a child process
 * that binds ulsm.<id>.sock in the test's socket directory
 * ($XDG_RUNTIME_DIR/ulsm, 0700), listens, and serves its connections
 * one after the other with one of the behaviours below. What a client
 * asked is appended to a log file, one request a line, for the test to
 * read.
 *
 *	fake_start(id, behaviour, conf)	a fake endpoint; id 0: its own pid
 *					(for ulsmctl -n, which reads
 *					/proc/PID/comm)
 *	fake_mark(), fake_stop_since(mark)	the fakes started since
 *					the mark killed and reaped (a case's
 *					own, beside others that still run)
 *	fake_stop_all()			every fake killed and reaped
 *
 * A fake is a separate process so that the test can SIGSTOP it, as a
 * real program can be stopped, and so that ulsmctl's deadlines are
 * measured against a peer that does not share the test's scheduling.
 */
#ifndef ULSM_TESTS_FAKE_ENDPOINT_H
#define ULSM_TESTS_FAKE_ENDPOINT_H

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What a fake does with a connection. */
enum fake_kind {
	FK_NORMAL,	/* answers as the endpoint does (below: conf) */
	FK_MUTE,	/* accepts, never writes: not even the greeting */
	FK_HANG,	/* greets, reads, never answers */
	FK_REFUSE,	/* greets, answers every request with an error */
	FK_DRIP,	/* show: "ok 100", then a byte a second */
	FK_BRACKETS,	/* show: 1 MiB of "[" */
};

/* What a normal fake does after record's ok. */
enum fake_rec {
	REC_STREAM,	/* a chunk every 100 ms; stop: end */
	REC_SILENT,	/* "ok 0", then nothing, stop ignored */
	REC_FLOOD,	/* chunks without end, stop ignored */
	REC_REFUSED,	/* error -16: a recording in progress */
};

struct fake_conf {
	const char *command;	/* hello's "command" (JSON text, escaped) */
	const char *show;	/* show's JSON; NULL: a small one */
	const char *error;	/* FK_REFUSE's message (raw bytes) */
	enum fake_rec rec;
};

#define FAKE_MAX	32
static struct {
	pid_t pid;
	int id;
} fakes[FAKE_MAX];
static int nfakes;
static char fake_dir[90];	/* $XDG_RUNTIME_DIR/ulsm */

static void fake_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int fake_write(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int fake_say(int fd, const char *s)
{
	return fake_write(fd, s, strlen(s));
}

/* A reply: "ok <n>\n" and the JSON. */
static int fake_ok(int fd, const char *json)
{
	char head[64];

	snprintf(head, sizeof(head), "ok %zu\n", strlen(json));
	return fake_say(fd, head) || fake_say(fd, json);
}

/* One request line (without its newline): its length, or -1 at the end. */
static int fake_line(int fd, char *line, size_t size, int wait_ms)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		char ch;
		ssize_t r;

		if (wait_ms >= 0 && poll(&p, 1, wait_ms) == 0)
			return -2;	/* nothing yet */
		r = recv(fd, &ch, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (ch == '\n') {
			line[n] = '\0';
			return (int)n;
		}
		if (n + 1 < size)
			line[n++] = ch;
	}
}

static void fake_log(int id, const char *line)
{
	char path[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/../fake.%d.log", fake_dir, id);
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%s\n", line);
		fclose(f);
	}
}

/* The counts reply: 500 hits a second, 200 calls and 20 refusals. */
static void fake_counts(int fd, long long t0)
{
	struct timespec ts;
	long long ns, el;
	char json[512];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	el = ns - t0;
	snprintf(json, sizeof(json),
		 "{\"ns\":%lld,\"tracepoints\":[{\"name\":\"req_start\","
		 "\"hits\":%lld},{\"name\":\"idle\",\"hits\":7}],\"sets\":"
		 "[{\"name\":\"srv\",\"modules\":[{\"name\":\"allow\","
		 "\"calls\":%lld,\"refusals\":%lld}]}]}\n", ns,
		 el * 500 / 1000000000LL, el * 200 / 1000000000LL,
		 el * 20 / 1000000000LL);
	fake_ok(fd, json);
}

static const char fake_small_show[] =
	"{\"process\":{\"pid\":1,\"command\":\"fake\"},\"tracepoints\":[],"
	"\"switches\":[],\"keys\":[],\"calls\":[],\"sets\":[]}\n";

/* After record's ok: chunks until stop, as the conf says. */
static void fake_record(int fd, const struct fake_conf *conf, int id)
{
	static char chunk[16384];
	char line[1100], head[64];
	bool stopped = false;

	memset(chunk, 'r', sizeof(chunk));
	if (conf->rec == REC_REFUSED) {
		fake_say(fd, "error -16 a recording is in progress (one at a "
			 "time)\n");
		return;
	}
	if (conf->rec == REC_SILENT)
		fake_say(fd, "ok 0\n");
	else
		fake_ok(fd, "{\"glob\":\"x\",\"matched\":1,\"attached\":true}\n");
	for (;;) {
		int r = fake_line(fd, line, sizeof(line),
				  conf->rec == REC_FLOOD ? 0 : 100);

		if (r == -1)
			return;
		if (r >= 0) {
			fake_log(id, line);
			stopped |= !strcmp(line, "stop");
		}
		if (conf->rec == REC_STREAM && stopped) {
			fake_say(fd, "end 5\nfinal");
			return;
		}
		if (conf->rec == REC_STREAM && r == -2) {
			if (fake_say(fd, "data 10\n0123456789"))
				return;
		}
		if (conf->rec == REC_FLOOD) {
			/* 16 KiB every 20 ms: bounded, but never ending. */
			snprintf(head, sizeof(head), "data %zu\n",
				 sizeof(chunk));
			if (fake_say(fd, head) ||
			    fake_write(fd, chunk, sizeof(chunk)))
				return;
			fake_sleep_ms(20);
		}
	}
}

static void fake_normal(int fd, const struct fake_conf *conf, int id,
			long long t0)
{
	char line[1100], json[4096];

	for (;;) {
		if (fake_line(fd, line, sizeof(line), -1) < 0)
			return;
		fake_log(id, line);
		if (!strcmp(line, "hello")) {
			snprintf(json, sizeof(json), "{\"pid\":%d,\"command\":"
				 "\"%s\",\"uid\":%u,\"version\":\"0.1.0\"}\n",
				 id, conf->command ? conf->command : "fake",
				 (unsigned int)geteuid());
			fake_ok(fd, json);
		} else if (!strcmp(line, "show")) {
			fake_ok(fd, conf->show ? conf->show : fake_small_show);
		} else if (!strcmp(line, "counts")) {
			fake_counts(fd, t0);
		} else if (!strncmp(line, "switch ", 7)) {
			char name[64] = "", state[8] = "";

			sscanf(line, "switch %63s %7s", name, state);
			snprintf(json, sizeof(json), "{\"name\":\"%s\","
				 "\"description\":\"d\",\"on\":%s}\n", name,
				 strcmp(state, "on") ? "false" : "true");
			fake_ok(fd, json);
		} else if (!strncmp(line, "toggle ", 7)) {
			char set[64] = "", mod[64] = "", state[8] = "";

			sscanf(line, "toggle %63s %63s %7s", set, mod, state);
			snprintf(json, sizeof(json), "{\"name\":\"%s\",\"state\":"
				 "\"active\",\"position\":2,\"on\":%s,"
				 "\"reason\":null}\n", mod,
				 strcmp(state, "on") ? "false" : "true");
			fake_ok(fd, json);
		} else if (!strcmp(line, "clear")) {
			fake_say(fd, "ok 0\n");
		} else if (!strncmp(line, "record ", 7)) {
			fake_record(fd, conf, id);
			if (conf->rec != REC_STREAM && conf->rec != REC_REFUSED)
				return;
		} else {
			fake_say(fd, "error -22 bad request\n");
		}
	}
}

static void fake_serve(int fd, enum fake_kind kind,
		       const struct fake_conf *conf, int id, long long t0)
{
	static const struct fake_conf plain = { .command = "fake" };
	char line[1100], greet[64];
	static char big[1 << 20];

	if (!conf)
		conf = &plain;
	if (kind == FK_MUTE) {
		while (fake_line(fd, line, sizeof(line), -1) >= 0)
			;
		return;
	}
	snprintf(greet, sizeof(greet), "ulsm-control 1 %d\n", id);
	if (fake_say(fd, greet))
		return;
	switch (kind) {
	case FK_NORMAL:
		fake_normal(fd, conf, id, t0);
		break;
	case FK_HANG:
		while (fake_line(fd, line, sizeof(line), -1) >= 0)
			fake_log(id, line);
		break;
	case FK_REFUSE:
		while (fake_line(fd, line, sizeof(line), -1) >= 0) {
			fake_say(fd, "error -5 ");
			fake_say(fd, conf->error ? conf->error : "no");
			fake_say(fd, "\n");
		}
		break;
	case FK_DRIP:
		if (fake_line(fd, line, sizeof(line), -1) < 0)
			return;
		fake_say(fd, "ok 100\n");
		for (int i = 0; i < 100; i++) {
			if (fake_say(fd, "{"))
				return;
			fake_sleep_ms(1000);
		}
		break;
	case FK_BRACKETS:
		if (fake_line(fd, line, sizeof(line), -1) < 0)
			return;
		memset(big, '[', sizeof(big));
		fake_say(fd, "ok 1048576\n");
		fake_write(fd, big, sizeof(big));
		while (fake_line(fd, line, sizeof(line), -1) >= 0)
			;
		break;
	default:
		break;
	}
}

/*
 * fake_start - a fake endpoint at ulsm.<id>.sock (id 0: its own pid)
 * @comm: its command name (/proc/PID/comm), or NULL
 * Return: the pid in its socket's name. The socket is listening when it
 * returns.
 */
static int fake_start(int id, const char *comm, enum fake_kind kind,
		      const struct fake_conf *conf)
{
	int ready[2];
	pid_t child;
	char b;

	if (pipe(ready) || nfakes == FAKE_MAX)
		exit(99);
	fflush(NULL);
	child = fork();
	if (child < 0)
		exit(99);
	if (!child) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		long long t0;
		int s, me = id ? id : (int)getpid();
		struct timespec ts;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGPIPE, SIG_IGN);
		if (comm)
			prctl(PR_SET_NAME, comm);
		close(ready[0]);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/ulsm.%d.sock",
			 fake_dir, me);
		unlink(sa.sun_path);
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
		    chmod(sa.sun_path, 0600) || listen(s, 16))
			_exit(98);
		if (write(ready[1], "r", 1) != 1)
			_exit(98);
		close(ready[1]);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t0 = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		for (;;) {
			int fd = accept(s, NULL, NULL);

			if (fd < 0) {
				if (errno == EINTR)
					continue;
				_exit(97);
			}
			fake_serve(fd, kind, conf, me, t0);
			close(fd);
		}
	}
	close(ready[1]);
	if (read(ready[0], &b, 1) != 1)
		exit(99);
	close(ready[0]);
	fakes[nfakes].pid = child;
	fakes[nfakes++].id = id ? id : (int)child;
	return id ? id : (int)child;
}

/* The process serving the fake of socket @id. */
__attribute__((unused))
static pid_t fake_pid(int id)
{
	for (int i = 0; i < nfakes; i++)
		if (fakes[i].id == id)
			return fakes[i].pid;
	return -1;
}

static void fake_stop(int id)
{
	for (int i = 0; i < nfakes; i++) {
		if (fakes[i].id != id || fakes[i].pid <= 0)
			continue;
		kill(fakes[i].pid, SIGKILL);
		waitpid(fakes[i].pid, NULL, 0);
		fakes[i].pid = 0;
	}
}

static int fake_mark(void)
{
	return nfakes;
}

static void fake_stop_since(int mark)
{
	for (int i = mark; i < nfakes; i++)
		fake_stop(fakes[i].id);
	nfakes = mark;
}

static void fake_stop_all(void)
{
	fake_stop_since(0);
}

/* What fake @id was asked, one request a line ("" when nothing). */
__attribute__((unused))
static void fake_requests(int id, char *buf, size_t size)
{
	char path[300];
	FILE *f;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/../fake.%d.log", fake_dir, id);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

#endif /* ULSM_TESTS_FAKE_ENDPOINT_H */
