// SPDX-License-Identifier: MIT
/*
 * reader.c - ulsm-trace's reader: a recording (a file, or a pipe) read
 * into a struct trace (reader.h), whatever the file holds.
 *
 * Every count and length is checked against the format's limits and,
 * when the file's size is known, against the bytes that are left, before
 * a loop or an allocation depends on it; arrays grow with what was read,
 * never with what the file announces. A bad file gets a message in
 * in->msg, which main() prints as one line. Each part of the format has
 * its reader: version 1 (read_names, read_rings), versions 2 and 3
 * (read_records; version 3 adds each parameter's type to a name record).
 * Once read, the events are sorted by time, the lost counts placed, and
 * the slices paired (pair()), for every output alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"


__attribute__((format(printf, 2, 3)))
static int bad(struct input *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->msg, sizeof(in->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int take(struct input *in, void *p, size_t len, const char *what)
{
	size_t got = fread(p, 1, len, in->f);

	in->off += got;
	if (got == len)
		return 0;
	if (ferror(in->f))
		return bad(in, "read error at byte %" PRIu64 ": %s", in->off,
			   strerror(errno));
	return bad(in, "truncated at byte %" PRIu64 ", in %s", in->off, what);
}

static int take_u32(struct input *in, uint32_t *v, const char *what)
{
	return take(in, v, sizeof(*v), what);
}

static int take_u64(struct input *in, uint64_t *v, const char *what)
{
	return take(in, v, sizeof(*v), what);
}

/*
 * @count items of at least @each bytes, announced by the file: they must
 * fit in what is left of it, or the file is cut or corrupt. Only a known
 * size can say so early; otherwise reading them finds the end.
 */
static int room(struct input *in, uint64_t count, uint64_t each,
		const char *what)
{
	uint64_t left;

	if (in->size == SIZE_UNKNOWN)
		return 0;
	left = in->size > in->off ? in->size - in->off : 0;
	if (count <= left / each)
		return 0;
	return bad(in, "truncated or corrupt: %" PRIu64 " %s at byte %" PRIu64
		   " need %s%" PRIu64 " bytes each, and %" PRIu64 " are left",
		   count, what, in->off, each > 1 ? "at least " : "", each,
		   left);
}

/*
 * Room for one more of @size bytes at index @n: the array doubles, so
 * that it is never more than twice what was read.
 */
static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t c;

	if (n < *cap)
		return p;
	c = *cap ? *cap * 2 : 16;
	if (c > SIZE_MAX / size)
		return NULL;
	p = realloc(p, c * size);
	if (p)
		*cap = c;
	return p;
}

static int out_of_memory(struct input *in)
{
	return bad(in, "out of memory at byte %" PRIu64, in->off);
}

/* @len bytes read into the pool of names; *@off says where. */
static int pool_add(struct input *in, struct trace *t, const void *bytes,
		    size_t len, uint32_t *off)
{
	if (t->pool_len > UINT32_MAX - 2 * MAX_NAME)
		return bad(in, "more than 4 GiB of names");
	/* >=: the pool is never NULL, even for empty names. */
	while (t->pool_len + len >= t->pool_cap) {
		void *p = grow(t->pool, &t->pool_cap, t->pool_cap, 1);

		if (!p)
			return out_of_memory(in);
		t->pool = p;
	}
	*off = (uint32_t)t->pool_len;
	if (len)
		memcpy(t->pool + t->pool_len, bytes, len);
	t->pool_len += len;
	return 0;
}

