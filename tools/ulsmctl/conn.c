// SPDX-License-Identifier: MIT
/*
 * A connection to a program's endpoint (docs/control.md, "The
 * protocol"): lines and counted bytes over a unix socket, every wait
 * bounded by the connection's deadline.
 *
 * The socket is non-blocking and every wait is a poll that ends at the
 * deadline: a program that is stopped (SIGSTOP), that greets and says
 * nothing more, or that sends a byte a second cannot hold ulsmctl longer
 * than the deadline, which a timeout per read (SO_RCVTIMEO) could not
 * promise. While a recording runs, the poll also ends on the signals
 * that stop it (signals.c), atomically (ppoll), so that none is missed
 * between a check and the wait.
 *
 * Two levels: conn_fill(), conn_take_line() and conn_take() never wait
 * (list serves many connections at once with them); conn_line(),
 * conn_read() and conn_send() wait, until the deadline.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ulsmctl.h"

int conn_connect_once(struct conn *c, int dfd, const char *name,
		      long long deadline)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int e;

	/* Through the checked directory's descriptor, not its path. */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", dfd,
		 name);
	c->len = c->off = 0;
	c->deadline = deadline;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		return -errno;
	if (!connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return 0;
	e = errno;
	close(c->fd);
	c->fd = -1;
	return -e;
}

int conn_connect(struct conn *c, int dfd, const char *name,
		 long long deadline)
{
	for (;;) {
		int ret = conn_connect_once(c, dfd, name, deadline);

		/*
		 * A full backlog (a program that does not accept: stopped,
		 * or busy) is EAGAIN on a non-blocking unix socket: try
		 * again until the deadline.
		 */
		if (ret != -EAGAIN && ret != -EINTR)
			return ret;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		poll(NULL, 0, 20);
	}
}

void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

int conn_fill(struct conn *c)
{
	ssize_t n;

	if (c->off == c->len) {
		c->off = c->len = 0;
	} else if (c->len == sizeof(c->buf)) {
		memmove(c->buf, c->buf + c->off, c->len - c->off);
		c->len -= c->off;
		c->off = 0;
	}
	if (c->len == sizeof(c->buf))
		return -ENOBUFS;
	do
		n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	c->len += (size_t)n;
	return (int)n;
}

int conn_take_line(struct conn *c, char *line, size_t size)
{
	char *start = c->buf + c->off;
	char *nl = memchr(start, '\n', c->len - c->off);
	size_t n;

	if (!nl)
		return c->len - c->off >= size ? -EMSGSIZE : 0;
	n = (size_t)(nl - start);
	if (n >= size)
		return -EMSGSIZE;
	/* A NUL would hide the rest of the line from every check. */
	if (memchr(start, '\0', n))
		return -EPROTO;
	memcpy(line, start, n);
	line[n] = '\0';
	c->off += n + 1;
	return 1;
}

size_t conn_take(struct conn *c, size_t max, const char **p)
{
	size_t n = c->len - c->off;

	if (n > max)
		n = max;
	*p = c->buf + c->off;
	c->off += n;
	return n;
}

int fd_wait(int fd, short events, long long deadline, int acked)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		long long left = deadline - now_ms();
		struct timespec ts;
		int n;

		if (sig_stops() > acked)
			return -EINTR;
		if (left <= 0)
			return -ETIMEDOUT;
		ts.tv_sec = (time_t)(left / 1000);
		ts.tv_nsec = (long)(left % 1000) * 1000000L;
		n = ppoll(&p, 1, &ts, sig_wait_mask());
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

int conn_wait(int fd, short events, long long deadline)
{
	return fd_wait(fd, events, deadline, sig_acked);
}

int conn_line(struct conn *c, char *line, size_t size)
{
	for (;;) {
		int r = conn_take_line(c, line, size);

		if (r)
			return r < 0 ? r : 0;
		r = conn_wait(c->fd, POLLIN, c->deadline);
		if (r < 0)
			return r;
		r = conn_fill(c);
		if (r == 0)
			return -ECONNRESET;
		if (r < 0 && r != -EAGAIN)
			return r;
	}
}

int conn_read(struct conn *c, void *dst, size_t n)
{
	char *d = dst;

	while (n) {
		const char *p;
		size_t got = conn_take(c, n, &p);
		int r;

		memcpy(d, p, got);
		d += got;
		n -= got;
		if (!n)
			break;
		r = conn_wait(c->fd, POLLIN, c->deadline);
		if (r < 0)
			return r;
		r = conn_fill(c);
		if (r == 0)
			return -ECONNRESET;
		if (r < 0 && r != -EAGAIN)
			return r;
	}
	return 0;
}

int conn_send(struct conn *c, const char *s)
{
	size_t len = strlen(s), off = 0;

	while (off < len) {
		ssize_t n = send(c->fd, s + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int r = conn_wait(c->fd, POLLOUT, c->deadline);

			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}
