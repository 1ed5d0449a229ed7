// SPDX-License-Identifier: MIT
/* A shared object with a tracepoint of its own (t_tracepoint). */
#include "trace/tp_defs.h"

DEFINE_TRACEPOINT(tp_g3, TP_PROTO(int x), TP_ARGS(x));

int plugin_tp_hit(int x);
int plugin_tp_hit(int x)
{
	trace_tp_g3(x);
	return x;
}
