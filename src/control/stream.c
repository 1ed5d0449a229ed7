// SPDX-License-Identifier: MIT
/*
 * A recording streamed to its connection (docs/control.md, "A
 * recording"): the recorder attached to a glob, then chunks of the
 * recorder's file format read from the rings as the client takes them,
 * then, after stop, the rest and the end chunk.
 *
 * The rings are read only while the connection has less than REC_HIGH
 * bytes unsent: a client that reads slowly makes the rings overwrite
 * their oldest events (counted as lost in the recording), never the
 * program wait or the connection's buffer grow. That holds after stop
 * too: the rest of the rings, however large, is read as the client
 * takes it, and the end chunk is the last piece read.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "control/endpoint.h"
#include "trace/trace.h"

#define REC_CHUNK	65536		/* one read of the stream */
#define REC_HIGH	(256 * 1024)	/* unsent bytes before it stops reading */
#define REC_POLL_MS	50		/* how often the rings are read */

static struct {
	struct conn *c;			/* NULL: no recording */
	struct ulsm_trace_stream *stream;
	char glob[CTL_GLOB_MAX + 1];
	bool attached;			/* this recording enabled the glob */
	bool stopping;			/* after stop: the final reads */
	struct buf held;		/* the last piece read after stop */
} rec;

static void to_buf(void *arg, const void *bytes, size_t n)
{
	buf_add(arg, bytes, n);
}

static void count_tp(void *arg, const struct ulsm_trace_info *i)
{
	int *matched = arg;

	*matched += !fnmatch(rec.glob, i->name, 0);
}

void rec_start(struct conn *c, const char *glob)
{
	struct buf j = { .max = CTL_REPLY_MAX };
	int ret, matched = 0;

	if (rec.c) {
		conn_reply_error(c, -EBUSY, "a recording is in progress (one "
				 "at a time)");
		return;
	}
	if (strlen(glob) > CTL_GLOB_MAX) {
		conn_reply_error(c, -EINVAL, "the glob is longer than 256 "
				 "bytes");
		return;
	}
	ulsm_clear_error();
	ret = ulsm_trace_stream_open(&rec.stream);
	if (ret) {
		conn_reply_error(c, ret, ulsm_last_error());
		return;
	}
	ulsm_clear_error();
	ret = ulsm_trace_enable(glob);	/* how many it matched, or -errno */
	if (ret < 0 && ret != -EEXIST) {
		ulsm_trace_stream_close(rec.stream);
		rec.stream = NULL;
		conn_reply_error(c, ret, ulsm_last_error());
		return;
	}
	rec.attached = ret >= 0;
	snprintf(rec.glob, sizeof(rec.glob), "%s", glob);
	rec.c = c;
	rec.stopping = false;
	c->recording = true;
	ulsm_trace_each(count_tp, &matched, 1000);
	buf_add(&j, "{\"glob\":", 8);
	buf_json(&j, glob);
	buf_printf(&j, ",\"matched\":%d,\"attached\":%s}\n", matched,
		   rec.attached ? "true" : "false");
	conn_reply_ok(c, &j);
	buf_free(&j);
}

static void detach(void)
{
	if (rec.attached)
		ulsm_trace_disable(rec.glob);
	rec.attached = false;
}

/* The recording is over: its connection serves requests again. */
static void finish(void)
{
	ulsm_trace_stream_close(rec.stream);
	buf_free(&rec.held);
	rec.c->recording = false;
	rec.c->stopping = false;
	rec.c = NULL;
	rec.stream = NULL;
	rec.stopping = false;
}

void rec_stop(struct conn *c)
{
	if (rec.c != c || rec.stopping)
		return;
	detach();
	rec.stopping = true;
	c->stopping = true;
	rec.held = (struct buf){ .max = 2 * REC_CHUNK };
}

/*
 * One read of the rings into @b: its bytes, 0 when nothing is new (after
 * stop: nothing is left), or a negative errno.
 */
static long read_piece(struct buf *b)
{
	long n = ulsm_trace_stream_read(rec.stream, to_buf, b, REC_CHUNK,
					rec.stopping);

	if (n > 0 && b->over)
		n = ulsm_error(-ENOMEM, "control: no memory for a piece of "
			       "the recording");
	return n;
}

void rec_pump(void)
{
	struct conn *c = rec.c;

	while (c && c->out.len - c->off <= REC_HIGH && !c->close_after) {
		struct buf b = { .max = 2 * REC_CHUNK };
		long n = read_piece(&b);

		if (n < 0) {
			/* The stream ends with an error line. */
			buf_free(&b);
			detach();
			conn_reply_error(c, (int)n, ulsm_last_error());
			finish();
			return;
		}
		if (!rec.stopping) {
			if (n > 0)
				conn_chunk(c, "data", &b);
			buf_free(&b);
			if (!n)
				return;
			continue;
		}
		/* After stop, the last piece read goes in the end chunk. */
		if (!n) {
			buf_free(&b);
			conn_chunk(c, "end", &rec.held);
			finish();
			return;
		}
		if (rec.held.len)
			conn_chunk(c, "data", &rec.held);
		buf_free(&rec.held);
		rec.held = b;
	}
}

int rec_wait_ms(void)
{
	if (!rec.c)
		return -1;
	if (rec.stopping && rec.c->out.len - rec.c->off <= REC_HIGH)
		return 0;
	return REC_POLL_MS;
}

void rec_drop(struct conn *c)
{
	if (rec.c != c)
		return;
	detach();
	finish();
}

void rec_forget(void **kept)
{
	/* The recorder forgets the stream in a child (recorder.c). */
	*kept = rec.held.p;
	rec = (typeof(rec)){ .c = NULL };
}
