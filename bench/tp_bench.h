/* SPDX-License-Identifier: MIT */
/*
 * bench/tp_bench.h - bench_tracepoint's ulsm tracepoints, declared in a
 * header as <ulsm/tracepoint.h> says (bench_tracepoint.c defines them).
 * Not merely style: DECLARE_TRACEPOINT also makes static inline
 * register_trace_NAME() and unregister_trace_NAME(), and clang's
 * -Wunused-function reports those that a .c file declaring them itself
 * does not use; from a header it does not.
 *
 *   tpb_off   never has a probe: the OFF candidates' NOP
 *   tpb_on    one probe, a counting function (register_trace_tpb_on)
 *   tpb_rec   the built-in recorder (ulsm_trace_enable("tpb_rec"))
 *   tpb_usdt  its own USDT probe attached, with no tracer
 *   tpb_count the same probe counting hits (ulsmctl top)
 */
#ifndef BENCH_TP_BENCH_H
#define BENCH_TP_BENCH_H

#include <ulsm/tracepoint.h>

DECLARE_TRACEPOINT(tpb_off, TP_PROTO(long a, long b), TP_ARGS(a, b));
DECLARE_TRACEPOINT(tpb_on, TP_PROTO(long a, long b), TP_ARGS(a, b));
DECLARE_TRACEPOINT(tpb_rec, TP_PROTO(long a, long b), TP_ARGS(a, b));
DECLARE_TRACEPOINT(tpb_usdt, TP_PROTO(long a, long b), TP_ARGS(a, b));
DECLARE_TRACEPOINT(tpb_count, TP_PROTO(long a, long b), TP_ARGS(a, b));
DECLARE_TRACEPOINT(tpb_two, TP_PROTO(long a, long b), TP_ARGS(a, b));
DECLARE_TRACEPOINT(tpb_three, TP_PROTO(long a, long b), TP_ARGS(a, b));

#endif /* BENCH_TP_BENCH_H */
