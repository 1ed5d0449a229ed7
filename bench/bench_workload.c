// SPDX-License-Identifier: MIT
/*
 * The kernel change's Unixbench table, in a process: what does the dispatch of a
 * few hooks weigh in operations that make real system calls?
 *
 * Four operations (wl_bench.h): a 1-byte write and read on a pipe, a
 * 1024-byte write to a file, getppid(), and fork() of a child that exits
 * at once; before each system call a security_* function dispatches a hook
 * to three modules (wl_mods.c). Each operation is timed three ways, side
 * by side in interleaved rounds (bench/bench.h):
 *
 *   none   the same system calls, no hook: the kernel's share
 *   lists  the hooks dispatched by lists walked with indirect calls, the
 *          design the kernel change replaced (bench/lsm_lists.h)
 *   ulsm   the hooks dispatched by their entries (<ulsm/lsm_hooks.h>)
 *
 * in each variant the compiler has flags for (plain, retpoline, rethunk:
 * bench/sc_bench.h), the modules' callbacks and the dispatch compiled
 * with them alike. The kernel's own mitigations are the machine's, and
 * the same for every case.
 *
 * Printed: the kernel change's table (throughput of ulsm over the lists, Delta(%),
 * and the geometric mean of a variant's rows, the Hook Dispatch Index),
 * then every case in ns and operations per second, with the hooks' share
 * of the operation: (case - none) / case.
 *
 * Every run is checked: no operation may fail, and each module's callbacks
 * must have run exactly once per hook dispatched (none: never).
 *
 * Usage: bench_workload [--quick] [--json FILE] [--plot PREFIX]
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ulsm/lsm.h>
#include <ulsm/ulsm.h>

#include "bench.h"
#include "wl_bench.h"

struct wl_env wl_env;
unsigned long wl_calls[WL_NMODS];
unsigned long wl_errors;

enum { V_PLAIN, V_RETPOLINE, V_RETHUNK, V_COUNT };

static const char *const vname[V_COUNT] = { "plain", "retpoline", "rethunk" };
static const struct wl_variant *const variant[V_COUNT] = {
	&wl_variant_plain, &wl_variant_retpoline, &wl_variant_rethunk,
};

static const char *const op_name[WL_NOPS] = {
	"Pipe Throughput (1-byte write + read)",
	"File Write 1024 bufsize 2000 maxblocks",
	"System Call Overhead (getppid)",
	"Process Creation (fork, exit, wait)",
};
static const char *const op_key[WL_NOPS] = {
	"pipe", "file_write", "syscall", "fork",
};
static const char *const impl_name[WL_NIMPL] = { "none", "lists", "ulsm" };
static const unsigned int hooks_per_op[WL_NOPS] = WL_HOOKS_PER_OP;

static bool present(int v)
{
	return variant[v]->flags != NULL;
}

/* --- cases ---------------------------------------------------------------- */

struct wl_case {
	int v, op, impl;
	unsigned long iters, verified;
	double median_ns, min_ns;	/* per operation */
	char name[64];
};

#define WL_MAX_CASES	(V_COUNT * WL_NOPS * WL_NIMPL)
static struct wl_case cases[WL_MAX_CASES];
static struct bench_cand cands[WL_MAX_CASES];
static size_t ncases;
static int case_at[V_COUNT][WL_NOPS][WL_NIMPL];

static void build_cases(void)
{
	memset(case_at, -1, sizeof(case_at));
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			continue;
		for (int op = 0; op < WL_NOPS; op++)
			for (int i = 0; i < WL_NIMPL; i++) {
				struct wl_case *c = &cases[ncases];

				c->v = v;
				c->op = op;
				c->impl = i;
				snprintf(c->name, sizeof(c->name), "%s/%s/%s",
					 vname[v], op_key[op], impl_name[i]);
				case_at[v][op][i] = (int)ncases++;
			}
	}
}

static double med(int v, int op, int impl)
{
	int i = case_at[v][op][impl];

	return i < 0 ? 0 : cases[i].median_ns;
}

/* One run's bookkeeping: the case, and the counters before it. */
static int cur;
static unsigned long calls0[WL_NMODS], errors0;

static int prepare_case(int i)
{
	cur = i;
	memcpy(calls0, wl_calls, sizeof(calls0));
	errors0 = wl_errors;
	return 0;
}

static int check_case(int i, unsigned long n)
{
	const struct wl_case *c = &cases[i];
	unsigned long want = c->impl == WL_NONE ? 0 : n * hooks_per_op[c->op];

	if (wl_errors != errors0) {
		fprintf(stderr, "bench_workload: %s: %lu of %lu operations "
			"failed\n", c->name, wl_errors - errors0, n);
		return -EPROTO;
	}
	for (int m = 0; m < WL_NMODS; m++)
		if (wl_calls[m] - calls0[m] != want) {
			fprintf(stderr, "bench_workload: %s: module %d ran %lu "
				"times, want %lu\n", c->name, m,
				wl_calls[m] - calls0[m], want);
			return -EPROTO;
		}
	return 0;
}