/* Version 1: magic, version. Version 2: then pid, command. */
static int read_header(struct input *in, struct trace *t)
{
	char magic[8], cmd[MAX_NAME];
	uint32_t version, len;

	if (fread(magic, 1, 8, in->f) != 8 || memcmp(magic, TRACE_MAGIC, 8)) {
		if (ferror(in->f))
			return bad(in, "read error: %s", strerror(errno));
		return bad(in, "not a ulsm trace file (no %s at the start)",
			   TRACE_MAGIC);
	}
	in->off = 8;
	if (take_u32(in, &version, "the version"))
		return -1;
	if (version < 1 || version > 3)
		return bad(in, "a trace file of version %" PRIu32 "; this "
			   "ulsm-trace reads versions 1 to 3", version);
	t->version = version;
	t->pid = 1;	/* version 1 does not say */
	if (version == 1)
		return 0;
	if (take_u32(in, &t->pid, "the header") ||
	    take_u32(in, &len, "the header"))
		return -1;
	if (len > MAX_NAME)
		return bad(in, "a command name of %" PRIu32 " bytes (at most "
			   "%d)", len, MAX_NAME);
	if (take(in, cmd, len, "the command's name") ||
	    pool_add(in, t, cmd, len, &t->cmd_off))
		return -1;
	t->cmd_len = (uint16_t)len;
	return 0;
}

/* "fd, len": the names between the commas, without the spaces around. */
static void split_args(struct name *nm, const char *args)
{
	size_t i = 0, len = nm->args_len;

	for (nm->nargs = 0; nm->nargs < MAX_WORDS && i <= len; i++) {
		size_t from, to;

		while (i < len && args[i] == ' ')
			i++;
		from = i;
		while (i < len && args[i] != ',')
			i++;
		for (to = i; to > from && args[to - 1] == ' '; to--)
			;
		nm->arg_off[nm->nargs] = (uint16_t)from;
		nm->arg_len[nm->nargs] = (uint16_t)(to - from);
		nm->nargs++;
		if (i == len)
			break;
	}
	/* No arguments at all, rather than one unnamed. */
	if (!len)
		nm->nargs = 0;
}

static int by_id(const void *a, const void *b)
{
	const struct name *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * A name: h is id, nargs, name length, args length; the bytes are the
 * name, then the args.
 */
static int add_name(struct input *in, struct trace *t, const uint32_t h[4],
		    const char *bytes, const uint8_t *types)
{
	struct name *nm;
	void *p;

	if (h[1] > MAX_WORDS)
		return bad(in, "tracepoint %" PRIu32 " has %" PRIu32
			   " parameters (at most %d)", h[0], h[1], MAX_WORDS);
	if (h[2] > MAX_NAME || h[3] > MAX_NAME)
		return bad(in, "tracepoint %" PRIu32 ": %s of %" PRIu32
			   " bytes (at most %d)", h[0],
			   h[2] > MAX_NAME ? "a name" : "an argument list",
			   h[2] > MAX_NAME ? h[2] : h[3], MAX_NAME);
	p = grow(t->names, &t->names_cap, t->nnames, sizeof(*nm));
	if (!p)
		return out_of_memory(in);
	t->names = p;
	nm = &t->names[t->nnames];
	*nm = (struct name){
		.id = h[0], .len = (uint16_t)h[2], .args_len = (uint16_t)h[3],
	};
	for (uint32_t i = 0; types && i < h[1]; i++)
		nm->type[i] = types[i];
	if (pool_add(in, t, bytes, (size_t)h[2] + h[3], &nm->off))
		return -1;
	split_args(nm, t->pool + nm->off + h[2]);
	t->nnames++;
	return 0;
}

/*
 * Version 1. Per name: u32 id, u32 nargs, u32 name length, u32 args
 * length, the name, the args.
 */
static int read_names(struct input *in, struct trace *t)
{
	char bytes[2 * MAX_NAME];
	uint32_t n;

	if (take_u32(in, &n, "the number of names") ||
	    room(in, n, 16, "names"))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t h[4];	/* id, nargs, name length, args length */

		if (take(in, h, sizeof(h), "a name's header"))
			return -1;
		if (h[1] <= MAX_WORDS && h[2] <= MAX_NAME && h[3] <= MAX_NAME &&
		    (room(in, (uint64_t)h[2] + h[3], 1, "bytes of names") ||
		     take(in, bytes, (size_t)h[2] + h[3], "a tracepoint's name")))
			return -1;
		if (add_name(in, t, h, bytes, NULL))
			return -1;
	}
	return 0;
}

