// SPDX-License-Identifier: MIT
/*
 * keys_demo - code paths that change under running threads, without locks.
 *
 * Three worker threads handle "requests" in a loop. Every request passes
 * three static-key sites:
 *
 *	if (static_branch_unlikely(&tracing))	  -> record a trace event
 *	if (static_branch_likely(&fast_path))	  -> fast path, else slow path
 *	if (static_branch_unlikely(&auditing))	  -> record an audit event
 *
 * The workers take no lock and read no flag: on the x86_64 back end each
 * site is one 5-byte instruction, a NOP or a JMP (on the generic back end,
 * a load of the key's count). Meanwhile the main thread changes the keys,
 * in three phases:
 *
 *   1. tracing     static_branch_enable() / static_branch_disable()
 *   2. fast_path   static_branch_dec() / static_branch_inc() of a key
 *                  defined TRUE (count 1): dec to 0 switches to the slow
 *                  path, inc back to 1 to the fast one
 *   3. auditing    reference counted by two users: inc, inc, dec, dec.
 *                  Only the first inc and the last dec change code.
 *
 * Each change rewrites the sites in place while the workers execute them
 * (docs/patching-protocol.md says how that is made safe). After each phase
 * the program prints what the workers saw and what the library did.
 *
 * How we know the workers saw the right thing: around every change the
 * main thread publishes an announcement (one atomic word): "a change is in
 * progress", then "change N completed; the keys are now in state S"
 * (stored with release). A worker reads the announcement (acquire), handles
 * one request, and reads it again. If both reads returned the same
 * completed announcement, no change overlapped the request, and ulsm
 * guarantees that every site took the path of state S. Anything else is a
 * violation, and the program exits 1. Requests that overlapped a change are
 * counted but not checked: there either path is correct.
 *
 * Usage: keys_demo [--seconds N]	(default 2; N may be fractional)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#define NWORKERS	3

DEFINE_STATIC_KEY_FALSE(tracing);	/* off: tracing costs one NOP */
DEFINE_STATIC_KEY_TRUE(fast_path);	/* on: the fast path is inline */
DEFINE_STATIC_KEY_FALSE(auditing);	/* on while anybody holds a reference */

/*
 * The announcement, one word so that a worker reads all of it at once:
 *   bits 0-2  the state of the three keys once the current change is done
 *   bit 3     a change is in progress: sites may show either state
 *   bit 4     stop: the workers exit
 *   bit 5     park: the workers wait until the next announcement
 *   bits 8-   a counter, so that two announcements never compare equal
 */
#define ST_TRACING	(1ul << 0)
#define ST_FAST		(1ul << 1)
#define ST_AUDIT	(1ul << 2)
#define ST_MASK		(ST_TRACING | ST_FAST | ST_AUDIT)
#define ANN_BUSY	(1ul << 3)
#define ANN_STOP	(1ul << 4)
#define ANN_PARK	(1ul << 5)
#define ANN_NEXT	(1ul << 8)

static unsigned long announcement = ST_FAST;	/* the keys' initial state */

/*
 * What a worker observed. Only the worker writes its counters; the main
 * thread reads them while the worker runs. Relaxed atomic stores and loads
 * make that well defined without any lock, and cost the worker nothing
 * more than plain ones on x86.
 */
struct counts {
	unsigned long requests;
	unsigned long traced;		/* trace events recorded */
	unsigned long fast, slow;	/* which compute path ran */
	unsigned long audited;		/* audit events recorded */
	unsigned long switches;		/* times the paths taken switched */
	unsigned long during_change;	/* requests overlapping a change */
	unsigned long checked[ST_MASK + 1]; /* checked, by expected state */
	unsigned long violations;	/* checked and wrong */
};

struct worker {
	pthread_t thread;
	unsigned long last_seen;	/* paths of the previous request */
	unsigned long parked;		/* the ANN_PARK announcement seen */
	struct counts n;
} __attribute__((aligned(64)));	/* no false sharing between workers */

