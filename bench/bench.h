/* SPDX-License-Identifier: MIT */
/*
 * bench/bench.h - timing helpers shared by the benchmarks. Header-only.
 *
 * A benchmark describes its candidates (loops doing the same work in
 * different ways) and bench_run() times them in interleaved rounds: round 1
 * runs every candidate once, round 2 again, and so on, starting each round
 * at a different candidate. The machines we run on are small and shared, so
 * a burst of noise (another process, a frequency change, a migration) lasts
 * long enough to spoil several consecutive measurements; interleaving
 * spreads it over all candidates instead of making one of them look slow.
 * Each candidate's result is then the median of its rounds (robust against
 * the remaining outliers) and the minimum (the best the hardware did).
 *
 *	static struct bench_cand c[] = {
 *		{ .name = "empty loop", .run = loop_empty },
 *		{ .name = "plain flag", .run = loop_flag },
 *	};
 *	unsigned long iters = bench_calibrate(loop_flag, 10 * 1000 * 1000);
 *
 *	if (bench_run(c, 2, 31, iters))
 *		exit(1);
 *	bench_print_header("candidate");
 *	for (i = 0; i < 2; i++)
 *		bench_print_row(&c[i], &c[0], &c[1]);
 *
 * Everything is static or static inline: a benchmark includes this header
 * once and may leave helpers unused without warnings.
 */
#ifndef ULSM_BENCH_H
#define ULSM_BENCH_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/**
 * struct bench_cand - one candidate
 * @name:    label for the table and the JSON output
 * @run:     the timed loop; runs @iters iterations of the thing measured.
 *           Keep it in its own noinline function so that the code measured
 *           is the same whoever calls it.
 * @prepare: optional, untimed, before every timed run (set a key, reset a
 *           counter). Nonzero stops bench_run() and is returned.
 * @check:   optional, untimed, after every timed run: verify that the loop
 *           did what it claims (took the path it should have). Nonzero
 *           stops bench_run() and is returned.
 * @median_ns, @min_ns: results, nanoseconds per iteration
 * @rounds:  how many timed runs the results are based on
 */
struct bench_cand {
	const char *name;
	void (*run)(unsigned long iters);
	int (*prepare)(void);
	int (*check)(unsigned long iters);
	double median_ns;
	double min_ns;
	unsigned int rounds;
};

static inline uint64_t bench_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Monotonic nanoseconds; immune to wall-clock jumps (NTP, settimeofday). */
static inline uint64_t bench_now_ns(void)
{
	return bench_clock_ns(CLOCK_MONOTONIC);
}

/*
 * The clock that times a run (bench_time_ns(): bench_calibrate() and
 * bench_run()): CLOCK_MONOTONIC, wall time, unless the benchmark sets
 * it first. CLOCK_THREAD_CPUTIME_ID counts only the time the thread
 * ran: on a loaded machine, where a run of a few milliseconds is often
 * preempted, wall time charges other processes' time to the candidates
 * whose runs are longest (nice'd, under a load of 9 on 2 CPUs, medians
 * of 20 ms runs came out 2 to 7 times their minima). It still counts
 * what a preemption costs the thread afterwards (caches refilled).
 */
static clockid_t bench_run_clock __attribute__((unused)) = CLOCK_MONOTONIC;