/* The thread of @tid, or NONE; with @add, made if it is not there. */
static size_t thread_of(struct input *in, struct trace *t, uint32_t tid,
			bool add)
{
	size_t mask = t->hash_cap - 1, i;
	struct thread *th;
	void *p;

	for (i = t->hash_cap ? (tid * 2654435761u) & mask : 0;
	     t->hash_cap && t->tid_hash[i]; i = (i + 1) & mask)
		if (t->threads[t->tid_hash[i] - 1].tid == tid)
			return t->tid_hash[i] - 1;
	if (!add)
		return NONE;
	if (t->nthreads >= UINT32_MAX - 1) {
		bad(in, "more than 2^32 threads");
		return NONE;
	}
	/* A table at most half full: it doubles, and is filled again. */
	if (2 * (t->nthreads + 1) > t->hash_cap) {
		size_t cap = t->hash_cap ? t->hash_cap * 2 : 64;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h) {
			out_of_memory(in);
			return NONE;
		}
		free(t->tid_hash);
		t->tid_hash = h;
		t->hash_cap = cap;
		for (size_t k = 0; k < t->nthreads; k++) {
			size_t j = (t->threads[k].tid * 2654435761u) & (cap - 1);

			while (h[j])
				j = (j + 1) & (cap - 1);
			h[j] = (uint32_t)k + 1;
		}
		return thread_of(in, t, tid, add);
	}
	p = grow(t->threads, &t->threads_cap, t->nthreads, sizeof(*th));
	if (!p) {
		out_of_memory(in);
		return NONE;
	}
	t->threads = p;
	th = &t->threads[t->nthreads];
	*th = (struct thread){ .tid = tid, .pid = t->pid };
	t->tid_hash[i] = (uint32_t)++t->nthreads;
	return t->nthreads - 1;
}

static struct rec *new_rec(struct input *in, struct trace *t, size_t thread)
{
	struct rec *rc;
	void *p = grow(t->recs, &t->recs_cap, t->nrecs, sizeof(*t->recs));

	if (!p) {
		out_of_memory(in);
		return NULL;
	}
	t->recs = p;
	rc = &t->recs[t->nrecs];
	*rc = (struct rec){ .thread = (uint32_t)thread, .seq = t->nrecs,
			    .text = t->text_len };
	t->nrecs++;
	return rc;
}

/*
 * Version 1. u32 number of rings; per ring: u32 tid, u32 0, u64 events,
 * then the events, oldest first.
 */
static int read_rings(struct input *in, struct trace *t)
{
	uint32_t n;

	if (take_u32(in, &n, "the number of rings") ||
	    room(in, n, 16, "rings"))
		return -1;
	for (uint32_t r = 0; r < n; r++) {
		uint32_t tid, pad;	/* the recorder writes 0; not read */
		size_t th;
		uint64_t k;

		if (take_u32(in, &tid, "a ring's header") ||
		    take_u32(in, &pad, "a ring's header") ||
		    take_u64(in, &k, "a ring's header") ||
		    room(in, k, sizeof(struct event), "events"))
			return -1;
		th = thread_of(in, t, tid, true);
		if (th == NONE)
			return -1;
		for (uint64_t i = 0; i < k; i++) {
			struct rec *rc = new_rec(in, t, th);

			if (!rc)
				return -1;
			if (take(in, &rc->e, sizeof(rc->e), "an event"))
				return -1;
			if (rc->e.n > MAX_WORDS)
				return bad(in, "an event of %" PRIu32 " words "
					   "(at most %d) at byte %" PRIu64,
					   rc->e.n, MAX_WORDS,
					   in->off - sizeof(rc->e));
			t->threads[th].events++;
		}
	}
	if (fgetc(in->f) != EOF)
		return bad(in, "data after the last ring, at byte %" PRIu64,
			   in->off);
	return 0;
}

/* A version 2 record's body, as it is read: bounds and what was seen. */
struct body {
	const unsigned char *p, *end;
	uint64_t at;		/* the body's first byte in the file */
};

static bool need(struct body *b, size_t n)
{
	return (size_t)(b->end - b->p) >= n;
}

