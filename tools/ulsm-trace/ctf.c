// SPDX-License-Identifier: MIT
/*
 * ctf.c - a recording as a CTF 1.8 trace (ctf.h): its event classes and
 * one stream per thread, written through a sink; tsdl.c writes the
 * metadata that describes them.
 *
 * The rules that a reader holds us to (babeltrace2 2.0, Trace Compass),
 * each found the hard way by the prototype that preceded this file:
 *
 * - The metadata's first line is the comment that says "CTF 1.8"
 *   (tsdl.c), or babeltrace2 refuses it ("Invalid metadata version found
 *   in plain text signature").
 * - Alignment is from the packet's start, and a structure is aligned as
 *   its most aligned member: the event header (a u64 in it) on 8 bytes,
 *   the payload on its widest field. Everything here is little endian and
 *   naturally aligned.
 * - content_size and packet_size are in bits, and a stream file is whole
 *   packets laid end to end.
 * - events_discarded is a stream's running total: readers report the
 *   difference from one packet to the next, and a count in a stream's
 *   first packet is reported without its number. So a loss is an empty
 *   packet of its own, from the last event before it to the next one
 *   (where babeltrace2 says "discarded N events between" and Trace
 *   Compass puts its lost event), after an empty first packet if the
 *   stream had none.
 * - The directory holds the metadata and the streams, nothing else
 *   (Trace Compass takes any other file for a stream).
 *
 * Each event of the recording becomes an event of a class per
 * (tracepoint, words, which are strings): for a real recording that is a
 * class per tracepoint; a file whose events disagree with their name
 * (corrupt, or made so) gets a class per shape, so that every event is
 * written as the text shows it. A field's type is its parameter's
 * (value_kind(), the same reading as the text and the JSON): integers of
 * their width and sign, enums as integers of theirs, bool as an enum of
 * false and true, pointers as 64-bit hexadecimal integers, float and
 * double as floating point, strings as strings; a file without types
 * (versions 1 and 2) has 64-bit signed integers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_writer.h"

#define CTF_MAGIC	0xc1fc1fc1u
/* Bytes of a packet after which it is closed: what one stream buffers. */
#define PACKET_MAX	65536
/*
 * A thread's name in the packet context is cut to this many bytes (at a
 * character's start): Trace Compass maps a packet's header and context by
 * their declared sizes, counting a string as 8 bytes.
 */
#define THREAD_NAME_MAX	255
/* At most one event's bytes: header, paddings, six strings at worst. */
#define EVENT_MAX	(32 + MAX_WORDS * (3 * STR_MAX + 16))
#define HEADER_MAX	(OFF_NAME + THREAD_NAME_MAX + 8)

/* A stream (a thread) while it is written. */
struct stream {
	const struct thread *th;
	FILE *f;
	uint64_t seq;		/* packets written */
	uint64_t discarded;	/* events lost so far, the running total */
	uint64_t begin, end;	/* the open packet's times; then the last's */
	bool open;		/* a packet is being built in the buffer */
};

/* --- event classes ----------------------------------------------------- */

static uint64_t class_key(size_t name, unsigned int n, unsigned int strs)
{
	return (uint64_t)(name == NONE ? 0 : name + 1) << 16 | n << 8 | strs;
}

static size_t key_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

/* The table at most half full: doubled, and filled again. */
static int hash_grow(struct ctf *c)
{
	size_t cap = c->hash_cap ? 2 * c->hash_cap : 64;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < c->ncls; i++) {
		const struct cclass *k = &c->cls[i];
		size_t j = key_slot(class_key(k->name, k->n, k->strs), cap);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(c->hash);
	c->hash = h;
	c->hash_cap = cap;
	return 0;
}

static void class_init(const struct trace *t, struct cclass *k)
{
	const struct name *nm = k->name == NONE ? NULL : &t->names[k->name];

	k->align = 1;
	for (unsigned int i = 0; i < k->n; i++) {
		unsigned int size, align;
		enum value_kind kind = value_kind(nm ? nm->type[i] : 0,
						  k->strs >> i & 1, &size);

		/* (The reader refuses other sizes; never a type of none.) */
		if ((kind == VAL_SIGNED || kind == VAL_UNSIGNED) &&
		    (size & (size - 1)))
			size = 8;
		k->kind[i] = (uint8_t)kind;
		k->size[i] = (uint8_t)size;
		align = kind == VAL_STRING || kind == VAL_BOOL ? 1 :
			kind == VAL_HEX ? 8 : size;
		if (align > k->align)
			k->align = (uint8_t)align;
	}
}

