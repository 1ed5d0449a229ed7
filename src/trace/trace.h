/* SPDX-License-Identifier: MIT */
/*
 * src/trace/trace.h - tracepoints (<ulsm/tracepoint.h>), inside the
 * library: the registry (tracepoint.c) and the recorder (recorder.c, its
 * rings; recording.c, its streams and file; ring.h between them).
 * Never installed; hidden visibility, as in src/base/base.h.
 */
#ifndef ULSM_SRC_TRACE_H
#define ULSM_SRC_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ulsm/tracepoint.h>

/*
 * The recorder's file, version 3 (docs/tracepoints.md has the whole
 * layout; tools/ulsm-trace.c reads it, and version 1): a header, then
 * records of a u32 type and a u32 length, each whole, in native byte
 * order. The same bytes whether written by ulsm_trace_write() or sent by
 * a stream. Version 3 adds each parameter's type (enum ulsm_tp_type) to
 * a name record.
 */
#define ULSM_TRACE_MAGIC	"ULSMTRC1"
#define ULSM_TRACE_VERSION	3

enum ulsm_trace_record {
	ULSM_TREC_NAME = 1,	/* a tracepoint's id, name and parameters */
	ULSM_TREC_THREAD,	/* a thread: tid, pid, name (again if renamed) */
	ULSM_TREC_EVENTS,	/* events of a thread */
	ULSM_TREC_LOST,		/* events of a thread lost before they were read */
	ULSM_TREC_END,		/* nothing follows */
};

/* The parameters a tracepoint has at most, and the recorder keeps. */
#define ULSM_TRACE_MAX_ARGS	6
/* The bytes of a string argument that are kept; a longer one is cut. */
#define ULSM_TRACE_STR_MAX	256
/* A string argument's word, in the file: its length and what it was. */
#define ULSM_TRACE_STR_LEN	0xfffu		/* bytes that follow */
#define ULSM_TRACE_STR_CUT	(1u << 12)	/* it was longer */
#define ULSM_TRACE_STR_NULL	(1u << 13)	/* a NULL pointer */
#define ULSM_TRACE_STR_LOST	(1u << 14)	/* overwritten before read */
/* The recorder's records are at most this long, their header included. */
#define ULSM_TRACE_RECORD_MAX	65536
/* The smallest @max a stream's read accepts: every record fits in it. */
#define ULSM_TRACE_STREAM_MIN	16384

/*
 * A tracepoint's name and parameters for the file, kept after its object
 * is unloaded (its events may still be in the buffers). Trace lock held.
 */
typedef void ulsm_trace_name_fn(void *arg, uint32_t id, const char *name,
				const char *args, int nargs,
				const unsigned char *types);
void ulsm_trace_names(ulsm_trace_name_fn *emit, void *arg);
/*
 * The same, waiting at most @wait_ms milliseconds for the trace lock (-1:
 * as long as it takes): 0, or -EBUSY and nothing emitted. The recorder
 * asks from inside a probe (wait 0: a thread that attaches may hold the
 * lock while it waits for the probe) and at exit.
 */
int ulsm_trace_names_wait(ulsm_trace_name_fn *emit, void *arg, int wait_ms);

/*
 * ULSM_TRACE's globs, "glob,glob,...": the next one in *@rest, cut out in
 * place (its comma becomes a NUL), empty ones skipped; NULL at the end.
 * One reading of the list for the registry and the recorder's report,
 * and what tests/fuzz/fuzz_trace_glob.c feeds to ulsm_trace_enable().
 */
char *ulsm_trace_next_glob(char **rest);

/* The list of tracepoints, their state and probes, for ulsm_dump(). */
void ulsm_trace_dump(FILE *f);

/*
 * What the control endpoint's show says of a tracepoint: its name and
 * parameters, its probes, whether the recorder is one, whether a USDT
 * tracer listens, and its hits since counting began (@counted).
 */
struct ulsm_trace_info {
	const char *name, *args;
	int probes;
	bool recorder, usdt, counted;
	unsigned long hits;
};