static uint32_t get32(struct body *b)
{
	uint32_t v;

	memcpy(&v, b->p, 4);
	b->p += 4;
	return v;
}

static uint64_t get64(struct body *b)
{
	uint64_t v;

	memcpy(&v, b->p, 8);
	b->p += 8;
	return v;
}

/* The thread a record names, which a thread record must have announced. */
static size_t known_thread(struct input *in, struct trace *t, uint32_t tid,
			   const char *what)
{
	size_t th = thread_of(in, t, tid, false);

	if (th == NONE)
		bad(in, "%s of thread %" PRIu32 ", which no thread record "
		    "named before", what, tid);
	return th;
}

/*
 * u32 tid, u32 count, then the events: u64 ns, u32 id, u32 info (bits
 * 0-7: words, 8-13: which are strings), the words (a string's: its length
 * and flags), then the strings' bytes.
 */
static int read_events(struct input *in, struct trace *t, struct body *b)
{
	uint32_t tid, count;
	size_t th;

	if (!need(b, 8))
		return bad(in, "an events record of %zu bytes, at byte %"
			   PRIu64, (size_t)(b->end - b->p), b->at);
	tid = get32(b);
	count = get32(b);
	th = known_thread(in, t, tid, "events");
	if (th == NONE)
		return -1;
	if (count > (size_t)(b->end - b->p) / 16)
		return bad(in, "%" PRIu32 " events in a record of %zu bytes, "
			   "at byte %" PRIu64, count,
			   (size_t)(b->end - b->p) + 8, b->at);
	for (uint32_t i = 0; i < count; i++) {
		struct rec *rc;
		uint32_t info, n, strs;
		size_t bytes = 0;

		if (!need(b, 16))
			return bad(in, "an event cut by its record's end, at "
				   "byte %" PRIu64, b->at);
		rc = new_rec(in, t, th);
		if (!rc)
			return -1;
		rc->e.ns = get64(b);
		rc->e.id = get32(b);
		info = get32(b);
		n = info & 0xff;
		strs = info >> 8;
		if (n > MAX_WORDS || strs >> n)
			return bad(in, "an event of %" PRIu32 " words, strings "
				   "0x%" PRIx32 " (at most %d words, strings "
				   "among them), in the record at byte %" PRIu64,
				   n, strs, MAX_WORDS, b->at);
		if (!need(b, 8 * (size_t)n))
			return bad(in, "an event cut by its record's end, at "
				   "byte %" PRIu64, b->at);
		rc->e.n = n;
		rc->strs = (uint8_t)strs;
		for (uint32_t w = 0; w < n; w++) {
			uint64_t v = get64(b), len = v & STR_LEN;

			rc->e.w[w] = v;
			if (!(strs >> w & 1))
				continue;
			if ((v & ~(uint64_t)(STR_LEN | STR_CUT | STR_NULL |
					     STR_LOST)) || len > STR_MAX ||
			    ((v & (STR_NULL | STR_LOST)) &&
			     (len || (v & STR_CUT) ||
			      (v & (STR_NULL | STR_LOST)) ==
				      (STR_NULL | STR_LOST))))
				return bad(in, "a string argument's word 0x%"
					   PRIx64 " (a length up to %d, and "
					   "one flag), in the record at byte %"
					   PRIu64, v, STR_MAX, b->at);
			bytes += len;
		}
		if (!need(b, bytes))
			return bad(in, "strings cut by their record's end, at "
				   "byte %" PRIu64, b->at);
		/* >=: the text is never NULL once an event has a string. */
		while (t->text_len + bytes >= t->text_cap && rc->strs) {
			void *p = grow(t->text, &t->text_cap, t->text_cap, 1);

			if (!p)
				return out_of_memory(in);
			t->text = p;
		}
		if (bytes)
			memcpy(t->text + t->text_len, b->p, bytes);
		b->p += bytes;
		t->text_len += bytes;
		t->threads[th].events++;
	}
	if (b->p != b->end)
		return bad(in, "%zu bytes after the events of the record at "
			   "byte %" PRIu64, (size_t)(b->end - b->p), b->at);
	return 0;
}

