// SPDX-License-Identifier: MIT
/*
 * What does a static key site cost, next to the branch on a flag it
 * replaces?
 *
 * Five loops, timed side by side in interleaved rounds (bench/bench.h):
 *
 *   empty loop           the loop alone: an empty asm per iteration
 *   static key, off      + a disabled static_branch_unlikely() site
 *   plain flag, false    + a branch on a global int read with a relaxed
 *                          atomic load (what a program would do without
 *                          static keys)
 *   static key, on       the same site, key enabled: it jumps to the
 *                          taken path
 *   plain flag, true     the same flag loop, flag set
 *
 * The taken path increments a volatile counter. After every timed run the
 * counter is checked: a disabled site must never have been taken, an
 * enabled one taken on every iteration. A result that fails the check is
 * not reported at all (exit 1).
 *
 * This is the flag's best case: in a tight loop its cache line stays in L1
 * and its branch is always predicted, so a modern core hides the load and
 * the compare almost entirely. What a static key saves for certain is the
 * load itself (a cache miss when the flag is cold) and the flag's cache
 * line; this benchmark measures what is left when neither matters.
 *
 * Usage: bench_static_key [--quick] [--json FILE] [--plot PREFIX]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "bench.h"

/*
 * The loops are aligned to 64 bytes: a loop this small runs a cycle
 * slower per iteration when it happens to straddle a 64-byte boundary
 * (seen on AMD Zen, whose op cache works in 64-byte lines), and where the
 * linker puts each function would otherwise decide the result.
 */
#define bench_loop	__attribute__((noinline, aligned(64)))

DEFINE_STATIC_KEY_FALSE(bench_key);
static int bench_flag;

/* Written by the taken paths; volatile so that every increment happens. */
static volatile unsigned long key_hits, flag_hits;

/* Per-run bookkeeping for the checks, and totals for the final verdict. */
static unsigned long hits_before;
static unsigned long key_off_taken, key_on_taken, key_on_expected;
static unsigned long flag_off_taken, flag_on_taken, flag_on_expected;

/*
 * The loops. Each is its own noinline function taking the count, so the
 * code timed is exactly what objdump shows, whichever candidate calls it.
 * The empty asm in each is the baseline's body; it also keeps the compiler
 * from deleting or vectorising the empty loop.
 */
static bench_loop void loop_empty(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("");
}

static bench_loop void loop_key(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		if (static_branch_unlikely(&bench_key))
			key_hits++;
	}
}

static bench_loop void loop_flag(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		__asm__ volatile("");
		/*
		 * Relaxed: the cheapest load that is still re-read every
		 * iteration (a plain load could be hoisted out of the loop).
		 * Marked unlikely so the taken path is laid out of line, as
		 * static_branch_unlikely() lays out its own.
		 */
		if (__builtin_expect(__atomic_load_n(&bench_flag,
						     __ATOMIC_RELAXED), 0))
			flag_hits++;
	}
}

/* --- prepare and check callbacks ----------------------------------------- */

static int set_key(int on)
{
	int ret = on ? static_branch_enable(&bench_key)
		     : static_branch_disable(&bench_key);

	if (ret) {
		fprintf(stderr, "bench_static_key: static_branch_%s: %s (%s)\n",
			on ? "enable" : "disable", strerror(-ret),
			ulsm_last_error());
		return ret;
	}
	if (static_key_enabled(&bench_key) != on) {
		fprintf(stderr, "bench_static_key: key count %d after %s\n",
			static_key_count(&bench_key),
			on ? "enable" : "disable");
		return -EPROTO;
	}
	hits_before = key_hits;
	return 0;
}

static int prepare_key_off(void)
{
	return set_key(0);
}

static int prepare_key_on(void)
{
	return set_key(1);
}

static int set_flag(int on)
{
	__atomic_store_n(&bench_flag, on, __ATOMIC_RELAXED);
	hits_before = flag_hits;
	return 0;
}

static int prepare_flag_off(void)
{
	return set_flag(0);
}

static int prepare_flag_on(void)
{
	return set_flag(1);
}

/*
 * Compare what the taken path counted with what it should have: @taken and
 * @expected accumulate over all runs for the final report.
 */
