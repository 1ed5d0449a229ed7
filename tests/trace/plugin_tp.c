// SPDX-License-Identifier: MIT
/* A shared object with tracepoints of its own (t_tracepoint). */
#include "tp_defs.h"

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

/* A probe of the plug-in's own, in reach of its sites (t_tracepoint). */
static int own_count;
void plugin_tp_probe(void *data, int x);
void plugin_tp_probe(void *data, int x)
{
	(void)data;
	__atomic_add_fetch(&own_count, x, __ATOMIC_RELAXED);
}

int plugin_tp_count(void);
int plugin_tp_count(void)
{
	return __atomic_load_n(&own_count, __ATOMIC_RELAXED);
}
