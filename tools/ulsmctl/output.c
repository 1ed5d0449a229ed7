// SPDX-License-Identifier: MIT
/*
 * Where a recording goes (-o), written so that a failure damages nothing
 * (ulsmctl(1), "-o"):
 *
 * - A file is written under a temporary name in its directory
 *   (.NAME.ulsmctl-XXXXXX, mode 0600 until it is complete) and renamed
 *   over NAME when it is: a refused request, a program that cannot be
 *   reached or a failed conversion leaves NAME as it was, or absent.
 *   rename() replaces what is at NAME: a symbolic link itself (its
 *   target is untouched), a FIFO (use -o - to write into a pipe).
 * - A character device (/dev/null, a terminal) is written in place:
 *   replacing a device node is never what was meant.
 * - "-" is standard output, written as the recording comes.
 *
 * Every temporary is in a list that is emptied on every way out: exit()
 * (atexit), the backstop (signals.c) and any signal that ends ulsmctl
 * (its handler, with unlink() only: async-signal-safe). A temporary is
 * created and listed with every signal blocked, so that none is made
 * that the list does not hold.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ulsmctl.h"

#define TEMPS	4

static char temps[TEMPS][PATH_MAX];
static volatile sig_atomic_t listed[TEMPS];

void out_cleanup_now(void)
{
	for (int i = 0; i < TEMPS; i++)
		if (listed[i])
			unlink(temps[i]);
}

static void forget(const char *path)
{
	for (int i = 0; i < TEMPS; i++)
		if (listed[i] && !strcmp(temps[i], path))
			listed[i] = 0;
}

int out_temp(char *path, size_t size, const char *dirpath, const char *base)
{
	static bool registered;
	sigset_t all, old;
	int slot = -1, fd, e;

	for (int i = 0; i < TEMPS && slot < 0; i++)
		if (!listed[i])
			slot = i;
	if (slot < 0)
		return -EMFILE;
	/* A long name would not leave room for the suffix. */
	if (strlen(base) > 200)
		base = "recording";
	if ((size_t)snprintf(path, size, "%s/.%s.ulsmctl-XXXXXX", dirpath,
			     base) >= size)
		return -ENAMETOOLONG;
	if (!registered) {
		atexit(out_cleanup_now);
		registered = true;
	}
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	fd = mkostemp(path, O_CLOEXEC);
	e = errno;
	if (fd >= 0) {
		memcpy(temps[slot], path, strlen(path) + 1);
		listed[slot] = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return fd < 0 ? -e : fd;
}

void out_unlink(const char *path)
{
	unlink(path);
	forget(path);
}

void out_open(struct output *o, const char *path)
{
	char d[PATH_MAX], b[PATH_MAX];
	struct stat st;

	*o = (struct output){ .path = path, .fd = -1 };
	if (!strcmp(path, "-")) {
		o->fd = 1;
		o->in_place = true;
		o->pollable = !fstat(1, &st) && !S_ISREG(st.st_mode);
		return;
	}
	if (!lstat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			die("-o %s: a directory", path);
		if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))
			die("-o %s: a block device or a socket: refused",
			    path);
		if (S_ISCHR(st.st_mode)) {
			o->fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
			if (o->fd < 0)
				die("-o %s: %s", path, strerror(errno));
			o->in_place = true;
			o->pollable = true;
			return;
		}
	} else if (errno != ENOENT) {
		die("-o %s: %s", path, strerror(errno));
	}
	snprintf(d, sizeof(d), "%s", path);
	snprintf(b, sizeof(b), "%s", path);
	o->fd = out_temp(o->tmp, sizeof(o->tmp), dirname(d), basename(b));
	if (o->fd < 0)
		die("-o %s: cannot create a file next to it: %s", path,
		    strerror(-o->fd));
}

int out_write(struct output *o, const void *p, size_t n, long long deadline)
{
	const char *s = p;
	int acked = sig_acked;
	bool signalled = false;

	while (n) {
		/* A pipe takes a page without blocking once poll says so. */
		size_t take = o->pollable && n > 4096 ? 4096 : n;
		ssize_t w;

		if (o->pollable) {
			int r = fd_wait(o->fd, POLLOUT, deadline, acked);

			if (r == -EINTR && !signalled) {
				/*
				 * A stop signal: what is in hand still goes
				 * out, for END_WAIT_MS at most; another
				 * signal gives up.
				 */
				signalled = true;
				acked = sig_stops();
				if (deadline > now_ms() + END_WAIT_MS)
					deadline = now_ms() + END_WAIT_MS;
				continue;
			}
			if (r < 0)
				return r;
		}
		w = write(o->fd, s, take);
		if (w < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int out_commit(struct output *o)
{
	mode_t mask = umask(0);

	umask(mask);
	if (o->in_place) {
		if (o->fd != 1 && close(o->fd))
			return -errno;
		o->fd = -1;
		return 0;
	}
	/* The mode a new file would have had. */
	if (fchmod(o->fd, 0666 & ~mask) || close(o->fd)) {
		int e = -errno;

		o->fd = -1;
		out_unlink(o->tmp);
		return e;
	}
	o->fd = -1;
	if (rename(o->tmp, o->path)) {
		int e = -errno;

		out_unlink(o->tmp);
		return e;
	}
	forget(o->tmp);
	return 0;
}

void out_discard(struct output *o)
{
	if (o->fd >= 0 && o->fd != 1)
		close(o->fd);
	o->fd = -1;
	if (!o->in_place && o->tmp[0])
		out_unlink(o->tmp);
}
