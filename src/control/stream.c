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
#include "base/hook_sets.h"
#include "trace/trace.h"

#define REC_CHUNK	65536		/* one read of the stream */
#define REC_HIGH	(256 * 1024)	/* unsent bytes before it stops reading */
#define REC_POLL_MS	50		/* how often the rings are read */

static struct {
	struct conn *c;			/* NULL: no recording */
	struct ulsm_trace_stream *stream;
	char glob[CTL_GLOB_MAX + 1];	/* "": none ("-") */
	bool attached;			/* this recording enabled the glob */
	struct ulsm_hook_set *set;	/* a hook set traced for it, or NULL */
	char hooks[CTL_GLOB_MAX + 16];	/* lsm_hook_<set>, the set's tracepoint */
	bool hooks_attached;		/* this recording enabled that */
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

static void detach(void)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();

	if (rec.attached)
		ulsm_trace_disable(rec.glob);
	if (rec.hooks_attached)
		ulsm_trace_disable(rec.hooks);
	/* A failure leaves the set traced: the next sync tries again. */
	if (rec.set && ops && ops->trace(rec.set, false))
		ulsm_clear_error();
	rec.attached = rec.hooks_attached = false;
	rec.set = NULL;
}

/*
 * The recorder on @glob ("-": none) and, with @set, on that hook set's
 * dispatch (traced, and its tracepoint recorded): 0, or a negative errno
 * with nothing left attached.
 */
static int attach(const char *glob, const char *set)
{
	struct ulsm_hook_set *hs;
	int ret;

	rec.glob[0] = '\0';
	if (strcmp(glob, "-")) {
		ulsm_clear_error();
		ret = ulsm_trace_enable(glob);	/* how many, or -errno */
		if (ret < 0 && ret != -EEXIST)
			return ret;
		rec.attached = ret >= 0;
		snprintf(rec.glob, sizeof(rec.glob), "%s", glob);
	}
	if (!set)
		return 0;
	hs = ulsm_lsm_set_named(set);
	if (!hs) {
		detach();
		return ulsm_error(-ENOENT, "no initialised hook set %s", set);
	}
	ulsm_clear_error();
	ret = ulsm_lsm_ops()->trace(hs, true);
	if (ret) {
		detach();
		return ret;
	}
	rec.set = hs;
	snprintf(rec.hooks, sizeof(rec.hooks), "lsm_hook_%s", set);
	ret = ulsm_trace_enable(rec.hooks);
	if (ret < 0 && ret != -EEXIST) {
		detach();
		return ret;
	}
	rec.hooks_attached = ret >= 0;
	return 0;
}

void rec_start(struct conn *c, const char *glob, const char *set)
{
	struct buf j = { .max = CTL_REPLY_MAX };
	int ret, matched = 0;

	if (rec.c) {
		conn_reply_error(c, -EBUSY, "a recording is in progress (one "
				 "at a time)");
		return;
	}
	if (strlen(glob) > CTL_GLOB_MAX || (set && strlen(set) > CTL_GLOB_MAX)) {
		conn_reply_error(c, -EINVAL, "the glob or the set's name is "
				 "longer than 256 bytes");
		return;
	}
	if (!strcmp(glob, "-") && !set) {
		conn_reply_error(c, -EINVAL, "record -: nothing to record "
				 "(record GLOB [SET])");
		return;
	}
	ulsm_clear_error();
	ret = ulsm_trace_stream_open(&rec.stream);
	if (ret) {
		conn_reply_error(c, ret, ulsm_last_error());
		return;
	}
	ret = attach(glob, set);
	if (ret) {
		ulsm_trace_stream_close(rec.stream);
		rec.stream = NULL;
		conn_reply_error(c, ret, ulsm_last_error());
		return;
	}
	rec.c = c;
	rec.stopping = false;
	c->recording = true;
	if (rec.glob[0])
		ulsm_trace_each(count_tp, &matched, 1000);
	buf_add(&j, "{\"glob\":", 8);
	buf_json(&j, glob);
	buf_printf(&j, ",\"matched\":%d,\"attached\":%s,\"hooks\":", matched,
		   rec.attached ? "true" : "false");
	buf_json(&j, set);
	buf_add(&j, "}\n", 2);
	conn_reply_ok(c, &j);
	buf_free(&j);
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
	/*
	 * The recorder forgot the stream already (recording.c, an earlier
	 * handler); the glob, the set's tracing and its tracepoint would
	 * record into the child's rings for good.
	 */
	if (rec.c)
		detach();
	*kept = rec.held.p;
	rec = (typeof(rec)){ .c = NULL };
}
