// SPDX-License-Identifier: MIT
/*
 * Signals, for a command that must end well (ulsmctl(1), "Signals"):
 *
 * - The backstop. Every wait is bounded by its deadline (conn.c), but a
 *   write to a terminal or a pipe that nobody reads can block outside
 *   any poll. So the whole command runs under a timer (ITIMER_REAL) set
 *   a little past its deadline: if it fires, the temporaries are removed
 *   (output.c) and ulsmctl exits 1, saying so.
 *
 * - The stop signals of a recording: SIGINT, SIGTERM and SIGHUP ask the
 *   recording to end (record.c: the first sends stop and waits briefly
 *   for the end, the next stops waiting). They are blocked except inside
 *   ppoll() (conn_wait() passes sig_wait_mask()), so that one that
 *   arrives between a check and the wait still ends the wait; their
 *   handler only counts.
 *
 * - While it records, any other signal that would end ulsmctl (SIGQUIT,
 *   SIGUSR1, a real-time signal...) removes the temporaries first, then
 *   ends it as the signal would have.
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
	static const char msg[] = ": SIGALRM: the deadline passed: gave up\n";

	(void)sig;
	out_cleanup_now();
	if (write(2, prog, strlen(prog)) < 0 ||
	    write(2, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/* Remove the temporaries, then die of @sig as if nothing caught it. */
static void on_fatal(int sig)
{
	out_cleanup_now();
	signal(sig, SIG_DFL);
	raise(sig);	/* delivered when this handler returns */
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
	static const int fatal[] = {
		SIGQUIT, SIGUSR1, SIGUSR2, SIGXCPU, SIGVTALRM, SIGPROF,
		SIGIO, SIGPWR, SIGSTKFLT,
	};
	struct sigaction sa = { .sa_handler = on_fatal };
	sigset_t block;

	/* Writes report EPIPE and EFBIG instead. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGALRM, on_alarm);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaction(s, &sa, NULL);
	sa.sa_handler = on_stop;
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
