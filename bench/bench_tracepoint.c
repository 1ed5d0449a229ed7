// SPDX-License-Identifier: MIT
/*
 * What does a tracepoint cost, off and on, next to a branch on a flag, a
 * direct call, and LTTng-UST's tracepoints?
 *
 * Loops timed side by side in interleaved rounds (bench/bench.h), in
 * groups; each group is one bench_run(), so its candidates share every
 * burst of noise, and each is calibrated on its slowest loop.
 *
 *   off        empty loop             the loop alone: an empty asm
 *              plain flag             + if (flag) probe(...), flag a
 *                                       global int, 0
 *              ulsm tracepoint        + trace_tpb_off(i, tag), no probe:
 *                                       a 5-byte NOP
 *              LTTng-UST tracepoint   + lttng_ust_tracepoint(tpbench,
 *                                       off, i, tag), no session: a load
 *                                       of the event's state and a branch
 *   evicted    the same four, each iteration first flushing one cache
 *              line (clflush; mfence) and then hitting the site: the
 *              flag's line, the LTTng event's state, ulsm's key (which
 *              the NOP does not read), and for the empty loop a line of
 *              its own. Every loop does the same extra work; a site that
 *              loads the evicted line waits for memory, a NOP does not.
 *   on         direct call            probe(&hits, i, tag): the limit
 *              ulsm tracepoint        trace_tpb_on(i, tag) with the same
 *                                       probe and data attached
 *                                       (register_trace_tpb_on)
 *              ulsm, no read lock     the same site without
 *                                       ulsm_read_lock/unlock: what the
 *                                       read-side section costs
 *              direct call, locked    the direct call between
 *                                       ulsm_read_lock() and
 *                                       ulsm_read_unlock()
 *              clock_gettime alone    clock_gettime(CLOCK_MONOTONIC):
 *                                       LTTng-UST's clock read, and the
 *                                       recorder's where no counter is
 *                                       usable (src/trace/clock.h)
 *              cycle counter alone    rdtsc (x86-64), cntvct_el0
 *                                       (aarch64): the recorder's clock
 *                                       read, the floor of an event
 *              ulsm USDT probe, no    trace_tpb_usdt(i, tag) with the
 *              tracer                   tracepoint's own USDT probe
 *                                       attached, as while a tracer
 *                                       listens, but no uprobe on its
 *                                       NOP: what the program pays
 *                                       besides the tracer's trap
 *              ulsm counted (top)     trace_tpb_count(i, tag), the same
 *                                       probe counting its hits, as
 *                                       while ulsmctl top runs
 *              ulsm recorder          trace_tpb_rec(i, tag) with the
 *                                       built-in recorder attached
 *                                       (ulsm_trace_enable): different
 *                                       work, it records every event
 *   several    2 direct calls         probe(&sev[0], ...) then &sev[1]:
 *                                       the limit for two probes
 *              ulsm tracepoint        trace_tpb_two(i, tag), the probe
 *                                       attached twice (&sev[0], &sev[1]):
 *                                       the iterator's slots
 *              3 direct calls,        the same with three
 *              ulsm tracepoint          (trace_tpb_three)
 *
 * With --lttng-enabled (bench/lttng/session.sh runs it inside an LTTng
 * snapshot session with tpbench:on enabled), one group: the direct call,
 * the ulsm tracepoint with one probe, the clock read, ulsm's recorder,
 * and LTTng-UST writing each event into its ring buffer (different work:
 * an event of LTTng's format, with its own clock read, into a per-CPU
 * buffer). The main run is made with no session at all, so that "no
 * session" means what it says.
 *
 * The ulsm tracepoints are declared in tp_bench.h; LTTng-UST's provider
 * is bench/lttng/tpbench_tp.[ch], compiled in where liblttng-ust-dev is
 * installed (the Makefile's HAVE_LTTNG); without it the LTTng candidates
 * are left out and the output says so.
 *
 * After every timed run each candidate checks that it did its work: a
 * probe counted exactly the run's calls, with the last arguments; the
 * recorder's file holds the run's last events in order; a path that must
 * not be taken was not. A run that fails its check is not reported
 * (exit 1).
 *
 * A run is timed in the thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
 * bench_run_clock in bench.h), not wall time: on the small shared
 * machines this runs on, a run of a few milliseconds is often preempted,
 * and wall time then charges other processes to the candidates whose
 * runs are longest (here 20 to 60 times longer: the group's iteration
 * count is calibrated on its slowest loop). --wall times wall time.
 *
 * Usage: bench_tracepoint [--quick] [--json FILE] [--plot PREFIX]
 *                         [--lttng-enabled] [--wall]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/grace.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#ifdef TPBENCH_LTTNG
#include "tpbench_tp.h"
#endif

#include "bench.h"
#include "tp_bench.h"

#define PROG	"bench_tracepoint"

/*
 * Loops aligned to 64 bytes, as in bench_static_key: a small loop that
 * straddles a 64-byte boundary runs a cycle slower on some cores.
 */
#define bench_loop	__attribute__((noinline, aligned(64)))

/*
 * The probe is called, never inlined nor specialised for its data: gcc's
 * noipa also keeps the loops from learning what it clobbers.
 */
#ifdef __clang__
# define bench_probe	__attribute__((noinline))
#else
# define bench_probe	__attribute__((noipa))
#endif

DEFINE_TRACEPOINT(tpb_off, TP_PROTO(long a, long b), TP_ARGS(a, b));
DEFINE_TRACEPOINT(tpb_on, TP_PROTO(long a, long b), TP_ARGS(a, b));
DEFINE_TRACEPOINT(tpb_rec, TP_PROTO(long a, long b), TP_ARGS(a, b));
DEFINE_TRACEPOINT(tpb_usdt, TP_PROTO(long a, long b), TP_ARGS(a, b));
DEFINE_TRACEPOINT(tpb_count, TP_PROTO(long a, long b), TP_ARGS(a, b));
DEFINE_TRACEPOINT(tpb_two, TP_PROTO(long a, long b), TP_ARGS(a, b));
DEFINE_TRACEPOINT(tpb_three, TP_PROTO(long a, long b), TP_ARGS(a, b));

/* What a probe saw: its calls and the last arguments. */
struct hits {
	unsigned long calls;
	long a, b;
} __attribute__((aligned(64)));

static struct hits off_hits;	/* the flag's probe: never called */
static struct hits on_hits;	/* ulsm's probe and the direct call */
static struct hits sev[3];	/* several probes, and the direct calls */
static struct hits sev_before[3];

static bench_probe void probe(void *data, long a, long b)
{
	struct hits *h = data;

	h->calls++;
	h->a = a;
	h->b = b;
}

