/* SPDX-License-Identifier: MIT */
/*
 * bench/lttng/tpbench_tp.h - bench_tracepoint's LTTng-UST tracepoint
 * provider, written as LTTng-UST 2.13's documentation (lttng-ust(3),
 * "Tracepoint provider") says: this header declares the events, and
 * tpbench_tp.c, with LTTNG_UST_TRACEPOINT_CREATE_PROBES and
 * LTTNG_UST_TRACEPOINT_DEFINE, includes it once more to generate the
 * probes (the code that writes an event into the ring buffer) and the
 * tracepoints' state; the program is linked with -llttng-ust -ldl.
 *
 *   tpbench:off   the OFF candidates' event: never enabled, so the site is
 *                 a load of its state word and a branch not taken
 *   tpbench:on    enabled by bench/lttng/session.sh in a snapshot session
 *                 (an in-memory flight recorder, as ulsm's recorder is)
 *
 * Two arguments, recorded as two integers, as ulsm's tracepoints in the
 * benchmark take.
 *
 * LTTNG_UST_COMPAT_API_VERSION 1: without it, <lttng/tracepoint.h> also
 * defines the pre-2.13 names, among them TP_ARGS, which <ulsm/tracepoint.h>
 * defines too (the kernel's name).
 */
#ifndef LTTNG_UST_COMPAT_API_VERSION
#define LTTNG_UST_COMPAT_API_VERSION 1
#endif

#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tpbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "tpbench_tp.h"

#if !defined(TPBENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TPBENCH_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(
	tpbench, off,
	LTTNG_UST_TP_ARGS(long, a, long, b),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(long, a, a)
		lttng_ust_field_integer(long, b, b)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(
	tpbench, on,
	LTTNG_UST_TP_ARGS(long, a, long, b),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(long, a, a)
		lttng_ust_field_integer(long, b, b)
	)
)

#endif /* TPBENCH_TP_H */

#include <lttng/tracepoint-event.h>