static struct worker workers[NWORKERS];

static inline void count(unsigned long *c)
{
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

static inline void read_fence(void)
{
	/*
	 * gcc's ThreadSanitizer does not model fences and warns about them
	 * (-Wtsan). It checks nothing here that needs one: every shared
	 * access is atomic. So SANITIZE=thread builds leave it out.
	 */
#ifndef __SANITIZE_THREAD__
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
}

/*
 * The request handler's three sites. Each is its own noinline function
 * that returns the path it took, so the worker can check it; real code
 * would just do the work.
 */
static __attribute__((noinline)) bool trace_point(struct worker *w)
{
	if (static_branch_unlikely(&tracing)) {
		count(&w->n.traced);
		return true;
	}
	return false;
}

static __attribute__((noinline)) bool compute(struct worker *w)
{
	if (static_branch_likely(&fast_path)) {
		count(&w->n.fast);
		return true;
	}
	count(&w->n.slow);
	return false;
}

static __attribute__((noinline)) bool audit_point(struct worker *w)
{
	if (static_branch_unlikely(&auditing)) {
		count(&w->n.audited);
		return true;
	}
	return false;
}

/* Handle one request; return the paths taken, as ST_* bits. */
static unsigned long handle_request(struct worker *w)
{
	unsigned long seen = 0;

	if (trace_point(w))
		seen |= ST_TRACING;
	if (compute(w))
		seen |= ST_FAST;
	if (audit_point(w))
		seen |= ST_AUDIT;
	return seen;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		unsigned long before, after, seen;

		before = __atomic_load_n(&announcement, __ATOMIC_ACQUIRE);
		if (before & ANN_STOP)
			break;
		if (before & ANN_PARK) {
			/* Wait here while the main thread reads our counters. */
			__atomic_store_n(&w->parked, before, __ATOMIC_RELEASE);
			while (__atomic_load_n(&announcement,
					       __ATOMIC_ACQUIRE) == before)
				sched_yield();
			continue;
		}
		/*
		 * A site is an asm statement that touches no memory: the
		 * compiler barriers keep it between the two reads of the
		 * announcement.
		 */
		__asm__ volatile("" ::: "memory");
		seen = handle_request(w);
		__asm__ volatile("" ::: "memory");
		/*
		 * The seqlock reader's fence: on the generic back end a site
		 * is a relaxed load of the key's count, and this fence keeps
		 * it before the second read (an acquire load would not: it
		 * only orders what comes after it).
		 */
		read_fence();
		after = __atomic_load_n(&announcement, __ATOMIC_RELAXED);

		count(&w->n.requests);
		if (seen != w->last_seen) {
			count(&w->n.switches);
			w->last_seen = seen;
		}
		if (before != after || (before & ANN_BUSY)) {
			count(&w->n.during_change);
			continue;
		}
		/* No change overlapped this request: it must match. */
		count(&w->n.checked[before & ST_MASK]);
		if (seen != (before & ST_MASK))
			count(&w->n.violations);
	}
	return NULL;
}

/* --- the main thread --------------------------------------------------- */

enum op { TRACING_ON, TRACING_OFF, FAST_OFF, FAST_ON, AUDIT_GET, AUDIT_PUT };

static const char *const op_names[] = {
	[TRACING_ON] = "static_branch_enable(&tracing)",
	[TRACING_OFF] = "static_branch_disable(&tracing)",
	[FAST_OFF] = "static_branch_dec(&fast_path)",
	[FAST_ON] = "static_branch_inc(&fast_path)",
	[AUDIT_GET] = "static_branch_inc(&auditing)",
	[AUDIT_PUT] = "static_branch_dec(&auditing)",
};

/*
 * The main thread's own model of the keys, kept independently of the
 * library so that the check does not just ask the library what it did.
 */
static bool model_tracing, model_fast = true;
static int model_audit_refs;

