/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/child.h - a check run in a child process of the test. A case
 * that may crash, hang, or change the process for good (a hook set is
 * initialised once per process; the recorder reads its settings once)
 * runs in a fork of its own, and the test goes on in the parent.
 *
 * One helper does the fork, the pipe and the wait, for every test:
 *
 *	in_child(what, fn, arg, buf, size)	fn(arg) in a child; what it
 *		writes to child_out comes back in buf (a struct of results,
 *		or the child's standard error after dup2(child_fd(), 2))
 *	in_child_tap(what, fn, arg)	the same, and each child_ok() of the
 *		child is a TAP line of the parent, child_note() a comment
 *
 * A child that is killed by a signal is said in a TAP comment naming
 * @what; the caller judges its exit status (child_status), and
 * in_child_tap() fails a test for any status but 0.
 *
 * Also here, for tests that fork by themselves (a child that must do one
 * thing at a precise moment): check(), a failed check printed as one
 * "#   FAIL:" line with the library's last error and counted in
 * @failures, which the child's exit status reports to the parent.
 */
#ifndef ULSM_TESTS_CHILD_H
#define ULSM_TESTS_CHILD_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/ulsm.h>

#include "tap.h"

static int failures __attribute__((unused));	/* unused where no case runs */

#define check(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			failures++;					\
			printf("#   FAIL: ");				\
			printf(__VA_ARGS__);				\
			printf(" (%s)\n", ulsm_last_error());		\
			fflush(stdout);					\
		}							\
	} while (0)

/* In the child: the stream to the parent. */
static FILE *child_out __attribute__((unused));
/* In the parent: the wait status of the last child. */
static int child_status __attribute__((unused));

__attribute__((unused))
static int child_fd(void)
{
	return fileno(child_out);
}

/* In the child: @size bytes of @data to the parent. */
__attribute__((unused))
static void child_send(const void *data, size_t size)
{
	if (fwrite(data, 1, size, child_out) != size)
		_exit(2);
	fflush(child_out);
}

/*
 * in_child - run @fn(@arg) in a child of fork()
 * @what: the case, named in the comment that says how a child ended
 * @fn, @arg: what the child runs; it exits 0 when @fn returns
 * @buf, @size: what the child wrote to child_out (more is read and
 *	dropped); NUL-terminated when the child sent fewer than @size bytes
 *
 * The parent's buffered output is flushed first, so that no line is
 * printed twice. child_status holds the child's wait status after.
 *
 * Return: how many bytes of @buf the child filled (0 when it died before
 * it sent anything), or -1 when no child could be made.
 */
__attribute__((unused))
static ssize_t in_child(const char *what, void (*fn)(void *arg), void *arg,
			void *buf, size_t size)
{
	char *p = buf, drop[4096];
	size_t n = 0;
	ssize_t got;
	int fd[2];
	pid_t pid;

	fflush(NULL);
	if (pipe(fd)) {
		diag("%s: pipe: %s", what, strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		diag("%s: fork: %s", what, strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		child_out = fdopen(fd[1], "w");
		if (!child_out)
			_exit(2);
		fn(arg);
		fflush(NULL);
		_exit(0);
	}
	close(fd[1]);
	for (;;) {
		bool room = n < size;

		got = read(fd[0], room ? p + n : drop,
			   room ? size - n : sizeof(drop));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (room)
			n += (size_t)got;
	}
	close(fd[0]);
	if (n < size)
		p[n] = '\0';
	while (waitpid(pid, &child_status, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(child_status))
		diag("%s: the child was killed by signal %d (%s)", what,
		     WTERMSIG(child_status), strsignal(WTERMSIG(child_status)));
	return (ssize_t)n;
}

/* In a child of in_child_tap(): one check, a TAP line of the parent. */
__attribute__((format(printf, 2, 3), unused))
static bool child_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	fputc(cond ? '1' : '0', child_out);
	va_start(ap, fmt);
	vfprintf(child_out, fmt, ap);
	va_end(ap);
	fputc('\n', child_out);
	fflush(child_out);
	return cond;
}

/* In a child of in_child_tap(): a TAP comment of the parent. */
__attribute__((format(printf, 1, 2), unused))
static void child_note(const char *fmt, ...)
{
	va_list ap;

	fputc('#', child_out);
	va_start(ap, fmt);
	vfprintf(child_out, fmt, ap);
	va_end(ap);
	fputc('\n', child_out);
	fflush(child_out);
}

/*
 * in_child_tap - run @fn(@arg) in a child whose checks are the parent's
 * @what: the prefix of each of its checks' names
 *
 * Each child_ok() becomes "ok N - @what: name" (or "not ok"), each
 * child_note() a comment; a child that ends otherwise than with status
 * 0, or makes no check, is one failed check more.
 *
 * Return: true when every check passed and the child ended well.
 */
__attribute__((unused))
static bool in_child_tap(const char *what, void (*fn)(void *arg), void *arg)
{
	static char out[1 << 18];
	int checks = 0, failed = 0;
	ssize_t n = in_child(what, fn, arg, out, sizeof(out));

	if (n == (ssize_t)sizeof(out)) {
		out[sizeof(out) - 1] = '\0';
		ok(0, "%s: the child's report fits in %zu bytes", what,
		   sizeof(out));
	}
	for (char *l = out, *e; n > 0 && *l; l = e + (*e != '\0')) {
		e = strchrnul(l, '\n');
		if (*l == '#') {
			diag("%s: %.*s", what, (int)(e - l - 1), l + 1);
			continue;
		}
		failed += !ok(*l == '1', "%s: %.*s", what, (int)(e - l - 1),
			      l + 1);
		checks++;
	}
	if (n < 0 || !WIFEXITED(child_status) ||
	    WEXITSTATUS(child_status) || !checks) {
		ok(0, "%s: the child ended with status 0x%x after %d checks",
		   what, child_status, checks);
		failed++;
	}
	return !failed;
}

#endif /* ULSM_TESTS_CHILD_H */
