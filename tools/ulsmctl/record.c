// SPDX-License-Identifier: MIT
/*
 * ulsmctl record: the program's recorder attached to a glob, and the
 * stream of its chunks (docs/control.md, "A recording") written out
 * until the duration has passed or a stop signal came; then stop, and
 * the end chunk.
 *
 * Every phase has its deadline, whatever the program does: the request
 * and its reply, --timeout; the stream, -d (none without it: it lasts
 * until a signal); after stop, END_WAIT_MS for the end. A second stop
 * signal, or that deadline, stops the waiting: what was received is
 * kept, and the exit status (EXIT_PARTIAL) says that the recording was
 * cut. A program that is stopped, that answers ok and then nothing, or
 * that streams without end after stop, cannot hold ulsmctl longer.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ulsmctl.h"
#include "json.h"

/* A recording's stream, read as it comes. */
struct stream {
	struct conn c;
	struct output *out;		/* where its bytes go */
	long long out_deadline;		/* for a write into a pipe */
	unsigned long long bytes;
	size_t body;			/* bytes of this chunk still to come */
	bool last;			/* this chunk is the end chunk */
	bool ended;			/* the end chunk came, whole */
	bool out_failed;		/* the bytes could not be written */
	char why[700];			/* why it ended without the end */
};

/*
 * What the buffer holds, taken: chunk headers parsed, their bytes
 * written out. 1: the stream is over (s->ended, or s->why says why);
 * 0: more is needed.
 */
static int take(struct stream *s)
{
	char line[1100], msg[600];

	for (;;) {
		if (s->body) {
			const char *p;
			size_t n = conn_take(&s->c, s->body, &p);
			int ret;

			if (!n)
				return 0;
			ret = out_write(s->out, p, n, s->out_deadline);
			if (ret) {
				s->out_failed = true;
				snprintf(s->why, sizeof(s->why), "%s: %s",
					 s->out->path, ret == -ETIMEDOUT ?
					 "nobody reads it" : ret == -EINTR ?
					 "interrupted" : strerror(-ret));
				return 1;
			}
			s->body -= n;
			s->bytes += n;
			continue;
		}
		if (s->last) {
			s->ended = true;
			return 1;
		}
		int r = conn_take_line(&s->c, line, sizeof(line));

		if (!r)
			return 0;
		if (r < 0) {
			snprintf(s->why, sizeof(s->why), "a line that does "
				 "not follow the protocol");
			return 1;
		}
		if (!strncmp(line, "data ", 5) || !strncmp(line, "end ", 4)) {
			const char *num = strchr(line, ' ') + 1;
			char *end;
			unsigned long n;

			errno = 0;
			n = strtoul(num, &end, 10);
			if (*num < '0' || *num > '9' || *end || errno ||
			    n > CHUNK_MAX) {
				snprintf(s->why, sizeof(s->why), "a bad chunk "
					 "(\"%s\")", esc_str(msg, 100, line,
							     strlen(line)));
				return 1;
			}
			s->body = n;
			s->last = line[0] == 'e';
		} else if (!strncmp(line, "error ", 6)) {
			/* A failed read of the rings ends the stream. */
			snprintf(s->why, sizeof(s->why), "the program ended "
				 "the stream: %s", esc_str(msg, sizeof(msg),
				 line + 6, strlen(line + 6)));
			return 1;
		} else {
			snprintf(s->why, sizeof(s->why), "unexpected \"%s\"",
				 esc_str(msg, 100, line, strlen(line)));
			return 1;
		}
	}
}

/* The stream, to its end or until a deadline or a second signal. */
static void stream(struct stream *s)
{
	long long now = now_ms(), t_stop = -1, t_end = -1;
	bool stopped = false;
	char why[300];

	if (opt.duration_ms >= 0) {
		t_stop = now + opt.duration_ms;
		s->out_deadline = t_stop + END_WAIT_MS;
		backstop_arm(t_stop + END_WAIT_MS + BACKSTOP_MS);
	} else {
		/* Until a signal: no deadline. */
		s->out_deadline = now + 365 * 86400 * 1000LL;
		backstop_disarm();
	}
	while (!take(s)) {
		int r;

		now = now_ms();
		if (!stopped && (sig_stops() || (t_stop >= 0 &&
						 now >= t_stop))) {
			if (sig_stops())
				warn("stopping: waiting up to %d s for the "
				     "end of the recording (interrupt again to "
				     "stop waiting)", END_WAIT_MS / 1000);
			stopped = true;
			sig_acked = sig_stops();
			t_end = now + END_WAIT_MS;
			s->out_deadline = t_end;
			backstop_arm(t_end + BACKSTOP_MS);
			s->c.deadline = t_end;
			r = conn_send(&s->c, "stop\n");
			if (r) {
				snprintf(s->why, sizeof(s->why), "stop could "
					 "not be sent: %s", conn_why(r, why,
					 sizeof(why), END_WAIT_MS));
				return;
			}
		}
		if (stopped && sig_stops() > sig_acked) {
			snprintf(s->why, sizeof(s->why), "interrupted while "
				 "waiting for the end of the recording");
			return;
		}
		if (stopped && now >= t_end) {
			snprintf(s->why, sizeof(s->why), "no end of the "
				 "recording within %d s of stop",
				 END_WAIT_MS / 1000);
			return;
		}
		r = conn_wait(s->c.fd, POLLIN, stopped ? t_end : t_stop >= 0 ?
			      t_stop : now + 3600 * 1000LL);
		if (r == -ETIMEDOUT || r == -EINTR)
			continue;	/* the checks above say what next */
		if (r > 0)
			r = conn_fill(&s->c);
		if (r == 0) {
			snprintf(s->why, sizeof(s->why), "the connection was "
				 "closed before the end of the recording");
			return;
		}
		if (r < 0 && r != -EAGAIN) {
			snprintf(s->why, sizeof(s->why), "%s",
				 conn_why(r, why, sizeof(why), 0));
			return;
		}
	}
}