static void run_current(unsigned long iters)
{
	(void)iters;
	variant[cases[cur].v]->loop[cases[cur].op][cases[cur].impl](
		cases[cur].iters);
}

/* The current case's loop with @n iterations, for the calibration. */
static void run_current_n(unsigned long n)
{
	variant[cases[cur].v]->loop[cases[cur].op][cases[cur].impl](n);
}

/*
 * bench_calibrate() without its floor of 1000 iterations: a thousand
 * forks take a tenth of a second. Double from 1 until a run takes a tenth
 * of the target, then scale by the median of three runs.
 */
static unsigned long calibrate(uint64_t target_ns)
{
	unsigned long iters = 1;
	double t[3], m;

	while (bench_time_ns(run_current_n, iters) < target_ns / 10 &&
	       iters < (~0UL >> 4))
		iters *= 2;
	for (int i = 0; i < 3; i++)
		t[i] = (double)bench_time_ns(run_current_n, iters);
	m = bench_median(t, 3);
	if (m > 0)
		iters = (unsigned long)((double)iters * (double)target_ns / m);
	return iters ? iters : 1;
}

static int check_current(unsigned long iters)
{
	int ret = check_case(cur, cases[cur].iters);

	(void)iters;
	if (!ret)
		cases[cur].verified++;
	return ret;
}

/* bench_run() has no argument for prepare: one function per case. */
#define WL_PREP(i, x)							\
static int prep_##i(void)						\
{									\
	return prepare_case(i);						\
}
UNROLL(36, WL_PREP, x)
#define WL_PREP_REF(i, x)	prep_##i,
static int (*const prep_fn[WL_MAX_CASES])(void) = {
	UNROLL(36, WL_PREP_REF, x)
};
_Static_assert(WL_MAX_CASES == 36, "one prepare function per case");

/* --- set up ---------------------------------------------------------------- */

static char dir[] = "/tmp/bench_workload.XXXXXX";
static char file_path[64];

static int setup_env(void)
{
	int fds[2];

	if (pipe(fds)) {
		perror("bench_workload: pipe");
		return -errno;
	}
	wl_env.pipe_r = fds[0];
	wl_env.pipe_w = fds[1];
	if (!mkdtemp(dir)) {
		perror("bench_workload: mkdtemp");
		return -errno;
	}
	snprintf(file_path, sizeof(file_path), "%s/file", dir);
	wl_env.file = open(file_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0600);
	if (wl_env.file < 0) {
		perror("bench_workload: open");
		rmdir(dir);
		return -errno;
	}
	memset(wl_env.buf, 'x', sizeof(wl_env.buf));
	return 0;
}

static void cleanup_env(void)
{
	close(wl_env.file);
	unlink(file_path);
	rmdir(dir);
}

static int setup_modules(void)
{
	for (int v = 0; v < V_COUNT; v++) {
		struct ulsm_hook_set *set = variant[v]->set;
		int ret;

		if (!present(v))
			continue;
		ret = variant[v]->lists_init();
		if (ret) {
			fprintf(stderr, "bench_workload: %s: the lists do not "
				"hold the modules\n", vname[v]);
			return ret;
		}
		ret = ulsm_lsm_init(set, WL_MODS);
		if (ret || strcmp(ulsm_lsm_list(set), WL_MODS)) {
			fprintf(stderr, "bench_workload: %s: set up: %s (%s); "
				"modules %s\n", vname[v], strerror(-ret),
				ulsm_last_error(), ulsm_lsm_list(set));
			return ret ? ret : -EPROTO;
		}
	}
	return 0;
}

/* --- output --------------------------------------------------------------- */

static struct bench_machine machine;

/* Throughput of ulsm over the lists, the kernel change's Delta(%). */
static double delta(int v, int op)
{
	double u = med(v, op, WL_ULSM);

	return u > 0 ? (med(v, op, WL_LISTS) / u - 1) * 100 : 0;
}

static void print_legend(void)
{
	printf("Each operation makes real system calls; before each, a hook "
	       "is dispatched to\nthree modules (pipe: 2 hooks per operation, "
	       "file write 1, syscall 1, fork 2).\n"
	       "  none   the same system calls and no hook: the kernel's "
	       "share\n"
	       "  lists  the hooks walked as lists with indirect calls, the "
	       "design the kernel change\n"
	       "         replaced\n"
	       "  ulsm   the hooks dispatched by their entries, patched to "
	       "call the modules\n"
	       "Variants: the dispatch and the callbacks built plain, with "
	       "retpolines, and with\nretpolines and return thunks; the "
	       "kernel is the same for all.\n\n");
}

