/* SPDX-License-Identifier: MIT */
/*
 * tests/control/ctl_run.h - ulsmctl run by a test, with a time limit:
 * its exit status, how long it took, what it printed (the first 64 KiB
 * of each stream, and how many bytes in all). Several may run at once
 * (a case that waits for a deadline starts, the next starts beside it);
 * whichever is waited for, all are served, so that none blocks on a
 * full pipe and each one's time is read when it ends.
 *
 *	ctl_start(r, limit_s, args...)	start (args end with NULL)
 *	ctl_signal(r, sig)		a signal to it
 *	ctl_wait(r)			until it ends, or is killed at its
 *					limit (r->killed)
 */
#ifndef ULSM_TESTS_CTL_RUN_H
#define ULSM_TESTS_CTL_RUN_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CTL_KEEP	65536
#define CTL_ARGS	24
/* Past this much output a run is killed: the output is not bounded. */
#define CTL_OUT_CAP	(64LL << 20)

static const char *ctl_path;	/* the ulsmctl under test */

struct ctl_stream {
	int fd;
	char keep[CTL_KEEP + 1];
	size_t kept;
	long long total;
};

struct ctl_run {
	pid_t pid;
	double limit, secs;
	long long start_ns, end_ns;
	int status;
	bool done, killed, flood;
	struct ctl_stream out, err;
	struct ctl_run *next;
};

static struct ctl_run *ctl_active;

static long long ctl_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Seconds since @r started. */
static double ctl_elapsed(const struct ctl_run *r)
{
	return ((r->done ? r->end_ns : ctl_ns()) - r->start_ns) / 1e9;
}

static void ctl_start_v(struct ctl_run *r, double limit, char **argv)
{
	int o[2], e[2];

	memset(r, 0, sizeof(*r));
	if (pipe2(o, O_CLOEXEC) || pipe2(e, O_CLOEXEC))
		exit(99);
	fflush(NULL);
	r->limit = limit;
	r->start_ns = ctl_ns();
	r->pid = fork();
	if (r->pid < 0)
		exit(99);
	if (!r->pid) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execv(ctl_path, argv);
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	r->out.fd = o[0];
	r->err.fd = e[0];
	fcntl(o[0], F_SETFL, O_NONBLOCK);
	fcntl(e[0], F_SETFL, O_NONBLOCK);
	r->next = ctl_active;
	ctl_active = r;
}

/* ulsmctl with the arguments that follow @limit (seconds), to NULL. */
static void ctl_start(struct ctl_run *r, double limit, ...)
{
	char *argv[CTL_ARGS + 2];
	va_list ap;
	int n = 0;

	argv[n++] = (char *)"ulsmctl";
	va_start(ap, limit);
	while (n <= CTL_ARGS && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	ctl_start_v(r, limit, argv);
}

__attribute__((unused))
static void ctl_signal(struct ctl_run *r, int sig)
{
	if (!r->done)
		kill(r->pid, sig);
}

static void ctl_drain(struct ctl_run *r, struct ctl_stream *s)
{
	char buf[65536];
	ssize_t n;

	while (s->fd >= 0 && (n = read(s->fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return;		/* EAGAIN: nothing now */
		}
		if (s->kept < CTL_KEEP) {
			size_t take = (size_t)n < CTL_KEEP - s->kept ?
				      (size_t)n : CTL_KEEP - s->kept;

			memcpy(s->keep + s->kept, buf, take);
			s->kept += take;
			s->keep[s->kept] = '\0';
		}
		s->total += n;
		if (s->total > CTL_OUT_CAP && !r->flood) {
			r->flood = true;
			kill(r->pid, SIGKILL);
		}
	}
	close(s->fd);
	s->fd = -1;
}

/* Serve every active run once: read, reap, kill at the limit. */
static void ctl_serve(int wait_ms)
{
	struct pollfd p[64];
	int n = 0;

	for (struct ctl_run *r = ctl_active; r && n < 62; r = r->next) {
		if (r->out.fd >= 0)
			p[n++] = (struct pollfd){ r->out.fd, POLLIN, 0 };
		if (r->err.fd >= 0)
			p[n++] = (struct pollfd){ r->err.fd, POLLIN, 0 };
	}
	poll(p, (nfds_t)n, wait_ms);
	for (struct ctl_run **pp = &ctl_active; *pp;) {
		struct ctl_run *r = *pp;

		ctl_drain(r, &r->out);
		ctl_drain(r, &r->err);
		if (!r->done && waitpid(r->pid, &r->status, WNOHANG) ==
		    r->pid) {
			r->done = true;
			r->end_ns = ctl_ns();
			r->secs = (r->end_ns - r->start_ns) / 1e9;
		}
		if (!r->done && ctl_elapsed(r) > r->limit && !r->killed) {
			r->killed = true;
			kill(r->pid, SIGKILL);
		}
		if (r->done && r->out.fd < 0 && r->err.fd < 0)
			*pp = r->next;		/* finished */
		else
			pp = &r->next;
	}
}

static bool ctl_is_active(const struct ctl_run *r)
{
	for (struct ctl_run *a = ctl_active; a; a = a->next)
		if (a == r)
			return true;
	return false;
}

static void ctl_wait(struct ctl_run *r)
{
	while (ctl_is_active(r))
		ctl_serve(20);
}

/* Wait @ms while the active runs are served. */
__attribute__((unused))
static void ctl_sleep_ms(long ms)
{
	long long until = ctl_ns() + ms * 1000000LL;

	while (ctl_ns() < until)
		ctl_serve((int)((until - ctl_ns()) / 1000000LL) + 1);
}

/* Its exit status: 0-255, or 256 + the signal that ended it. */
static int ctl_status(const struct ctl_run *r)
{
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	return 256 + WTERMSIG(r->status);
}

/* Run and wait: the exit status. */
#define ctl_run(r, limit, ...)						\
	({								\
		ctl_start((r), (limit), __VA_ARGS__, (char *)NULL);	\
		ctl_wait(r);						\
		ctl_status(r);						\
	})

/* A run's result as TAP comments. */
static void ctl_show(const struct ctl_run *r)
{
	printf("#   status %d%s, %.2f s, %lld + %lld bytes\n", ctl_status(r),
	       r->killed ? " (killed at its limit)" : r->flood ?
	       " (killed: too much output)" : "", r->secs, r->out.total,
	       r->err.total);
	for (int s = 0; s < 2; s++) {
		const struct ctl_stream *st = s ? &r->err : &r->out;
		const char *p = st->keep;
		int lines = 0;

		while (*p && lines < 8) {
			const char *nl = strchr(p, '\n');
			int len = nl ? (int)(nl - p) : (int)strlen(p);

			printf("#   %s| ", s ? "err" : "out");
			for (int i = 0; i < len && i < 160; i++)
				putchar((unsigned char)p[i] < 0x20 ||
					(unsigned char)p[i] >= 0x7f ? '?' :
					p[i]);
			putchar('\n');
			lines++;
			p += len + (nl != NULL);
		}
	}
	fflush(stdout);
}

#endif /* ULSM_TESTS_CTL_RUN_H */