/* Nanoseconds one call of @run(@iters) takes, on bench_run_clock. */
static inline uint64_t bench_time_ns(void (*run)(unsigned long),
				     unsigned long iters)
{
	uint64_t t0 = bench_clock_ns(bench_run_clock);

	run(iters);
	return bench_clock_ns(bench_run_clock) - t0;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of @v[0..n-1] (sorted in place); @n > 0. */
static inline double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/**
 * bench_calibrate - an iteration count for which @run takes @target_ns
 * @run:       the loop (usually the slowest candidate)
 * @target_ns: wanted duration of one timed run
 *
 * Long enough that the clock's resolution and the call overhead vanish,
 * short enough that a round of all candidates fits between two bursts of
 * noise. Doubles the count until one run takes a tenth of the target, then
 * scales by the median of five runs of that length: one run caught by a
 * burst of noise would otherwise shrink every later run.
 *
 * Return: the iteration count, at least 1000.
 */
static inline unsigned long bench_calibrate(void (*run)(unsigned long),
					    uint64_t target_ns)
{
	unsigned long iters = 1000;
	double t[5], med;

	while (bench_time_ns(run, iters) < target_ns / 10 &&
	       iters < (~0ul >> 4))
		iters *= 2;
	for (size_t i = 0; i < 5; i++)
		t[i] = (double)bench_time_ns(run, iters);
	med = bench_median(t, 5);
	if (med > 0)
		iters = (unsigned long)((double)iters * (double)target_ns /
					med);
	return iters < 1000 ? 1000 : iters;
}

/**
 * bench_run - time candidates in interleaved rounds
 * @c:      the candidates; results are written into them
 * @n:      how many
 * @rounds: timed runs per candidate (odd counts give a true median)
 * @iters:  iterations per run
 *
 * One untimed run of each candidate comes first: it faults the pages in,
 * trains the branch predictors and lets the CPU leave its idle frequency.
 * Round r starts at candidate r % n, so no candidate always runs right
 * after the same neighbour (whose cache or frequency footprint it would
 * otherwise inherit every time).
 *
 * Return: 0, -ENOMEM, -EINVAL, or the first nonzero value a candidate's
 * prepare or check returned.
 */
static inline int bench_run(struct bench_cand *c, size_t n,
			    unsigned int rounds, unsigned long iters)
{
	double *ns;
	int ret = 0;

	if (!n || !rounds || !iters)
		return -EINVAL;
	ns = calloc(n * rounds, sizeof(*ns));
	if (!ns)
		return -ENOMEM;

	for (size_t i = 0; i < n && !ret; i++) {
		if (c[i].prepare)
			ret = c[i].prepare();
		if (!ret)
			c[i].run(iters);
		if (!ret && c[i].check)
			ret = c[i].check(iters);
	}

	for (unsigned int r = 0; r < rounds && !ret; r++) {
		for (size_t k = 0; k < n && !ret; k++) {
			size_t i = (r + k) % n;
			uint64_t t;

			if (c[i].prepare)
				ret = c[i].prepare();
			if (ret)
				break;
			t = bench_time_ns(c[i].run, iters);
			if (c[i].check)
				ret = c[i].check(iters);
			ns[i * rounds + r] = (double)t / (double)iters;
		}
	}

	for (size_t i = 0; i < n && !ret; i++) {
		double *v = &ns[i * rounds];

		c[i].median_ns = bench_median(v, rounds);
		c[i].min_ns = v[0];		/* sorted by bench_median() */
		c[i].rounds = rounds;
	}
	free(ns);
	return ret;
}

/* Ratio of two timings, or 0 if the denominator is not positive. */
static inline double bench_ratio(double num, double den)
{
	return den > 0 ? num / den : 0;
}

/*
 * One of the issues' targets, judged by this run: @met, and @detail (the
 * figures it was judged on, side by side). Each benchmark prints its own
 * as it likes; this also appends one line to the file $BENCH_TARGETS
 * names, if set, so that make bench ends with every target of the run in
 * one table (bench/targets.sh).
 */
__attribute__((format(printf, 4, 5)))
static inline void bench_target(const char *bench, const char *what,
				bool met, const char *detail, ...)
{
	const char *path = getenv("BENCH_TARGETS");
	char text[300];
	va_list ap;
	FILE *f;

	va_start(ap, detail);
	vsnprintf(text, sizeof(text), detail, ap);
	va_end(ap);
	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%s\t%s\t%s\t%s\n", met ? "met" : "NOT met", bench, what,
		text);
	fclose(f);
}

/* The header matching bench_print_row(); @first labels the first column. */
static inline void bench_print_header(const char *first)
{
	printf("%-30s %12s %12s %9s %9s\n", first, "median ns/it",
	       "min ns/it", "x empty", "x flag");
}

/**
 * bench_print_row - one line of the results table
 * @c:     the candidate
 * @base:  the baseline for the "x empty" column (NULL: leave it blank)
 * @ref:   the reference for the "x flag" column (NULL: leave it blank)
 *
 * Ratios are of medians: the min is a best case that the baseline and the
 * candidate need not have reached in the same round.
 */
static inline void bench_print_row(const struct bench_cand *c,
				   const struct bench_cand *base,
				   const struct bench_cand *ref)
{
	printf("%-30s %12.3f %12.3f", c->name, c->median_ns, c->min_ns);
	if (base)
		printf(" %9.2f", bench_ratio(c->median_ns, base->median_ns));
	else
		printf(" %9s", "");
	if (ref)
		printf(" %9.2f", bench_ratio(c->median_ns, ref->median_ns));
	printf("\n");
}

/* Write @s as a JSON string (quotes and escapes included). */
static inline void bench_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

/* Close a results file; if that fails, say so as @prog and return -1. */
/*
 * The kernel change's table: a head, one row per case with the throughput
 * ulsm gains, (@ratio - 1) x 100 where @ratio is the baseline's time over
 * ulsm's, and per variant the Hook Dispatch Index, the geometric mean of
 * its @n rows' ratios (accumulated in @logsum) as the same Delta(%).
 */