static unsigned long model_state(void)
{
	return (model_tracing ? ST_TRACING : 0) | (model_fast ? ST_FAST : 0) |
	       (model_audit_refs > 0 ? ST_AUDIT : 0);
}

static int apply(enum op op)
{
	int ret = -EINVAL;

	switch (op) {
	case TRACING_ON:
		ret = static_branch_enable(&tracing);
		if (!ret)
			model_tracing = true;
		break;
	case TRACING_OFF:
		ret = static_branch_disable(&tracing);
		if (!ret)
			model_tracing = false;
		break;
	case FAST_OFF:
		ret = static_branch_dec(&fast_path);
		if (!ret)
			model_fast = false;
		break;
	case FAST_ON:
		ret = static_branch_inc(&fast_path);
		if (!ret)
			model_fast = true;
		break;
	case AUDIT_GET:
		ret = static_branch_inc(&auditing);
		if (!ret)
			model_audit_refs++;
		break;
	case AUDIT_PUT:
		ret = static_branch_dec(&auditing);
		if (!ret)
			model_audit_refs--;
		break;
	}
	return ret;
}

/*
 * Publish a new announcement and return it. Only the main thread writes
 * the announcement; the workers only read it.
 */
static unsigned long announce(unsigned long flags, int order)
{
	unsigned long next = (announcement & ~(ANN_NEXT - 1)) + ANN_NEXT;

	__atomic_store_n(&announcement, next | flags, order);
	return next | flags;
}

/* One change, announced as described at the top of this file. */
static int change(enum op op)
{
	int ret;

	/*
	 * "In progress" must be visible before any site changes: seq_cst
	 * keeps it ahead of whatever the library writes next, whichever
	 * back end.
	 */
	announce(ANN_BUSY | model_state(), __ATOMIC_SEQ_CST);
	ret = apply(op);
	if (ret) {
		fprintf(stderr, "keys_demo: %s failed: %s (%s)\n",
			op_names[op], strerror(-ret), ulsm_last_error());
		/* On error the key keeps its old state: announce that. */
	}
	/*
	 * "Completed": release, so a worker that reads this (acquire) also
	 * sees everything the update did before it returned.
	 */
	announce(model_state(), __ATOMIC_RELEASE);
	return ret;
}

struct phase {
	const char *title;
	const char *how;
	unsigned long key;		/* the ST_ bit of the key it changes */
	const enum op *ops;		/* one cycle, ending in the start state */
	int nops;
};

static const enum op tracing_ops[] = { TRACING_ON, TRACING_OFF };
static const enum op fast_ops[] = { FAST_OFF, FAST_ON };
static const enum op audit_ops[] = { AUDIT_GET, AUDIT_GET, AUDIT_PUT,
				     AUDIT_PUT };

static const struct phase phases[] = {
	{ "tracing", "static_branch_enable/disable, a boolean key",
	  ST_TRACING, tracing_ops, 2 },
	{ "fast_path", "static_branch_dec/inc of a key defined TRUE",
	  ST_FAST, fast_ops, 2 },
	{ "auditing", "reference counted: inc, inc, dec, dec; only the "
	  "first inc and the last dec patch code", ST_AUDIT, audit_ops, 4 },
};

