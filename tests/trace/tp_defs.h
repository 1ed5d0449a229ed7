/* SPDX-License-Identifier: MIT */
/*
 * The tracepoints of t_tracepoint's plug-in (plugin_tp.so); t_tracepoint
 * names them only as strings, its own are LOCAL_TRACEPOINT()s.
 */
#ifndef ULSM_TESTS_TP_DEFS_H
#define ULSM_TESTS_TP_DEFS_H

#include <ulsm/tracepoint.h>

DECLARE_TRACEPOINT(tp_g3, TP_PROTO(int x), TP_ARGS(x));
DECLARE_TRACEPOINT(tp_d3, TP_PROTO(int x), TP_ARGS(x));

#endif