/*
 * A line of its own, so that a flush evicts exactly it, in a 128-byte
 * block of its own (sizeof is 128): L2 prefetchers complete lines into
 * 128-byte pairs (Intel's Optimization Reference Manual, "spatial
 * prefetcher"; AMD's "up/down" prefetcher), so a neighbour's load could
 * bring an evicted line back.
 */
struct line {
	int v;
} __attribute__((aligned(128)));

static struct line flag;	/* the plain flag: 0 throughout */
static struct line empty_line;	/* what the empty loop evicts */

/* The loops' second argument: a new value per run, for the checks. */
static long run_tag;

/* --- evicting a cache line ------------------------------------------------ */

#if defined(__x86_64__)
# define HAVE_EVICT	1
/*
 * CLFLUSH writes the line back and invalidates it in every cache of the
 * coherence domain (Intel SDM Vol. 2A, CLFLUSH). It is not ordered with
 * later loads (SDM Vol. 2A; AMD APM Vol. 3, CLFLUSH: "use MFENCE to force
 * strong ordering"), so without the MFENCE the site's load could be
 * served before the line leaves; with it, every hit finds its line gone.
 */
static inline __attribute__((always_inline)) void evict(const void *p)
{
	__asm__ volatile("clflush %0\n\tmfence"
			 : : "m"(*(const char *)p) : "memory");
}
#elif defined(__aarch64__)
# define HAVE_EVICT	1
/*
 * DC CIVAC cleans and invalidates to the point of coherence (Arm ARM,
 * DC CIVAC; allowed at EL0 by SCTLR_EL1.UCI, which Linux sets); DSB ISH
 * completes it before later loads.
 */
static inline __attribute__((always_inline)) void evict(const void *p)
{
	__asm__ volatile("dc civac, %0\n\tdsb ish" : : "r"(p) : "memory");
}
#else
# define HAVE_EVICT	0
static inline void evict(const void *p)
{
	(void)p;
}
#endif

/*
 * Every line the loops evict is first written, with an atomic add of 0
 * (a no-op, even if its owner writes it meanwhile), so that each is in a
 * private page of this process. A zero-initialised line never written
 * (the flag, the empty loop's line, ulsm's key, all in .bss) may be the
 * kernel's shared zero page, which other processes read too: what its
 * flush and reload cost would then depend on them, and one candidate
 * would pay it and another not, depending on what else shares its page.
 */
static void own_line(int *p)
{
	__atomic_fetch_add(p, 0, __ATOMIC_RELAXED);
}

/* --- the loops ------------------------------------------------------------ */
/*
 * Each is its own noinline function, so the code timed is what objdump
 * shows, but for what ulsm patches at run time: a tracepoint's NOP
 * becomes a jump to its call, and the call of its static call's
 * trampoline a call of the probe. The empty asm is the baseline's body
 * and keeps the compiler from deleting the empty loop. Every site
 * passes the same arguments: the iteration and the run's tag.
 */

static bench_loop void loop_empty(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("");
}

static bench_loop void loop_flag(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		/* Relaxed: re-read every iteration, as a program would. */
		if (__builtin_expect(__atomic_load_n(&flag.v, __ATOMIC_RELAXED),
				     0))
			probe(&off_hits, (long)i, tag);
	}
}

static bench_loop void loop_ulsm_off(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		trace_tpb_off((long)i, tag);
	}
}

#ifdef TPBENCH_LTTNG
static bench_loop void loop_lttng_off(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		lttng_ust_tracepoint(tpbench, off, (long)i, tag);
	}
}
#endif

/* The same four, each hit preceded by the eviction of one line. */
static bench_loop void loop_empty_cold(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		evict(&empty_line);
		__asm__ volatile("");
	}
}

static bench_loop void loop_flag_cold(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		evict(&flag);
		__asm__ volatile("");
		if (__builtin_expect(__atomic_load_n(&flag.v, __ATOMIC_RELAXED),
				     0))
			probe(&off_hits, (long)i, tag);
	}
}

static bench_loop void loop_ulsm_off_cold(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		/* The key: the NOP does not read it, a flag test would. */
		evict(&ULSM__TP_KEY(tpb_off));
		__asm__ volatile("");
		trace_tpb_off((long)i, tag);
	}
}

#ifdef TPBENCH_LTTNG
static bench_loop void loop_lttng_off_cold(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		evict(&lttng_ust_tracepoint_tpbench___off.state);
		__asm__ volatile("");
		lttng_ust_tracepoint(tpbench, off, (long)i, tag);
	}
}
#endif

static bench_loop void loop_direct(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		probe(&on_hits, (long)i, tag);
	}
}

static bench_loop void loop_direct2(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		probe(&sev[0], (long)i, tag);
		probe(&sev[1], (long)i, tag);
	}
}

static bench_loop void loop_ulsm2(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		trace_tpb_two((long)i, tag);
	}
}

static bench_loop void loop_direct3(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		probe(&sev[0], (long)i, tag);
		probe(&sev[1], (long)i, tag);
		probe(&sev[2], (long)i, tag);
	}
}

static bench_loop void loop_ulsm3(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		trace_tpb_three((long)i, tag);
	}
}

static bench_loop void loop_ulsm_on(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		trace_tpb_on((long)i, tag);
	}
}

/*
 * trace_tpb_on() as DECLARE_TRACEPOINT writes it, without the read-side
 * section: the same key and static call (so register_trace_tpb_on()
 * patched this site too), the same data. It names them through
 * <ulsm/tracepoint.h>'s internal macros (ULSM__TP_KEY and friends): a
 * benchmark's liberty, not API.
 */
static bench_loop void loop_ulsm_nolock(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		if (static_branch_unlikely(&ULSM__TP_KEY(tpb_on)))
			static_call_inline(ULSM__TP_CALL(tpb_on),
				__atomic_load_n(&ULSM__TP(tpb_on).data,
						__ATOMIC_RELAXED),
				(long)i, tag);
	}
}

static bench_loop void loop_direct_locked(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		ulsm_read_lock();
		probe(&on_hits, (long)i, tag);
		ulsm_read_unlock();
	}
}

/* The USDT probe's own count of its hits (its data). */
static unsigned long usdt_hits, usdt_before;

static bench_loop void loop_ulsm_usdt(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		trace_tpb_usdt((long)i, tag);
	}
}

static bench_loop void loop_ulsm_count(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		trace_tpb_count((long)i, tag);
	}
}

static bench_loop void loop_ulsm_rec(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		trace_tpb_rec((long)i, tag);
	}
}

/*
 * The clock read alone, as the recorder makes it: most of what recording
 * costs (LTTng-UST reads CLOCK_MONOTONIC too).
 */
static struct timespec clock_last;

static bench_loop void loop_clock(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		clock_gettime(CLOCK_MONOTONIC, &clock_last);
	}
}