/* The class of event @r, made if it is new: its index, or -ENOMEM. */
static int64_t class_of(struct ctf *c, const struct rec *r)
{
	uint64_t key = class_key(r->name, r->e.n, r->strs);
	size_t j;

	if (2 * (c->ncls + 1) > c->hash_cap && hash_grow(c))
		return -ENOMEM;
	for (j = key_slot(key, c->hash_cap); c->hash[j];
	     j = (j + 1) & (c->hash_cap - 1)) {
		const struct cclass *k = &c->cls[c->hash[j] - 1];

		if (class_key(k->name, k->n, k->strs) == key)
			return c->hash[j] - 1;
	}
	if (c->ncls == c->cls_cap) {
		size_t cap = c->cls_cap ? 2 * c->cls_cap : 16;
		void *p = realloc(c->cls, cap * sizeof(*c->cls));

		if (!p)
			return -ENOMEM;
		c->cls = p;
		c->cls_cap = cap;
	}
	c->cls[c->ncls] = (struct cclass){
		.name = r->name, .n = (uint8_t)r->e.n, .strs = r->strs,
	};
	class_init(c->t, &c->cls[c->ncls]);
	c->hash[j] = (uint32_t)++c->ncls;
	return (int64_t)c->ncls - 1;
}

/*
 * Each event's class, and the records by thread (a counting sort, which
 * keeps each thread's in time order): both linear in the records.
 */
static int classes(struct ctf *c)
{
	const struct trace *t = c->t;
	size_t *at;

	c->rec_cls = calloc(t->nrecs + 1, sizeof(*c->rec_cls));
	c->order = calloc(t->nrecs + 1, sizeof(*c->order));
	c->first = calloc(t->nthreads + 1, sizeof(*c->first));
	at = calloc(t->nthreads + 1, sizeof(*at));
	if (!c->rec_cls || !c->order || !c->first || !at) {
		free(at);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct rec *r = &t->recs[i];

		at[r->thread]++;
		if (!r->lost) {
			int64_t k = class_of(c, r);

			if (k < 0) {
				free(at);
				return (int)k;
			}
			c->rec_cls[i] = (uint32_t)k;
		}
	}
	for (size_t i = 0, sum = 0; i <= t->nthreads; i++) {
		size_t n = i < t->nthreads ? at[i] : 0;

		c->first[i] = sum;
		at[i] = sum;
		sum += n;
	}
	for (size_t i = 0; i < t->nrecs; i++)
		c->order[at[t->recs[i].thread]++] = i;
	free(at);
	return 0;
}

/* --- the trace's UUID ------------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static void mix_bytes(uint64_t h[2], const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h[0] = mix(h[0], (unsigned char)s[i]);
		h[1] = mix(h[1], (unsigned char)s[i] ^ 0x5a);
	}
}

/*
 * A UUID made from the recording itself (RFC 9562, version 8: a vendor's
 * own), not a random one: converting a recording twice gives the same
 * trace, byte for byte, and two recordings two traces.
 */
static void make_uuid(struct ctf *c)
{
	const struct trace *t = c->t;
	uint64_t h[2] = { 0x756c736d, 0x74726163 };

	h[0] = mix(h[0], t->version);
	h[1] = mix(h[1], t->pid);
	mix_bytes(h, t->pool, t->pool_len);
	mix_bytes(h, t->text, t->text_len);
	for (size_t i = 0; i < t->nthreads; i++)
		h[i & 1] = mix(h[i & 1], t->threads[i].tid);
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct rec *r = &t->recs[i];

		h[0] = mix(h[0], r->e.ns ^ (uint64_t)r->e.id << 32);
		h[1] = mix(h[1], r->e.n | (uint64_t)r->strs << 8 |
				 (uint64_t)r->lost << 16 |
				 (uint64_t)t->threads[r->thread].tid << 32);
		for (uint32_t w = 0; w < r->e.n && w < MAX_WORDS; w++)
			h[w & 1] = mix(h[w & 1], r->e.w[w]);
	}
	for (int i = 0; i < 8; i++) {
		c->uuid[i] = (unsigned char)(h[0] >> 8 * i);
		c->uuid[8 + i] = (unsigned char)(h[1] >> 8 * i);
	}
	c->uuid[6] = (c->uuid[6] & 0x0f) | 0x80;	/* version 8 */
	c->uuid[8] = (c->uuid[8] & 0x3f) | 0x80;	/* the RFC's variant */
}

/* --- a packet's bytes ---------------------------------------------------- */

