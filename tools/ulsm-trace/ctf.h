/* SPDX-License-Identifier: MIT */
/*
 * ctf.h - ulsm-trace --ctf: a recording as a CTF 1.8 trace (the Common
 * Trace Format), which babeltrace2 and Trace Compass open.
 *
 * A trace is a directory: "metadata" (TSDL, the text that describes the
 * binary layout) and one stream file per thread, "stream_<tid>". ctf.c
 * writes the files through a sink, so that the format knows nothing of
 * where they go; ctfdir.c is the sink that makes the directory, all or
 * nothing. docs/tracepoints.md ("CTF") says which fields and why.
 *
 *	struct ctf_opts o = { 0 };
 *	char why[200];
 *
 *	if (ctf_dir_write("out", &t, &o, why, sizeof(why)))
 *		fprintf(stderr, "out: %s\n", why);
 */
#ifndef ULSM_TRACE_CTF_H
#define ULSM_TRACE_CTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reader.h"

struct ctf_opts {
	/*
	 * The clock's offset (CLOCK_REALTIME at CLOCK_MONOTONIC's 0, in ns),
	 * with @wall_clock; otherwise 0 and the times read as recorded.
	 */
	int64_t offset_ns;
	bool wall_clock;
};

/*
 * Where the trace's files go. @create: a new file @name ("metadata",
 * "stream_<tid>"), open for writing, or NULL with errno set. @close: the
 * file is complete: 0, or a negative errno (a write that failed).
 */
struct ctf_sink {
	FILE *(*create)(struct ctf_sink *sink, const char *name);
	int (*close)(struct ctf_sink *sink, FILE *f);
};

/*
 * ctf_write - write @t as a CTF trace into @sink
 * @t:    a trace read_trace() accepted
 * @o:    the clock's options
 * @sink: where the files go
 *
 * Linear in the trace: one pass to find the event classes, one per
 * thread to write its stream (one file open at a time, a packet of at
 * most 64 KiB of events in memory).
 *
 * Return: 0, or a negative errno (-ENOMEM, or the sink's).
 */
int ctf_write(const struct trace *t, const struct ctf_opts *o,
	      struct ctf_sink *sink);

/*
 * ctf_fits - whether @t's times can be a CTF trace's: a reader counts
 * them (plus the clock's offset) in signed 64-bit nanoseconds from the
 * clock's origin, so a time past 2^63 - 1 (292 years of CLOCK_MONOTONIC:
 * a corrupt file) cannot be read.
 *
 * Return: 0, or -ERANGE with @why saying it in words.
 */
int ctf_fits(const struct trace *t, const struct ctf_opts *o, char *why,
	     size_t why_len);

/*
 * ctf_dir_usable - whether @dir could receive a trace: it does not exist,
 * or is an empty directory; and its parent is a directory.
 *
 * Return: 0, or a negative errno (-EEXIST: there and not an empty
 * directory), with @why saying it in words.
 */
int ctf_dir_usable(const char *dir, char *why, size_t why_len);

/*
 * ctf_dir_write - write @t as a CTF trace into the new directory @dir
 * @dir: must not exist, or be an empty directory
 *
 * The files are written into a fresh directory beside @dir, which is
 * then renamed to @dir: a failure (a full disk, @dir made meanwhile)
 * removes what was written and leaves no trace at @dir.
 *
 * Return: 0, or a negative errno with @why saying it in words.
 */
int ctf_dir_write(const char *dir, const struct trace *t,
		  const struct ctf_opts *o, char *why, size_t why_len);

#endif