/*
 * The cycle counter alone, as the recorder reads it where it is
 * invariant (src/trace/clock.h): what one event cannot cost less than.
 */
static uint64_t counter_last;

static inline uint64_t counter_read(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static bench_loop void loop_counter(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		counter_last = counter_read();
	}
}

#ifdef TPBENCH_LTTNG
static bench_loop void loop_lttng_on(unsigned long n)
{
	long tag = run_tag;

	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		lttng_ust_tracepoint(tpbench, on, (long)i, tag);
	}
}
#endif

/* --- prepare and check ---------------------------------------------------- */

static struct hits hits_before;
/* Totals for the final report. */
static unsigned long probe_calls_checked, rec_events_checked;
static unsigned long lttng_runs_checked;

static int fail(const char *what, const char *why)
{
	fprintf(stderr, PROG ": %s: %s\n", what, why);
	return -EPROTO;
}

/* A new tag, and the probe counters as they were before the run. */
static int prepare_run(void)
{
	run_tag++;
	hits_before = on_hits;
	memcpy(sev_before, sev, sizeof(sev));
	return 0;
}

/* The flag's probe never ran; the flag is still 0. */
static int check_flag(unsigned long iters)
{
	(void)iters;
	if (off_hits.calls || __atomic_load_n(&flag.v, __ATOMIC_RELAXED))
		return fail("plain flag", "its probe ran");
	return 0;
}

/* tpb_off has no probe and its key is off: the site was a NOP. */
static int check_ulsm_off(unsigned long iters)
{
	(void)iters;
	if (__atomic_load_n(&ULSM__TP(tpb_off).funcs, __ATOMIC_RELAXED) ||
	    static_key_enabled(&ULSM__TP_KEY(tpb_off)))
		return fail("ulsm tracepoint, off", "a probe is attached");
	return 0;
}

#ifdef TPBENCH_LTTNG
static int check_lttng_off(unsigned long iters)
{
	(void)iters;
	if (lttng_ust_tracepoint_enabled(tpbench, off))
		return fail("LTTng-UST tracepoint, off",
			    "tpbench:off is enabled (a session enabled it)");
	return 0;
}
#endif

/* The probe ran once per iteration, with this run's last arguments. */
static int check_on(unsigned long iters)
{
	char why[160];

	if (on_hits.calls - hits_before.calls != iters ||
	    on_hits.a != (long)iters - 1 || on_hits.b != run_tag) {
		snprintf(why, sizeof(why), "probe called %lu times (want %lu),"
			 " last (%ld, %ld) (want (%lu, %ld))",
			 on_hits.calls - hits_before.calls, iters, on_hits.a,
			 on_hits.b, iters - 1, run_tag);
		return fail("probe", why);
	}
	probe_calls_checked += iters;
	return 0;
}

static int prepare_usdt(void)
{
	usdt_before = __atomic_load_n(&usdt_hits, __ATOMIC_RELAXED);
	return prepare_run();
}

/* The USDT probe alone counts nothing: it is the one attached. */
static int check_usdt(unsigned long iters)
{
	const struct ulsm_tp_funcs *f = ULSM__TP(tpb_usdt).funcs;

	(void)iters;
	if (!static_key_enabled(ULSM__TP(tpb_usdt).key) || !f || f->n != 1 ||
	    f->probes[0].func != ULSM__TP(tpb_usdt).usdt)
		return fail("ulsm USDT probe", "not the one probe attached");
	return 0;
}

static int check_count(unsigned long iters)
{
	char why[120];
	unsigned long got = __atomic_load_n(&usdt_hits, __ATOMIC_RELAXED) -
			    usdt_before;

	if (got == iters)
		return 0;
	snprintf(why, sizeof(why), "counted %lu hits (want %lu)", got, iters);
	return fail("ulsm USDT probe", why);
}

/* Each of the first @k probes of the several: this run's calls, in full. */
static int check_several(unsigned long iters, int k)
{
	char why[160];

	for (int i = 0; i < k; i++)
		if (sev[i].calls - sev_before[i].calls != iters ||
		    sev[i].a != (long)iters - 1 || sev[i].b != run_tag) {
			snprintf(why, sizeof(why), "probe %d called %lu times "
				 "(want %lu), last (%ld, %ld) (want (%lu, "
				 "%ld))", i, sev[i].calls - sev_before[i].calls,
				 iters, sev[i].a, sev[i].b, iters - 1, run_tag);
			return fail("several probes", why);
		}
	probe_calls_checked += iters * (unsigned long)k;
	return 0;
}

static int check_two(unsigned long iters)
{
	return check_several(iters, 2);
}

static int check_three(unsigned long iters)
{
	return check_several(iters, 3);
}

/*
 * The recorder's events are in its file, which ulsm_trace_write() writes
 * (format: docs/tracepoints.md, version 3: a header, then records). The
 * ring keeps the last 16384 events (ULSM_TRACE_BUF), so the check reads
 * this thread's events and wants its newest min(iters, events) events to
 * be tpb_rec's, this run's tag, and the iterations up to the last, in
 * order.
 */
struct rec_event {
	uint32_t id, n;
	uint64_t w[6];
};

static char rec_path[4096];
static int rec_fd = -1;

static int read_u32(FILE *f, uint32_t *v)
{
	return fread(v, sizeof(*v), 1, f) == 1 ? 0 : -1;
}

/* This thread's events of an events record of @len bytes. */
static int read_events(FILE *f, uint32_t len, uint32_t self,
		       struct rec_event **ev, uint64_t *count, size_t *cap)
{
	uint32_t tid, k;

	if (len < 8 || read_u32(f, &tid) || read_u32(f, &k))
		return -1;
	if (tid != self)
		return fseek(f, len - 8, SEEK_CUR);
	for (uint32_t i = 0; i < k; i++) {
		uint64_t ns;
		uint32_t info;
		struct rec_event *e;

		if (*count == *cap) {
			*cap = *cap ? *cap * 2 : 4096;
			e = realloc(*ev, *cap * sizeof(**ev));
			if (!e)
				return -1;
			*ev = e;
		}
		e = &(*ev)[(*count)++];
		if (fread(&ns, 8, 1, f) != 1 || read_u32(f, &e->id) ||
		    read_u32(f, &info) || (info >> 8) || info > 6 ||
		    fread(e->w, 8, info, f) != info)
			return -1;
		e->n = info;
	}
	return 0;
}