/*
 * Each loaded tracepoint (trace lock held while @fn runs). Waits at most
 * @wait_ms for the trace lock (-1: as long as it takes): 0 or -EBUSY
 * (nothing given).
 */
int ulsm_trace_each(void (*fn)(void *arg, const struct ulsm_trace_info *i),
		    void *arg, int wait_ms);

/*
 * Each tracepoint's own probe (its USDT probe, which counts hits),
 * attached while a USDT tracer listens at it or hits are counted, and
 * detached when neither holds: look now (waiting at most @wait_ms for the
 * trace lock; -1: as long as it takes). Return how many changed, or a
 * negative errno (-EBUSY: the lock was busy; nothing changed).
 */
int ulsm_trace_usage_sync(int wait_ms);
/*
 * Count every tracepoint's hits (the control endpoint's counts), until
 * the matching ulsm_trace_count_end(): 0 or a negative errno.
 */
int ulsm_trace_count_begin(void);
void ulsm_trace_count_end(void);

/*
 * How often the USDT semaphores are looked at, by the watcher below or
 * by the control endpoint's thread: nothing tells the process that a
 * tracer attached.
 */
#define ULSM_USDT_POLL_MS	100

/* ULSM_USDT=1: a thread that looks every ULSM_USDT_POLL_MS (usdt.c). */
void ulsm_trace_usdt_from_env(void);
/*
 * The environment's values (NULL: unset), read apart from their use so
 * that tests/fuzz/fuzz_env.c can give them any bytes (ULSM_USDT's:
 * ulsm_env_flag(), src/base/config.c). ULSM_TRACE_BUF (recorder.c): events per ring, 64 to 2^24 rounded up to
 * a power of two, else the default with *@bad set.
 */
uint32_t ulsm_trace_buf_parse(const char *s, bool *bad);
/*
 * One look at the USDT semaphores: the tracepoints' own probes, and the
 * hook sets traced for a tracer at their tracepoint (usdt.c).
 */
void ulsm_trace_usdt_look(void);

/*
 * The tracepoint lock's fork handlers (src/init.c registers them, first
 * in the lock order: prepared first); release in the parent and child.
 */
void ulsm_trace_fork_prepare(void);
void ulsm_trace_fork_release(void);
/* The recorder's (recorder.c, no lock): a child records into rings of its own. */
void ulsm_trace_recorder_atfork_init(void);

/*
 * A reader of the recorder's rings while threads write them
 * (recording.c; the control endpoint streams a recording over its
 * socket, src/control/): it sends what was recorded since it was opened,
 * as the bytes of a recording file (version 3, docs/tracepoints.md), in
 * pieces. Lock-free with respect to the threads that record; one stream
 * at a time may be open (-EBUSY). One thread at a time calls a stream's
 * functions.
 *
 * ulsm_trace_stream_open: from now on (events recorded before are not
 * sent). 0, -EBUSY or -ENOMEM.
 * ulsm_trace_stream_read: give @sink at most @max bytes (at least
 * ULSM_TRACE_STREAM_MIN, else -EINVAL) of what is new: the file's header
 * first; then names, threads, events and the count of events the rings
 * overwrote before they were read, per thread; each piece given to @sink
 * is whole records, never a record cut in two. It reads what was
 * recorded when it was called, not what is recorded while it runs, so it
 * ends. Events that ulsm_trace_clear() cleared are skipped, not counted
 * as lost. Return the bytes given (0: nothing new), or a negative errno.
 * @final: also what ends the file (the threads' names as they are now,
 * then the end): what was recorded up to the first final read, and no
 * more, is sent by the final reads; call it again until it returns 0.
 * ulsm_trace_stream_close: forget the stream.
 */
struct ulsm_trace_stream;

int ulsm_trace_stream_open(struct ulsm_trace_stream **s);
long ulsm_trace_stream_read(struct ulsm_trace_stream *s,
			    void (*sink)(void *arg, const void *bytes,
					 size_t n),
			    void *arg, size_t max, bool final);
void ulsm_trace_stream_close(struct ulsm_trace_stream *s);

#endif /* ULSM_SRC_TRACE_H */
