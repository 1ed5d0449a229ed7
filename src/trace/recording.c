// SPDX-License-Identifier: MIT
/*
 * src/trace/recording.c - the recorder's recording: the streams that
 * read the rings (recorder.c, ring.h) while threads write them, and the
 * file ulsm-trace reads, written by a stream. recorder.c's opening
 * comment has how a reader copies a slot and finds it torn.
 *
 * The bytes are docs/tracepoints.md's "The file" (the version in
 * trace.h): a header, then records. A stream sends what was recorded
 * since it was opened, in chunks of whole records, taking the rings in
 * turns; ulsm_trace_write() is a stream that starts at the rings' oldest
 * event and reads once, with the end; ULSM_TRACE writes one at exit.
 *
 * No lock of its own: the tracepoints' names are read under the
 * tracepoint lock (tracepoint.c), the rings with none; one public stream
 * at a time (stream_busy), none in a child of fork().
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "base/sys.h"
#include "trace/clock.h"
#include "trace/ring.h"
#include "trace/trace.h"

static int stream_busy;		/* the one public stream is open */

#define BATCH		128		/* events copied at once */
#define CHUNK		(256u << 10)	/* bytes given to the sink at once */

/* A ring, as one stream sees it. */
struct view {
	struct ring *r;
	uint64_t pos;		/* the next event to send */
	uint64_t until;		/* this read sends events up to it */
	uint64_t lost;		/* lost, not sent yet */
	char name[NAME_LEN];	/* as last sent */
	uint64_t last_ns;	/* the last event's time, as sent */
	bool announced;
};

/* A tracepoint's name, to send. */
struct pname {
	struct pname *next;
	uint32_t id, nargs, nl, al;
	unsigned char types[ULSM_TRACE_MAX_ARGS];
	char bytes[];
};

struct ulsm_trace_stream {
	bool from_start;	/* the file: every event still in the rings */
	bool public_;		/* the one of ulsm_trace_stream_open() */
	bool discovered, header_sent, frozen, ended;
	int names_wait_ms;
	uint32_t names_max;	/* names up to this id were taken */
	struct pname *names, **names_tail;
	struct ring *seen;	/* the ring list's head, when last walked */
	struct view *v;
	size_t nv, vcap, turn;
	uint64_t events;	/* events given */
	struct ulsm_trace_clock_map clock;	/* this read's (snapshot) */
	/* The records of a chunk, before the sink gets them. */
	unsigned char *out;
	size_t len, budget;
	/* A batch of one ring, copied: slots, and their strings' bytes. */
	uint64_t (*slot)[SLOT_WORDS];
	unsigned char *text;		/* BATCH x MAX_ARGS strings */
	uint32_t text_off[BATCH][MAX_ARGS];
};

static struct ulsm_trace_stream *stream_new(bool from_start)
{
	struct ulsm_trace_stream *s = ulsm_calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->from_start = from_start;
	s->names_wait_ms = -1;
	s->names_tail = &s->names;
	s->out = ulsm_malloc(CHUNK);
	s->slot = ulsm_calloc(BATCH, sizeof(*s->slot));
	s->text = ulsm_malloc((size_t)BATCH * MAX_ARGS * ULSM_TRACE_STR_MAX);
	if (!s->out || !s->slot || !s->text) {
		ulsm_free(s->out);
		ulsm_free(s->slot);
		ulsm_free(s->text);
		ulsm_free(s);
		return NULL;
	}
	return s;
}

static void stream_free(struct ulsm_trace_stream *s)
{
	while (s->names) {
		struct pname *p = s->names;

		s->names = p->next;
		ulsm_free(p);
	}
	ulsm_free(s->v);
	ulsm_free(s->out);
	ulsm_free(s->slot);
	ulsm_free(s->text);
	ulsm_free(s);
}