static int check_hits(const char *what, unsigned long now, unsigned long want,
		      unsigned long *taken, unsigned long *expected)
{
	unsigned long got = now - hits_before;

	*taken += got;
	if (expected)
		*expected += want;
	if (got != want) {
		fprintf(stderr, "bench_static_key: %s: taken path ran %lu "
			"times in a run that should have taken it %lu times\n",
			what, got, want);
		return -EPROTO;
	}
	return 0;
}

static int check_key_off(unsigned long iters)
{
	(void)iters;
	return check_hits("static key, off", key_hits, 0, &key_off_taken, NULL);
}

static int check_key_on(unsigned long iters)
{
	return check_hits("static key, on", key_hits, iters, &key_on_taken,
			  &key_on_expected);
}

static int check_flag_off(unsigned long iters)
{
	(void)iters;
	return check_hits("plain flag, false", flag_hits, 0, &flag_off_taken,
			  NULL);
}

static int check_flag_on(unsigned long iters)
{
	return check_hits("plain flag, true", flag_hits, iters, &flag_on_taken,
			  &flag_on_expected);
}

enum { C_EMPTY, C_KEY_OFF, C_FLAG_OFF, C_KEY_ON, C_FLAG_ON, C_COUNT };

static struct bench_cand cands[C_COUNT] = {
	[C_EMPTY] = { .name = "empty loop", .run = loop_empty },
	[C_KEY_OFF] = { .name = "static key, off (unlikely)",
			.run = loop_key, .prepare = prepare_key_off,
			.check = check_key_off },
	[C_FLAG_OFF] = { .name = "plain flag, false",
			 .run = loop_flag, .prepare = prepare_flag_off,
			 .check = check_flag_off },
	[C_KEY_ON] = { .name = "static key, on (unlikely)",
		       .run = loop_key, .prepare = prepare_key_on,
		       .check = check_key_on },
	[C_FLAG_ON] = { .name = "plain flag, true",
			.run = loop_flag, .prepare = prepare_flag_on,
			.check = check_flag_on },
};

/* The flag candidate in the same state, for the "x flag" column. */
static const struct bench_cand *flag_ref(int i)
{
	switch (i) {
	case C_KEY_OFF:
	case C_FLAG_OFF:
		return &cands[C_FLAG_OFF];
	case C_KEY_ON:
	case C_FLAG_ON:
		return &cands[C_FLAG_ON];
	default:
		return NULL;
	}
}

/* --- the cost of a flip -------------------------------------------------- */

struct flip_cost {
	struct ulsm_stats one;		/* stats delta of one enable */
	double median_us;		/* one enable or disable */
	double min_us;
	unsigned int flips;
};

static void stats_delta(struct ulsm_stats *d, const struct ulsm_stats *a,
			const struct ulsm_stats *b)
{
	d->batches = b->batches - a->batches;
	d->batches_failed = b->batches_failed - a->batches_failed;
	d->sites_patched = b->sites_patched - a->sites_patched;
	d->core_syncs = b->core_syncs - a->core_syncs;
	d->traps_emulated = b->traps_emulated - a->traps_emulated;
	d->traps_rewound = b->traps_rewound - a->traps_rewound;
	d->traps_passed = b->traps_passed - a->traps_passed;
}

/*
 * Flip the key once, recording what the library did, then time @pairs
 * enable/disable pairs. Leaves the key disabled.
 */
static int measure_flips(struct flip_cost *fc, unsigned int pairs)
{
	struct ulsm_stats before, after;
	double *us;
	int ret;

	ret = set_key(0);
	if (ret)
		return ret;
	ulsm_get_stats(&before);
	ret = set_key(1);
	if (ret)
		return ret;
	ulsm_get_stats(&after);
	stats_delta(&fc->one, &before, &after);
	ret = set_key(0);
	if (ret)
		return ret;

	us = calloc(2 * pairs, sizeof(*us));
	if (!us)
		return -ENOMEM;
	for (unsigned int i = 0; i < 2 * pairs && !ret; i++) {
		uint64_t t0 = bench_now_ns();

		ret = set_key(!(i & 1));
		us[i] = (double)(bench_now_ns() - t0) / 1000.0;
	}
	if (!ret) {
		fc->flips = 2 * pairs;
		fc->median_us = bench_median(us, 2 * pairs);
		fc->min_us = us[0];
	}
	free(us);
	if (!ret)
		ret = set_key(0);
	return ret;
}