static int check_rec(unsigned long iters)
{
	uint32_t version, pid, len, type, rec_id = 0;
	uint32_t self = (uint32_t)syscall(SYS_gettid);
	char magic[8], name[64], why[200];
	struct rec_event *ev = NULL;
	uint64_t count = 0;
	size_t cap = 0;
	long written;
	int ret = -EPROTO;
	FILE *f;

	written = ulsm_trace_write(rec_path);
	if (written < 0)
		return fail("ulsm recorder", ulsm_last_error());
	f = fopen(rec_path, "rb");
	if (!f)
		return fail("ulsm recorder", strerror(errno));
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "ULSMTRC1", 8) ||
	    read_u32(f, &version) || version != 3 || read_u32(f, &pid) ||
	    read_u32(f, &len) || fseek(f, len, SEEK_CUR))
		goto bad;
	for (;;) {
		if (read_u32(f, &type) || read_u32(f, &len))
			goto bad;
		if (type == 5)		/* the end */
			break;
		if (type == 1) {	/* a name */
			uint32_t id, nargs, nlen, alen;

			if (read_u32(f, &id) || read_u32(f, &nargs) ||
			    read_u32(f, &nlen) || read_u32(f, &alen) ||
			    nlen >= sizeof(name) ||
			    fread(name, 1, nlen, f) != nlen ||
			    fseek(f, (long)alen + nargs, SEEK_CUR))
				goto bad;
			name[nlen] = '\0';
			if (!strcmp(name, "tpb_rec"))
				rec_id = id;
		} else if (type == 3) {	/* events */
			if (read_events(f, len, self, &ev, &count, &cap))
				goto bad;
		} else if (fseek(f, len, SEEK_CUR)) {
			goto bad;
		}
	}
	if (!rec_id || !count)
		goto bad;
	for (uint64_t k = 0; k < count && k < iters; k++) {
		const struct rec_event *e = &ev[count - 1 - k];

		if (e->id != rec_id || e->n != 2 ||
		    e->w[0] != iters - 1 - k || (long)e->w[1] != run_tag) {
			snprintf(why, sizeof(why), "event %llu from the end: "
				 "id %u (want %u), args (%llu, %lld) (want "
				 "(%llu, %ld))", (unsigned long long)k, e->id,
				 rec_id, (unsigned long long)e->w[0],
				 (long long)e->w[1],
				 (unsigned long long)(iters - 1 - k), run_tag);
			free(ev);
			fclose(f);
			return fail("ulsm recorder", why);
		}
	}
	rec_events_checked += iters;
	ret = 0;
bad:
	if (ret)
		fail("ulsm recorder", "its file does not hold this run's "
		     "events");
	free(ev);
	fclose(f);
	return ret;
}

/* The clock was read: its last value is later than the run's start. */
static struct timespec clock_before;

static int prepare_clock(void)
{
	clock_gettime(CLOCK_MONOTONIC, &clock_before);
	return prepare_run();
}

static uint64_t counter_before;

static int prepare_counter(void)
{
	counter_before = counter_read();
	return prepare_run();
}

static int check_counter(unsigned long iters)
{
	(void)iters;
	if (counter_last <= counter_before)
		return fail("the cycle counter", "it was not read");
	return 0;
}

static int check_clock(unsigned long iters)
{
	(void)iters;
	if (clock_last.tv_sec < clock_before.tv_sec ||
	    (clock_last.tv_sec == clock_before.tv_sec &&
	     clock_last.tv_nsec <= clock_before.tv_nsec))
		return fail("clock_gettime", "the clock was not read");
	return 0;
}

#ifdef TPBENCH_LTTNG
/*
 * LTTng-UST's probe writes into buffers this process cannot read back:
 * the check is that the event is enabled and a probe (the ring buffer's)
 * is attached, so every hit took the recording path; session.sh then
 * takes a snapshot and counts the events in it.
 */
static int check_lttng_on(unsigned long iters)
{
	(void)iters;
	if (!lttng_ust_tracepoint_enabled(tpbench, on) ||
	    !lttng_ust_tracepoint_tpbench___on.probes)
		return fail("LTTng-UST, enabled", "tpbench:on is not enabled");
	lttng_runs_checked++;
	return 0;
}
#endif

/* --- the groups ----------------------------------------------------------- */

#ifdef TPBENCH_LTTNG
# define HAVE_LTTNG	1
#else
# define HAVE_LTTNG	0
#endif

enum { E_EMPTY, E_FLAG, E_ULSM, E_LTTNG, E_COUNT };
enum { O_DIRECT, O_ULSM, O_NOLOCK, O_LOCKED, O_CLOCK, O_COUNTER, O_USDT,
       O_COUNTED, O_REC, O_COUNT };
enum { L_DIRECT, L_ULSM, L_CLOCK, L_REC, L_LTTNG, L_COUNT };
enum { S_DIRECT2, S_ULSM2, S_DIRECT3, S_ULSM3, S_COUNT };

static struct bench_cand off_c[E_COUNT] = {
	[E_EMPTY] = { .name = "empty loop", .run = loop_empty,
		      .prepare = prepare_run },
	[E_FLAG] = { .name = "plain flag (0)", .run = loop_flag,
		     .prepare = prepare_run, .check = check_flag },
	[E_ULSM] = { .name = "ulsm tracepoint, no probe",
		     .run = loop_ulsm_off, .prepare = prepare_run,
		     .check = check_ulsm_off },
#ifdef TPBENCH_LTTNG
	[E_LTTNG] = { .name = "LTTng-UST, no session", .run = loop_lttng_off,
		      .prepare = prepare_run, .check = check_lttng_off },
#endif
};

static struct bench_cand cold_c[E_COUNT] = {
	[E_EMPTY] = { .name = "empty loop + evict", .run = loop_empty_cold,
		      .prepare = prepare_run },
	[E_FLAG] = { .name = "plain flag, evicted", .run = loop_flag_cold,
		     .prepare = prepare_run, .check = check_flag },
	[E_ULSM] = { .name = "ulsm tracepoint, key evicted",
		     .run = loop_ulsm_off_cold, .prepare = prepare_run,
		     .check = check_ulsm_off },
#ifdef TPBENCH_LTTNG
	[E_LTTNG] = { .name = "LTTng-UST, state evicted",
		      .run = loop_lttng_off_cold, .prepare = prepare_run,
		      .check = check_lttng_off },
#endif
};

