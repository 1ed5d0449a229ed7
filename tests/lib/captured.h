/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/captured.h - standard error in a memory file for a while, so that
 * a line the library is expected to print is checked and shown as a TAP
 * comment instead of interrupting prove's output: capture_stderr(), then
 * restore_stderr() (which needs no new descriptor), then close_captured().
 */
#ifndef ULSM_TESTS_CAPTURED_H
#define ULSM_TESTS_CAPTURED_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct captured {
	int file;	/* what fd 2 wrote meanwhile */
	int saved;	/* the real stderr */
};

__attribute__((unused))
static int capture_stderr(struct captured *c)
{
	c->file = memfd_create("captured-stderr", MFD_CLOEXEC);
	c->saved = c->file < 0 ? -1 : fcntl(2, F_DUPFD_CLOEXEC, 0);
	fflush(stderr);
	if (c->saved < 0 || dup2(c->file, 2) < 0) {
		int err = -errno;

		if (c->file >= 0)
			close(c->file);
		if (c->saved >= 0)
			close(c->saved);
		return err;
	}
	return 0;
}

/* fd 2 back (dup2 needs no new descriptor); @buf gets what was written. */
__attribute__((unused))
static void restore_stderr(struct captured *c, char *buf, size_t size)
{
	ssize_t n;

	fflush(stderr);
	dup2(c->saved, 2);
	n = pread(c->file, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
}

__attribute__((unused))
static void close_captured(struct captured *c)
{
	close(c->file);
	close(c->saved);
}

/* Each line of @text as a TAP comment. */
__attribute__((unused))
static void diag_lines(const char *what, const char *text)
{
	for (const char *l = text, *e; *l; l = *e ? e + 1 : e) {
		e = strchrnul(l, '\n');
		printf("#   %s: %.*s\n", what, (int)(e - l), l);
	}
}

#endif /* ULSM_TESTS_CAPTURED_H */