/* Whether one of @n types is none the recorder writes. */
static bool bad_types(const uint8_t *type, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		unsigned int kind = type[i] >> 4, size = type[i] & 15;

		if (kind == 8 ? size != 0 :
		    kind == 7 ? size != 4 && size != 8 :
		    kind < 1 || kind > 9 ||
		    (size != 1 && size != 2 && size != 4 && size != 8 &&
		     kind != 9) || !size)
			return true;
	}
	return false;
}

static int read_record(struct input *in, struct trace *t, uint32_t type,
		       struct body *b)
{
	size_t len = (size_t)(b->end - b->p), th;
	uint32_t h[4];

	switch (type) {
	case REC_NAME:
		if (len < 16)
			break;
		for (int i = 0; i < 4; i++)
			h[i] = get32(b);
		/* Version 3: each parameter's type after the args. */
		if (h[1] <= MAX_WORDS && h[2] <= MAX_NAME && h[3] <= MAX_NAME &&
		    len != 16 + (size_t)h[2] + h[3] +
			   (t->version >= 3 ? h[1] : 0))
			break;
		if (t->version >= 3 && h[1] <= MAX_WORDS &&
		    h[2] <= MAX_NAME && h[3] <= MAX_NAME &&
		    bad_types(b->p + h[2] + h[3], h[1]))
			return bad(in, "tracepoint %" PRIu32 ": a parameter "
				   "of an unknown type, at byte %" PRIu64,
				   h[0], b->at);
		return add_name(in, t, h, (const char *)b->p,
				t->version >= 3 ? b->p + h[2] + h[3] : NULL);
	case REC_THREAD:
		if (len < 12)
			break;
		h[0] = get32(b);	/* tid */
		h[1] = get32(b);	/* pid */
		h[2] = get32(b);	/* name length */
		if (h[2] > MAX_NAME)
			return bad(in, "thread %" PRIu32 ": a name of %" PRIu32
				   " bytes (at most %d)", h[0], h[2], MAX_NAME);
		if (len != 12 + (size_t)h[2])
			break;
		th = thread_of(in, t, h[0], true);
		if (th == NONE)
			return -1;
		/* Again: it was renamed; the last name wins. */
		t->threads[th].pid = h[1];
		t->threads[th].named = true;
		t->threads[th].name_len = (uint16_t)h[2];
		return pool_add(in, t, b->p, h[2], &t->threads[th].name_off);
	case REC_EVENTS:
		return read_events(in, t, b);
	case REC_LOST:
		if (len != 16)
			break;
		h[0] = get32(b);
		h[1] = get32(b);
		th = known_thread(in, t, h[0], "lost events");
		if (th == NONE)
			return -1;
		{
			struct rec *rc = new_rec(in, t, th);

			if (!rc)
				return -1;
			rc->lost = true;
			rc->e.w[0] = get64(b);
			t->threads[th].lost += rc->e.w[0];
		}
		return 0;
	case REC_END:
		if (len)
			break;
		t->ended = true;
		return 0;
	default:
		return bad(in, "a record of type %" PRIu32 " at byte %" PRIu64
			   " (types 1 to 5)", type, b->at - 8);
	}
	return bad(in, "a record of type %" PRIu32 " and %zu bytes at byte %"
		   PRIu64 ": not its size", type, len, b->at - 8);
}

/*
 * Version 2: records of u32 type, u32 length, the body; the end record
 * last, and nothing after it.
 */