static struct bench_cand on_c[O_COUNT] = {
	[O_DIRECT] = { .name = "direct call (limit)", .run = loop_direct,
		       .prepare = prepare_run, .check = check_on },
	[O_ULSM] = { .name = "ulsm tracepoint, 1 probe",
		     .run = loop_ulsm_on, .prepare = prepare_run,
		     .check = check_on },
	[O_NOLOCK] = { .name = "ulsm site without read lock",
		       .run = loop_ulsm_nolock, .prepare = prepare_run,
		       .check = check_on },
	[O_LOCKED] = { .name = "direct call in read lock",
		       .run = loop_direct_locked, .prepare = prepare_run,
		       .check = check_on },
	[O_CLOCK] = { .name = "clock_gettime alone (ref.)",
		      .run = loop_clock, .prepare = prepare_clock,
		      .check = check_clock },
	[O_COUNTER] = { .name = "cycle counter alone (ref.)",
			.run = loop_counter, .prepare = prepare_counter,
			.check = check_counter },
	[O_USDT] = { .name = "ulsm USDT probe, no tracer",
		     .run = loop_ulsm_usdt, .prepare = prepare_run,
		     .check = check_usdt },
	[O_COUNTED] = { .name = "ulsm counted (top)",
			.run = loop_ulsm_count, .prepare = prepare_usdt,
			.check = check_count },
	[O_REC] = { .name = "ulsm recorder (records)", .run = loop_ulsm_rec,
		    .prepare = prepare_run, .check = check_rec },
};

static struct bench_cand several_c[S_COUNT] = {
	[S_DIRECT2] = { .name = "2 direct calls (limit)", .run = loop_direct2,
			.prepare = prepare_run, .check = check_two },
	[S_ULSM2] = { .name = "ulsm tracepoint, 2 probes", .run = loop_ulsm2,
		      .prepare = prepare_run, .check = check_two },
	[S_DIRECT3] = { .name = "3 direct calls (limit)", .run = loop_direct3,
			.prepare = prepare_run, .check = check_three },
	[S_ULSM3] = { .name = "ulsm tracepoint, 3 probes", .run = loop_ulsm3,
		      .prepare = prepare_run, .check = check_three },
};

static struct bench_cand lttng_c[L_COUNT] = {
	[L_DIRECT] = { .name = "direct call (limit)", .run = loop_direct,
		       .prepare = prepare_run, .check = check_on },
	[L_ULSM] = { .name = "ulsm tracepoint, 1 probe",
		     .run = loop_ulsm_on, .prepare = prepare_run,
		     .check = check_on },
	[L_CLOCK] = { .name = "clock_gettime alone (ref.)",
		      .run = loop_clock, .prepare = prepare_clock,
		      .check = check_clock },
	[L_REC] = { .name = "ulsm recorder (records)", .run = loop_ulsm_rec,
		    .prepare = prepare_run, .check = check_rec },
#ifdef TPBENCH_LTTNG
	[L_LTTNG] = { .name = "LTTng-UST enabled (records)",
		      .run = loop_lttng_on, .prepare = prepare_run,
		      .check = check_lttng_on },
#endif
};

struct group {
	const char *key;		/* JSON */
	const char *title;
	struct bench_cand *c;
	size_t n;
	int slowest;			/* calibrates the iteration count */
	const char *base_label;		/* the ratio column's */
	unsigned long iters;
	unsigned int rounds;
	bool ran;
};

static struct group g_off = {
	"off", "off, hot: the site's state in L1", off_c,
	E_COUNT - !HAVE_LTTNG, E_FLAG, "x empty",
};
static struct group g_cold = {
	"evicted", "off, evicted: one line flushed before every hit "
	"(clflush; mfence)", cold_c, E_COUNT - !HAVE_LTTNG, E_FLAG,
	"x empty",
};
static struct group g_on = {
	"on", "on, one probe (a counting function)", on_c, O_COUNT, O_REC,
	"x direct",
};
static struct group g_several = {
	"several", "on, several probes (the iterator's slots: a static call "
	"each)", several_c, S_COUNT, S_ULSM3, "x 2 direct",
};
static struct group g_lttng = {
	"lttng_enabled", "enabled, in an LTTng snapshot session", lttng_c,
	L_COUNT, L_LTTNG, "x direct",
};

static int run_group(struct group *g, unsigned int rounds, uint64_t target_ns)
{
	struct bench_cand *s = &g->c[g->slowest];
	int ret;

	ret = s->prepare ? s->prepare() : 0;
	if (ret)
		return ret;
	g->iters = bench_calibrate(s->run, target_ns);
	g->rounds = rounds;
	ret = bench_run(g->c, g->n, rounds, g->iters);
	if (ret) {
		fprintf(stderr, PROG ": group \"%s\" failed: %s\n", g->title,
			strerror(-ret));
		return ret;
	}
	g->ran = true;
	return 0;
}

static void print_group(const struct group *g)
{
	const struct bench_cand *base = &g->c[0];

	printf("\n%s\n(%u interleaved rounds, %lu iterations per run)\n",
	       g->title, g->rounds, g->iters);
	printf("  %-31s %12s %10s %9s %9s\n", "candidate", "median ns/it",
	       "min ns/it", g->base_label, "+ns/it");
	for (size_t i = 0; i < g->n; i++) {
		const struct bench_cand *c = &g->c[i];

		printf("  %-31s %12.3f %10.3f %9.3f %+9.3f\n", c->name,
		       c->median_ns, c->min_ns,
		       bench_ratio(c->median_ns, base->median_ns),
		       c->median_ns - base->median_ns);
	}
}

/* --- the targets -------------------------------------------------- */

struct target {
	const char *what;
	const char *key;	/* JSON */
	bool measured, met;
	char detail[200];
};

enum { T_OFF, T_COLD, T_ON, T_ON_SAFE, T_SEVERAL, T_REC, T_COUNT };
static struct target targets[T_COUNT] = {
	[T_OFF] = { "a disabled tracepoint <= 1.01x the empty loop",
		    "off_le_1.01x_empty" },
	[T_COLD] = { "evicted: ulsm off measurably cheaper than LTTng-UST "
		     "off", "evicted_ulsm_below_lttng" },
	[T_ON] = { "enabled with one probe <= 1.05x a direct call",
		   "on_le_1.05x_direct" },
	/* issue 24's, with the read-side section for shared objects. */
	[T_ON_SAFE] = { "enabled with one probe <= 1.25x a direct call",
			"on_le_1.25x_direct" },
	/* issue 24's: several probes through patched calls. */
	[T_SEVERAL] = { "2 and 3 probes <= 1.25x as many direct calls",
			"several_le_1.25x_direct" },
	[T_REC] = { "the recorder <= 10 ns per event", "recorder_le_10ns" },
};

