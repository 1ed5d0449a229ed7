/* SPDX-License-Identifier: MIT */
/*
 * src/trace/clock.h - the recorder's clock: what an event's timestamp is
 * when it is recorded, and how it becomes CLOCK_MONOTONIC nanoseconds
 * when a stream (or the file) sends it.
 *
 * Recording reads the CPU's counter (ulsm_counter_read(),
 * src/engine/engine.h: rdtsc on x86-64, cntvct_el0 on aarch64): a few cycles, against about 20 ns for
 * clock_gettime() from the vDSO. A counter is used only where it runs at one rate on every
 * CPU, whatever their power states (x86-64: the invariant TSC, and the
 * kernel's clocksource is "tsc", so the kernel found the CPUs' counters
 * in step; aarch64: the generic timer, always); elsewhere, and with
 * ULSM_TRACE_CLOCK=monotonic, recording reads CLOCK_MONOTONIC itself.
 * The choice is made once, before the process's first event (by the
 * first thread that records, before its first timestamp; every other
 * thread's first event waits for it: pthread_once).
 *
 * Converting: at that choice the clock takes an anchor, a (counter,
 * CLOCK_MONOTONIC) pair; a stream takes another when it reads the
 * rings' heads, after every event it will send was recorded, and maps
 * counter values linearly between the two (the rate measured over at
 * least ANCHOR_MIN_NS, waited for by the reader if the process is that
 * young). So a timestamp is CLOCK_MONOTONIC to within the anchors'
 * reading error (tens of ns), whatever the counter's frequency; t_trace_rec
 * checks events against clock_gettime() around them.
 */
#ifndef ULSM_TRACE_CLOCK_H
#define ULSM_TRACE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "engine/engine.h"

/* True when events hold counter values (set once, before any event). */
extern bool ulsm__trace_counter __attribute__((visibility("hidden")));

/* The one place the recorder reads the time, for an event. */
static inline uint64_t ulsm_trace_clock(void)
{
	/* Relaxed: a plain load; this thread's pthread_once ordered it. */
	if (__builtin_expect(__atomic_load_n(&ulsm__trace_counter,
					     __ATOMIC_RELAXED), 1))
		return ulsm_counter_read();
	return ulsm_now_ns();
}

/* A stream's mapping from event timestamps to CLOCK_MONOTONIC ns. */
struct ulsm_trace_clock_map {
	bool counter;		/* false: events hold ns already */
	uint64_t c0, ns0;	/* the start-up anchor */
	double ns_per_tick;
};

/* Choose the clock (ULSM_TRACE_CLOCK) and take the anchor: once. */
void ulsm_trace_clock_init(void);
/*
 * ULSM_TRACE_CLOCK's value @s (NULL: unset): whether it asks for the
 * counter (the default; anything but "monotonic"), and *@bad when it is
 * neither "counter" nor "monotonic" (nor empty). Apart so that
 * tests/fuzz/fuzz_env.c can give it any bytes.
 */
bool ulsm_trace_clock_parse(const char *s, bool *bad);

/* A bad ULSM_TRACE_CLOCK, reported (once; after the choice). */
void ulsm_trace_clock_report(void);

/*
 * A mapping good for every event recorded before the call (a reader's:
 * it may sleep until the process is ANCHOR_MIN_NS old).
 */
void ulsm_trace_clock_map_now(struct ulsm_trace_clock_map *m);

static inline uint64_t ulsm_trace_clock_to_ns(
	const struct ulsm_trace_clock_map *m, uint64_t t)
{
	double d;

	if (!m->counter)
		return t;
	d = t >= m->c0 ? (double)(t - m->c0) : -(double)(m->c0 - t);
	d *= m->ns_per_tick;
	if (d < 0 && (uint64_t)-d > m->ns0)
		return 0;
	return d < 0 ? m->ns0 - (uint64_t)-d : m->ns0 + (uint64_t)d;
}

#endif
