// SPDX-License-Identifier: MIT
/* A shared object with tracepoints of its own (t_tracepoint). */
#include "trace/tp_defs.h"

DEFINE_TRACEPOINT(tp_g3, TP_PROTO(int x), TP_ARGS(x));
DEFINE_TRACEPOINT(tp_d3, TP_PROTO(int x), TP_ARGS(x));

int plugin_tp_hit(int x);
int plugin_tp_hit(int x)
{
	trace_tp_g3(x);
	return x;
}

int plugin_tp_hit_d(int x);
int plugin_tp_hit_d(int x)
{
	trace_tp_d3(x);
	return x;
}