/* --- output -------------------------------------------------------------- */

static int write_json(const char *path, int quick, unsigned long iters,
		      unsigned int rounds, const struct flip_cost *fc)
{
	FILE *f = bench_open("bench_static_key", path);

	if (!f)
		return -1;
	fprintf(f, "{\n  \"benchmark\": \"static_key\",\n  \"backend\": ");
	bench_json_string(f, ulsm_backend());
	fprintf(f, ",\n  \"sync_method\": ");
	bench_json_string(f, ulsm_sync_method());
	fprintf(f, ",\n  \"quick\": %s,\n", quick ? "true" : "false");
	fprintf(f, "  \"iterations_per_run\": %lu,\n  \"rounds\": %u,\n",
		iters, rounds);
	fprintf(f, "  \"candidates\": [\n");
	for (int i = 0; i < C_COUNT; i++) {
		const struct bench_cand *c = &cands[i];
		const struct bench_cand *ref = flag_ref(i);

		fprintf(f, "    { \"name\": ");
		bench_json_string(f, c->name);
		fprintf(f, ", \"median_ns_per_iter\": %.4f, "
			"\"min_ns_per_iter\": %.4f, \"ratio_to_empty\": %.4f",
			c->median_ns, c->min_ns,
			bench_ratio(c->median_ns, cands[C_EMPTY].median_ns));
		if (ref)
			fprintf(f, ", \"ratio_to_flag_same_state\": %.4f",
				bench_ratio(c->median_ns, ref->median_ns));
		fprintf(f, " }%s\n", i + 1 < C_COUNT ? "," : "");
	}
	fprintf(f, "  ],\n");
	fprintf(f, "  \"ratios\": {\n"
		"    \"key_off_vs_empty\": %.4f,\n"
		"    \"key_off_vs_flag_false\": %.4f,\n"
		"    \"key_on_vs_flag_true\": %.4f\n  },\n",
		bench_ratio(cands[C_KEY_OFF].median_ns,
			    cands[C_EMPTY].median_ns),
		bench_ratio(cands[C_KEY_OFF].median_ns,
			    cands[C_FLAG_OFF].median_ns),
		bench_ratio(cands[C_KEY_ON].median_ns,
			    cands[C_FLAG_ON].median_ns));
	fprintf(f, "  \"one_flip\": { \"batches\": %lu, \"core_syncs\": %lu, "
		"\"sites_patched\": %lu, \"traps_emulated\": %lu, "
		"\"traps_rewound\": %lu },\n",
		fc->one.batches, fc->one.core_syncs, fc->one.sites_patched,
		fc->one.traps_emulated, fc->one.traps_rewound);
	fprintf(f, "  \"flip_latency_us\": { \"flips\": %u, \"median\": %.2f, "
		"\"min\": %.2f },\n", fc->flips, fc->median_us, fc->min_us);
	fprintf(f, "  \"verified\": { \"key_off_taken\": %lu, "
		"\"key_on_taken\": %lu, \"key_on_expected\": %lu, "
		"\"flag_off_taken\": %lu, \"flag_on_taken\": %lu, "
		"\"flag_on_expected\": %lu }\n}\n",
		key_off_taken, key_on_taken, key_on_expected,
		flag_off_taken, flag_on_taken, flag_on_expected);
	return bench_close(f, "bench_static_key", path);
}

/*
 * PREFIX-keys.dat: one row per candidate, "name median min" (ns per
 * iteration), for the chart bench_static_call draws (PREFIX.gp).
 */
static int write_plot(const char *prefix)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s-keys.dat", prefix);
	f = bench_open("bench_static_key", path);
	if (!f)
		return -1;
	fprintf(f, "# bench_static_key: ns per iteration (median, min)\n");
	for (int i = 0; i < C_COUNT; i++)
		fprintf(f, "\"%s\" %.4f %.4f\n", cands[i].name,
			cands[i].median_ns, cands[i].min_ns);
	return bench_close(f, "bench_static_key", path);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_static_key [--quick] [--json FILE] "
		"[--plot PREFIX]\n"
		"  --quick        fewer and shorter rounds (about a second)\n"
		"  --json FILE    also write the results to FILE as JSON\n"
		"  --plot PREFIX  write PREFIX-keys.dat, for the chart of "
		"bench_static_call\n"
		"                 --plot PREFIX\n");
}

