// SPDX-License-Identifier: MIT
/*
 * The control endpoint's connections: the third guard (the peer's
 * SO_PEERCRED, read before any of its bytes), then lines in and replies
 * out, each bounded, without blocking.
 *
 * A connection is moved on as far as it can go each time the thread
 * looks at it (conn_progress): what is pending is sent, then the lines
 * already read are handled one by one while nothing is left to send, so
 * that requests a client sends in one write are all answered, in order,
 * however the replies are cut by the socket.
 *
 * A child of fork() may find a connection at any point of this code (the
 * thread ran while another forked). So a descriptor is forgotten before
 * it is closed, and a buffer before it is freed: the child's handler
 * (server.c) then never closes a descriptor the program may have
 * reused, and never frees a buffer twice.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "control/endpoint.h"

struct ctl_state ctl;

/* Test seams (control.h). */
void (*ulsm_control_test_point)(enum ulsm_control_point point);
size_t ulsm_control_out_max = CTL_OUT_MAX;

void ulsm_control_test(enum ulsm_control_point point)
{
	/*
	 * Pairs with the release stores of the test point in
	 * tests/control/t_control_door.c: the hook sees the test's state set
	 * before it.
	 */
	void (*fn)(enum ulsm_control_point) =
		__atomic_load_n(&ulsm_control_test_point, __ATOMIC_ACQUIRE);

	if (fn)
		fn(point);
}

/* Send what can be sent now; -1 when the connection is gone or done. */
static int conn_flush(struct conn *c)
{
	while (conn_pending(c)) {
		ssize_t n = ulsm_sys_send(c->fd, c->out.p + c->off,
					  c->out.len - c->off,
					  MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n == -EINTR)
			continue;
		if (n == -EAGAIN || n == -EWOULDBLOCK)
			break;
		if (n <= 0)
			return -1;
		c->off += (size_t)n;
		c->since = ulsm_now_ms();
	}
	if (conn_pending(c)) {
		/*
		 * Part of it sent: the rest to the front, so that the bound
		 * (out.max) holds what is unsent, not what was ever sent.
		 */
		if (c->off >= 65536) {
			memmove(c->out.p, c->out.p + c->off,
				c->out.len - c->off);
			c->out.len -= c->off;
			c->off = 0;
		}
		return 0;
	}
	if (c->out.p) {
		char *p = c->out.p;

		/* Forgotten, then freed (a child of fork; above). */
		__atomic_store_n(&c->out.p, NULL, __ATOMIC_RELAXED);
		/*
		 * Pairs with fork_child() (src/control/server.c), through
		 * another thread's fork(): a compiler barrier, so the buffer is
		 * forgotten before it is freed.
		 */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		ulsm_free(p);
		ulsm_control_test(ULSM_CTL_OUT_FREED);
		c->out = (struct buf){ .max = c->out.max };
	}
	c->off = 0;
	return c->close_after ? -1 : 0;
}

void conn_reply_error(struct conn *c, int err, const char *msg)
{
	char line[CTL_ERROR_MAX + 1];
	size_t i;

	if (!msg || !*msg)
		msg = strerror(-err);
	/* One line: no control characters, at most CTL_ERROR_MAX bytes. */
	for (i = 0; msg[i] && i < CTL_ERROR_MAX; i++)
		line[i] = (unsigned char)msg[i] < 0x20 ||
			  (unsigned char)msg[i] == 0x7f ? ' ' : msg[i];
	line[i] = '\0';
	buf_printf(&c->out, "error %d ", err);
	buf_add(&c->out, line, i);
	buf_add(&c->out, "\n", 1);
}

void conn_reply_ok(struct conn *c, const struct buf *json)
{
	if (json && json->over) {
		conn_reply_error(c, -EFBIG, "the reply is larger than 1 MiB, "
				 "or there was no memory for it");
		return;
	}
	buf_printf(&c->out, "ok %zu\n", json ? json->len : 0);
	if (json)
		buf_add(&c->out, json->p, json->len);
}

void conn_chunk(struct conn *c, const char *what, const struct buf *b)
{
	buf_printf(&c->out, "%s %zu\n", what, b->len);
	buf_add(&c->out, b->p, b->len);
}

/*
 * Handle the next whole line read: false when there is none (or the
 * line buffer is full of a line too long, which closes the connection).
 */
static bool conn_line(struct conn *c, conn_line_fn *fn)
{
	char *nl = memchr(c->in, '\n', c->inlen);
	size_t used;

	if (!nl) {
		if (c->inlen == sizeof(c->in)) {
			conn_reply_error(c, -EINVAL, "a request line is at "
					 "most 1024 bytes");
			c->close_after = true;
			c->inlen = 0;
		}
		return false;
	}
	*nl = '\0';
	used = (size_t)(nl - c->in) + 1;
	if (memchr(c->in, '\0', used - 1))
		conn_reply_error(c, -EINVAL, "a NUL byte in a request");
	else
		fn(c, c->in);
	memmove(c->in, c->in + used, c->inlen - used);
	c->inlen -= used;
	return true;
}