/* Rings pushed since the last look (they are at the list's head). */
static int discover(struct ulsm_trace_stream *s)
{
	/*
	 * Pairs with the release compare-exchange in ring_new() (recorder.c):
	 * each ring found is whole.
	 */
	struct ring *head = __atomic_load_n(&ulsm_trace_rings,
					    __ATOMIC_ACQUIRE);
	bool at_open = !s->discovered;
	size_t n = 0;

	for (struct ring *r = head; r && r != s->seen; r = r->next)
		n++;
	if (s->nv + n > s->vcap) {
		size_t cap = (s->nv + n) * 2 + 8;
		struct view *v = ulsm_reallocarray(s->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->vcap = cap;
	}
	for (struct ring *r = head; r && r != s->seen; r = r->next) {
		struct view *v = &s->v[s->nv++];

		/*
		 * A stream sends what is recorded after it was opened: the
		 * rings there when it opens from their heads; those made
		 * later from their start.
		 */
		*v = (struct view){ .r = r };
		/*
		 * Pairs with the release store of head in put_event()
		 * (recorder.c); only a position is taken.
		 */
		if (at_open && !s->from_start)
			v->pos = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	}
	s->seen = head;
	s->discovered = true;
	return 0;
}

static void take_name(void *arg, uint32_t id, const char *name,
		      const char *args, int nargs, const unsigned char *types)
{
	struct ulsm_trace_stream *s = arg;
	size_t nl = strnlen(name, 4096), al = strnlen(args, 4096);
	struct pname *p;

	if (id <= s->names_max)
		return;
	p = ulsm_malloc(sizeof(*p) + nl + al);
	if (!p)
		return;		/* its events will be sent without a name */
	*p = (struct pname){ .id = id, .nargs = (uint32_t)nargs,
			     .nl = (uint32_t)nl, .al = (uint32_t)al };
	memcpy(p->types, types, nargs < ULSM_TRACE_MAX_ARGS ?
	       (size_t)nargs : ULSM_TRACE_MAX_ARGS);
	memcpy(p->bytes, name, nl);
	memcpy(p->bytes + nl, args, al);
	*s->names_tail = p;
	s->names_tail = &p->next;
}

/*
 * What this read sends: the rings' heads now, then the names of every
 * tracepoint added before (so every event sent has its name sent first).
 */
static int snapshot(struct ulsm_trace_stream *s)
{
	uint32_t max = s->names_max;
	int ret = discover(s);

	if (ret)
		return ret;
	/*
	 * Pairs with the release store of head in put_event() (recorder.c):
	 * every event this read sends was written whole before.
	 */
	for (size_t i = 0; i < s->nv; i++)
		s->v[i].until = __atomic_load_n(&s->v[i].r->head,
						__ATOMIC_ACQUIRE);
	/* After the heads: every event this read sends is older. */
	ulsm_trace_clock_map_now(&s->clock);
	if (ulsm_trace_names_wait(take_name, s, s->names_wait_ms)) {
		ulsm_report("the recorder: the tracepoints' names could not "
			    "be read (their lock is held): their events are "
			    "written without them");
		s->names_wait_ms = 0;
	}
	for (struct pname *p = s->names; p; p = p->next)
		max = p->id > max ? p->id : max;
	s->names_max = max;
	return 0;
}

/* Room for @n more bytes of this chunk, or NULL. */
static unsigned char *room(struct ulsm_trace_stream *s, size_t n)
{
	unsigned char *p;

	if (s->len + n > s->budget)
		return NULL;
	p = s->out + s->len;
	s->len += n;
	return p;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
	return put(p, &v, 4);
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
	return put(p, &v, 8);
}

/* A record's header, and room for its @body bytes; NULL if it won't fit. */
static unsigned char *record(struct ulsm_trace_stream *s, uint32_t type,
			     size_t body)
{
	unsigned char *p = room(s, 8 + body);

	if (p) {
		p = put32(p, type);
		p = put32(p, (uint32_t)body);
	}
	return p;
}

static bool put_header(struct ulsm_trace_stream *s)
{
	const char *cmd = program_invocation_short_name;
	size_t cl = cmd ? strnlen(cmd, 255) : 0;
	unsigned char *p = room(s, 20 + cl);

	if (!p)
		return false;
	p = put(p, ULSM_TRACE_MAGIC, 8);
	p = put32(p, ULSM_TRACE_VERSION);
	p = put32(p, (uint32_t)getpid());
	p = put32(p, (uint32_t)cl);
	put(p, cmd, cl);
	s->header_sent = true;
	return true;
}

static bool put_names(struct ulsm_trace_stream *s)
{
	while (s->names) {
		struct pname *n = s->names;
		size_t nt = n->nargs < ULSM_TRACE_MAX_ARGS ? n->nargs :
			    ULSM_TRACE_MAX_ARGS;
		unsigned char *p = record(s, ULSM_TREC_NAME,
					  16 + (size_t)n->nl + n->al + nt);

		if (!p)
			return false;
		p = put32(p, n->id);
		p = put32(p, (uint32_t)nt);
		p = put32(p, n->nl);
		p = put32(p, n->al);
		p = put(p, n->bytes, (size_t)n->nl + n->al);
		put(p, n->types, nt);
		s->names = n->next;
		if (!s->names)
			s->names_tail = &s->names;
		ulsm_free(n);
	}
	return true;
}

static bool put_thread(struct ulsm_trace_stream *s, struct view *v,
		       const char *name)
{
	size_t nl = strnlen(name, NAME_LEN - 1);
	unsigned char *p = record(s, ULSM_TREC_THREAD, 12 + nl);

	if (!p)
		return false;
	p = put32(p, v->r->tid);
	p = put32(p, v->r->pid);
	p = put32(p, (uint32_t)nl);
	put(p, name, nl);
	memset(v->name, 0, NAME_LEN);
	memcpy(v->name, name, nl);
	v->announced = true;
	return true;
}

static bool put_lost(struct ulsm_trace_stream *s, struct view *v)
{
	unsigned char *p;

	if (!v->lost)
		return true;
	p = record(s, ULSM_TREC_LOST, 16);
	if (!p)
		return false;
	p = put32(p, v->r->tid);
	p = put32(p, 0);
	put64(p, v->lost);
	v->lost = 0;
	return true;
}

/* Lost since the stream last read: cleared ones are skipped. */
static void skip_lost(struct view *v)
{
	struct ring *r = v->r;
	uint64_t start = __atomic_load_n(&r->start, __ATOMIC_RELAXED);
	/* Pairs with the release store of head in put_event() (recorder.c). */
	uint64_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint64_t oldest = h > r->cap ? h - r->cap : 0, to;

	if (v->pos < start)
		v->pos = start < v->until ? start : v->until;
	if (v->pos < oldest) {
		to = oldest < v->until ? oldest : v->until;
		v->lost += to - v->pos;
		v->pos = to;
	}
}

/* A string's text, copied; its word says where it is and how long. */
static void copy_text(const struct text *t, uint64_t word, unsigned char *to)
{
	size_t len = word & ULSM_TRACE_STR_LEN;
	uint64_t pos = word >> 16;

	if (len > ULSM_TRACE_STR_MAX)
		len = ULSM_TRACE_STR_MAX;	/* a torn slot */
	for (size_t k = 0; k < len; k += 8) {
		uint64_t w = __atomic_load_n(&t->w[(pos + k / 8) & (t->cap - 1)],
					     __ATOMIC_RELAXED);

		memcpy(to + k, &w, len - k < 8 ? len - k : 8);
	}
}

/*
 * A copied slot as the file has it: words and strings within bounds, and
 * each string's word its length and flags only; a string whose bytes
 * were overwritten before the copy ended (the text ring's head @th has
 * passed them) is lost. The words are how many and which are strings.
 */
static void settle(uint64_t *slot, const struct text *t, uint64_t th)
{
	uint32_t info = (uint32_t)(slot[1] >> 32);
	uint32_t n = info & 0xff, strs = info >> 8 & 0x3f;

	n = n < MAX_ARGS ? n : MAX_ARGS;
	strs &= (1u << n) - 1;
	slot[1] = (uint32_t)slot[1] | (uint64_t)(n | strs << 8) << 32;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t w = slot[2 + i], len = w & ULSM_TRACE_STR_LEN, pos;

		if (!(strs >> i & 1))
			continue;
		if (w & (ULSM_TRACE_STR_NULL | ULSM_TRACE_STR_LOST)) {
			slot[2 + i] = w & (ULSM_TRACE_STR_NULL | ULSM_TRACE_STR_LOST);
			continue;
		}
		pos = th - ((th - (w >> 16)) & POS_MASK);
		if (!t || len > ULSM_TRACE_STR_MAX || th - pos > t->cap)
			slot[2 + i] = ULSM_TRACE_STR_LOST;
		else
			slot[2 + i] = w & (ULSM_TRACE_STR_LEN | ULSM_TRACE_STR_CUT);
	}
}

