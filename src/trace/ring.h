/* SPDX-License-Identifier: MIT */
/*
 * src/trace/ring.h - the recorder's per-thread rings, between the two
 * files that share them: recorder.c makes them and writes them (each
 * ring by its own thread, with no lock), and recording.c reads them
 * while threads write (a stream, or the file). recorder.c's opening
 * comment has the protocol that makes such a read safe: the claim, the
 * fences, and what a reader drops as lost. Never installed; hidden
 * visibility, as in src/base/base.h.
 */
#ifndef ULSM_SRC_TRACE_RING_H
#define ULSM_SRC_TRACE_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/trace.h"

#define SLOT_WORDS	8	/* ns, id and info, six words */
#define MAX_ARGS	ULSM_TRACE_MAX_ARGS
#define NAME_LEN	16	/* a thread's name, as the kernel keeps it */
#define POS_BITS	48	/* a string's place in its text ring (words) */
#define POS_MASK	((1ull << POS_BITS) - 1)

/* A thread's text ring: the bytes of its string arguments. */
struct text {
	uint64_t head;		/* words announced: written or being written */
	uint64_t cap;		/* words, a power of two */
	uint64_t w[];
};

/*
 * A slot is ns, then the tracepoint's id and the info (bits 0-7: words,
 * 8-13: which of them are strings) in one word, then the words. A
 * string's word is its length and flags (ULSM_TRACE_STR_*) in bits 0-15
 * and its place in the text ring in bits 16-63.
 */
struct ring {
	uint64_t head;		/* events written, ever: the owner's */
	uint64_t claimed;	/* events written or being written */
	uint64_t start;		/* events before it were cleared */
	uint32_t cap;		/* events, a power of two */
	uint32_t tid, pid;
	uint32_t name_seq;	/* odd while the owner changes @name */
	uint64_t name[2];	/* the thread's name, NUL-padded */
	uint32_t exited;	/* the thread is gone (its key's destructor) */
	bool text_failed;	/* the owner's: no memory for the text ring */
	struct text *text;	/* made at the first string (release) */
	struct ring *next;
	uint64_t ev[][SLOT_WORDS];
};

/*
 * Every thread's ring, newest first: pushed with a release CAS by
 * recorder.c, never removed, so a reader that loads the head with
 * acquire may walk the list while rings are added.
 */
extern struct ring *ulsm_trace_rings __attribute__((visibility("hidden")));

/*
 * @r's thread's name now: the kernel's for a thread of this process that
 * is still there, else the one its ring kept (recorder.c).
 */
void ulsm_trace_ring_name(const struct ring *r, char out[NAME_LEN]);

/*
 * ULSM_TRACE's globs that match no tracepoint, reported (recorder.c):
 * once when the recorder is first used (a thread's first event, the
 * first file or stream), or, with @at_exit, those that never matched.
 */
void ulsm_trace_env_check(bool at_exit);
/*
 * At exit, before the file is written: the report of the first use is
 * not made any more, only the one at exit.
 */
void ulsm_trace_env_exiting(void);

#endif /* ULSM_SRC_TRACE_RING_H */