#define NPHASES	(sizeof(phases) / sizeof(phases[0]))

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void snapshot(struct counts *c, const struct worker *w)
{
	const unsigned long *src = (const unsigned long *)&w->n;
	unsigned long *dst = (unsigned long *)c;

	for (size_t i = 0; i < sizeof(*c) / sizeof(unsigned long); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/*
 * Snapshot every worker's counters at a phase boundary. The workers park
 * for the moment (between two requests) so that the counts are exact: a
 * request is counted wholly in one phase.
 */
static void snapshot_all(struct counts c[NWORKERS])
{
	unsigned long ann = announce(ANN_PARK | model_state(),
				     __ATOMIC_RELEASE);

	for (int i = 0; i < NWORKERS; i++) {
		while (__atomic_load_n(&workers[i].parked, __ATOMIC_ACQUIRE) !=
		       ann)
			sched_yield();
		snapshot(&c[i], &workers[i]);
	}
	announce(model_state(), __ATOMIC_RELEASE);
}

/* @d = @b - @a, counter by counter. */
static void counts_sub(struct counts *d, const struct counts *b,
		       const struct counts *a)
{
	const unsigned long *x = (const unsigned long *)a;
	const unsigned long *y = (const unsigned long *)b;
	unsigned long *z = (unsigned long *)d;

	for (size_t i = 0; i < sizeof(*d) / sizeof(unsigned long); i++)
		z[i] = y[i] - x[i];
}

/* @sum += @c, counter by counter. */
static void counts_add(struct counts *sum, const struct counts *c)
{
	const unsigned long *x = (const unsigned long *)c;
	unsigned long *z = (unsigned long *)sum;

	for (size_t i = 0; i < sizeof(*sum) / sizeof(unsigned long); i++)
		z[i] += x[i];
}

/* Checked requests during which the key of @bit was expected on / off. */
static unsigned long checked_with(const struct counts *c, unsigned long bit,
				  bool on)
{
	unsigned long n = 0;

	for (unsigned long s = 0; s <= ST_MASK; s++)
		if (!!(s & bit) == on)
			n += c->checked[s];
	return n;
}

static void print_row(const char *who, const struct counts *c)
{
	unsigned long checked = checked_with(c, ST_MASK, true) +
				checked_with(c, ST_MASK, false);

	printf("  %-3s %10lu %9lu %9lu %9lu %9lu %8lu %10lu %5lu\n", who,
	       c->requests, c->traced, c->fast, c->slow, c->audited,
	       c->switches, checked, c->violations);
}

static void print_stats(const struct ulsm_stats *a, const struct ulsm_stats *b)
{
	printf("  library: %lu batches, %lu core syncs, %lu sites patched, "
	       "traps %lu emulated / %lu rewound\n",
	       b->batches - a->batches, b->core_syncs - a->core_syncs,
	       b->sites_patched - a->sites_patched,
	       b->traps_emulated - a->traps_emulated,
	       b->traps_rewound - a->traps_rewound);
}

/*
 * Run one phase for @seconds: change the key again and again, pausing
 * between changes so the workers handle requests in every state. Stops at
 * the end of a cycle, so the key is back where it started. Returns the
 * number of problems found (violations, nothing checked), or -1 if a
 * change failed: then the keys are not where the next phase expects them.
 */
static int run_phase(int idx, const struct phase *p, double seconds,
		     struct counts *total)
{
	const struct timespec pause = { 0, 200 * 1000 };	/* 200 us */
	struct counts before[NWORKERS], after[NWORKERS], d, sum;
	struct ulsm_stats st0, st1;
	unsigned long flips = 0, on, off;
	double t0, t;
	int problems = 0;

	printf("\nphase %d: %s (%s)\n", idx, p->title, p->how);
	snapshot_all(before);
	ulsm_get_stats(&st0);

	t0 = now_s();
	do {
		for (int k = 0; k < p->nops; k++) {
			if (change(p->ops[k]))
				return -1;
			flips++;
			nanosleep(&pause, NULL);
		}
		t = now_s() - t0;
	} while (t < seconds);

	ulsm_get_stats(&st1);
	snapshot_all(after);
	printf("  main thread: %lu changes in %.2f s, while the workers ran\n",
	       flips, t);
	print_stats(&st0, &st1);
	printf("  %-3s %10s %9s %9s %9s %9s %8s %10s %5s\n", "thr",
	       "requests", "traced", "fast", "slow", "audited", "switches",
	       "checked", "wrong");
	memset(&sum, 0, sizeof(sum));
	for (int i = 0; i < NWORKERS; i++) {
		char name[16];

		counts_sub(&d, &after[i], &before[i]);
		counts_add(&sum, &d);
		snprintf(name, sizeof(name), "%d", i);
		print_row(name, &d);
	}
	print_row("all", &sum);
	counts_add(total, &sum);

	on = checked_with(&sum, p->key, true);
	off = checked_with(&sum, p->key, false);
	printf("  checked with %s on: %lu, off: %lu; overlapping a change "
	       "(not checked): %lu\n", p->title, on, off, sum.during_change);
	if (sum.violations) {
		printf("  VIOLATION: %lu requests took a path other than the "
		       "one of the last completed change\n", sum.violations);
		problems++;
	}
	if (!on || !off) {
		printf("  PROBLEM: no request was checked with %s %s; the "
		       "workers did not get to run?\n", p->title,
		       on ? "off" : "on");
		problems++;
	}
	return problems;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: keys_demo [--seconds N]\n"
		"  --seconds N  how long to change keys, in all (default 2)\n");
}

int main(int argc, char **argv)
{
	struct counts total = { 0 };
	struct ulsm_stats st;
	double seconds = 2;
	int problems = 0, ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			char *end;

			seconds = strtod(argv[++i], &end);
			if (*end || !(seconds > 0 && seconds <= 3600)) {
				fprintf(stderr, "keys_demo: --seconds wants a "
					"number between 0 and 3600\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}

	printf("keys_demo: %d worker threads handle requests through three "
	       "static-key sites,\nwithout locks, while this thread changes "
	       "the keys. Back end: %s.\n", NWORKERS, ulsm_backend());
	if (!strcmp(ulsm_backend(), "generic"))
		printf("(generic back end: no code is patched; each site "
		       "reads its key's count)\n");
	printf("Each phase shows, per worker: requests handled, trace events, "
	       "fast and slow\npath runs, audit events, how often the paths "
	       "it took switched, requests\nchecked against the last "
	       "completed change, and wrong ones.\n");

	for (int i = 0; i < NWORKERS; i++) {
		workers[i].last_seen = ST_FAST;
		ret = pthread_create(&workers[i].thread, NULL, worker_main,
				     &workers[i]);
		if (ret) {
			fprintf(stderr, "keys_demo: pthread_create: %s\n",
				strerror(ret));
			return 1;
		}
	}

	for (size_t i = 0; i < NPHASES; i++) {
		int n = run_phase((int)i + 1, &phases[i],
				  seconds / (double)NPHASES, &total);

		if (n < 0) {
			problems++;
			break;
		}
		problems += n;
	}

	announce(ANN_STOP, __ATOMIC_RELEASE);
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(workers[i].thread, NULL);

	/* The cycles end where they started: check the library agrees. */
	if (static_key_enabled(&tracing) || !static_key_enabled(&fast_path) ||
	    static_key_count(&fast_path) != 1 || static_key_count(&auditing)) {
		printf("PROBLEM: keys not back in their initial state (%d %d "
		       "%d)\n", static_key_count(&tracing),
		       static_key_count(&fast_path),
		       static_key_count(&auditing));
		problems++;
	}

	ulsm_get_stats(&st);
	printf("\nlibrary in all: %lu batches (%lu failed), %lu core syncs, "
	       "%lu sites patched, traps %lu emulated / %lu rewound; "
	       "core sync: %s\n", st.batches, st.batches_failed, st.core_syncs,
	       st.sites_patched, st.traps_emulated, st.traps_rewound,
	       ulsm_sync_method());
	printf("keys_demo: %s: %lu requests, %lu checked against a completed "
	       "change, %lu violations (%s, %s)\n",
	       problems ? "FAILED" : "OK", total.requests,
	       checked_with(&total, ST_MASK, true) +
	       checked_with(&total, ST_MASK, false), total.violations,
	       ulsm_backend(), ulsm_sync_method());
	return problems ? 1 : 0;
}