static size_t event_size(const uint64_t *slot)
{
	uint32_t info = (uint32_t)(slot[1] >> 32);
	uint32_t n = info & 0xff, strs = info >> 8;
	size_t size = 16 + 8 * (size_t)n;

	for (uint32_t i = 0; i < n; i++)
		if (strs >> i & 1)
			size += slot[2 + i] & ULSM_TRACE_STR_LEN;
	return size;
}

/* Settled slot @j of the batch, into the record at @p. */
static unsigned char *put_one(const struct ulsm_trace_stream *s,
			      struct view *v, unsigned char *p, size_t j)
{
	const uint64_t *slot = s->slot[j];
	uint32_t info = (uint32_t)(slot[1] >> 32);
	uint32_t n = info & 0xff, strs = info >> 8;
	uint64_t ns = ulsm_trace_clock_to_ns(&s->clock, slot[0]);
	unsigned char *bytes;

	/*
	 * A thread's events in order of time: the mappings of two reads
	 * differ by their anchors' reading error (clock.h), tens of ns.
	 */
	if (ns < v->last_ns)
		ns = v->last_ns;
	v->last_ns = ns;
	p = put64(p, ns);
	p = put32(p, (uint32_t)slot[1]);
	p = put32(p, info);
	bytes = p + 8 * n;
	for (uint32_t i = 0; i < n; i++) {
		p = put64(p, slot[2 + i]);
		if (strs >> i & 1 && slot[2 + i] & ULSM_TRACE_STR_LEN)
			bytes = put(bytes, s->text + s->text_off[j][i],
				    slot[2 + i] & ULSM_TRACE_STR_LEN);
	}
	return bytes;
}

