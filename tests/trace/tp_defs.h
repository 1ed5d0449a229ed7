/* SPDX-License-Identifier: MIT */
/* The tracepoints of t_tracepoint and of its plug-in (plugin_tp.so). */
#ifndef ULSM_TESTS_TP_DEFS_H
#define ULSM_TESTS_TP_DEFS_H

#include <ulsm/tracepoint.h>

DECLARE_TRACEPOINT(tp_a, TP_PROTO(int x, long y), TP_ARGS(x, y));
DECLARE_TRACEPOINT(tp_g1, TP_PROTO(int x), TP_ARGS(x));
DECLARE_TRACEPOINT(tp_g2, TP_PROTO(int x), TP_ARGS(x));
DECLARE_TRACEPOINT(tp_sleep, TP_PROTO(int x), TP_ARGS(x));
DECLARE_TRACEPOINT(tp_rec, TP_PROTO(int x, const char *s, double d),
		   TP_ARGS(x, s, d));
DECLARE_TRACEPOINT(tp_d1, TP_PROTO(int x), TP_ARGS(x));
/* In plugin_tp.so only: */
DECLARE_TRACEPOINT(tp_g3, TP_PROTO(int x), TP_ARGS(x));
DECLARE_TRACEPOINT(tp_d3, TP_PROTO(int x), TP_ARGS(x));

#endif
