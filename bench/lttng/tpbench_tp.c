// SPDX-License-Identifier: MIT
/*
 * bench/lttng/tpbench_tp.c - the LTTng-UST tracepoint provider
 * (tpbench_tp.h): the probes and the tracepoints' definitions, in one
 * unit of the program, as LTTng-UST 2.13's documentation shows.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tpbench_tp.h"