/*
 * One batch of @v's events: copied, checked, and as many as fit sent as
 * one record (after the thread's record, the first time, and its lost
 * count). False when the chunk is full.
 */
static bool put_events(struct ulsm_trace_stream *s, struct view *v)
{
	struct ring *r = v->r;
	/*
	 * Pairs with the release store of text in text_new() (recorder.c):
	 * the text ring's size is seen with it.
	 */
	const struct text *t = __atomic_load_n(&r->text, __ATOMIC_ACQUIRE);
	uint64_t k, c, th = 0, torn;
	size_t off = 0, fit, size = 8;
	unsigned char *p;

	skip_lost(v);
	k = v->until - v->pos < BATCH ? v->until - v->pos : BATCH;
	for (uint64_t j = 0; j < k; j++) {
		const uint64_t *slot = r->ev[(v->pos + j) & (r->cap - 1)];
		uint32_t info, n, strs;

		for (int w = 0; w < SLOT_WORDS; w++)
			s->slot[j][w] = __atomic_load_n(&slot[w],
							__ATOMIC_RELAXED);
		info = (uint32_t)(s->slot[j][1] >> 32);
		n = info & 0xff;
		strs = info >> 8 & 0x3f;
		for (uint32_t i = 0; i < n && i < MAX_ARGS && t; i++) {
			if (!(strs >> i & 1))
				continue;
			s->text_off[j][i] = (uint32_t)off;
			copy_text(t, s->slot[j][2 + i], s->text + off);
			off += ULSM_TRACE_STR_MAX;
		}
	}
	/*
	 * Pairs with the release fences in ulsm__trace_record() and
	 * ulsm__trace_record_str() (recorder.c): an owner that began to
	 * overwrite a copied slot has its claim seen below (C11 7.17.4).
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	c = __atomic_load_n(&r->claimed, __ATOMIC_RELAXED);
	if (t)
		th = __atomic_load_n(&t->head, __ATOMIC_RELAXED);
	/* Those the owner may have begun to overwrite while they were copied. */
	torn = c > r->cap && c - r->cap > v->pos ? c - r->cap - v->pos : 0;
	torn = torn < k ? torn : k;
	v->lost += torn;
	v->pos += torn;
	if (k == torn && !v->lost)
		return true;
	if (!v->announced) {
		char name[NAME_LEN];

		ulsm_trace_ring_name(r, name);
		if (!put_thread(s, v, name))
			return false;
	}
	if (!put_lost(s, v))
		return false;
	if (k == torn)
		return true;
	/* As many as fit, in one record: tid, count, events. */
	for (fit = 0; torn + fit < k; fit++) {
		uint64_t *slot = s->slot[torn + fit];
		size_t e;

		settle(slot, t, th);
		e = event_size(slot);
		if (s->len + 8 + size + e > s->budget ||
		    8 + size + e > ULSM_TRACE_RECORD_MAX)
			break;
		size += e;
	}
	if (!fit)
		return false;
	p = record(s, ULSM_TREC_EVENTS, size);
	p = put32(p, r->tid);
	p = put32(p, (uint32_t)fit);
	for (size_t j = 0; j < fit; j++)
		p = put_one(s, v, p, torn + j);
	v->pos += fit;
	s->events += fit;
	return true;
}