static void print_seed_table(void)
{
	printf("The kernel change's table: Delta(%%) is the throughput ulsm gains over "
	       "the lists,\n(lists ns / ulsm ns - 1) x 100, medians of this "
	       "run; + is better. Hook Dispatch\nIndex: per variant, the "
	       "geometric mean of the operations' throughput ratios, as\na "
	       "Delta(%%) (Unixbench's System Benchmarks Index is such a "
	       "mean).\n\n");
	bench_delta_head();
	for (int v = 0; v < V_COUNT; v++) {
		double logsum = 0;

		if (!present(v))
			continue;
		for (int op = 0; op < WL_NOPS; op++)
			bench_delta_row(vname[v], op_name[op],
					1 + delta(v, op) / 100, &logsum);
		bench_delta_index(vname[v], logsum, WL_NOPS);
	}
	printf("\n");
}

static void print_detail(void)
{
	printf("Every case. none, lists, ulsm: ns per operation (median of the "
	       "rounds); ops/s:\nthroughput of lists and ulsm; hook ns, hook "
	       "%%: what the hooks add to the\noperation, (case - none), and "
	       "its share of the case, (case - none) / case:\nthe rest is the "
	       "kernel's. A share below 0 is noise.\n\n");
	printf("%-9s %-10s %10s %10s %10s %11s %11s %8s %8s %7s %7s\n",
	       "variant", "operation", "none ns", "lists ns", "ulsm ns",
	       "lists op/s", "ulsm op/s", "lists +ns", "ulsm +ns", "lists %",
	       "ulsm %");
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			continue;
		for (int op = 0; op < WL_NOPS; op++) {
			double n = med(v, op, WL_NONE);
			double l = med(v, op, WL_LISTS);
			double u = med(v, op, WL_ULSM);

			printf("%-9s %-10s %10.2f %10.2f %10.2f %11.0f %11.0f "
			       "%8.2f %8.2f %7.2f %7.2f\n", vname[v],
			       op_key[op], n, l, u, 1e9 / l, 1e9 / u, l - n,
			       u - n, (l - n) / l * 100, (u - n) / u * 100);
		}
	}
	printf("\n");
}

static int write_json(const char *path, bool quick, unsigned int rounds)
{
	FILE *f = bench_open("bench_workload", path);
	bool first = true;

	if (!f)
		return -1;
	fprintf(f, "{\n  \"benchmark\": \"workload\",\n  \"backend\": ");
	bench_json_string(f, ulsm_backend());
	fprintf(f, ",\n  \"compiler\": ");
	bench_json_string(f, BENCH_COMPILER);
	fprintf(f, ",\n  \"cpu\": ");
	bench_json_string(f, machine.cpu);
	fprintf(f, ",\n  \"kernel\": ");
	bench_json_string(f, machine.kernel);
	fprintf(f, ",\n  \"quick\": %s,\n  \"rounds\": %u,\n  \"cases\": [",
		quick ? "true" : "false", rounds);
	for (size_t i = 0; i < ncases; i++) {
		const struct wl_case *c = &cases[i];

		fprintf(f, "%s\n    { \"variant\": \"%s\", \"operation\": "
			"\"%s\", \"impl\": \"%s\", \"median_ns\": %.2f, "
			"\"min_ns\": %.2f, \"iterations_per_run\": %lu, "
			"\"verified_runs\": %lu }", i ? "," : "", vname[c->v],
			op_key[c->op], impl_name[c->impl], c->median_ns,
			c->min_ns, c->iters, c->verified);
	}
	fprintf(f, "\n  ],\n  \"delta_percent\": {");
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			continue;
		fprintf(f, "%s\n    \"%s\": {", first ? "" : ",", vname[v]);
		for (int op = 0; op < WL_NOPS; op++)
			fprintf(f, "%s \"%s\": %.2f", op ? "," : "", op_key[op],
				delta(v, op));
		fprintf(f, " }");
		first = false;
	}
	fprintf(f, "\n  }\n}\n");
	return bench_close(f, "bench_workload", path);
}

/*
 * PREFIX.dat: per operation "name delta-plain delta-retpoline
 * delta-rethunk" (bench_hooks --workload draws it in the hooks chart);
 * PREFIX.gp draws PREFIX.png, this benchmark's own chart.
 */
