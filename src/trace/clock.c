// SPDX-License-Identifier: MIT
/*
 * src/trace/clock.c - the recorder's clock (clock.h has the design): the
 * choice of a counter or CLOCK_MONOTONIC, once before the first event,
 * the anchor, and the mapping a stream converts its events with.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "trace/clock.h"
#include <ulsm/tracepoint.h>

#define ANCHOR_MIN_NS	2000000u	/* the rate, measured over 2 ms at least */
#define PAIR_TRIES	5

bool ulsm__trace_counter;

static uint64_t anchor_c, anchor_ns;
static const char *bad_value;	/* a ULSM_TRACE_CLOCK to report */
static bool counter_refused;	/* asked for, not usable here */
static int reported;

/* A (counter, CLOCK_MONOTONIC) pair: the tightest of a few readings. */
static void pair(uint64_t *c, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < PAIR_TRIES; i++) {
		uint64_t t1 = ulsm_counter_read();
		uint64_t n = ulsm_now_ns();
		uint64_t t2 = ulsm_counter_read();

		if (t2 >= t1 && t2 - t1 < best) {
			best = t2 - t1;
			*c = t1 + (t2 - t1) / 2;
			*ns = n;
		}
	}
	if (best == UINT64_MAX) {	/* a counter that went back: no pair */
		*c = ulsm_counter_read();
		*ns = ulsm_now_ns();
	}
}

bool ulsm_trace_clock_parse(const char *s, bool *bad)
{
	*bad = s && *s && strcmp(s, "monotonic") && strcmp(s, "counter");
	return !s || strcmp(s, "monotonic");
}

void ulsm_trace_clock_init(void)
{
	const char *s = getenv("ULSM_TRACE_CLOCK");
	bool bad, want = ulsm_trace_clock_parse(s, &bad);

	if (bad)
		bad_value = s;
	if (want && !ulsm_counter_usable()) {
		counter_refused = s && !strcmp(s, "counter");
		want = false;
	}
	if (want)
		pair(&anchor_c, &anchor_ns);
	/*
	 * Pairs with the acquire loads in ulsm_trace_clock_map_now() (this
	 * file) and ulsm_trace_clock_name() (recorder.c): a reader that sees
	 * the choice sees the anchor.
	 */
	__atomic_store_n(&ulsm__trace_counter, want, __ATOMIC_RELEASE);
}

/* A bad ULSM_TRACE_CLOCK, or a counter asked for and not usable: once. */
void ulsm_trace_clock_report(void)
{
	if (!bad_value && !counter_refused)
		return;
	if (__atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED))
		return;
	if (bad_value)
		ulsm_report("ULSM_TRACE_CLOCK=\"%s\" is neither \"counter\" nor "
			    "\"monotonic\": %s used", bad_value,
			    __atomic_load_n(&ulsm__trace_counter,
					    __ATOMIC_RELAXED) ?
			    "the counter" : "CLOCK_MONOTONIC");
	else
		ulsm_report("ULSM_TRACE_CLOCK=counter: this machine's counter "
			    "does not run at one rate on every CPU (or the "
			    "kernel does not use it): CLOCK_MONOTONIC used");
}

void ulsm_trace_clock_map_now(struct ulsm_trace_clock_map *m)
{
	uint64_t c, ns;

	/*
	 * Pairs with the release store in ulsm_trace_clock_init() (this
	 * file): the anchor is seen with the choice.
	 */
	*m = (struct ulsm_trace_clock_map){
		.counter = __atomic_load_n(&ulsm__trace_counter,
					   __ATOMIC_ACQUIRE) };
	if (!m->counter)
		return;
	pair(&c, &ns);
	if (ns - anchor_ns < ANCHOR_MIN_NS) {
		uint64_t left = ANCHOR_MIN_NS - (ns - anchor_ns);
		struct timespec ts = { 0, (long)left };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		pair(&c, &ns);
	}
	m->c0 = anchor_c;
	m->ns0 = anchor_ns;
	if (c > anchor_c && ns > anchor_ns)
		m->ns_per_tick = (double)(ns - anchor_ns) /
				 (double)(c - anchor_c);
	else
		m->ns_per_tick = 0;	/* no time passed: every event now */
	if (!m->ns_per_tick)
		m->ns0 = ns;
}

ULSM_API unsigned long long ulsm__trace_ns(void)
{
	return ulsm_now_ns();
}