static bool views_done(const struct ulsm_trace_stream *s)
{
	for (size_t i = 0; i < s->nv; i++)
		if (s->v[i].pos < s->v[i].until || s->v[i].lost)
			return false;
	return true;
}

/* The threads' names as they are now, then the end. */
static bool put_end(struct ulsm_trace_stream *s)
{
	for (size_t i = 0; i < s->nv; i++) {
		struct view *v = &s->v[i];
		char name[NAME_LEN];

		if (!v->announced)
			continue;
		ulsm_trace_ring_name(v->r, name);
		if (strcmp(name, v->name) && !put_thread(s, v, name))
			return false;
	}
	if (!record(s, ULSM_TREC_END, 0))
		return false;
	s->ended = true;
	return true;
}

/*
 * A chunk of whole records, at most s->budget bytes: the header, the
 * names, then the rings in turns of a batch each (so that a slow reader
 * is fair to them all), then, if @final, the end.
 */
static void fill(struct ulsm_trace_stream *s, bool final)
{
	bool more = true;

	if (!s->header_sent && !put_header(s))
		return;
	if (!put_names(s))
		return;
	while (more) {
		more = false;
		for (size_t n = 0; n < s->nv; n++) {
			struct view *v = &s->v[s->turn % s->nv];

			s->turn++;
			skip_lost(v);
			if (v->pos >= v->until && !v->lost)
				continue;
			if (!put_events(s, v))
				return;
			more = true;
		}
	}
	if (final && views_done(s))
		put_end(s);
}

long ulsm_trace_stream_read(struct ulsm_trace_stream *s,
			    void (*sink)(void *arg, const void *bytes,
					 size_t n),
			    void *arg, size_t max, bool final)
{
	long given = 0;
	int ret;

	if (!s || !sink)
		return ulsm_error(-EINVAL, "ulsm_trace_stream_read: NULL %s",
				  s ? "sink" : "stream");
	if (max < ULSM_TRACE_STREAM_MIN)
		return ulsm_error(-EINVAL, "ulsm_trace_stream_read: %zu bytes "
				  "at most: less than a record may need (%d)",
				  max, ULSM_TRACE_STREAM_MIN);
	if (s->ended)
		return 0;
	if (!s->frozen) {
		ret = snapshot(s);
		if (ret)
			return ulsm_error(ret, "ulsm_trace_stream_read: no "
					  "memory");
		s->frozen = final;
	}
	if (max > LONG_MAX)
		max = LONG_MAX;
	for (;;) {
		s->len = 0;
		s->budget = max - (size_t)given < CHUNK ? max - (size_t)given :
							   CHUNK;
		fill(s, final);
		if (!s->len)
			break;
		sink(arg, s->out, s->len);
		given += (long)s->len;
		if (s->ended || (size_t)given + ULSM_TRACE_STREAM_MIN > max)
			break;
	}
	return given;
}

/*
 * A child of fork() has no stream: the one its parent had open belongs to
 * a thread (the control endpoint's) that the child does not have.
 */
static void stream_fork_child(void)
{
	__atomic_store_n(&stream_busy, 0, __ATOMIC_RELAXED);
}

static void stream_atfork(void)
{
	if (pthread_atfork(NULL, NULL, stream_fork_child))
		ulsm_die("pthread_atfork failed");
}

