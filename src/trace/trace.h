/* SPDX-License-Identifier: MIT */
/*
 * src/trace/trace.h - tracepoints (<ulsm/tracepoint.h>), inside the
 * library: the registry (tracepoint.c) and the recorder (recorder.c).
 * Never installed; hidden visibility, as in src/base/base.h.
 */
#ifndef ULSM_SRC_TRACE_H
#define ULSM_SRC_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include <ulsm/tracepoint.h>

/* One recorded event: 64 bytes, as written to the file. */
struct ulsm_trace_event {
	uint64_t ns;		/* CLOCK_MONOTONIC */
	uint32_t id;		/* the tracepoint's */
	uint32_t n;		/* words of arguments */
	uint64_t w[6];
};

#define ULSM_TRACE_MAGIC	"ULSMTRC1"

/*
 * A tracepoint's name and parameters for the file, kept after its object
 * is unloaded (its events may still be in the buffers). Trace lock held.
 */
void ulsm_trace_names(void (*emit)(void *arg, uint32_t id,
				    const char *name, const char *args,
				    int nargs),
		      void *arg);

/* The list of tracepoints, their state and probes, for ulsm_dump(). */
void ulsm_trace_dump(FILE *f);

#endif /* ULSM_SRC_TRACE_H */