/* Room for @n more bytes: the puts below then need no check. */
static int reserve(struct ctf *c, size_t n)
{
	size_t cap = c->cap ? c->cap : 4096;
	void *p;

	if (c->len + n <= c->cap)
		return 0;
	while (cap < c->len + n)
		cap *= 2;
	p = realloc(c->buf, cap);
	if (!p)
		return -ENOMEM;
	c->buf = p;
	c->cap = cap;
	return 0;
}

/* Zero bytes up to a multiple of @align from the packet's start. */
static void pad(struct ctf *c, unsigned int align)
{
	while (c->len % align)
		c->buf[c->len++] = 0;
}

/* The low @size bytes of @v, little endian, aligned on @size. */
static void put(struct ctf *c, uint64_t v, unsigned int size)
{
	pad(c, size);
	for (unsigned int i = 0; i < size; i++)
		c->buf[c->len++] = (unsigned char)(v >> 8 * i);
}

static void patch(struct ctf *c, size_t off, uint64_t v, unsigned int size)
{
	for (unsigned int i = 0; i < size; i++)
		c->buf[off + i] = (unsigned char)(v >> 8 * i);
}

static void put_bytes(struct ctf *c, const void *p, size_t n)
{
	memcpy(c->buf + c->len, p, n);
	c->len += n;
}

/*
 * A CTF string: UTF-8 ending in a NUL. The recording's bytes may be any:
 * well-formed sequences are kept, a NUL (which would end the string
 * early, and shift every field after it) or a byte that is not UTF-8 is
 * U+FFFD. At most @max bytes before the NUL, cut at a character's start.
 */
static void put_text(struct ctf *c, const char *str, size_t len, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t end = c->len + max;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = s[i] && s[i] < 0x80 ? 1 :
			   s[i] ? utf8_seq(s + i, len - i, &cp) : 0;

		if (c->len + (n ? n : 3) > end)
			break;
		if (n) {
			put_bytes(c, s + i, n);
			i += n;
		} else {
			put_bytes(c, "\xef\xbf\xbd", 3);
			i++;
		}
	}
	c->buf[c->len++] = 0;
}

/*
 * A string argument as the recorder left it. CTF has no NULL, cut or
 * lost string, so they are said in the text, as LTTng-UST writes a NULL
 * string: "(null)"; a string the recorder cut at 256 bytes ends with an
 * ellipsis, U+2026 (as in the JSON); one the text ring overwrote before
 * it was read is "(lost)".
 */
static void put_string(struct ctf *c, const struct arg *a)
{
	if (a->w & STR_NULL) {
		put_bytes(c, "(null)", 7);
	} else if (a->w & STR_LOST) {
		put_bytes(c, "(lost)", 7);
	} else {
		put_text(c, a->bytes, a->len, 3 * STR_MAX);
		if (a->w & STR_CUT) {
			c->len--;
			put_bytes(c, "\xe2\x80\xa6", 4);
		}
	}
}

/* --- streams -------------------------------------------------------------- */

static void packet_open(struct ctf *c, struct stream *s, uint64_t begin)
{
	const struct trace *t = c->t;
	const struct thread *th = s->th;

	c->len = 0;
	put(c, CTF_MAGIC, 4);
	put_bytes(c, c->uuid, 16);
	put(c, 0, 4);			/* stream_id: the one stream class */
	for (int i = 0; i < 6; i++)	/* patched when it is closed */
		put(c, 0, 8);
	put(c, th->tid, 4);
	put(c, th->pid, 4);
	put_text(c, t->pool + th->name_off, th->named ? th->name_len : 0,
		 THREAD_NAME_MAX);
	s->begin = s->end = begin;
	s->open = true;
}

static int packet_close(struct ctf *c, struct stream *s)
{
	patch(c, OFF_BEGIN, s->begin, 8);
	patch(c, OFF_END, s->end, 8);
	patch(c, OFF_CONTENT, (uint64_t)c->len * 8, 8);	/* bits */
	patch(c, OFF_SIZE, (uint64_t)c->len * 8, 8);
	patch(c, OFF_SEQ, s->seq, 8);
	patch(c, OFF_DISCARDED, s->discarded, 8);
	s->open = false;
	s->seq++;
	errno = 0;
	if (fwrite(c->buf, 1, c->len, s->f) != c->len)
		return errno ? -errno : -EIO;
	return 0;
}

/* An empty packet from @begin to @end. */
static int packet_empty(struct ctf *c, struct stream *s, uint64_t begin,
			uint64_t end)
{
	if (reserve(c, HEADER_MAX))
		return -ENOMEM;
	packet_open(c, s, begin);
	s->end = end;
	return packet_close(c, s);
}