static inline void bench_delta_head(void)
{
	printf("%-56s%23s\n", "Benchmark", "Delta(%): (+ is better)");
	printf("==============================================================="
	       "================\n");
}

static inline void bench_delta_row(const char *variant, const char *label,
				   double ratio, double *logsum)
{
	char line[128];

	snprintf(line, sizeof(line), "%-10s %s", variant, label);
	printf("%-66s%+13.2f\n", line, (ratio - 1) * 100);
	*logsum += log(ratio > 0 ? ratio : 1);
}

static inline void bench_delta_index(const char *variant, double logsum,
				     int n)
{
	char line[128];

	snprintf(line, sizeof(line), "Hook Dispatch Index (geometric mean, "
		 "%s):", variant);
	printf("%-66s%+13.2f\n", line, (exp(logsum / n) - 1) * 100);
}

/* fopen(@path, "w"), saying why it failed; bench_close() is its end. */
static inline FILE *bench_open(const char *prog, const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
	return f;
}

static inline int bench_close(FILE *f, const char *prog, const char *path)
{
	if (fclose(f)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The options every simple benchmark takes: --quick, --json FILE,
 * --plot PREFIX (when @plot is not NULL) and --help (which @usage
 * describes). Return -1 to go on, else the status main() should return.
 */
static inline int bench_options(int argc, char **argv, void (*usage)(FILE *),
				int *quick, const char **json,
				const char **plot)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			*quick = 1;
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			*json = argv[++i];
		} else if (plot && !strcmp(argv[i], "--plot") && i + 1 < argc) {
			*plot = argv[++i];
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	return -1;
}

/* --- the machine and the compiler, for reports and chart titles ------ */

#define BENCH_STR_(x)	#x
#define BENCH_STR(x)	BENCH_STR_(x)
#ifdef __clang__
# define BENCH_COMPILER	"clang " BENCH_STR(__clang_major__) "."		\
			BENCH_STR(__clang_minor__) "." BENCH_STR(__clang_patchlevel__)
#else
# define BENCH_COMPILER	"gcc " __VERSION__
#endif

struct bench_machine {
	char cpu[128];		/* /proc/cpuinfo's model name */
	char kernel[160];	/* uname: system and release */
	long ncpus;
};

static inline void bench_read_machine(struct bench_machine *m)
{
	char line[256];
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(m->cpu, sizeof(m->cpu), "unknown CPU");
	snprintf(m->kernel, sizeof(m->kernel), "unknown kernel");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(m->cpu, sizeof(m->cpu), "%s", colon);
		break;
	}
	if (f)
		fclose(f);
	if (!uname(&u))
		snprintf(m->kernel, sizeof(m->kernel), "%s %s", u.sysname,
			 u.release);
	m->ncpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * The second line of every chart's title: where and how it was measured,
 * so that a chart read on its own says what it is.
 */
#if defined(__x86_64__)
# define BENCH_ARCH	"x86-64"
#elif defined(__aarch64__)
# define BENCH_ARCH	"aarch64"
#elif defined(__riscv) && __riscv_xlen == 64
# define BENCH_ARCH	"riscv64"
#else
# define BENCH_ARCH	"other"
#endif

static inline void bench_chart_subtitle(char *buf, size_t len,
					const struct bench_machine *m,
					int quick)
{
	/* The code's architecture: under qemu-user, cpu is the host's. */
	snprintf(buf, len, "%s code on %s, %ld CPUs, %s; %s; %s", BENCH_ARCH,
		 m->cpu, m->ncpus, m->kernel, BENCH_COMPILER,
		 quick ? "--quick run (indicative only)" : "full run");
}

/*
 * The plot command of a bar chart from a .dat file of rows "label plain
 * retpoline rethunk" (columns 2-4): one bar per variant that was built
 * (@built[v]); gnuplot refuses a column with no valid point at all.
 */
static inline void bench_plot_variant_bars(FILE *f, const char *dat,
					   const bool built[3])
{
	static const char *const title[3] = { "plain", "retpoline", "rethunk" };
	static const char *const color[3] = { "#2471a3", "#b03a2e", "#7d3c98" };
	bool first = true;

	fprintf(f, "plot ");
	for (int v = 0; v < 3; v++) {
		if (!built[v])
			continue;
		fprintf(f, "%s'%s' using %d%s lc rgb '%s' title '%s'",
			first ? "" : ", ", first ? dat : "", v + 2,
			first ? ":xtic(1)" : "", color[v], title[v]);
		first = false;
	}
	fprintf(f, "\n");
}

#endif /* ULSM_BENCH_H */