int conn_progress(struct conn *c, conn_line_fn *fn)
{
	for (;;) {
		/*
		 * Bytes that did not fit (no memory): what follows would be
		 * a stream with a hole, so the connection ends here.
		 */
		if (c->fd < 0 || c->out.over || conn_flush(c))
			return CONN_CLOSE;
		if (c->close_after)
			return CONN_OK;	/* closed once what is left is sent */
		/* A recording's lines wait until its stream has ended. */
		if (c->recording && c->stopping)
			return CONN_OK;
		if (conn_pending(c) && !c->recording)
			return CONN_OK;
		if (!fn || !conn_line(c, fn))
			break;
	}
	/* The client sends nothing more: the stream ends, then the rest. */
	if (c->eof && c->recording)
		return CONN_EOF_RECORDING;
	return c->eof && !conn_pending(c) ? CONN_CLOSE : CONN_OK;
}

int conn_read(struct conn *c, conn_line_fn *fn)
{
	while (!c->eof && c->inlen < sizeof(c->in)) {
		ssize_t n = ulsm_sys_recv(c->fd, c->in + c->inlen,
					  sizeof(c->in) - c->inlen,
					  MSG_DONTWAIT);

		if (n == -EINTR)
			continue;
		if (n == -EAGAIN || n == -EWOULDBLOCK)
			break;
		if (n < 0)
			return CONN_CLOSE;
		c->since = ulsm_now_ms();
		if (!n) {
			c->eof = true;
			break;
		}
		c->inlen += (size_t)n;
	}
	return conn_progress(c, fn);
}

void conn_close(struct conn *c)
{
	int fd = c->fd;

	if (fd < 0)
		return;
	/* Forgotten, then closed (a child of fork; above). */
	__atomic_store_n(&c->fd, -1, __ATOMIC_RELAXED);
	/*
	 * Pairs with fork_child() (src/control/server.c), through another
	 * thread's fork(): a compiler barrier, so the descriptor is forgotten
	 * before close().
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ulsm_sys_close(fd);
	buf_free(&c->out);
	*c = (struct conn){ .fd = -1, .out.max = ulsm_control_out_max };
}

/* A refusal before the greeting: one line, whatever of it fits. */
static void refuse(int fd, const char *line)
{
	ssize_t n = ulsm_sys_send(fd, line, strlen(line),
				  MSG_NOSIGNAL | MSG_DONTWAIT);

	(void)n;
	ulsm_sys_close(fd);
}

/*
 * Whether descriptor @fd leaves the program fewer than CTL_FD_SPARE
 * free: a new descriptor is the lowest free one, so all below it are
 * taken.
 */
static bool fd_short(int fd)
{
	struct rlimit rl;

	return !getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	       (rlim_t)fd + CTL_FD_SPARE >= rl.rlim_cur;
}

/* Check the peer of @fd, give it a slot and greet it. */
static void conn_open(int fd)
{
	struct ucred cr;
	unsigned int len = sizeof(cr);
	struct conn *c = NULL;

	if (ulsm_sys_getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len)) {
		ulsm_sys_close(fd);
		return;
	}
	if (cr.uid != geteuid() && cr.uid != 0) {
		ulsm_report("control: refused a connection from uid %u, pid %d",
			    (unsigned int)cr.uid, (int)cr.pid);
		refuse(fd, "error -13 permission denied: not this process's "
		       "user\n");
		return;
	}
	if (fd_short(fd)) {
		refuse(fd, "error -24 the program is short of descriptors\n");
		return;
	}
	for (int i = 0; i < CTL_MAX_CONNS && !c; i++)
		if (ctl.conns[i].fd < 0)
			c = &ctl.conns[i];
	if (!c) {
		refuse(fd, "error -16 busy\n");
		return;
	}
	*c = (struct conn){ .fd = fd, .out.max = ulsm_control_out_max,
			    .since = ulsm_now_ms() };
	buf_printf(&c->out, "ulsm-control %d %d\n", CTL_PROTO_VERSION,
		   (int)getpid());
	if (conn_progress(c, NULL))
		conn_close(c);
}

int conn_accept_all(int lfd)
{
	for (;;) {
		int fd = ulsm_sys_accept(lfd, SOCK_NONBLOCK);

		if (fd == -EINTR || fd == -ECONNABORTED)
			continue;
		if (fd == -EAGAIN || fd == -EWOULDBLOCK)
			return 0;
		if (fd < 0)
			return fd;	/* out of descriptors, or memory */
		conn_open(fd);
	}
}