int ulsm_trace_stream_open(struct ulsm_trace_stream **s)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int ret;

	if (!s)
		return ulsm_error(-EINVAL, "ulsm_trace_stream_open: NULL");
	*s = NULL;
	pthread_once(&once, stream_atfork);
	/*
	 * Pairs with the release stores of stream_busy in
	 * ulsm_trace_stream_open() and ulsm_trace_stream_close() (this file):
	 * the last stream is freed before the next one opens.
	 */
	if (__atomic_exchange_n(&stream_busy, 1, __ATOMIC_ACQUIRE))
		return ulsm_error(-EBUSY, "a recording is being streamed "
				  "already");
	ulsm_trace_env_check(false);
	*s = stream_new(false);
	ret = *s ? discover(*s) : -ENOMEM;
	if (ret) {
		if (*s)
			stream_free(*s);
		*s = NULL;
		/*
		 * Pairs with the acquire exchange of stream_busy in
		 * ulsm_trace_stream_open() (this file).
		 */
		__atomic_store_n(&stream_busy, 0, __ATOMIC_RELEASE);
		return ulsm_error(ret, "ulsm_trace_stream_open: no memory");
	}
	(*s)->public_ = true;
	return 0;
}

void ulsm_trace_stream_close(struct ulsm_trace_stream *s)
{
	if (!s)
		return;
	/*
	 * Pairs with the acquire exchange of stream_busy in
	 * ulsm_trace_stream_open() (this file): the stream is done before the
	 * next one opens.
	 */
	if (s->public_)
		__atomic_store_n(&stream_busy, 0, __ATOMIC_RELEASE);
	stream_free(s);
}

/* --- the file ---------------------------------------------------------- */

struct file_sink {
	FILE *f;
	bool failed;
};

static void to_file(void *arg, const void *bytes, size_t n)
{
	struct file_sink *fs = arg;

	if (fwrite(bytes, 1, n, fs->f) != n)
		fs->failed = true;
}

static long write_file(const char *path, int names_wait_ms)
{
	struct file_sink fs = { 0 };
	struct ulsm_trace_stream *s;
	long n;

	if (!path)
		return ulsm_error(-EINVAL, "ulsm_trace_write: NULL path");
	ulsm_trace_env_check(false);
	s = stream_new(true);
	if (!s)
		return ulsm_error(-ENOMEM, "ulsm_trace_write: no memory");
	s->names_wait_ms = names_wait_ms;
	fs.f = fopen(path, "wb");
	if (!fs.f) {
		n = ulsm_error(-errno, "ulsm_trace_write: %s: %s", path,
			       strerror(errno));
		stream_free(s);
		return n;
	}
	/* One read: it ends, since it reads what was there when it began. */
	n = ulsm_trace_stream_read(s, to_file, &fs, SIZE_MAX, true);
	if (n >= 0 && !s->ended)
		n = ulsm_error(-EIO, "ulsm_trace_write: %s: the recording "
			       "did not end", path);
	if (fclose(fs.f))
		fs.failed = true;
	if (n >= 0 && fs.failed)
		n = ulsm_error(-EIO, "ulsm_trace_write: %s: write failed", path);
	else if (n >= 0)
		n = (long)s->events;
	stream_free(s);
	return n;
}

ULSM_API long ulsm_trace_write(const char *path)
{
	return write_file(path, -1);
}

/*
 * ULSM_TRACE set: at exit, write ULSM_TRACE_FILE or ulsm-trace.<pid>.bin,
 * and report the globs that never matched. A second at most for the
 * names' lock: another thread may hold it for good at exit.
 */
__attribute__((destructor)) static void write_at_exit(void)
{
	const char *on = getenv("ULSM_TRACE"), *path = getenv("ULSM_TRACE_FILE");
	char def[64];
	long n;

	if (!on || !*on)
		return;
	if (!path || !*path) {
		snprintf(def, sizeof(def), "ulsm-trace.%d.bin", (int)getpid());
		path = def;
	}
	/* Only the report of globs that never matched, at exit. */
	ulsm_trace_env_exiting();
	n = write_file(path, 1000);
	if (n < 0)
		ulsm_report("ULSM_TRACE: %s", ulsm_last_error());
	ulsm_trace_env_check(true);
}