/*
 * @count events lost before @at (their thread's next event, or its last:
 * reader.c, place_lost()): a packet of their own, from the end of the
 * last one to @at, which raises the running total. A stream's first
 * packet cannot say a count, so a loss before any event gets an empty
 * first packet. The total stops at UINT64_MAX - 1 rather than wrap, which
 * a reader would take for a total that went down (and babeltrace2 2.0
 * takes UINT64_MAX for "not known", and aborts on it).
 */
static int lost(struct ctf *c, struct stream *s, uint64_t count, uint64_t at)
{
	int err = 0;

	if (!count)
		return 0;
	if (s->open)
		err = packet_close(c, s);
	if (!err && !s->seq)
		err = packet_empty(c, s, at, at);
	if (err)
		return err;
	s->discarded = count >= UINT64_MAX - 1 - s->discarded ?
		       UINT64_MAX - 1 : s->discarded + count;
	return packet_empty(c, s, s->end, at);
}

static void put_event(struct ctf *c, size_t i)
{
	const struct rec *r = &c->t->recs[i];
	const struct cclass *k = &c->cls[c->rec_cls[i]];

	pad(c, 8);		/* the header's u64 */
	put(c, c->rec_cls[i], 4);
	put(c, r->e.ns, 8);
	pad(c, k->align);
	for (uint32_t f = 0; f < k->n; f++) {
		struct arg a;
		struct value v;

		arg_of(c->t, r, f, &a);
		switch (k->kind[f]) {
		case VAL_STRING:
			put_string(c, &a);
			break;
		case VAL_BOOL:
			value_of(&a, &v);
			put(c, v.u, 1);
			break;
		case VAL_HEX:	/* masked to its size, as the text has it */
			value_of(&a, &v);
			put(c, v.u, 8);
			break;
		case VAL_FLOAT:	/* the recorded bits, NaNs as they are */
		case VAL_SIGNED:
		case VAL_UNSIGNED:
			put(c, a.w, k->size[f]);
			break;
		}
	}
}

static int stream(struct ctf *c, size_t th)
{
	const struct trace *t = c->t;
	uint64_t t0 = t->nrecs ? t->recs[0].e.ns : 0;
	struct stream s = { .th = &t->threads[th] };
	char name[32];
	int err = 0, cerr;

	snprintf(name, sizeof(name), "stream_%" PRIu32, s.th->tid);
	errno = 0;
	s.f = c->sink->create(c->sink, name);
	if (!s.f)
		return errno ? -errno : -EIO;
	for (size_t o = c->first[th]; o < c->first[th + 1] && !err; o++) {
		size_t i = c->order[o];
		const struct rec *r = &t->recs[i];

		if (r->lost) {
			err = lost(c, &s, r->e.w[0], r->e.ns);
			continue;
		}
		if (reserve(c, HEADER_MAX + EVENT_MAX)) {
			err = -ENOMEM;
			break;
		}
		if (!s.open)
			packet_open(c, &s, r->e.ns);
		put_event(c, i);
		s.end = r->e.ns;
		if (c->len >= PACKET_MAX)
			err = packet_close(c, &s);
	}
	if (!err && s.open)
		err = packet_close(c, &s);
	/* A thread with no event: one empty packet, its name and tid. */
	if (!err && !s.seq)
		err = packet_empty(c, &s, t0, t0);
	cerr = c->sink->close(c->sink, s.f);
	return err ? err : cerr;
}

int ctf_fits(const struct trace *t, const struct ctf_opts *o, char *why,
	     size_t why_len)
{
	int64_t off = o->wall_clock ? o->offset_ns : 0;
	uint64_t last = 0;

	for (size_t i = 0; i < t->nrecs; i++)
		last = t->recs[i].e.ns > last ? t->recs[i].e.ns : last;
	if (last <= (uint64_t)INT64_MAX - (off > 0 ? (uint64_t)off : 0))
		return 0;
	snprintf(why, why_len, "a time of %" PRIu64 " ns%s, past what a CTF "
		 "reader takes (babeltrace2 counts time from the clock's "
		 "origin in signed 64-bit nanoseconds)", last,
		 off > 0 ? " plus the wall clock's offset" : "");
	return -ERANGE;
}

int ctf_write(const struct trace *t, const struct ctf_opts *o,
	      struct ctf_sink *sink)
{
	struct ctf c = { .t = t, .o = o, .sink = sink };
	int err = classes(&c);

	if (!err) {
		make_uuid(&c);
		err = ctf_metadata(&c);
	}
	for (size_t i = 0; i < t->nthreads && !err; i++)
		err = stream(&c, i);
	free(c.cls);
	free(c.hash);
	free(c.rec_cls);
	free(c.order);
	free(c.first);
	free(c.buf);
	return err;
}