/* The converted forms (--json into -o, --ctf into its folder). */
static int conversions(const char *raw, struct output *o)
{
	int ret = 0;

	if (opt.json) {
		const char *args[] = { "--json", raw, NULL };

		ret = convert(args, o->fd);
		if (!ret && (ret = out_commit(o)))
			warn("%s: %s", o->path, strerror(-ret));
		if (ret)
			out_discard(o);
	}
	if (opt.ctf) {
		const char *args[] = { "--ctf", opt.ctf, raw, NULL };

		if (convert(args, -1))
			ret = -1;
	}
	return ret ? -1 : 0;
}

int cmd_record(pid_t pid, const char *glob)
{
	char req[1100], raw_tmp[PATH_MAX] = "", why[300];
	struct output o = { .fd = -1 }, raw;
	struct stream s = { .out = &o };
	const char *tmpdir = getenv("TMPDIR");
	struct json j;
	int ret;

	sig_setup_record();
	if (opt.out)
		out_open(&o, opt.out);
	if (!opt.out || opt.json) {
		/*
		 * The recording itself is a temporary, for ulsm-trace: next
		 * to -o's file, else in TMPDIR.
		 */
		char d[PATH_MAX];

		snprintf(d, sizeof(d), "%s", opt.out && !o.in_place ?
			 o.tmp : tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp");
		if (opt.out && !o.in_place)
			*strrchr(d, '/') = '\0';
		raw = (struct output){ .path = raw_tmp };
		raw.fd = out_temp(raw_tmp, sizeof(raw_tmp), d, "recording");
		if (raw.fd < 0)
			die("a temporary in %s: %s", d, strerror(-raw.fd));
		snprintf(raw.tmp, sizeof(raw.tmp), "%s", raw_tmp);
		s.out = &raw;
	}
	backstop_arm(now_ms() + opt.timeout_ms + BACKSTOP_MS);
	ctl_connect(&s.c, pid, now_ms() + opt.timeout_ms);
	if (opt.hooks) {
		snprintf(req, sizeof(req), "record %s %s\n", glob ? glob : "-",
			 opt.hooks);
		ctl_newer("; --hooks needs an endpoint that records a hook "
			  "set: this program's library may be older");
	} else {
		snprintf(req, sizeof(req), "record %s\n", glob);
	}
	ctl_ask(&s.c, req, "record", &j);
	if (glob && json_num(&j, json_get(&j, json_root(&j), "matched"),
			     -1) == 0)
		warn("no tracepoint matches %s now (it records those loaded "
		     "later)", glob);
	json_free(&j);
	stream(&s);
	backstop_disarm();
	conn_close(&s.c);
	if (s.out_failed || (!s.ended && !s.bytes)) {
		/* Nothing worth a file: -o stays as it was. */
		warn("%s; %s%s", s.why, s.out_failed ? "nothing written" :
		     "nothing was received", opt.out && strcmp(opt.out, "-") ?
		     ": -o left as it was" : "");
		out_discard(&o);
		if (s.out == &raw)
			out_unlink(raw_tmp);
		return s.out_failed ? EXIT_FAIL : EXIT_PARTIAL;
	}
	if (!s.ended)
		warn("%s; %llu bytes received, kept (the recording is cut "
		     "short)", s.why, s.bytes);
	if (s.out == &o) {
		ret = out_commit(&o);
		if (ret)
			die("%s: %s", opt.out, strerror(-ret));
		ret = conversions(opt.out, &o);
	} else {
		if (close(raw.fd))
			die("%s: %s", raw_tmp, strerror(errno));
		ret = conversions(raw_tmp, &o);
		out_unlink(raw_tmp);
	}
	if (s.ended && !ret)
		warn("%llu bytes recorded%s%s%s%s", s.bytes, opt.out ?
		     " into " : "", opt.out && strcmp(opt.out, "-") ?
		     opt.out : opt.out ? "standard output" : "",
		     opt.ctf ? ", converted into " : "",
		     opt.ctf ? esc_str(why, sizeof(why), opt.ctf,
				       strlen(opt.ctf)) : "");
	return !s.ended ? EXIT_PARTIAL : ret ? EXIT_FAIL : 0;
}
