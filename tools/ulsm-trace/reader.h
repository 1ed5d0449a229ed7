/* SPDX-License-Identifier: MIT */
/*
 * reader.h - ulsm-trace's model of a recording, and the reader that
 * fills it from a file or a pipe (reader.c).
 *
 * The recording may come from elsewhere: truncated, corrupted, or made
 * to do harm. So every count and length is checked against the format's
 * limits and, when the file's size is known, against the bytes that are
 * left, before a loop or an allocation depends on it; arrays grow with
 * what was read, never with what the file announces. Names may hold any
 * byte: each output escapes them its own way. The format is
 * src/trace/recording.c's and docs/tracepoints.md's ("The file").
 *
 *	struct input in = { .f = f, .size = SIZE_UNKNOWN };
 *	struct trace t = { 0 };
 *
 *	if (read_trace(&in, &t))
 *		fprintf(stderr, "%s\n", in.msg);
 *	...
 *	free_trace(&t);
 *
 * After read_trace(), t.recs holds the events and the lost counts in time
 * order (equal times in the file's order), each with its name and, for a
 * slice's start or end, its other end; the outputs only read the trace.
 */
#ifndef ULSM_TRACE_READER_H
#define ULSM_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_MAGIC	"ULSMTRC1"
/* The recorder's words per event (src/trace/recorder.c). */
#define MAX_WORDS	6
/*
 * A name or an argument list longer than this is not a tracepoint's
 * (C identifiers): it bounds what one name costs, in memory and output.
 */
#define MAX_NAME	4096
#define SIZE_UNKNOWN	UINT64_MAX
/* Version 2 (src/trace/trace.h): records, and string arguments. */
enum { REC_NAME = 1, REC_THREAD, REC_EVENTS, REC_LOST, REC_END };
#define MAX_RECORD	65536		/* a record, its header included */
#define STR_MAX		256		/* bytes of a string argument */
#define STR_LEN		0xfffu
#define STR_CUT		(1u << 12)
#define STR_NULL	(1u << 13)
#define STR_LOST	(1u << 14)
/* How far down a thread's open slices an end looks for its start. */
#define MATCH_DEPTH	32
#define NONE		SIZE_MAX

/* One event as the recorder writes it (version 1): 64 bytes. */
struct event {
	uint64_t ns;
	uint32_t id;
	uint32_t n;
	uint64_t w[MAX_WORDS];
};
_Static_assert(sizeof(struct event) == 64, "the file's event is 64 bytes");

/*
 * An event, or a count of lost ones (@lost: the count is w[0]). A string
 * argument's word is its length and flags (STR_*); its bytes are at
 * @text in the trace's text pool, one after the other.
 */
struct rec {
	struct event e;
	uint8_t strs;		/* which words are strings */
	bool lost;
	uint32_t thread;	/* index in the trace's threads */
	size_t seq;		/* order in the file: equal times keep it */
	size_t text;
	size_t name;		/* index in the names, or NONE */
	size_t match;		/* the other end of its slice, or NONE */
	size_t below;		/* while pairing: the open slice under it */
};

/*
 * A tracepoint's name and its arguments' names ("fd, len" split at the
 * commas), as offsets into the trace's pool of name bytes: one allocation
 * for them all, so that many short names cost what they weigh.
 */
struct name {
	uint32_t id;
	uint32_t off;		/* of the name in the pool; the args follow */
	uint16_t len, args_len;
	uint16_t arg_off[MAX_WORDS], arg_len[MAX_WORDS];
	uint8_t nargs;		/* argument names found */
	uint8_t type[MAX_WORDS];	/* enum ulsm_tp_type; 0: untyped */
	uint8_t kind;		/* KIND_* */
	uint16_t stem;		/* its length without the suffix */
	uint32_t class;		/* names with the same stem share it */
};

enum { KIND_INSTANT, KIND_START, KIND_END };

struct thread {
	uint32_t tid, pid;
	uint32_t name_off;	/* in the pool */
	uint16_t name_len;
	bool named;
	uint64_t events, lost;
	size_t top;		/* while pairing: its innermost open slice */
};

struct trace {
	uint32_t version, pid;
	uint32_t cmd_off;
	uint16_t cmd_len;
	bool ended;
	struct name *names;
	size_t nnames, names_cap;
	char *pool;
	size_t pool_len, pool_cap;
	char *text;
	size_t text_len, text_cap;
	struct rec *recs;
	size_t nrecs, recs_cap;
	struct thread *threads;
	size_t nthreads, threads_cap;
	uint32_t *tid_hash;	/* thread index + 1 by tid, or 0 */
	size_t hash_cap;
	unsigned char *body;	/* a version 2 record being read */
	size_t body_cap;
};

struct input {
	FILE *f;
	uint64_t off;		/* bytes read */
	uint64_t size;		/* the bytes left at the start, or SIZE_UNKNOWN */
	char msg[200];		/* why the file was refused */
};

/* Argument @a of an event: its name, and where its string's bytes are. */
struct arg {
	const char *name;	/* NULL: unnamed ("arg") */
	size_t name_len;
	bool str;
	uint64_t w;
	const char *bytes;	/* a string's */
	size_t len;
	uint8_t type;		/* enum ulsm_tp_type; 0: untyped (a word) */
};

/* The whole file, or -1 with in->msg saying why not. */
int read_trace(struct input *in, struct trace *t);
void free_trace(struct trace *t);

/* A record's tracepoint, or NULL (lost events, or an id never named). */
const struct name *rec_name(const struct trace *t, const struct rec *r);
/* A tracepoint's name (its length is nm->len), or "unknown" for NULL. */
const char *name_of(const struct trace *t, const struct name *nm);
void arg_of(const struct trace *t, const struct rec *r, uint32_t a,
	    struct arg *out);

#endif