static void judge(void)
{
	struct target *t;
	double r;

	t = &targets[T_OFF];
	t->measured = g_off.ran;
	if (t->measured) {
		r = bench_ratio(off_c[E_ULSM].median_ns,
				off_c[E_EMPTY].median_ns);
		t->met = r <= 1.01;
		snprintf(t->detail, sizeof(t->detail), "%.3fx (%.3f vs %.3f "
			 "ns/it)", r, off_c[E_ULSM].median_ns,
			 off_c[E_EMPTY].median_ns);
	}

	/*
	 * "Measurably": LTTng's fastest run is slower than ulsm's median
	 * run, so the two distributions do not overlap on that side.
	 */
	t = &targets[T_COLD];
	t->measured = g_cold.ran && HAVE_LTTNG;
	if (!g_cold.ran) {
		snprintf(t->detail, sizeof(t->detail), "not measured (%s)",
			 HAVE_EVICT ? "--lttng-enabled run" :
			 "no cache flush instruction on this architecture");
	} else if (!HAVE_LTTNG) {
		snprintf(t->detail, sizeof(t->detail), "not measured "
			 "(LTTng-UST not installed; the plain flag: %+.3f "
			 "ns/it over ulsm)", cold_c[E_FLAG].median_ns -
			 cold_c[E_ULSM].median_ns);
	} else {
		t->met = cold_c[E_LTTNG].min_ns > cold_c[E_ULSM].median_ns;
		snprintf(t->detail, sizeof(t->detail), "LTTng %+.3f ns/it "
			 "(median %.3f, min %.3f; ulsm median %.3f)",
			 cold_c[E_LTTNG].median_ns - cold_c[E_ULSM].median_ns,
			 cold_c[E_LTTNG].median_ns, cold_c[E_LTTNG].min_ns,
			 cold_c[E_ULSM].median_ns);
	}

	t = &targets[T_ON];
	t->measured = g_on.ran;
	if (t->measured) {
		r = bench_ratio(on_c[O_ULSM].median_ns,
				on_c[O_DIRECT].median_ns);
		t->met = r <= 1.05;
		snprintf(t->detail, sizeof(t->detail), "%.3fx (%.3f vs %.3f "
			 "ns/it)", r, on_c[O_ULSM].median_ns,
			 on_c[O_DIRECT].median_ns);
		targets[T_ON_SAFE].measured = true;
		targets[T_ON_SAFE].met = r <= 1.25;
		memcpy(targets[T_ON_SAFE].detail, t->detail, sizeof(t->detail));
	}

	t = &targets[T_SEVERAL];
	t->measured = g_several.ran;
	if (t->measured) {
		double r2 = bench_ratio(several_c[S_ULSM2].median_ns,
					several_c[S_DIRECT2].median_ns);
		double r3 = bench_ratio(several_c[S_ULSM3].median_ns,
					several_c[S_DIRECT3].median_ns);

		t->met = r2 <= 1.25 && r3 <= 1.25;
		snprintf(t->detail, sizeof(t->detail), "%.3fx (%.3f vs %.3f "
			 "ns/it), %.3fx (%.3f vs %.3f)", r2,
			 several_c[S_ULSM2].median_ns,
			 several_c[S_DIRECT2].median_ns, r3,
			 several_c[S_ULSM3].median_ns,
			 several_c[S_DIRECT3].median_ns);
	}

	/* The whole hit: the site, the recorder's probe, its clock read. */
	t = &targets[T_REC];
	t->measured = g_on.ran;
	if (t->measured) {
		t->met = on_c[O_REC].median_ns <= 10.0;
		snprintf(t->detail, sizeof(t->detail), "%.3f ns/event (min "
			 "%.3f; the recorder's clock: %s; the cycle counter "
			 "alone %.3f ns, clock_gettime alone %.3f ns)",
			 on_c[O_REC].median_ns, on_c[O_REC].min_ns,
			 ulsm_trace_clock_name(), on_c[O_COUNTER].median_ns,
			 on_c[O_CLOCK].median_ns);
	}
}

static void print_targets(void)
{
	printf("\nthe issue's targets (medians of this run):\n");
	for (int i = 0; i < T_COUNT; i++) {
		const struct target *t = &targets[i];

		printf("  %-62s %s\n      %s\n", t->what,
		       !t->measured ? "not measured" :
		       t->met ? "met" : "NOT met", t->detail);
		if (t->measured)
			bench_target("bench_tracepoint", t->what, t->met, "%s",
				     t->detail);
	}
}

/* --- output --------------------------------------------------------------- */

static void json_group(FILE *f, const struct group *g, const char *sep)
{
	fprintf(f, "    ");
	bench_json_string(f, g->key);
	fprintf(f, ": {\n      \"title\": ");
	bench_json_string(f, g->title);
	fprintf(f, ",\n      \"iterations_per_run\": %lu,\n      \"rounds\": "
		"%u,\n      \"ratio_to\": ", g->iters, g->rounds);
	bench_json_string(f, g->c[0].name);
	fprintf(f, ",\n      \"candidates\": [\n");
	for (size_t i = 0; i < g->n; i++) {
		const struct bench_cand *c = &g->c[i];

		fprintf(f, "        { \"name\": ");
		bench_json_string(f, c->name);
		fprintf(f, ", \"median_ns_per_iter\": %.4f, "
			"\"min_ns_per_iter\": %.4f, \"ratio\": %.4f, "
			"\"delta_ns\": %.4f }%s\n", c->median_ns, c->min_ns,
			bench_ratio(c->median_ns, g->c[0].median_ns),
			c->median_ns - g->c[0].median_ns,
			i + 1 < g->n ? "," : "");
	}
	fprintf(f, "      ]\n    }%s\n", sep);
}

static int write_json(const char *path, int quick, bool lttng_mode,
		      int sites, int direct)
{
	struct group *gs[5];
	int n = 0;
	FILE *f = bench_open(PROG, path);

	if (!f)
		return -1;
	if (lttng_mode) {
		gs[n++] = &g_lttng;
	} else {
		gs[n++] = &g_off;
		if (g_cold.ran)
			gs[n++] = &g_cold;
		gs[n++] = &g_on;
		gs[n++] = &g_several;
	}
	fprintf(f, "{\n  \"benchmark\": \"tracepoint\",\n  \"backend\": ");
	bench_json_string(f, ulsm_backend());
	fprintf(f, ",\n  \"compiler\": ");
	bench_json_string(f, BENCH_COMPILER);
	fprintf(f, ",\n  \"run_clock\": \"%s\"", bench_run_clock ==
		CLOCK_MONOTONIC ? "wall" : "thread_cputime");
	fprintf(f, ",\n  \"quick\": %s,\n  \"lttng_ust\": %s,\n"
		"  \"lttng_enabled_run\": %s,\n", quick ? "true" : "false",
		HAVE_LTTNG ? "true" : "false", lttng_mode ? "true" : "false");
	fprintf(f, "  \"tpb_on_call_sites\": %d,\n  \"tpb_on_direct_sites\": "
		"%d,\n  \"groups\": {\n", sites, direct);
	for (int i = 0; i < n; i++)
		json_group(f, gs[i], i + 1 < n ? "," : "");
	fprintf(f, "  },\n");
	if (!lttng_mode) {
		fprintf(f, "  \"targets\": {\n");
		for (int i = 0; i < T_COUNT; i++) {
			const struct target *t = &targets[i];

			fprintf(f, "    ");
			bench_json_string(f, t->key);
			fprintf(f, ": { \"measured\": %s, \"met\": %s, "
				"\"detail\": ", t->measured ? "true" : "false",
				t->measured && t->met ? "true" : "false");
			bench_json_string(f, t->detail);
			fprintf(f, " }%s\n", i + 1 < T_COUNT ? "," : "");
		}
		fprintf(f, "  },\n");
	}
	fprintf(f, "  \"verified\": { \"probe_calls\": %lu, "
		"\"recorder_events\": %lu, \"lttng_enabled_runs\": %lu }\n}\n",
		probe_calls_checked, rec_events_checked, lttng_runs_checked);
	return bench_close(f, PROG, path);
}