static int write_plot(const char *prefix, bool quick)
{
	char dat[4096], path[4096], sub[512];
	bool built[V_COUNT];
	FILE *f;

	for (int v = 0; v < V_COUNT; v++)
		built[v] = present(v);
	snprintf(dat, sizeof(dat), "%s.dat", prefix);
	f = bench_open("bench_workload", dat);
	if (!f)
		return -1;
	fprintf(f, "# bench_workload: Delta(%%) of ulsm over the lists\n"
		"# operation plain retpoline rethunk\n");
	for (int op = 0; op < WL_NOPS; op++) {
		fprintf(f, "\"%s\"", op_key[op]);
		for (int v = 0; v < V_COUNT; v++)
			if (built[v])
				fprintf(f, " %.2f", delta(v, op));
			else
				fprintf(f, " NaN");
		fprintf(f, "\n");
	}
	if (bench_close(f, "bench_workload", dat))
		return -1;
	bench_chart_subtitle(sub, sizeof(sub), &machine, quick);
	snprintf(path, sizeof(path), "%s.gp", prefix);
	f = bench_open("bench_workload", path);
	if (!f)
		return -1;
	fprintf(f, "# Generated by bench_workload; run: gnuplot %s.gp\n"
		"set terminal pngcairo noenhanced size 900,560 font 'sans,11'\n"
		"set output '%s.png'\n"
		"set title \"bench_workload: throughput change of ulsm over the "
		"lists, per operation\\n%s\"\n"
		"set style data histograms\nset style histogram clustered gap 1\n"
		"set style fill solid 0.8 border -1\nset grid ytics\n"
		"set ylabel 'Delta (%%), + is better'\nset key top right\n",
		prefix, prefix, sub);
	bench_plot_variant_bars(f, dat, built);
	return bench_close(f, "bench_workload", path);
}

/* --- main ----------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_workload [--quick] [--json FILE] "
		"[--plot PREFIX]\n"
		"  --quick        fewer and shorter rounds (a few seconds)\n"
		"  --json FILE    also write the results to FILE as JSON\n"
		"  --plot PREFIX  write PREFIX.dat and PREFIX.gp (gnuplot "
		"PREFIX.gp draws\n"
		"                 PREFIX.png)\n");
}

int main(int argc, char **argv)
{
	const char *json = NULL, *plot = NULL;
	int quick = 0, ret;
	unsigned int rounds;
	uint64_t target_ns, t0;

	ret = bench_options(argc, argv, usage, &quick, &json, &plot);
	if (ret >= 0)
		return ret;
	build_cases();
	if (setup_modules() || setup_env())
		return 1;

	bench_read_machine(&machine);
	printf("ulsm workload benchmark: back end %s, %s%s\n", ulsm_backend(),
	       BENCH_COMPILER, quick ? ", --quick" : "");
	printf("machine: %s, %ld CPUs, %s\n", machine.cpu, machine.ncpus,
	       machine.kernel);
	for (int v = 0; v < V_COUNT; v++)
		printf("  %-10s %s\n", vname[v], !present(v) ?
		       "left out: the compiler lacks the flags" :
		       *variant[v]->flags ? variant[v]->flags :
		       "(no extra flags)");
	printf("\n");

	/*
	 * Each case's run takes ~10 ms (2 with --quick), 41 rounds (7):
	 * about 15 s for the 36 cases of three variants. fork is three
	 * orders of magnitude slower than a pipe write and gets as many
	 * milliseconds, with fewer iterations.
	 */
	rounds = quick ? 7 : 41;
	target_ns = quick ? 2000000 : 10000000;
	t0 = bench_now_ns();
	for (size_t i = 0; i < ncases; i++) {
		prepare_case((int)i);
		cases[i].iters = calibrate(target_ns);
		cands[i] = (struct bench_cand){
			.name = cases[i].name, .run = run_current,
			.prepare = prep_fn[i], .check = check_current,
		};
	}
	printf("timing %zu cases, %u interleaved rounds of ~%.0f ms each ...\n",
	       ncases, rounds, (double)target_ns / 1e6);
	fflush(stdout);
	ret = bench_run(cands, ncases, rounds, 1);
	if (ret) {
		fprintf(stderr, "bench_workload: run failed: %s\n",
			strerror(-ret));
		cleanup_env();
		return 1;
	}
	for (size_t i = 0; i < ncases; i++) {
		cases[i].median_ns = cands[i].median_ns /
				     (double)cases[i].iters;
		cases[i].min_ns = cands[i].min_ns / (double)cases[i].iters;
		if (cases[i].verified != rounds + 1) {
			fprintf(stderr, "bench_workload: %s: %lu of %u runs "
				"verified\n", cases[i].name, cases[i].verified,
				rounds + 1);
			cleanup_env();
			return 1;
		}
	}
	cleanup_env();
	printf("timed in %.1f s; every run verified (no failed operation, "
	       "each module called\nonce per hook dispatched)\n\n",
	       (double)(bench_now_ns() - t0) / 1e9);

	print_legend();
	print_seed_table();
	print_detail();
	if (json && write_json(json, quick, rounds))
		return 1;
	if (plot && write_plot(plot, quick))
		return 1;
	return 0;
}