static int read_records(struct input *in, struct trace *t)
{
	for (;;) {
		uint32_t h[2];
		struct body b;
		int c = fgetc(in->f);

		if (c == EOF) {
			if (ferror(in->f))
				return bad(in, "read error: %s",
					   strerror(errno));
			return bad(in, "truncated at byte %" PRIu64 ": no end "
				   "record", in->off);
		}
		ungetc(c, in->f);
		if (t->ended)
			return bad(in, "data after the end record, at byte %"
				   PRIu64, in->off);
		if (take(in, h, sizeof(h), "a record's header"))
			return -1;
		if (h[1] > MAX_RECORD - 8)
			return bad(in, "a record of %" PRIu32 " bytes at byte %"
				   PRIu64 " (at most %d)", h[1], in->off - 8,
				   MAX_RECORD - 8);
		if (room(in, h[1], 1, "bytes of a record"))
			return -1;
		/* >=: never NULL, even for an empty body. */
		if (h[1] >= t->body_cap) {
			void *p = realloc(t->body, h[1] + 1);

			if (!p)
				return out_of_memory(in);
			t->body = p;
			t->body_cap = h[1] + 1;
		}
		b = (struct body){ t->body, t->body + h[1], in->off };
		if (take(in, t->body, h[1], "a record") ||
		    read_record(in, t, h[0], &b))
			return -1;
		if (t->ended) {
			c = fgetc(in->f);
			if (c != EOF)
				return bad(in, "data after the end record, at "
					   "byte %" PRIu64, in->off);
			return 0;
		}
	}
}

static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->e.ns != y->e.ns)
		return x->e.ns < y->e.ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The length of @s without @suffix, if it ends with it (and is longer). */
static size_t cut_suffix(const char *s, size_t len, const char *suffix)
{
	size_t b = strlen(suffix);

	return len > b && !memcmp(s + len - b, suffix, b) ? len - b : 0;
}

static const struct trace *stem_trace;	/* for by_stem, in qsort */

static int by_stem(const void *a, const void *b)
{
	const struct name *x = stem_trace->names + *(const size_t *)a;
	const struct name *y = stem_trace->names + *(const size_t *)b;
	size_t n = x->stem < y->stem ? x->stem : y->stem;
	int c = memcmp(stem_trace->pool + x->off, stem_trace->pool + y->off, n);

	return c ? c : (x->stem > y->stem) - (x->stem < y->stem);
}

/*
 * Each name's kind and stem ("req" of "req_start"), and a class per stem:
 * a start and an end pair when their classes are the same.
 */
static int classify(struct input *in, struct trace *t)
{
	size_t *idx = malloc((t->nnames + 1) * sizeof(*idx)), n = 0;
	uint32_t class = 0;

	if (!idx)
		return out_of_memory(in);
	for (size_t i = 0; i < t->nnames; i++) {
		struct name *nm = &t->names[i];
		const char *s = t->pool + nm->off;
		size_t cut;

		if ((cut = cut_suffix(s, nm->len, "_begin")) ||
		    (cut = cut_suffix(s, nm->len, "_start")))
			nm->kind = KIND_START;
		else if ((cut = cut_suffix(s, nm->len, "_end")) ||
			 (cut = cut_suffix(s, nm->len, "_done")))
			nm->kind = KIND_END;
		else
			cut = nm->len;
		nm->stem = (uint16_t)cut;
		if (nm->kind != KIND_INSTANT)
			idx[n++] = i;
	}
	stem_trace = t;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), by_stem);
	for (size_t i = 0; i < n; i++) {
		if (i && by_stem(&idx[i - 1], &idx[i]))
			class++;
		t->names[idx[i]].class = class;
	}
	free(idx);
	return 0;
}

static const struct name *find(const struct trace *t, uint32_t id)
{
	struct name key = { .id = id };

	return t->nnames ? bsearch(&key, t->names, t->nnames,
				   sizeof(*t->names), by_id) : NULL;
}

/*
 * Slices, per thread in time order: a start opens one; an end closes the
 * innermost open one of its stem (within MATCH_DEPTH), and the ones
 * opened inside it that never ended stay instants. What does not pair is
 * an instant. So the slices nest, as B/E events must.
 */
static void pair(struct trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].top = NONE;
	for (size_t i = 0; i < t->nrecs; i++) {
		struct rec *r = &t->recs[i];
		struct thread *th = &t->threads[r->thread];
		const struct name *nm;
		size_t at = th->top;

		r->match = NONE;
		if (r->lost || r->name == NONE)
			continue;
		nm = &t->names[r->name];
		if (nm->kind == KIND_START) {
			r->below = th->top;
			th->top = i;
			continue;
		}
		if (nm->kind != KIND_END)
			continue;
		for (int depth = 0; at != NONE && depth < MATCH_DEPTH; depth++) {
			const struct name *open = &t->names[t->recs[at].name];

			if (open->class == nm->class)
				break;
			at = t->recs[at].below;
		}
		if (at == NONE || t->names[t->recs[at].name].class != nm->class)
			continue;
		r->match = at;
		t->recs[at].match = i;
		th->top = t->recs[at].below;
	}
}

