/* SPDX-License-Identifier: MIT */
/*
 * ctf_writer.h - the CTF writer's own state, shared by its two halves:
 * ctf.c (the event classes and the binary streams) and tsdl.c (the
 * metadata, which describes them). Not the tools' interface: that is
 * ctf.h.
 *
 * The packet header and context are laid out twice, as bytes here
 * (OFF_*) and as TSDL in tsdl.c's stream block: the two change together.
 */
#ifndef ULSM_TRACE_CTF_WRITER_H
#define ULSM_TRACE_CTF_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "ctf.h"
#include "output.h"

/*
 * The packet header (magic, uuid, stream_id) and context, in bytes from
 * the packet's start, each field naturally aligned: tsdl.c's stream
 * block declares them in this order.
 */
enum {
	OFF_BEGIN = 24, OFF_END = 32, OFF_CONTENT = 40, OFF_SIZE = 48,
	OFF_SEQ = 56, OFF_DISCARDED = 64, OFF_TID = 72, OFF_PID = 76,
	OFF_NAME = 80,
};

/* An event class: a tracepoint (or none) and the shape of its events. */
struct cclass {
	size_t name;		/* index in the trace's names, or NONE */
	uint8_t n, strs;	/* words, and which are strings */
	uint8_t kind[MAX_WORDS];	/* enum value_kind */
	uint8_t size[MAX_WORDS];	/* bytes */
	uint8_t align;		/* the payload's: its widest field's */
};

struct ctf {
	const struct trace *t;
	const struct ctf_opts *o;
	struct ctf_sink *sink;
	struct cclass *cls;
	size_t ncls, cls_cap;
	uint32_t *hash;		/* class index + 1, by (name, n, strs) */
	size_t hash_cap;
	uint32_t *rec_cls;	/* each event's class */
	size_t *order;		/* the records by thread, each in time order */
	size_t *first;		/* thread i's are order[first[i]..first[i+1]) */
	unsigned char uuid[16];
	unsigned char *buf;	/* the packet being built */
	size_t len, cap;
};

/* The metadata of @c's classes, into the sink's "metadata": 0 or -errno. */
int ctf_metadata(struct ctf *c);

#endif
