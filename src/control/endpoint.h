/* SPDX-License-Identifier: MIT */
/*
 * src/control/endpoint.h - the control endpoint's parts, shared between
 * its files (docs/control.md), one job each:
 *
 *   json.c      output buffers and JSON strings
 *   sockdir.c   the socket's directory and the socket: the first two
 *               guards (docs/control.md, "The security model")
 *   conn.c      connections: the peer check, reading lines, replies,
 *               sending, closing; the test seams
 *   commands.c  the requests: parsing and each verb
 *   render.c    what hello, show, switch and toggle reply (JSON)
 *   stream.c    a recording, streamed to its connection
 *   counts.c    the counts that ulsmctl top reads
 *   server.c    the thread, start and stop, fork
 *
 * Each uses only those above it in this list (the layer check holds
 * within a layer too): a connection hands each line to the function the
 * server gives it, and tells it when a recording's client closed its
 * side.
 *
 * Everything here runs in the endpoint's thread, but for start, stop and
 * the fork handler (server.c), which never run while it does, or run in
 * a child where it does not exist.
 */
#ifndef ULSM_SRC_CONTROL_ENDPOINT_H
#define ULSM_SRC_CONTROL_ENDPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "control/control.h"
#include "control/json.h"

#define CTL_PROTO_VERSION	1
#define CTL_LINE_BYTES		1024	/* a request, its newline included */
#define CTL_REPLY_MAX		(1 << 20)	/* a reply's JSON */
#define CTL_ERROR_MAX		512	/* an error line's message */
#define CTL_MAX_CONNS		64
#define CTL_TIMEOUT_MS		5000	/* ULSM_CONTROL_TIMEOUT_MS */
#define CTL_OUT_MAX		(64 << 20)	/* a connection's unsent bytes */
#define CTL_GLOB_MAX		256
/*
 * Descriptors the endpoint leaves the program: a connection whose
 * descriptor would leave fewer free below RLIMIT_NOFILE is refused.
 */
#define CTL_FD_SPARE		16

struct conn {
	int fd;			/* -1: a free slot */
	char in[CTL_LINE_BYTES];
	size_t inlen;
	struct buf out;
	size_t off;		/* of out, sent */
	uint64_t since;		/* last input, or output sent */
	bool close_after;	/* once out is sent */
	bool eof;		/* the client sends nothing more */
	bool recording;		/* stream.c's connection */
	bool stopping;		/* and its stream is ending */
	bool counting;		/* it holds the counts (counts.c) */
};

/* The endpoint's connections (conn.c). */
struct ctl_state {
	int timeout_ms;
	struct conn conns[CTL_MAX_CONNS];
};
extern struct ctl_state ctl;

/* --- conn.c ------------------------------------------------------------ */

/* Whether @c has bytes it has not sent. */
static inline bool conn_pending(const struct conn *c)
{
	return c->out.len != c->off;
}

/* What handles a request line (without its newline): the server's. */
typedef void conn_line_fn(struct conn *c, char *line);

/* conn_progress() and conn_read(): what the caller must do next. */
enum {
	CONN_OK = 0,
	CONN_CLOSE = -1,	/* the connection is done, or broken */
	CONN_EOF_RECORDING = 1,	/* its client closed its side mid-recording */
};

/* Accept every waiting connection: 0, or a negative errno (retry later). */
int conn_accept_all(int lfd);
/* Read what the client sent, then conn_progress(). */
int conn_read(struct conn *c, conn_line_fn *fn);
/*
 * Send what can be sent, and give @fn the lines read while nothing is
 * left to send (a recording's lines whatever is pending, but none while
 * its stream ends).
 */
int conn_progress(struct conn *c, conn_line_fn *fn);
/* Close @c (its recording, if any, dropped before). */
void conn_close(struct conn *c);
void conn_reply_ok(struct conn *c, const struct buf *json);
void conn_reply_error(struct conn *c, int err, const char *msg);
/* A recording's chunk: "@what <n>\n" and @b's bytes. */
void conn_chunk(struct conn *c, const char *what, const struct buf *b);

/* --- server.c ---------------------------------------------------------- */

/*
 * The thread's moves on a connection, shared with the fuzzing harness
 * (tests/fuzz/fuzz_control.c), which drives one as the thread does.
 */
/* Close @c, with its recording and its counts. */
void ctl_drop(struct conn *c);
/* What conn_progress() or conn_read() said: false when @c is gone. */
bool ctl_follow(struct conn *c, int r);

/* --- commands.c -------------------------------------------------------- */

/* One request line (without its newline). */
void ctl_request(struct conn *c, char *line);

/* --- render.c ---------------------------------------------------------- */

void render_hello(struct buf *b);
/* 0, or -EBUSY (the tracepoints are being changed). */
int render_show(struct buf *b);
void render_switch(struct buf *b, const struct ulsm_switch *sw);
struct ulsm_lsm_module_info;
void render_module(struct buf *b, const struct ulsm_lsm_module_info *m);

/* --- stream.c ---------------------------------------------------------- */

void rec_start(struct conn *c, const char *glob, const char *set);
/* The client asked to stop (or closed its side): send the rest, then end. */
void rec_stop(struct conn *c);
/* Read what is new in the rings into the recording's connection. */
void rec_pump(void);
/* How long the thread may wait before rec_pump() has work: ms, or -1. */
int rec_wait_ms(void);
/* @c goes away: detach, forget. */
void rec_drop(struct conn *c);
/*
 * In a child of fork(): detach what the recording attached (nobody can
 * read or end it there), then forget it, freeing nothing.
 */
void rec_forget(void **kept);

/* --- counts.c ---------------------------------------------------------- */

/* One more connection counting (the first attaches): 0 or -errno. */
int counts_hold(void);
/* One fewer (the last detaches). */
void counts_release(void);
/* In a child of fork(): detach the counting; no connection holds it. */
void counts_forget(void);
/* The counts now, as JSON (new hook sets counted from now): 0, -EBUSY. */
int render_counts(struct buf *b);

/* --- sockdir.c --------------------------------------------------------- */

/*
 * The socket directory, opened without following a link and checked
 * through its descriptor: 0 with *@fd and its path in @dir, or a
 * negative errno and a message.
 */
int ctl_open_dir(char *dir, size_t size, int *fd);
/* Bind and listen on @name in @dirfd (0600): the descriptor, or -errno. */
int ctl_bind_socket(int dirfd, const char *name, const char *dir);

#endif /* ULSM_SRC_CONTROL_ENDPOINT_H */