/*
 * A lost count has no time of its own: it is shown where its thread's
 * next event is (or its last, or the first of all).
 */
static void place_lost(struct trace *t)
{
	uint64_t first = UINT64_MAX;
	bool any = false;

	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].top = NONE;	/* the next event's index */
	for (size_t i = t->nrecs; i-- > 0;) {
		struct rec *r = &t->recs[i];

		if (!r->lost) {
			t->threads[r->thread].top = i;
			first = r->e.ns < first ? r->e.ns : first;
			continue;
		}
		if (t->threads[r->thread].top != NONE) {
			r->e.ns = t->recs[t->threads[r->thread].top].e.ns;
			r->below = 0;
		} else {
			r->below = NONE;
			any = true;
		}
	}
	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].top = NONE;	/* the last event's index */
	for (size_t i = 0; i < t->nrecs && any; i++) {
		struct rec *r = &t->recs[i];

		if (!r->lost)
			t->threads[r->thread].top = i;
		else if (r->below == NONE)
			r->e.ns = t->threads[r->thread].top != NONE ?
				  t->recs[t->threads[r->thread].top].e.ns :
				  first != UINT64_MAX ? first : 0;
	}
}

int read_trace(struct input *in, struct trace *t)
{
	if (read_header(in, t))
		return -1;
	if (t->version == 1 ? read_names(in, t) || read_rings(in, t) :
			      read_records(in, t))
		return -1;
	if (ferror(in->f))
		return bad(in, "read error: %s", strerror(errno));
	/* Not qsort(NULL, 0): its array must not be NULL, even empty. */
	if (t->nnames > 1)
		qsort(t->names, t->nnames, sizeof(*t->names), by_id);
	for (size_t i = 1; i < t->nnames; i++)
		if (t->names[i].id == t->names[i - 1].id)
			return bad(in, "tracepoint id %" PRIu32 " is named "
				   "twice", t->names[i].id);
	if (classify(in, t))
		return -1;
	place_lost(t);
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct name *nm = t->recs[i].lost ? NULL :
					find(t, t->recs[i].e.id);

		t->recs[i].name = nm ? (size_t)(nm - t->names) : NONE;
	}
	if (t->nrecs > 1)
		qsort(t->recs, t->nrecs, sizeof(*t->recs), by_time);
	pair(t);
	return 0;
}

void free_trace(struct trace *t)
{
	free(t->names);
	free(t->pool);
	free(t->text);
	free(t->recs);
	free(t->threads);
	free(t->tid_hash);
	free(t->body);
	*t = (struct trace){ 0 };
}

const char *name_of(const struct trace *t, const struct name *nm)
{
	return nm ? t->pool + nm->off : "unknown";
}

const struct name *rec_name(const struct trace *t, const struct rec *r)
{
	return r->name == NONE ? NULL : &t->names[r->name];
}

void arg_of(const struct trace *t, const struct rec *r, uint32_t a,
	    struct arg *out)
{
	const struct name *nm = rec_name(t, r);
	size_t off = r->text;

	*out = (struct arg){ .w = r->e.w[a], .str = r->strs >> a & 1,
			     .type = nm && a < MAX_WORDS ? nm->type[a] : 0 };
	if (nm && a < nm->nargs && nm->arg_len[a]) {
		out->name = t->pool + nm->off + nm->len + nm->arg_off[a];
		out->name_len = nm->arg_len[a];
	}
	if (!out->str)
		return;
	for (uint32_t i = 0; i < a; i++)
		if (r->strs >> i & 1)
			off += r->e.w[i] & STR_LEN;
	out->bytes = t->text + off;
	out->len = out->w & STR_LEN;
}