/*
 * PREFIX-<group>.dat, one row per candidate "name median min", and
 * PREFIX.gp, which draws PREFIX.png: one panel per group (their scales
 * differ by two orders of magnitude).
 */
static int write_plot(const char *prefix, int quick)
{
	struct group *gs[3] = { &g_off, &g_cold, &g_on };
	char path[4096], sub[512];
	struct bench_machine m;
	int panels = 0;
	FILE *f;

	for (int i = 0; i < 3; i++) {
		if (!gs[i]->ran)
			continue;
		panels++;
		snprintf(path, sizeof(path), "%s-%s.dat", prefix, gs[i]->key);
		f = bench_open(PROG, path);
		if (!f)
			return -1;
		fprintf(f, "# " PROG ": %s; ns per iteration (median, min)\n",
			gs[i]->title);
		for (size_t k = 0; k < gs[i]->n; k++)
			fprintf(f, "\"%s\" %.4f %.4f\n", gs[i]->c[k].name,
				gs[i]->c[k].median_ns, gs[i]->c[k].min_ns);
		if (bench_close(f, PROG, path))
			return -1;
	}

	bench_read_machine(&m);
	bench_chart_subtitle(sub, sizeof(sub), &m, quick);
	snprintf(path, sizeof(path), "%s.gp", prefix);
	f = bench_open(PROG, path);
	if (!f)
		return -1;
	fprintf(f, "# Generated by " PROG "; run: gnuplot %s.gp\n"
		"set terminal pngcairo noenhanced size %d,640 font "
		"'sans,11'\nset output '%s.png'\n", prefix, 520 * panels,
		prefix);
	fprintf(f, "set multiplot layout 1,%d title \"tracepoints: ns per "
		"iteration, %s (median, bars; min, points); back end %s\\n"
		"%s\" font 'sans,13'\n", panels, bench_run_clock ==
		CLOCK_MONOTONIC ? "wall time" : "thread CPU time",
		ulsm_backend(), sub);
	fprintf(f, "set style data histograms\nset style histogram clustered "
		"gap 1\nset style fill solid 0.8 border -1\nset grid ytics\n"
		"set xtics rotate by -40 left\nset bmargin 14\nset rmargin 12\n"
		"set ylabel 'ns per iteration'\nset key inside top left\n"
		"set yrange [0:*]\nset offsets 0, 0, graph 0.25, 0\n");
	for (int i = 0; i < 3; i++) {
		if (!gs[i]->ran)
			continue;
		fprintf(f, "set title '%s'\nplot '%s-%s.dat' using 2:xtic(1) "
			"lc rgb '%s' title 'median', '' using 0:3 with points "
			"pt 7 lc rgb '#1b2631' title 'min'\n",
			i == 0 ? "off, hot" : i == 1 ? "off, line evicted "
			"before each hit" : "on, one probe", prefix,
			gs[i]->key, i == 0 ? "#2471a3" : i == 1 ? "#7d3c98" :
			"#b03a2e");
	}
	fprintf(f, "unset multiplot\n");
	return bench_close(f, PROG, path);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [--quick] [--json FILE] [--plot PREFIX] "
		"[--lttng-enabled]\n"
		"  --quick          fewer and shorter rounds (a few seconds)\n"
		"  --json FILE      also write the results to FILE as JSON\n"
		"  --plot PREFIX    write PREFIX-*.dat and PREFIX.gp, which "
		"draws PREFIX.png\n"
		"  --lttng-enabled  only the enabled group, LTTng-UST "
		"recording too: run\n"
		"                   inside a session that enables tpbench:on "
		"(bench/lttng/session.sh)\n"
		"  --wall           time runs in wall time, not the thread's "
		"CPU time\n");
}

/* --- main ----------------------------------------------------------------- */

static int setup_probes(void)
{
	int ret = register_trace_tpb_on(probe, &on_hits);

	if (ret) {
		fprintf(stderr, PROG ": register_trace_tpb_on: %s (%s)\n",
			strerror(-ret), ulsm_last_error());
		return ret;
	}
	for (int i = 0; !ret && i < 3; i++) {
		if (i < 2)
			ret = register_trace_tpb_two(probe, &sev[i]);
		if (!ret)
			ret = register_trace_tpb_three(probe, &sev[i]);
	}
	if (ret) {
		fprintf(stderr, PROG ": several probes: %s (%s)\n",
			strerror(-ret), ulsm_last_error());
		return ret;
	}
	if (ULSM__TP(tpb_two).slotted != ULSM__TP(tpb_two).funcs ||
	    ULSM__TP(tpb_three).slotted != ULSM__TP(tpb_three).funcs) {
		fprintf(stderr, PROG ": several probes: the iterator's slots "
			"are not in use\n");
		return -EPROTO;
	}
	/* What the library attaches while a USDT tracer listens. */
	ret = tracepoint_probe_register(&ULSM__TP(tpb_usdt),
					ULSM__TP(tpb_usdt).usdt, NULL);
	if (!ret)
		ret = tracepoint_probe_register(&ULSM__TP(tpb_count),
						ULSM__TP(tpb_count).usdt,
						&usdt_hits);
	if (ret) {
		fprintf(stderr, PROG ": the USDT probe: %s (%s)\n",
			strerror(-ret), ulsm_last_error());
		return ret;
	}
	ret = ulsm_trace_enable("tpb_rec");
	if (ret != 1) {
		fprintf(stderr, PROG ": ulsm_trace_enable(\"tpb_rec\"): %d "
			"(%s)\n", ret, ret < 0 ? ulsm_last_error() : "want 1");
		return ret < 0 ? ret : -EPROTO;
	}
	own_line(&flag.v);
	own_line(&empty_line.v);
	own_line(&ULSM__TP_KEY(tpb_off).key.enabled);
#ifdef TPBENCH_LTTNG
	own_line(&lttng_ust_tracepoint_tpbench___off.state);
#endif
	snprintf(rec_path, sizeof(rec_path), "%s/bench_tracepoint.XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") :
		 "/tmp");
	rec_fd = mkstemp(rec_path);
	if (rec_fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", rec_path, strerror(errno));
		return -errno;
	}
	return 0;
}

