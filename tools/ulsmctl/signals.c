// SPDX-License-Identifier: MIT
/*
 * Signals, for a command that must end well (ulsmctl(1), "Signals"):
 *
 * - The backstop. Every wait is bounded by its deadline (conn.c), but a
 *   write to a terminal or a pipe that nobody reads can block outside
 *   any poll. So the whole command runs under a timer (ITIMER_REAL) set
 *   a little past its deadline: if it fires, ulsmctl exits 1, saying so.
 *
 * - The stop signals of a recording: SIGINT, SIGTERM and SIGHUP ask the
 *   recording to end (record.c: the first sends stop and waits briefly
 *   for the end, the next stops waiting). They are blocked except inside
 *   ppoll() (conn_wait() passes sig_wait_mask()), so that one that
 *   arrives between a check and the wait still ends the wait; their
 *   handler only counts.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "ulsmctl.h"

static volatile sig_atomic_t stops;
static sigset_t wait_mask;
static bool waiting_mode;
int sig_acked;

static void on_stop(int sig)
{
	(void)sig;
	stops++;
}

static void on_alarm(int sig)
{
	static const char msg[] = ": the deadline passed: gave up\n";

	(void)sig;
	if (write(2, prog, strlen(prog)) < 0 ||
	    write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

void backstop_arm(long long at_ms)
{
	long long left = at_ms - now_ms();
	struct itimerval it = { .it_value = { 0, 1000 } };

	if (left > 0) {
		it.it_value.tv_sec = (time_t)(left / 1000);
		it.it_value.tv_usec = (suseconds_t)(left % 1000) * 1000;
	}
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
}

void backstop_disarm(void)
{
	struct itimerval it = { .it_value = { 0, 0 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

void sig_setup_record(void)
{
	static const int stop[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t block;

	/* A write to a closed pipe reports EPIPE instead. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++) {
		sigaction(stop[i], &sa, NULL);
		sigaddset(&block, stop[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	for (size_t i = 0; i < sizeof(stop) / sizeof(stop[0]); i++)
		sigdelset(&wait_mask, stop[i]);
	waiting_mode = true;
}

int sig_stops(void)
{
	return stops;
}

const sigset_t *sig_wait_mask(void)
{
	return waiting_mode ? &wait_mask : NULL;
}

void sig_child_mask(void)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}