int main(int argc, char **argv)
{
	const char *json = NULL, *plot = NULL;
	int quick = 0;
	struct ulsm_stats total;
	struct flip_cost fc = { 0 };
	unsigned long iters;
	unsigned int rounds;
	uint64_t target_ns;
	int ret;

	ret = bench_options(argc, argv, usage, &quick, &json, &plot);
	if (ret >= 0)
		return ret;

	/*
	 * Default: 41 rounds of five ~20 ms runs, about 4 s. The slowest
	 * loop (flag set: load, branch, volatile increment) sets the
	 * iteration count so that no candidate's run exceeds the target.
	 */
	rounds = quick ? 11 : 41;
	target_ns = quick ? 5000000 : 20000000;

	printf("ulsm static key benchmark: back end %s\n", ulsm_backend());

	ret = measure_flips(&fc, quick ? 10 : 50);
	if (ret)
		return 1;
	printf("core sync: %s\n", ulsm_sync_method());
	printf("one static_branch_enable(): %lu batch(es), %lu core sync(s), "
	       "%lu site(s) patched\n", fc.one.batches, fc.one.core_syncs,
	       fc.one.sites_patched);
	printf("flip latency over %u flips: median %.2f us, min %.2f us\n\n",
	       fc.flips, fc.median_us, fc.min_us);

	set_flag(1);
	iters = bench_calibrate(loop_flag, target_ns);
	set_flag(0);

	ret = bench_run(cands, C_COUNT, rounds, iters);
	if (ret) {
		fprintf(stderr, "bench_static_key: run failed: %s\n",
			strerror(-ret));
		return 1;
	}

	/* The final verdict: only honestly obtained numbers are reported. */
	if (key_off_taken || flag_off_taken ||
	    key_on_taken != key_on_expected || !key_on_expected ||
	    flag_on_taken != flag_on_expected || !flag_on_expected) {
		fprintf(stderr, "bench_static_key: wrong paths taken: key off "
			"%lu, key on %lu/%lu, flag off %lu, flag on %lu/%lu\n",
			key_off_taken, key_on_taken, key_on_expected,
			flag_off_taken, flag_on_taken, flag_on_expected);
		return 1;
	}

	printf("%u interleaved rounds, %lu iterations per run\n\n", rounds,
	       iters);
	bench_print_header("candidate");
	for (int i = 0; i < C_COUNT; i++)
		bench_print_row(&cands[i], &cands[C_EMPTY], flag_ref(i));
	printf("(x flag: against the plain flag in the same state)\n");
	printf("(the flag's best case: its cache line stays in L1 and its "
	       "branch is always\n predicted; a static key also saves the "
	       "load when the flag is cold)\n\n");

	printf("measured in this run (medians):\n");
	printf("  static key off / empty loop:        %.3f (%+.3f ns/iter)\n",
	       bench_ratio(cands[C_KEY_OFF].median_ns,
			   cands[C_EMPTY].median_ns),
	       cands[C_KEY_OFF].median_ns - cands[C_EMPTY].median_ns);
	printf("  static key off / plain flag false:  %.3f (%+.3f ns/iter)\n",
	       bench_ratio(cands[C_KEY_OFF].median_ns,
			   cands[C_FLAG_OFF].median_ns),
	       cands[C_KEY_OFF].median_ns - cands[C_FLAG_OFF].median_ns);
	printf("  static key on  / plain flag true:   %.3f (%+.3f ns/iter)\n",
	       bench_ratio(cands[C_KEY_ON].median_ns,
			   cands[C_FLAG_ON].median_ns),
	       cands[C_KEY_ON].median_ns - cands[C_FLAG_ON].median_ns);
	printf("verified: disabled site taken %lu times, enabled site taken "
	       "%lu of %lu times\n", key_off_taken, key_on_taken,
	       key_on_expected);

	ulsm_get_stats(&total);
	printf("library totals: %lu batches (%lu failed), %lu core syncs, "
	       "%lu sites patched\n", total.batches, total.batches_failed,
	       total.core_syncs, total.sites_patched);

	if (json && write_json(json, quick, iters, rounds, &fc))
		return 1;
	if (plot && write_plot(plot))
		return 1;
	return 0;
}