static int lttng_enabled_main(int quick, const char *json, int sites,
			      int direct)
{
#ifdef TPBENCH_LTTNG
	if (!lttng_ust_tracepoint_enabled(tpbench, on)) {
		printf("LTTng enabled: not measured (tpbench:on is not "
		       "enabled in this process: no LTTng session reached "
		       "it)\n");
		return 0;
	}
	if (run_group(&g_lttng, quick ? 11 : 41,
		      quick ? 5000000 : 20000000))
		return 1;
	print_group(&g_lttng);
	printf("  (LTTng-UST: each hit writes an event, a header and two "
	       "64-bit integers, into\n   its per-CPU ring buffer "
	       "(overwrite mode); ulsm's recorder: 64 bytes into a\n"
	       "   per-thread ring. Different work, compared as what "
	       "recording costs.)\n");
	printf("  LTTng-UST enabled: %.3f ns/hit, %+.3f over the direct "
	       "call; ulsm recorder: %.3f ns/hit, %+.3f\n",
	       lttng_c[L_LTTNG].median_ns,
	       lttng_c[L_LTTNG].median_ns - lttng_c[L_DIRECT].median_ns,
	       lttng_c[L_REC].median_ns,
	       lttng_c[L_REC].median_ns - lttng_c[L_DIRECT].median_ns);
	printf("verified: %lu probe calls, %lu recorder events, %lu LTTng "
	       "runs with tpbench:on enabled\n", probe_calls_checked,
	       rec_events_checked, lttng_runs_checked);
	if (json && write_json(json, quick, true, sites, direct))
		return 1;
	return 0;
#else
	(void)quick;
	(void)json;
	(void)sites;
	(void)direct;
	printf("LTTng enabled: not measured (LTTng-UST not installed: "
	       "apt-get install liblttng-ust-dev)\n");
	return 0;
#endif
}

int main(int argc, char **argv)
{
	const char *json = NULL, *plot = NULL;
	char *args[64];
	bool lttng_mode = false, wall = false;
	int quick = 0, nargs = 0, sites, direct = 0, ret;
	unsigned int rounds;
	uint64_t target_ns;

	/* --lttng-enabled is ours; bench_options() takes the rest. */
	for (int i = 0; i < argc && nargs < 63; i++) {
		if (i && !strcmp(argv[i], "--lttng-enabled"))
			lttng_mode = true;
		else if (i && !strcmp(argv[i], "--wall"))
			wall = true;
		else
			args[nargs++] = argv[i];
	}
	args[nargs] = NULL;
	ret = bench_options(nargs, args, usage, &quick, &json, &plot);
	if (ret >= 0)
		return ret;
	rounds = quick ? 11 : 41;
	target_ns = quick ? 5000000 : 20000000;
	bench_run_clock = wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID;

	printf("ulsm tracepoint benchmark%s: back end %s, %s\n",
	       lttng_mode ? " (LTTng enabled run)" : "", ulsm_backend(),
	       BENCH_COMPILER);
	printf("runs timed in %s\n", wall ? "wall time (--wall)" :
	       "the thread's CPU time (--wall: wall time)");
	if (setup_probes())
		return 1;
	sites = ulsm_static_call_sites(ULSM__TP(tpb_on).call, &direct);
	printf("tpb_on: one probe attached; its static call has %d call "
	       "site(s), %d calling the probe directly\n", sites, direct);
	if (!strcmp(ulsm_backend(), "generic"))
		printf("(generic back end: a site is a load and a branch, its "
		       "call goes through a pointer)\n");

	if (lttng_mode) {
		ret = lttng_enabled_main(quick, json, sites, direct);
		goto out;
	}
	printf("LTTng-UST: %s\n", HAVE_LTTNG ? "linked (no session: "
	       "its tracepoints are off)" : "not installed (apt-get install "
	       "liblttng-ust-dev; its candidates are left out)");

	ret = 1;
	if (run_group(&g_off, rounds, target_ns))
		goto out;
	if (HAVE_EVICT && run_group(&g_cold, rounds, target_ns))
		goto out;
	if (run_group(&g_on, rounds, target_ns))
		goto out;
	if (run_group(&g_several, rounds, target_ns))
		goto out;

	print_group(&g_off);
	if (g_cold.ran) {
		print_group(&g_cold);
		printf("  (each loop flushes one line per iteration; +ns/it "
		       "over the empty loop is\n   what the site pays when "
		       "that line is cold: a load from memory, or nothing)\n");
	} else {
		printf("\noff, evicted: not measured (no cache flush "
		       "instruction on this architecture)\n");
	}
	print_group(&g_on);
	printf("  (the read-side section: ulsm tracepoint %+.3f ns/it over "
	       "the same site without it;\n   the direct call %+.3f ns/it "
	       "inside one)\n",
	       on_c[O_ULSM].median_ns - on_c[O_NOLOCK].median_ns,
	       on_c[O_LOCKED].median_ns - on_c[O_DIRECT].median_ns);
	printf("  recorder per event (ulsm_trace_enable): %.3f ns/hit; "
	       "minus the direct call: %+.3f ns;\n   minus the ulsm "
	       "tracepoint with a counting probe: %+.3f ns (clock_gettime "
	       "alone: %.3f ns,\n   the cycle counter alone: %.3f ns)\n",
	       on_c[O_REC].median_ns,
	       on_c[O_REC].median_ns - on_c[O_DIRECT].median_ns,
	       on_c[O_REC].median_ns - on_c[O_ULSM].median_ns,
	       on_c[O_CLOCK].median_ns, on_c[O_COUNTER].median_ns);
	print_group(&g_several);
	printf("  (3 probes: %.3fx 3 direct calls, %+.3f ns/it)\n",
	       bench_ratio(several_c[S_ULSM3].median_ns,
			   several_c[S_DIRECT3].median_ns),
	       several_c[S_ULSM3].median_ns - several_c[S_DIRECT3].median_ns);
	printf("\nLTTng enabled: %s\n", HAVE_LTTNG ? "measured in its own "
	       "run, inside a session (bench/lttng/session.sh; make bench "
	       "runs it)" : "not measured (LTTng-UST not installed)");

	judge();
	print_targets();
	printf("\nverified: %lu probe calls, %lu recorder events in order; "
	       "the off sites never called a probe\n", probe_calls_checked,
	       rec_events_checked);

	ret = 0;
	if (json && write_json(json, quick, false, sites, direct))
		ret = 1;
	if (plot && write_plot(plot, quick))
		ret = 1;
out:
	if (rec_fd >= 0) {
		close(rec_fd);
		unlink(rec_path);
	}
	return ret;
}
