// SPDX-License-Identifier: MIT
/*
 * The control endpoint against hostile clients (short form): an
 * oversized line, garbage and binary bytes, half a line then a close,
 * more than 64 connections, clients that never read or never write.
 * After each the endpoint still serves another client at once and the
 * program is unchanged (its switch off, its tracepoint off). Timeouts
 * are 300 ms (ULSM_CONTROL_TIMEOUT_MS) so that the slow clients are
 * closed quickly.
 *
 * What this checks is the live endpoint: its thread, its socket, its
 * timeouts and its limit of connections, which a harness in one process
 * does not have. Random and mutated requests are libFuzzer's job now
 * (tests/fuzz/fuzz_control.c, through the connection's own code, guided
 * by coverage; make check replays its seeds and findings): the 10,000
 * that were sent here, blind, are gone.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>

#include <ulsm/control.h>
#include <ulsm/tracepoint.h>

#include "tap.h"
#include "child.h"
#include "control_client.h"

DEFINE_STATIC_SWITCH(fz_switch, "must stay off");
DECLARE_TRACEPOINT(fz_event, TP_PROTO(int i), TP_ARGS(i));
DEFINE_TRACEPOINT(fz_event, TP_PROTO(int i), TP_ARGS(i));

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The endpoint answers hello within @ms, and nothing changed. */
static bool healthy(int ms)
{
	long long t0 = now_ms();
	struct ulsm_tracepoint *tp = ulsm_tracepoint_find("fz_event");
	int ret = cc_once(getpid(), "hello\n", NULL, NULL, 0);

	return !ret && now_ms() - t0 < ms && !static_key_enabled(&fz_switch) &&
	       tp && !static_key_enabled(tp->key);
}

/* Wait for the server to close @fd: true if it did within @ms. */
static bool closed_within(int fd, int ms)
{
	long long end = now_ms() + ms;
	char buf[4096];

	while (now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 50) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return true;
	}
	return false;
}

static int oversized(void)
{
	char big[3000], line[256];
	int fd;

	check(ulsm_control_start() == 0, "start");
	fd = cc_connect(getpid());
	memset(big, 'a', sizeof(big));
	check(send(fd, big, sizeof(big), MSG_NOSIGNAL) > 0, "send 3000 bytes");
	check(cc_line(fd, line, sizeof(line)) > 0 &&
	      !strncmp(line, "error -22 ", 10), "error -22 (%s)", line);
	check(closed_within(fd, 1000), "and the connection is closed");
	close(fd);
	check(healthy(1000), "still serving, nothing changed");
	ulsm_control_stop();
	return failures;
}

static int garbage(void)
{
	char msg[600];
	int fd;

	check(ulsm_control_start() == 0, "start");
	fd = cc_connect(getpid());
	check(cc_request(fd, "\x01\x02 hello\n", NULL, msg, sizeof(msg)) ==
	      -EINVAL, "control characters: -EINVAL");
	check(cc_request(fd, "switch fz_switch on extra\n", NULL, msg,
			 sizeof(msg)) == -EINVAL, "too many words: -EINVAL");
	check(cc_request(fd, "switch fz_switch\xff on\n", NULL, msg,
			 sizeof(msg)) == -EINVAL, "a byte above 0x7e: -EINVAL");
	check(cc_request(fd, "\n", NULL, msg, sizeof(msg)) == -EINVAL,
	      "an empty line: -EINVAL");
	check(cc_request(fd, "hello\n", NULL, msg, sizeof(msg)) == 0,
	      "the same connection still serves");
	close(fd);
	/* Binary bytes, NULs included, then a newline. */
	fd = cc_connect(getpid());
	check(send(fd, "sh\0ow\n", 6, MSG_NOSIGNAL) == 6, "a NUL in a line");
	{
		char line[256];

		check(cc_line(fd, line, sizeof(line)) > 0 &&
		      !strncmp(line, "error -22 ", 10), "-EINVAL (%s)", line);
	}
	close(fd);
	check(healthy(1000), "still serving, nothing changed");
	ulsm_control_stop();
	return failures;
}

static int half_lines(void)
{
	check(ulsm_control_start() == 0, "start");
	for (int i = 0; i < 20; i++) {
		int fd = cc_connect(getpid());

		check(fd >= 0 && send(fd, "swit", 4, MSG_NOSIGNAL) == 4,
		      "half a line");
		close(fd);
	}
	check(healthy(1000), "still serving, nothing changed");
	/* A client that sends half a line and waits: closed at the timeout. */
	{
		int fd = cc_connect(getpid());

		cc_send(fd, "hel");
		check(closed_within(fd, 2000), "an idle half line is closed");
		close(fd);
	}
	{
		int fd = cc_connect(getpid());

		check(closed_within(fd, 2000), "a silent client is closed");
		close(fd);
	}
	ulsm_control_stop();
	return failures;
}

static int many(void)
{
	int fds[80], greeted = 0, busy = 0;
	char line[256];

	check(ulsm_control_start() == 0, "start");
	for (int i = 0; i < 80; i++) {
		fds[i] = cc_connect_raw(getpid(), 2000);
		if (fds[i] < 0 || cc_line(fds[i], line, sizeof(line)) < 0)
			continue;
		greeted += !strncmp(line, "ulsm-control 1 ", 15);
		busy += !strcmp(line, "error -16 busy");
	}
	check(greeted == 64 && busy == 16, "64 served, 16 told busy (%d, %d)",
	      greeted, busy);
	for (int i = 0; i < 80; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	usleep(100000);
	check(healthy(1000), "once they close, it serves again");
	ulsm_control_stop();
	return failures;
}

/*
 * A client that asks for show again and again and reads none of it:
 * once its socket is full, the endpoint stops reading it, serves the
 * others, and closes it at the timeout.
 */
static int never_reads(void)
{
	int fd, rcv = 4096;
	long long t0;
	bool others = true;

	int base;

	check(ulsm_control_start() == 0, "start");
	base = count_sockets();
	fd = cc_connect_raw(getpid(), 2000);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 2000; i++)
		if (send(fd, "show\n", 5, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			break;
	t0 = now_ms();
	while (now_ms() - t0 < 600)
		others &= healthy(3000);
	check(others, "others are served meanwhile, at once");
	/* Without reading a byte: the endpoint's side of it goes. */
	{
		int n = -1;

		for (int t = 0; t < 300 && n != base + 1; t++) {
			usleep(10000);
			n = count_sockets();
		}
		check(n == base + 1, "the client that never reads is closed "
		      "(%d sockets, want %d)", n, base + 1);
	}
	close(fd);
	check(healthy(1000), "still serving, nothing changed");
	ulsm_control_stop();
	return failures;
}

int main(void)
{
	unsetenv("ULSM_CONTROL");
	setenv("ULSM_CONTROL_TIMEOUT_MS", "300", 1);
	cc_case("an oversized line: -EINVAL, closed", oversized);
	cc_case("garbage and binary bytes: -EINVAL each", garbage);
	cc_case("half lines, silent clients", half_lines);
	cc_case("more than 64 connections", many);
	cc_case("a client that never reads", never_reads);
	return done_testing();
}
