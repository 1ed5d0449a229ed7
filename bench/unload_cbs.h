/* SPDX-License-Identifier: MIT */
/*
 * bench_unload's callbacks, cb1 to cb3, the same in the program
 * (bench_unload.c) and in its plug-in (unload_plugin.c): each adds its
 * argument to a global and returns 0, as in the APR hooks measurement.
 */
#ifndef UNLOAD_CBS_H
#define UNLOAD_CBS_H

static volatile long sink;

#define UNLOAD_CALLBACK(n)						\
__attribute__((noinline)) static int cb##n(int request)			\
{									\
	sink += request;						\
	return 0;							\
}
UNLOAD_CALLBACK(1)
UNLOAD_CALLBACK(2)
UNLOAD_CALLBACK(3)
#endif
