// SPDX-License-Identifier: MIT
/*
 * A connection to a program's endpoint: its greeting, lines, counted
 * bytes, and a request's reply (docs/control.md, "The protocol").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ulsmctl.h"

/* Connect to @name in @dfd, waiting at most @ms; -errno on failure. */
int conn_open(struct conn *c, int dfd, const char *name, int ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", dfd,
		 name);
	c->len = c->off = 0;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(c->fd);
		return -e;
	}
	return 0;
}

/* Fill the buffer: bytes read, 0 at the end, -errno. */
static ssize_t fill(struct conn *c)
{
	ssize_t n;

	if (c->off == c->len)
		c->off = c->len = 0;
	if (c->len == sizeof(c->buf)) {
		memmove(c->buf, c->buf + c->off, c->len - c->off);
		c->len -= c->off;
		c->off = 0;
	}
	do
		n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	c->len += (size_t)n;
	return n;
}

/* One line, without its newline, into @line (@size bytes): 0 or -errno. */
int read_line(struct conn *c, char *line, size_t size)
{
	for (;;) {
		char *nl = memchr(c->buf + c->off, '\n', c->len - c->off);

		if (nl) {
			size_t n = (size_t)(nl - (c->buf + c->off));

			if (n >= size)
				return -EMSGSIZE;
			memcpy(line, c->buf + c->off, n);
			line[n] = '\0';
			c->off += n + 1;
			return 0;
		}
		if (c->len - c->off >= size)
			return -EMSGSIZE;
		ssize_t r = fill(c);

		if (r <= 0)
			return r ? (int)r : -ECONNRESET;
	}
}

/* Exactly @n bytes, to @out (a FILE) or into @mem: 0 or -errno. */
int read_bytes(struct conn *c, size_t n, FILE *out, char *mem)
{
	while (n) {
		size_t have = c->len - c->off, take;

		if (!have) {
			ssize_t r = fill(c);

			if (r <= 0)
				return r ? (int)r : -ECONNRESET;
			continue;
		}
		take = have < n ? have : n;
		if (out && fwrite(c->buf + c->off, 1, take, out) != take)
			return -EIO;
		if (mem) {
			memcpy(mem, c->buf + c->off, take);
			mem += take;
		}
		c->off += take;
		n -= take;
	}
	return 0;
}

int send_line(struct conn *c, const char *line)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t n = send(c->fd, line + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

/*
 * The reply to a request: its payload (malloc'd, NUL-terminated) or, for
 * an error line, the program's message on stderr and exit status 1.
 */
char *reply(struct conn *c, const char *what)
{
	char line[1024], *p, *end;
	unsigned long n;
	int ret = read_line(c, line, sizeof(line));

	if (ret)
		die("%s: no reply: %s", what, strerror(-ret));
	if (!strncmp(line, "error ", 6)) {
		long e = strtol(line + 6, &end, 10);

		die("%s: %s (%s)", what, *end == ' ' ? end + 1 : line,
		    strerror((int)-e));
	}
	if (strncmp(line, "ok ", 3))
		die("%s: unexpected reply \"%.80s\"", what, line);
	n = strtoul(line + 3, &end, 10);
	if (*end || n > REPLY_MAX)
		die("%s: bad reply \"%.80s\"", what, line);
	p = malloc(n + 1);
	if (!p)
		die("out of memory");
	ret = read_bytes(c, n, NULL, p);
	if (ret)
		die("%s: reply cut: %s", what, strerror(-ret));
	p[n] = '\0';
	return p;
}

/* Connect to the program @pid and read its greeting. */
void connect_pid(struct conn *c, const char *pid, int ms)
{
	char name[64], line[256];
	int dfd = open_dir(), ret;
	char *end;

	if (strtol(pid, &end, 10) <= 0 || *end)
		die("-p %s: not a process id", pid);
	if (dfd < 0)
		die("%s does not exist: no program runs its control endpoint",
		    dir);
	snprintf(name, sizeof(name), "ulsm.%s.sock", pid);
	ret = conn_open(c, dfd, name, ms);
	close(dfd);
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		die("process %s: no control endpoint (%s/%s: %s; is it "
		    "running with ULSM_CONTROL=1?)", pid, dir, name,
		    strerror(-ret));
	if (ret)
		die("process %s: %s/%s: %s", pid, dir, name, strerror(-ret));
	ret = read_line(c, line, sizeof(line));
	if (ret)
		die("process %s: no greeting: %s", pid, strerror(-ret));
	if (!strncmp(line, "error ", 6))
		die("process %s refused: %s", pid, line + 6);
	if (strncmp(line, "ulsm-control 1 ", 15))
		die("process %s: not a ulsm control endpoint (\"%.80s\")", pid,
		    line);
}
