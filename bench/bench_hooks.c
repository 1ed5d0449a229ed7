// SPDX-License-Identifier: MIT
/*
 * Does dispatching LSM-style hooks through static calls remove the cost of
 * the indirect calls it replaced? The seed's claim, measured side by side.
 *
 * The same two hooks (bench_hook_defs.h: file_permission, an int hook, and
 * file_free_security, a void hook), the same callbacks (m0 .. m7), three
 * dispatchers (bench/hk_bench.h):
 *
 *   baseline  per-hook linked lists walked with indirect calls, as before
 *             the seed
 *   limit     hard-coded chains of direct calls to the callbacks
 *   ulsm      call_int_hook / call_void_hook of <ulsm/lsm_hooks.h>
 *
 * each compiled three times, with no mitigation, with retpolines and with
 * retpolines and return thunks (bench/sc_bench.h; a variant whose flags the
 * compiler lacks is left out and said so). Measured:
 *
 *   dispatch  ns per dispatch with 0, 1, 2, 3 and HK_MAX modules active,
 *             every callback returning the default (the whole walk), and
 *             with HK_MAX active and the first denying (the walk stops).
 *             "k modules active" is m0 .. m(k-1): on the lists for the
 *             baseline, a chain of k calls for the limit, and for ulsm the
 *             modules' slots on and the others toggled off
 *             (ulsm_lsm_toggle), which leaves them the NOP that an empty
 *             slot costs. All candidates of all variants are timed in one
 *             run, in interleaved rounds (bench/bench.h), each with its own
 *             iteration count; results are medians. Under callgrind, when
 *             valgrind is installed, the exact instructions per dispatch.
 *   update    what enabling a module with 1, 10 and 100 hooks costs
 *             (ulsm_lsm_toggle: one batch over all its slots), with no
 *             thread and with two threads dispatching those hooks all the
 *             while; the first registration of each (security_add_hooks,
 *             once); and the baseline's list insertion for comparison
 *   size      bytes per hook of tables and text, ulsm against the baseline
 *
 * Every timed run is checked: the sum of what the dispatches returned, and
 * per module the sum of the arguments its callbacks saw, must be what the
 * run should produce (who was called, how often, with what). The update
 * test checks after each switch that a dispatch reaches exactly the
 * modules that are on, and the threads that every dispatch they made
 * returned the default and called no more callbacks than exist. Any
 * mismatch: exit 1.
 *
 * Usage: bench_hooks [--quick] [--json FILE] [--plot PREFIX]
 *                    [--no-callgrind] [--callgrind-exe PROGRAM]
 *        bench_hooks --update-stress N
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/lsm.h>
#include <ulsm/object.h>
#include <ulsm/ulsm.h>
#include <ulsm/unroll.h>

#include "bench.h"
#include "hk_bench.h"

/* Instruction counts need callgrind's client requests, and no sanitizer. */
#if defined(__has_include)
# if __has_include(<valgrind/callgrind.h>)
#  include <valgrind/callgrind.h>
#  define HK_HAVE_CALLGRIND 1
# endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
# undef HK_HAVE_CALLGRIND
#endif
#if defined(__has_feature)
# if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#  undef HK_HAVE_CALLGRIND
# endif
#endif

#define HK_STR_(x)	#x
#define HK_STR(x)	HK_STR_(x)
#ifdef __clang__
# define HK_COMPILER	"clang " HK_STR(__clang_major__) "."	\
			HK_STR(__clang_minor__) "." HK_STR(__clang_patchlevel__)
#else
# define HK_COMPILER	"gcc " __VERSION__
#endif

/* --- what the callbacks and loops share (hk_bench.h) --------------------- */

int hk_ret[HK_MAX];
unsigned long hk_acc[HK_MAX];
unsigned long hk_vacc[HK_MAX];
unsigned long hk_sum;
__thread unsigned long hk_upd_calls;

/* --- variants, hooks, implementations ------------------------------------ */

enum { V_PLAIN, V_RETPOLINE, V_RETHUNK, V_COUNT };

static const char *const vname[V_COUNT] = { "plain", "retpoline", "rethunk" };

static const struct hk_variant *const variant[V_COUNT] = {
	&hk_variant_plain, &hk_variant_retpoline, &hk_variant_rethunk,
};

/* Why a variant is absent (the Makefile probes for the flags). */
static const char *const variant_missing[V_COUNT] = {
	[V_RETPOLINE] = "the compiler has neither -mindirect-branch=thunk "
			"nor -mretpoline",
	[V_RETHUNK] = "the compiler lacks -mfunction-return=thunk",
};

static bool present(int v)
{
	return variant[v]->flags != NULL;
}

enum { H_INT, H_VOID, H_DENY, H_COUNT };

static const char *const hname[H_COUNT] = {
	"file_permission", "file_free_security", "file_permission, m0 denies",
};
/* Short forms, for names of candidates and the JSON. */
static const char *const hkey[H_COUNT] = { "int", "void", "int_deny" };

enum { I_BASE, I_LIMIT, I_ULSM, I_COUNT };

static const char *const iname[I_COUNT] = { "baseline", "limit", "ulsm" };

static const unsigned int counts[HK_NCOUNTS] = { 0, 1, 2, 3, HK_MAX };
#define KI_MAX		(HK_NCOUNTS - 1)

/* The u-modules of the update test. */
static const char *const u_name[HK_NU] = { "u1", "u10", "u100" };
static const int u_hooks[HK_NU] = { 1, 10, 100 };
#define U_ALL_HOOKS	111

/* --- the cases ----------------------------------------------------------- */

/*
 * One case: a variant, a hook, a module count (index into counts) and an
 * implementation. @iters is the case's own iteration count; bench_run()
 * times one run of it and the result is divided by @iters.
 */
struct hk_case {
	int v, hook, ki, impl;
	void (*loop)(unsigned long n);
	unsigned long iters;
	unsigned long verified;
	double median_ns, min_ns;	/* per dispatch */
	double instr;			/* per iteration; < 0: none */
	char name[48];
};

#define HK_MAX_CASES	128
_Static_assert(V_COUNT * (2 * HK_NCOUNTS + 1) * I_COUNT <= HK_MAX_CASES,
	       "more cases than prepare functions");
static struct hk_case cases[HK_MAX_CASES];
static struct bench_cand cands[HK_MAX_CASES];
static size_t ncases;
static int case_at[V_COUNT][H_COUNT][HK_NCOUNTS][I_COUNT];

static void add_case(int v, int hook, int ki, int impl)
{
	const struct hk_variant *vd = variant[v];
	struct hk_case *c = &cases[ncases];

	c->v = v;
	c->hook = hook;
	c->ki = ki;
	c->impl = impl;
	c->instr = -1;
	switch (impl) {
	case I_BASE:
		c->loop = hook == H_VOID ? vd->base_void : vd->base_int;
		break;
	case I_ULSM:
		c->loop = hook == H_VOID ? vd->ulsm_void : vd->ulsm_int;
		break;
	default:
		c->loop = hook == H_VOID ? vd->limit_void[ki] :
					   vd->limit_int[ki];
		break;
	}
	snprintf(c->name, sizeof(c->name), "%s/%s/k%u/%s", vname[v], hkey[hook],
		 counts[ki], iname[impl]);
	case_at[v][hook][ki][impl] = (int)ncases++;
}

/*
 * Variant-major, then hook, module count and implementation: the three
 * implementations of one configuration are neighbours in every round.
 */
static void build_cases(void)
{
	memset(case_at, -1, sizeof(case_at));
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			continue;
		for (int h = H_INT; h <= H_VOID; h++)
			for (int ki = 0; ki < HK_NCOUNTS; ki++)
				for (int i = 0; i < I_COUNT; i++)
					add_case(v, h, ki, i);
		for (int i = 0; i < I_COUNT; i++)
			add_case(v, H_DENY, KI_MAX, i);
	}
}

static const struct hk_case *case_of(int v, int hook, int ki, int impl)
{
	int i = case_at[v][hook][ki][impl];

	return i < 0 ? NULL : &cases[i];
}

/* --- setting a case up --------------------------------------------------- */

/* How many of m0 .. m7 are on in each variant's ulsm set (a prefix). */
static unsigned int ulsm_on[V_COUNT];

static int toggle(int v, const char *name, bool on)
{
	int ret = ulsm_lsm_toggle(variant[v]->set, name, on);

	if (ret)
		fprintf(stderr, "bench_hooks: %s: ulsm_lsm_toggle(%s, %s): %s "
			"(%s)\n", vname[v], name, on ? "on" : "off",
			strerror(-ret), ulsm_last_error());
	return ret;
}

/* Turn m0 .. m(k-1) on and the others off, one module per batch. */
static int ulsm_set_modules(int v, unsigned int k)
{
	char name[16];
	int ret = 0;

	while (!ret && ulsm_on[v] != k) {
		bool up = ulsm_on[v] < k;
		unsigned int m = up ? ulsm_on[v] : ulsm_on[v] - 1;

		snprintf(name, sizeof(name), "m%u", m);
		ret = toggle(v, name, up);
		if (!ret)
			ulsm_on[v] = up ? m + 1 : m;
	}
	return ret;
}

static int cur;
static unsigned long acc0[HK_MAX], vacc0[HK_MAX];

static int prepare_case(int i)
{
	const struct hk_case *c = &cases[i];
	unsigned int k = counts[c->ki];
	int ret = 0;

	cur = i;
	for (int m = 0; m < HK_MAX; m++)
		hk_ret[m] = 0;
	if (c->hook == H_DENY)
		hk_ret[0] = -EACCES;
	if (c->impl == I_BASE) {
		ret = variant[c->v]->base_set(k);
		if (ret)
			fprintf(stderr, "bench_hooks: %s: the baseline's lists "
				"do not hold %u modules\n", c->name, k);
	} else if (c->impl == I_ULSM) {
		ret = ulsm_set_modules(c->v, k);
	}
	memcpy(acc0, hk_acc, sizeof(acc0));
	memcpy(vacc0, hk_vacc, sizeof(vacc0));
	hk_sum = 0x5eed;	/* a loop that stores no sum fails */
	return ret;
}

/* bench_run() has no argument for prepare: one function per case index. */
#define HK_PREP(i, half)						\
static int prep_##half##_##i(void)					\
{									\
	return prepare_case(half * 64 + i);				\
}
UNROLL(64, HK_PREP, 0)
UNROLL(64, HK_PREP, 1)
#define HK_PREP_REF(i, half)	prep_##half##_##i,
static int (*const prep_fn[HK_MAX_CASES])(void) = {
	UNROLL(64, HK_PREP_REF, 0)
	UNROLL(64, HK_PREP_REF, 1)
};

/* sum of hk_arg(i) for i < n, the sum each called module must see */
static unsigned long arg_sum(unsigned long n)
{
	unsigned long r = n & 0xfff;

	return (n >> 12) * (0xfffUL * 0x1000UL / 2) + (r ? r * (r - 1) / 2 : 0);
}

/*
 * Did the run of case @i with @n dispatches do what it should? Module m
 * must have seen every argument if it was to be called, none otherwise.
 */
static int check_run(int i, unsigned long n)
{
	const struct hk_case *c = &cases[i];
	unsigned int k = counts[c->ki];
	unsigned long s = arg_sum(n), want_sum = 0;
	int bad = 0;

	if (c->hook == H_DENY)
		want_sum = n * (unsigned long)(long)-EACCES;
	if (c->hook != H_VOID && hk_sum != want_sum) {
		fprintf(stderr, "bench_hooks: %s: %lu dispatches returned "
			"a sum of %lu, want %lu\n", c->name, n, hk_sum,
			want_sum);
		bad = 1;
	}
	for (unsigned int m = 0; m < HK_MAX; m++) {
		bool int_called = (c->hook == H_INT && m < k) ||
				  (c->hook == H_DENY && m == 0);
		bool void_called = c->hook == H_VOID && m < k;
		unsigned long got = hk_acc[m] - acc0[m];
		unsigned long vgot = hk_vacc[m] - vacc0[m];

		if (got != (int_called ? s : 0) ||
		    vgot != (void_called ? s : 0)) {
			fprintf(stderr, "bench_hooks: %s: module m%u saw "
				"arguments summing to %lu (int) and %lu "
				"(void), want %lu and %lu\n", c->name, m, got,
				vgot, int_called ? s : 0, void_called ? s : 0);
			bad = 1;
		}
	}
	return bad ? -EPROTO : 0;
}

static void run_current(unsigned long iters)
{
	(void)iters;
	cases[cur].loop(cases[cur].iters);
}

static int check_current(unsigned long iters)
{
	int ret = check_run(cur, cases[cur].iters);

	(void)iters;
	if (!ret)
		cases[cur].verified++;
	return ret;
}

/* --- setting the sets up ------------------------------------------------- */

#define HK_ORDER	"m0,m1,m2,m3,m4,m5,m6,m7,u1,u10,u100"

static int slot_is(int v, const char *hook, unsigned int slot,
		   const char *want)
{
	const struct lsm_id *id = ulsm_lsm_slot_owner(variant[v]->set, hook,
						      slot);

	if (id && !strcmp(id->name, want))
		return 0;
	fprintf(stderr, "bench_hooks: %s: slot %u of %s holds %s, not %s\n",
		vname[v], slot, hook, id ? id->name : "nothing", want);
	return -EPROTO;
}

/*
 * Initialise each present variant's set with every module, in order, and
 * check where their hooks went: m<j> in slot j of the timed hooks, the
 * u-modules in slots 0, 1, 2 of the upd_* hooks they have.
 */
static int setup_sets(void)
{
	int ret = 0;

	for (int v = 0; v < V_COUNT && !ret; v++) {
		struct ulsm_hook_set *set = variant[v]->set;
		char slot[16];

		if (!present(v))
			continue;
		ret = ulsm_lsm_init(set, HK_ORDER);
		if (!ret)
			ret = ulsm_lsm_allow_toggle(set);
		if (ret) {
			fprintf(stderr, "bench_hooks: %s: set up: %s (%s)\n",
				vname[v], strerror(-ret), ulsm_last_error());
			return ret;
		}
		if (strcmp(ulsm_lsm_list(set), HK_ORDER)) {
			fprintf(stderr, "bench_hooks: %s: modules %s, want "
				"%s\n", vname[v], ulsm_lsm_list(set), HK_ORDER);
			return -EPROTO;
		}
		for (unsigned int j = 0; j < HK_MAX && !ret; j++) {
			snprintf(slot, sizeof(slot), "m%u", j);
			ret = slot_is(v, "file_permission", j, slot);
			if (!ret)
				ret = slot_is(v, "file_free_security", j, slot);
		}
		for (int u = 0; u < HK_NU && !ret; u++)
			ret = slot_is(v, "upd_00", (unsigned int)u, u_name[u]);
		if (!ret)
			ret = slot_is(v, "upd_99", 0, "u100");
		for (int u = 0; u < HK_NU && !ret; u++)
			ret = variant[v]->reg[u].ret;
		ulsm_on[v] = HK_MAX;
	}
	return ret;
}

/* --- instruction counts (callgrind) -------------------------------------- */

/* Dispatches per callgrind run: exact counts need no more. */
#define HK_CG_ITERS	1000UL

#ifdef HK_HAVE_CALLGRIND
/* The "totals:" of callgrind's dump @seq, checked to be the one for @what. */
static int read_dump(const char *prefix, unsigned int seq, const char *what,
		     unsigned long *ir)
{
	char path[4096], line[512], trigger[256];
	bool found = false, ours = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%u", prefix, seq);
	snprintf(trigger, sizeof(trigger),
		 "desc: Trigger: Client Request: %s\n", what);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "bench_hooks: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, trigger))
			ours = true;
		else if (!strncmp(line, "totals:", 7))
			found = sscanf(line + 7, "%lu", ir) == 1;
	}
	fclose(f);
	if (!found || !ours) {
		fprintf(stderr, "bench_hooks: %s is not the dump of %s\n", path,
			what);
		return -EPROTO;
	}
	return 0;
}
#endif

/*
 * Under callgrind (the child run_callgrind() starts): each case twice,
 * HK_CG_ITERS and twice as many dispatches, counters zeroed before each
 * and dumped after; the difference over HK_CG_ITERS is the instructions of
 * one iteration, without the run's fixed costs. Writes "name\tcount" lines.
 */
static int callgrind_child(const char *prefix, const char *tsv)
{
#ifdef HK_HAVE_CALLGRIND
	unsigned int seq = 0;
	FILE *out;
	int ret = 0;

	if (!RUNNING_ON_VALGRIND) {
		fprintf(stderr, "bench_hooks: --callgrind-child runs under "
			"valgrind --tool=callgrind only\n");
		return -EINVAL;
	}
	out = fopen(tsv, "w");
	if (!out)
		return -errno;
	for (size_t i = 0; i < ncases && !ret; i++) {
		unsigned long ir[2] = { 0, 0 };

		for (unsigned long pass = 1; pass <= 2 && !ret; pass++) {
			unsigned long n = HK_CG_ITERS * pass;

			ret = prepare_case((int)i);
			if (ret)
				break;
			CALLGRIND_ZERO_STATS;
			cases[i].loop(n);
			CALLGRIND_DUMP_STATS_AT(cases[i].name);
			seq++;
			ret = check_run((int)i, n);
			if (!ret)
				ret = read_dump(prefix, seq, cases[i].name,
						&ir[pass - 1]);
		}
		if (!ret)
			fprintf(out, "%s\t%.3f\n", cases[i].name,
				(double)(ir[1] - ir[0]) / (double)HK_CG_ITERS);
	}
	if (fclose(out) && !ret)
		ret = -errno;
	return ret;
#else
	(void)prefix;
	(void)tsv;
	fprintf(stderr, "bench_hooks: built without <valgrind/callgrind.h>\n");
	return -ENOSYS;
#endif
}

/* Is @prog an executable somewhere on $PATH? */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (n && !access(buf, X_OK))
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* What instruction counts were measured (a message for the output). */
static char instr_note[160] = "not measured";

/*
 * Run this program again under callgrind, in --callgrind-child mode, and
 * read the counts it wrote. @exe: the program to run, a copy of this one
 * (the Makefile's has no debug information, which valgrind may not read);
 * NULL: this very file. Return: 0 (also when skipped), or nonzero if the
 * child failed, which includes any of its checks.
 */
static int run_callgrind(const char *exe)
{
	char self[4096], dir[] = "/tmp/bench_hooks.XXXXXX";
	char prefix[4200], tsv[4200], out_arg[4300], line[256];
	ssize_t len;
	int status, ret = 0;
	FILE *f;
	pid_t pid;

#ifndef HK_HAVE_CALLGRIND
	snprintf(instr_note, sizeof(instr_note), "skipped: built without "
		 "valgrind's headers, or with a sanitizer");
	return 0;
#endif
	if (!on_path("valgrind")) {
		snprintf(instr_note, sizeof(instr_note), "skipped: valgrind is "
			 "not installed");
		return 0;
	}
	if (exe) {
		snprintf(self, sizeof(self), "%s", exe);
	} else {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len < 0)
			return -errno;
		self[len] = '\0';
	}
	if (!mkdtemp(dir))
		return -errno;
	snprintf(prefix, sizeof(prefix), "%s/callgrind.out", dir);
	snprintf(tsv, sizeof(tsv), "%s/instr.tsv", dir);
	snprintf(out_arg, sizeof(out_arg), "--callgrind-out-file=%s", prefix);
	printf("callgrind: %zu cases, %lu and %lu dispatches each ...\n",
	       ncases, HK_CG_ITERS, 2 * HK_CG_ITERS);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (!pid) {
		/* --smc-check=all: the library rewrites code as it goes. */
		execlp("valgrind", "valgrind", "--tool=callgrind", "-q",
		       "--smc-check=all", out_arg, self, "--callgrind-child",
		       prefix, tsv, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		ret = -errno;
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_hooks: the callgrind run failed (status "
			"%#x)\n", status);
		ret = -EPROTO;
		goto out;
	}
	f = fopen(tsv, "r");
	if (!f) {
		ret = -errno;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		double instr;

		if (sscanf(line, "%63[^\t]\t%lf", name, &instr) != 2)
			continue;
		for (size_t i = 0; i < ncases; i++)
			if (!strcmp(cases[i].name, name))
				cases[i].instr = instr;
	}
	fclose(f);
	for (size_t i = 0; i < ncases; i++)
		if (cases[i].instr < 0) {
			fprintf(stderr, "bench_hooks: no instruction count for "
				"%s\n", cases[i].name);
			ret = -EPROTO;
		}
	snprintf(instr_note, sizeof(instr_note), "callgrind, %lu dispatches "
		 "per case; loop included", HK_CG_ITERS);
out:
	remove_dir(dir);
	return ret;
}

/* --- the cost of enabling a module --------------------------------------- */

struct upd_cost {
	unsigned int reps;
	double median_us, min_us;
	double batches, core_syncs, sites_patched;	/* per enable */
	double traps;					/* per enable */
	unsigned long thread_rounds;	/* dispatches of all upd_* hooks */
};

static struct upd_cost upd[HK_NU][2];	/* [module][0 or 2 threads] */
static double base_add_us[HK_NU];

struct disp_thread {
	pthread_t t;
	unsigned long rounds, bad;
};

static struct disp_thread threads[2];
static int nthreads, stop_threads;
static unsigned long thread_stalls;

/*
 * Let the threads run between two batches (see measure_enable()); off
 * only for --update-stress, which reproduces what happens without.
 */
static bool settle = true;

/*
 * Dispatch every upd_* hook, over and over, while the main thread switches
 * modules. Each round must return the default and call at most every
 * callback once: a slot is seen on or off, never anything else.
 */
static void *dispatcher(void *arg)
{
	struct disp_thread *d = arg;
	int (*upd_all)(int) = variant[V_PLAIN]->ulsm_upd_all;

	while (!__atomic_load_n(&stop_threads, __ATOMIC_RELAXED)) {
		unsigned long before = hk_upd_calls;
		int rc = upd_all((int)d->rounds);

		if (rc != 0 || hk_upd_calls - before > U_ALL_HOOKS)
			d->bad++;
		__atomic_store_n(&d->rounds, d->rounds + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* The callbacks one dispatch of every upd_* hook reaches. */
static unsigned long upd_calls_now(void)
{
	unsigned long before = hk_upd_calls;

	if (variant[V_PLAIN]->ulsm_upd_all(1) != 0)
		return ~0UL;
	return hk_upd_calls - before;
}

static int expect_upd_calls(unsigned long want, const char *when)
{
	unsigned long got = upd_calls_now();

	if (got == want)
		return 0;
	fprintf(stderr, "bench_hooks: %s: a dispatch of every upd_* hook "
		"reached %lu callbacks, want %lu\n", when, got, want);
	return -EPROTO;
}

static unsigned long thread_rounds(int i)
{
	return __atomic_load_n(&threads[i].rounds, __ATOMIC_RELAXED);
}

/*
 * Wait until every dispatching thread has made progress. Two dispatchers
 * and the updater are three threads for two cores here: the scheduler
 * keeps a dispatcher off its core for milliseconds at a time, and an
 * update timed then would have nobody dispatching "meanwhile". Yielding
 * until each has run again puts them on a core when the update starts.
 */
static void wait_for_threads(void)
{
	unsigned long seen[2];
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < nthreads; i++)
		seen[i] = thread_rounds(i);
	for (int i = 0; i < nthreads; i++)
		while (thread_rounds(i) == seen[i]) {
			if (bench_now_ns() - t0 > 100000000) {
				thread_stalls++;
				return;
			}
			sched_yield();
		}
}

static int measure_enable(struct upd_cost *uc, int u, unsigned int reps)
{
	double *us = calloc(reps, sizeof(*us));
	struct ulsm_stats a, b, sum = { 0 };
	unsigned long r0 = 0, r1 = 0;
	int ret = 0;

	if (!us)
		return -ENOMEM;
	for (int i = 0; i < nthreads; i++)
		r0 += thread_rounds(i);
	for (unsigned int r = 0; r < reps && !ret; r++) {
		uint64_t t0;

		wait_for_threads();
		ulsm_get_stats(&a);
		t0 = bench_now_ns();
		ret = toggle(V_PLAIN, u_name[u], true);
		us[r] = (double)(bench_now_ns() - t0) / 1000.0;
		ulsm_get_stats(&b);
		sum.batches += b.batches - a.batches;
		sum.core_syncs += b.core_syncs - a.core_syncs;
		sum.sites_patched += b.sites_patched - a.sites_patched;
		sum.traps_emulated += (b.traps_emulated - a.traps_emulated) +
				      (b.traps_rewound - a.traps_rewound);
		if (!ret)
			ret = expect_upd_calls((unsigned long)u_hooks[u],
					       "after enabling");
		/*
		 * Before the next batch on the same sites, wait until each
		 * thread has run again, so that the disable is also made
		 * while the threads dispatch (on two cores the scheduler can
		 * keep them off-core for milliseconds). This wait once also
		 * hid a library bug: a trap at a site whose breakpoint no
		 * published batch covered was passed on and killed the
		 * process; the handler now re-executes such a site
		 * (src/patch.c, tests/t_trap.c). --update-stress runs
		 * without the wait.
		 */
		if (!ret && settle)
			wait_for_threads();
		if (!ret)
			ret = toggle(V_PLAIN, u_name[u], false);
		if (!ret)
			ret = expect_upd_calls(0, "after disabling");
	}
	for (int i = 0; i < nthreads; i++)
		r1 += thread_rounds(i);
	if (!ret) {
		uc->thread_rounds = r1 - r0;
		uc->reps = reps;
		uc->median_us = bench_median(us, reps);
		uc->min_us = us[0];
		uc->batches = (double)sum.batches / reps;
		uc->core_syncs = (double)sum.core_syncs / reps;
		uc->sites_patched = (double)sum.sites_patched / reps;
		uc->traps = (double)sum.traps_emulated / reps;
	}
	free(us);
	return ret;
}

static int measure_base_add(int u, unsigned int reps)
{
	double *us = calloc(reps, sizeof(*us));
	int ret = 0;

	if (!us)
		return -ENOMEM;
	for (unsigned int r = 0; r < reps && !ret; r++) {
		uint64_t t0 = bench_now_ns();

		ret = variant[V_PLAIN]->base_add_u(u);
		us[r] = (double)(bench_now_ns() - t0) / 1000.0;
		if (!ret)
			ret = variant[V_PLAIN]->base_del_u(u);
	}
	if (!ret)
		base_add_us[u] = bench_median(us, reps);
	else
		fprintf(stderr, "bench_hooks: baseline: %s was not on its "
			"lists\n", u_name[u]);
	free(us);
	return ret;
}

static unsigned long traps_total(void)
{
	struct ulsm_stats st;

	ulsm_get_stats(&st);
	return st.traps_emulated + st.traps_rewound;
}

/* The update test, on the plain variant's set. */
static int measure_updates(unsigned int reps)
{
	int ret = 0;

	for (int u = 0; u < HK_NU && !ret; u++)
		ret = toggle(V_PLAIN, u_name[u], false);
	if (!ret)
		ret = expect_upd_calls(0, "every u-module off");
	for (int t = 0; t < 2 && !ret; t++) {
		int started = 0;

		memset(threads, 0, sizeof(threads));
		__atomic_store_n(&stop_threads, 0, __ATOMIC_RELAXED);
		for (int i = 0; i < (t ? 2 : 0) && !ret; i++) {
			ret = -pthread_create(&threads[i].t, NULL, dispatcher,
					      &threads[i]);
			if (!ret)
				started++;
		}
		nthreads = started;
		for (int u = 0; u < HK_NU && !ret; u++)
			ret = measure_enable(&upd[u][t], u, reps);
		__atomic_store_n(&stop_threads, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < started; i++) {
			pthread_join(threads[i].t, NULL);
			if (threads[i].bad) {
				fprintf(stderr, "bench_hooks: a dispatching "
					"thread saw %lu wrong rounds\n",
					threads[i].bad);
				ret = -EPROTO;
			}
		}
		nthreads = 0;
	}
	for (int u = 0; u < HK_NU && !ret; u++)
		ret = measure_base_add(u, reps);
	if (ret)
		fprintf(stderr, "bench_hooks: update test failed: %s\n",
			strerror(-ret));
	return ret;
}

/*
 * The update test N times, the disable right after the enable's check, as
 * a program that switches modules back to back would do it. Every enable
 * and disable is still checked; a trap misread by the library would end
 * the process with SIGTRAP (it did, before the fix in ulsm_trap_lookup).
 */
static int update_stress(unsigned int n)
{
	settle = false;
	for (unsigned int i = 0; i < n; i++) {
		if (measure_updates(11))
			return 1;
		printf("update test %u of %u passed (%lu traps so far)\n",
		       i + 1, n, traps_total());
		fflush(stdout);
	}
	return 0;
}

/* --- sizes --------------------------------------------------------------- */

/* This program's symbol table, to read the sizes of functions. */
struct symtab {
	void *map;
	size_t len;
	const ElfW(Sym) *syms;
	size_t nsyms;
	const char *strs;
	size_t strs_len;
};

static int symtab_open(struct symtab *st)
{
	const ElfW(Ehdr) *eh;
	const ElfW(Shdr) *sh;
	struct stat sb;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	memset(st, 0, sizeof(*st));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		close(fd);
		return -errno;
	}
	st->len = (size_t)sb.st_size;
	st->map = mmap(NULL, st->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (st->map == MAP_FAILED) {
		st->map = NULL;
		return -errno;
	}
	eh = st->map;
	if (st->len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > st->len)
		return -ENOEXEC;
	sh = (const ElfW(Shdr) *)((const char *)st->map + eh->e_shoff);
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		const ElfW(Shdr) *strsh;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		strsh = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > st->len ||
		    strsh->sh_offset + strsh->sh_size > st->len)
			return -ENOEXEC;
		st->syms = (const ElfW(Sym) *)((const char *)st->map +
					       sh[i].sh_offset);
		st->nsyms = sh[i].sh_size / sizeof(ElfW(Sym));
		st->strs = (const char *)st->map + strsh->sh_offset;
		st->strs_len = strsh->sh_size;
		return 0;
	}
	return -ENOENT;		/* stripped */
}

static long symtab_size(const struct symtab *st, const char *name)
{
	for (size_t i = 0; i < st->nsyms; i++) {
		const ElfW(Sym) *s = &st->syms[i];

		if (s->st_name < st->strs_len &&
		    !strcmp(st->strs + s->st_name, name))
			return (long)s->st_size;
	}
	return -1;
}

/* A function's bytes, its .cold part (if the compiler split one) included. */
static long fn_size(const struct symtab *st, const char *what, const char *v)
{
	char name[128];
	long n, cold;

	snprintf(name, sizeof(name), "hk_%s_%s", what, v);
	n = symtab_size(st, name);
	snprintf(name, sizeof(name), "hk_%s_%s.cold", what, v);
	cold = symtab_size(st, name);
	return n < 0 ? -1 : n + (cold > 0 ? cold : 0);
}

struct text_sizes {
	long base_int, base_void, ulsm_int, ulsm_void;
	long limit_int_k2, limit_int_kmax, limit_void_kmax;
};

static struct text_sizes text[V_COUNT];
static long tramp_bytes;	/* one slot's trampoline; 0: none */
static bool have_symtab;

static void measure_sizes(void)
{
	struct symtab st;
	char kmax[32];

	if (symtab_open(&st)) {
		if (st.map)
			munmap(st.map, st.len);
		return;
	}
	have_symtab = true;
	snprintf(kmax, sizeof(kmax), "k%u", HK_MAX);
	for (int v = 0; v < V_COUNT; v++) {
		char p[64];

		if (!present(v))
			continue;
		text[v].base_int = fn_size(&st, "sec_base_int", vname[v]);
		text[v].base_void = fn_size(&st, "sec_base_void", vname[v]);
		text[v].ulsm_int = fn_size(&st, "sec_ulsm_int", vname[v]);
		text[v].ulsm_void = fn_size(&st, "sec_ulsm_void", vname[v]);
		text[v].limit_int_k2 = fn_size(&st, "sec_limit_int_k2",
					       vname[v]);
		snprintf(p, sizeof(p), "sec_limit_int_%s", kmax);
		text[v].limit_int_kmax = fn_size(&st, p, vname[v]);
		snprintf(p, sizeof(p), "sec_limit_void_%s", kmax);
		text[v].limit_void_kmax = fn_size(&st, p, vname[v]);
	}
	tramp_bytes = symtab_size(&st, "__SCT__hk_set_plain_file_permission_0");
	if (tramp_bytes < 0)
		tramp_bytes = 0;	/* the generic back end has none */
	munmap(st.map, st.len);
}

/* Data bytes per hook and per dispatch site, from the types. */
struct data_sizes {
	unsigned long slots, calls, keys, call_entries;	/* per hook */
	unsigned long site;		/* per dispatch site of one hook */
	unsigned long ulsm_module, base_head, base_module;
};

static void data_sizes(struct data_sizes *d)
{
	const struct hk_variant *vd = variant[V_PLAIN];
	bool patching = tramp_bytes > 0;

	d->slots = vd->sizes->table;
	d->calls = vd->sizes->calls;
	d->keys = vd->sizes->keys;
	/*
	 * On x86-64 each slot's trampoline has a call-table entry and each
	 * slot's key test at a dispatch site a jump-table entry and a key
	 * pointer (<ulsm/arch/x86_64.h>); the generic back end has neither.
	 */
	d->call_entries = patching ?
			  HK_MAX * sizeof(struct ulsm_call_entry) : 0;
	d->site = patching ? HK_MAX * (sizeof(struct ulsm_jump_entry) +
				       sizeof(void *)) : 0;
	d->ulsm_module = vd->sizes->hook_list;
	d->base_head = vd->base_sizes->head;
	d->base_module = vd->base_sizes->hook_list;
}

/* --- the machine --------------------------------------------------------- */

static char cpu_model[128] = "unknown", kernel[160] = "unknown";
static long ncpus;

static void read_machine(void)
{
	char line[256];
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(cpu_model, sizeof(cpu_model), "%s", colon);
		break;
	}
	if (f)
		fclose(f);
	if (!uname(&u))
		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/* --- output -------------------------------------------------------------- */

static double med(int v, int hook, int ki, int impl)
{
	const struct hk_case *c = case_of(v, hook, ki, impl);

	return c ? c->median_ns : 0;
}

static double ratio4(int v, int hook, int ki, int a, int b)
{
	return bench_ratio(med(v, hook, ki, a), med(v, hook, ki, b));
}

/* The rows of the summary table: every configuration timed. */
struct row {
	int hook, ki;
};

static int rows(struct row *r)
{
	int n = 0;

	for (int h = H_INT; h <= H_VOID; h++)
		for (int ki = 0; ki < HK_NCOUNTS; ki++)
			r[n++] = (struct row){ h, ki };
	r[n++] = (struct row){ H_DENY, KI_MAX };
	return n;
}

static void row_label(char *buf, size_t len, const struct row *r)
{
	unsigned int k = counts[r->ki];

	snprintf(buf, len, "%s, %u module%s",
		 r->hook == H_VOID ? "file_free_security" : "file_permission",
		 k, k == 1 ? "" : "s");
	if (r->hook == H_DENY)
		snprintf(buf + strlen(buf), len - strlen(buf), ", m0 denies");
}

/*
 * The seed's table: Delta(%) is the throughput gained by ulsm over the
 * baseline, (baseline ns / ulsm ns - 1) * 100, as Unixbench's scores are
 * throughputs; the index is the geometric mean of a variant's rows.
 */
static void print_seed_table(void)
{
	struct row r[2 * HK_NCOUNTS + 1];
	int n = rows(r);

	printf("ulsm against the baseline (hook lists walked with indirect "
	       "calls), same\ncallbacks, same flags; throughput change per "
	       "dispatch, medians of this run\n\n");
	printf("%-56s%23s\n", "Benchmark", "Delta(%): (+ is better)");
	printf("==============================================================="
	       "================\n");
	for (int v = 0; v < V_COUNT; v++) {
		double logsum = 0;
		char label[96], line[128];

		if (!present(v))
			continue;
		for (int i = 0; i < n; i++) {
			double q = ratio4(v, r[i].hook, r[i].ki, I_BASE,
					  I_ULSM);

			row_label(label, sizeof(label), &r[i]);
			snprintf(line, sizeof(line), "%-10s %s", vname[v],
				 label);
			printf("%-66s%+13.4f\n", line, (q - 1) * 100);
			logsum += log(q > 0 ? q : 1);
		}
		snprintf(line, sizeof(line), "Hook Dispatch Index (geometric "
			 "mean, %s):", vname[v]);
		printf("%-66s%+13.4f\n", line, (exp(logsum / n) - 1) * 100);
	}
	printf("\n");
}

static void print_detail_table(bool instr)
{
	struct row r[2 * HK_NCOUNTS + 1];
	int n = rows(r);

	printf("ns per dispatch (median; the loop and the call of the "
	       "dispatching function\nincluded)%s\n\n", instr ?
	       "; Ir: instructions per iteration (callgrind)" : "");
	printf("%-9s %-36s %8s %8s %8s %7s %7s", "variant", "hook, modules",
	       "baseline", "limit", "ulsm", "u/lim", "b/ulsm");
	if (instr)
		printf("  %6s %6s %6s", "Ir b", "Ir lim", "Ir u");
	printf("\n");
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			continue;
		for (int i = 0; i < n; i++) {
			char label[96];

			row_label(label, sizeof(label), &r[i]);
			printf("%-9s %-36s %8.3f %8.3f %8.3f %7.2f %7.2f",
			       vname[v], label,
			       med(v, r[i].hook, r[i].ki, I_BASE),
			       med(v, r[i].hook, r[i].ki, I_LIMIT),
			       med(v, r[i].hook, r[i].ki, I_ULSM),
			       ratio4(v, r[i].hook, r[i].ki, I_ULSM, I_LIMIT),
			       ratio4(v, r[i].hook, r[i].ki, I_BASE, I_ULSM));
			if (instr)
				for (int im = 0; im < I_COUNT; im++)
					printf(" %6.1f", case_of(v, r[i].hook,
						r[i].ki, im)->instr);
			printf("\n");
		}
	}
	printf("(u/lim: ulsm / limit; b/ulsm: baseline / ulsm; limit with "
	       "0 modules is an\n empty function)\n\n");
}

/* Index of module count 2 in counts[]. */
#define KI_2	2

static void print_targets(void)
{
	printf("issue-4 targets (medians of this run):\n");
	for (int v = 0; v < V_COUNT; v++) {
		double q;

		if (!present(v))
			continue;
		q = ratio4(v, H_INT, KI_2, I_ULSM, I_LIMIT);
		printf("  %-9s int hook, 2 modules, ulsm / direct calls:   "
		       "%5.2f (%.2f vs %.2f ns)  %s\n", vname[v], q,
		       med(v, H_INT, KI_2, I_ULSM),
		       med(v, H_INT, KI_2, I_LIMIT),
		       q <= 1.3 ? "within 1.3x" : "NOT within 1.3x");
		q = ratio4(v, H_INT, 0, I_ULSM, I_LIMIT);
		printf("  %-9s empty hook (0 modules) / empty function: "
		       "%5.2f (%.2f vs %.2f ns)\n", vname[v], q,
		       med(v, H_INT, 0, I_ULSM), med(v, H_INT, 0, I_LIMIT));
	}
	printf("\n");
}

static void print_updates(void)
{
	printf("enabling a module (ulsm_lsm_toggle, plain set, %u times each; "
	       "core sync: %s):\n", upd[0][0].reps, ulsm_sync_method());
	printf("  %-6s %5s %8s %10s %10s %11s %11s %8s\n", "module", "hooks",
	       "threads", "median us", "min us", "core syncs", "sites/batch",
	       "traps");
	for (int u = 0; u < HK_NU; u++)
		for (int t = 0; t < 2; t++) {
			const struct upd_cost *uc = &upd[u][t];
			double nb = uc->batches > 0 ? uc->batches : 1;

			printf("  %-6s %5d %8d %10.2f %10.2f %11.2f %11.2f "
			       "%8.2f\n", u_name[u], u_hooks[u], t ? 2 : 0,
			       uc->median_us, uc->min_us, uc->core_syncs / nb,
			       uc->sites_patched / nb, uc->traps);
		}
	printf("  (per enable: %.2f batch(es); core syncs and sites per batch; "
	       "traps: breakpoints\n   the threads hit mid-patch, per enable; "
	       "the threads dispatched all %d upd_*\n   hooks %lu, %lu and "
	       "%lu times while u1, u10, u100 were measured%s)\n",
	       upd[0][0].batches, U_ALL_HOOKS, upd[0][1].thread_rounds,
	       upd[1][1].thread_rounds, upd[2][1].thread_rounds,
	       thread_stalls ? "; a thread stalled" : "");
	printf("first registration (security_add_hooks at init, once, no "
	       "thread):\n");
	for (int u = 0; u < HK_NU; u++) {
		const struct hk_reg *r = &variant[V_PLAIN]->reg[u];

		printf("  %-6s %5d hooks: %8.2f us, %lu batch(es), %lu core "
		       "syncs, %lu sites\n", u_name[u], u_hooks[u],
		       (double)r->ns / 1000.0, r->batches, r->core_syncs,
		       r->sites_patched);
	}
	printf("baseline, the same modules onto the lists (hlist_add_tail, no "
	       "thread; the\nclock read included):\n");
	for (int u = 0; u < HK_NU; u++)
		printf("  %-6s %5d hooks: %8.3f us\n", u_name[u], u_hooks[u],
		       base_add_us[u]);
	printf("\n");
}

static void print_sizes(const struct data_sizes *d)
{
	unsigned long ulsm_hook = d->slots + d->calls + d->keys +
				  d->call_entries;

	printf("size per hook (%d slots; back end %s):\n", HK_MAX,
	       ulsm_backend());
	printf("  %-46s %9s %9s\n", "", "baseline", "ulsm");
	printf("  %-46s %7lu B %7lu B\n", "tables per hook", d->base_head,
	       ulsm_hook);
	printf("    (ulsm: slots %lu, static-call keys %lu, static keys %lu, "
	       "call-table %lu)\n", d->slots, d->calls, d->keys,
	       d->call_entries);
	printf("  %-46s %7d B %7lu B\n", "tables per dispatch site", 0,
	       d->site);
	printf("  %-46s %7lu B %7lu B\n", "per module on the hook",
	       d->base_module, d->ulsm_module);
	printf("  %-46s %7d B %7ld B\n", "trampolines per hook (text)", 0,
	       HK_MAX * tramp_bytes);
	if (!have_symtab) {
		printf("  (text of the dispatch functions: no symbol "
		       "table)\n\n");
		return;
	}
	for (int v = 0; v < V_COUNT; v++) {
		char what[64];

		if (!present(v))
			continue;
		snprintf(what, sizeof(what), "dispatch function, int hook, %s",
			 vname[v]);
		printf("  %-46s %7ld B %7ld B\n", what, text[v].base_int,
		       text[v].ulsm_int);
		snprintf(what, sizeof(what), "dispatch function, void hook, %s",
			 vname[v]);
		printf("  %-46s %7ld B %7ld B\n", what, text[v].base_void,
		       text[v].ulsm_void);
	}
	printf("  (limit, %s: int hook with 2 calls %ld B, with %d calls "
	       "%ld B)\n\n", vname[V_PLAIN], text[V_PLAIN].limit_int_k2, HK_MAX,
	       text[V_PLAIN].limit_int_kmax);
}

/* --- JSON and chart ------------------------------------------------------ */

static int write_json(const char *path, bool quick, unsigned int rounds,
		      const struct data_sizes *d)
{
	FILE *f = fopen(path, "w");
	bool first = true;

	if (!f) {
		fprintf(stderr, "bench_hooks: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "{\n  \"benchmark\": \"hooks\",\n  \"backend\": ");
	bench_json_string(f, ulsm_backend());
	fprintf(f, ",\n  \"sync_method\": ");
	bench_json_string(f, ulsm_sync_method());
	fprintf(f, ",\n  \"compiler\": ");
	bench_json_string(f, HK_COMPILER);
	fprintf(f, ",\n  \"cpu\": ");
	bench_json_string(f, cpu_model);
	fprintf(f, ",\n  \"cpus\": %ld,\n  \"kernel\": ", ncpus);
	bench_json_string(f, kernel);
	fprintf(f, ",\n  \"quick\": %s,\n  \"max_lsm_count\": %d,\n",
		quick ? "true" : "false", HK_MAX);
	fprintf(f, "  \"rounds\": %u,\n  \"variants\": {", rounds);
	for (int v = 0; v < V_COUNT; v++) {
		fprintf(f, "%s\n    \"%s\": ", v ? "," : "", vname[v]);
		if (present(v))
			bench_json_string(f, variant[v]->flags);
		else
			fprintf(f, "null");
	}
	fprintf(f, "\n  },\n  \"instructions\": ");
	bench_json_string(f, instr_note);
	fprintf(f, ",\n  \"cases\": [");
	for (size_t i = 0; i < ncases; i++) {
		const struct hk_case *c = &cases[i];

		fprintf(f, "%s\n    { \"variant\": \"%s\", \"hook\": \"%s\", "
			"\"modules\": %u, \"impl\": \"%s\", "
			"\"median_ns\": %.4f, \"min_ns\": %.4f, "
			"\"iterations_per_run\": %lu, \"verified_runs\": %lu",
			i ? "," : "", vname[c->v], hkey[c->hook],
			counts[c->ki], iname[c->impl], c->median_ns, c->min_ns,
			c->iters, c->verified);
		if (c->instr >= 0)
			fprintf(f, ", \"instructions_per_iteration\": %.2f",
				c->instr);
		fprintf(f, " }");
	}
	fprintf(f, "\n  ],\n  \"ratios\": {");
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			continue;
		fprintf(f, "%s\n    \"%s\": { "
			"\"ulsm_vs_limit_int_2_modules\": %.4f, "
			"\"empty_hook_vs_empty_function\": %.4f, "
			"\"baseline_vs_ulsm_int_2_modules\": %.4f, "
			"\"baseline_vs_ulsm_int_%d_modules\": %.4f, "
			"\"baseline_vs_ulsm_void_%d_modules\": %.4f }",
			first ? "" : ",", vname[v],
			ratio4(v, H_INT, KI_2, I_ULSM, I_LIMIT),
			ratio4(v, H_INT, 0, I_ULSM, I_LIMIT),
			ratio4(v, H_INT, KI_2, I_BASE, I_ULSM),
			HK_MAX, ratio4(v, H_INT, KI_MAX, I_BASE, I_ULSM),
			HK_MAX, ratio4(v, H_VOID, KI_MAX, I_BASE, I_ULSM));
		first = false;
	}
	fprintf(f, "\n  },\n  \"update\": [");
	for (int u = 0; u < HK_NU; u++)
		for (int t = 0; t < 2; t++) {
			const struct upd_cost *uc = &upd[u][t];

			fprintf(f, "%s\n    { \"module\": \"%s\", "
				"\"hooks\": %d, \"threads\": %d, "
				"\"enables\": %u, "
				"\"median_us\": %.3f, \"min_us\": %.3f, "
				"\"batches_per_enable\": %.3f, "
				"\"core_syncs_per_enable\": %.3f, "
				"\"sites_patched_per_enable\": %.3f, "
				"\"traps_per_enable\": %.3f, "
				"\"thread_rounds\": %lu }", u + t ? "," : "",
				u_name[u], u_hooks[u], t ? 2 : 0, uc->reps,
				uc->median_us, uc->min_us, uc->batches,
				uc->core_syncs, uc->sites_patched, uc->traps,
				uc->thread_rounds);
		}
	fprintf(f, "\n  ],\n  \"first_registration\": [");
	for (int u = 0; u < HK_NU; u++) {
		const struct hk_reg *r = &variant[V_PLAIN]->reg[u];

		fprintf(f, "%s\n    { \"module\": \"%s\", \"hooks\": %d, "
			"\"us\": %.3f, \"batches\": %lu, \"core_syncs\": %lu, "
			"\"sites_patched\": %lu }", u ? "," : "", u_name[u],
			u_hooks[u], (double)r->ns / 1000.0, r->batches,
			r->core_syncs, r->sites_patched);
	}
	fprintf(f, "\n  ],\n  \"baseline_add_us\": [%.4f, %.4f, %.4f],\n",
		base_add_us[0], base_add_us[1], base_add_us[2]);
	fprintf(f, "  \"size\": { \"ulsm_tables_per_hook\": %lu, "
		"\"ulsm_tables_per_site\": %lu, "
		"\"ulsm_per_module_per_hook\": %lu, "
		"\"ulsm_trampolines_per_hook\": %ld, "
		"\"baseline_tables_per_hook\": %lu, "
		"\"baseline_per_module_per_hook\": %lu, \"text\": {",
		d->slots + d->calls + d->keys + d->call_entries, d->site,
		d->ulsm_module, HK_MAX * tramp_bytes, d->base_head,
		d->base_module);
	first = true;
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v) || !have_symtab)
			continue;
		fprintf(f, "%s \"%s\": { \"baseline_int\": %ld, "
			"\"baseline_void\": %ld, \"ulsm_int\": %ld, "
			"\"ulsm_void\": %ld, \"limit_int_2\": %ld, "
			"\"limit_int_%d\": %ld }", first ? "" : ",", vname[v],
			text[v].base_int, text[v].base_void, text[v].ulsm_int,
			text[v].ulsm_void, text[v].limit_int_k2, HK_MAX,
			text[v].limit_int_kmax);
		first = false;
	}
	fprintf(f, " } }\n}\n");
	return bench_close(f, "bench_hooks", path);
}

/*
 * PREFIX.dat: per hook and variant a block (index h * V_COUNT + v) of
 * "modules baseline limit ulsm" rows; PREFIX.gp draws PREFIX.png from it,
 * one panel per hook and variant, one line per implementation.
 */
static int write_plot(const char *prefix)
{
	char path[4096];
	FILE *f;
	int npresent = 0;

	snprintf(path, sizeof(path), "%s.dat", prefix);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "# bench_hooks: ns per dispatch (median)\n"
		"# modules baseline limit ulsm\n");
	for (int h = H_INT; h <= H_VOID; h++)
		for (int v = 0; v < V_COUNT; v++) {
			fprintf(f, "# %s, %s\n", hname[h], vname[v]);
			for (int ki = 0; ki < HK_NCOUNTS; ki++) {
				if (!present(v)) {
					fprintf(f, "%u NaN NaN NaN\n",
						counts[ki]);
					continue;
				}
				fprintf(f, "%u", counts[ki]);
				for (int i = 0; i < I_COUNT; i++)
					fprintf(f, " %.4f", med(v, h, ki, i));
				fprintf(f, "\n");
			}
			fprintf(f, "\n\n");
		}
	if (fclose(f))
		goto fail;

	for (int v = 0; v < V_COUNT; v++)
		npresent += present(v);
	snprintf(path, sizeof(path), "%s.gp", prefix);
	f = fopen(path, "w");
	if (!f)
		goto fail;
	fprintf(f, "# Generated by bench_hooks; run: gnuplot %s.gp\n", prefix);
	fprintf(f, "set terminal pngcairo noenhanced size %d,960 "
		"font 'sans,11'\nset output '%s.png'\n", 160 + 480 * npresent,
		prefix);
	fprintf(f, "set multiplot layout 2,%d title \"bench_hooks: ns per "
		"dispatch (median) against modules active; %s, back end %s; "
		"y scales differ\" font 'sans,13'\n", npresent, HK_COMPILER,
		ulsm_backend());
	fprintf(f, "set xlabel 'modules active'\nset ylabel 'ns per dispatch'\n"
		"set xtics (0, 1, 2, 3, %d)\nset xrange [-0.3:%d.3]\n"
		"set yrange [0:*]\nset grid\nset key top left\n", HK_MAX,
		HK_MAX);
	for (int h = H_INT; h <= H_VOID; h++) {
		for (int v = 0; v < V_COUNT; v++) {
			int idx = h * V_COUNT + v;

			if (!present(v))
				continue;
			fprintf(f, "set title \"%s hook %s, %s\\n%s\"\n",
				h == H_INT ? "int" : "void", hname[h], vname[v],
				*variant[v]->flags ? variant[v]->flags :
						     "no mitigation flags");
			fprintf(f, "plot '%s.dat' index %d using 1:2 with "
				"linespoints lw 2 pt 7 lc rgb '#c0392b' title "
				"'baseline (lists, indirect calls)', \\\n"
				"     '' index %d using 1:4 with linespoints "
				"lw 2 pt 5 lc rgb '#2471a3' title "
				"'ulsm (static calls)', \\\n"
				"     '' index %d using 1:3 with linespoints "
				"lw 2 pt 9 dt 2 lc rgb '#1e8449' title 'limit "
				"(direct calls)'\n", prefix, idx, idx, idx);
		}
	}
	fprintf(f, "unset multiplot\n");
	if (fclose(f))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "bench_hooks: %s: %s\n", path, strerror(errno));
	return -1;
}

/* --- main ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_hooks [--quick] [--json FILE] [--plot PREFIX] "
		"[--no-callgrind]\n"
		"  --quick         fewer and shorter rounds (a few seconds)\n"
		"  --json FILE     also write the results to FILE as JSON\n"
		"  --plot PREFIX   write PREFIX.dat and PREFIX.gp (gnuplot "
		"PREFIX.gp draws\n"
		"                  PREFIX.png)\n"
		"  --no-callgrind  do not count instructions under callgrind\n"
		"  --callgrind-exe PROGRAM  run PROGRAM, a copy of this one, "
		"under callgrind\n"
		"                  (default: this program)\n"
		"  --update-stress N  only the update test, N times, with no "
		"pause between\n"
		"                  batches on the same sites (a reproducer)\n");
}

int main(int argc, char **argv)
{
	const char *json = NULL, *plot = NULL, *cg_exe = NULL;
	const char *cg_prefix = NULL, *cg_tsv = NULL;
	unsigned int stress = 0;
	bool quick = false, callgrind = true;
	struct data_sizes ds;
	struct ulsm_stats total;
	unsigned int rounds, reps;
	uint64_t target_ns, t0;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strcmp(argv[i], "--plot") && i + 1 < argc) {
			plot = argv[++i];
		} else if (!strcmp(argv[i], "--no-callgrind")) {
			callgrind = false;
		} else if (!strcmp(argv[i], "--callgrind-exe") &&
			   i + 1 < argc) {
			cg_exe = argv[++i];
		} else if (!strcmp(argv[i], "--update-stress") &&
			   i + 1 < argc) {
			stress = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--callgrind-child") &&
			   i + 2 < argc) {
			cg_prefix = argv[++i];
			cg_tsv = argv[++i];
		} else if (!strcmp(argv[i], "--help") ||
			   !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}

	build_cases();
	ret = setup_sets();
	if (ret)
		return 1;
	if (cg_prefix)
		return callgrind_child(cg_prefix, cg_tsv) ? 1 : 0;
	if (stress)
		return update_stress(stress);

	read_machine();
	printf("ulsm hook benchmark: back end %s, %s, MAX_LSM_COUNT %d\n",
	       ulsm_backend(), HK_COMPILER, HK_MAX);
	printf("machine: %s, %ld CPUs, %s\n", cpu_model, ncpus, kernel);
	printf("dispatch code and callbacks compiled per variant with:\n");
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			printf("  %-10s left out: %s\n", vname[v],
			       variant_missing[v]);
		else
			printf("  %-10s %s\n", vname[v], *variant[v]->flags ?
			       variant[v]->flags : "(no extra flags)");
	}
	if (!strcmp(ulsm_backend(), "generic"))
		printf("(generic back end: a slot is a load of its key and of "
		       "its function pointer,\n and an indirect call)\n");
	printf("\n");

	if (!callgrind)
		snprintf(instr_note, sizeof(instr_note), "skipped "
			 "(--no-callgrind)");
	else if (run_callgrind(cg_exe))
		return 1;
	printf("instruction counts: %s\n", instr_note);

	/*
	 * Default: every case runs ~10 ms per round, 41 rounds: ~1 s a
	 * round for the 99 cases of three variants, 40 s in all.
	 * Quick: 7 rounds of ~1 ms. Each case gets the iteration count that
	 * makes its own run that long, so fast and slow cases are timed
	 * over the same span and the same kind of noise.
	 */
	rounds = quick ? 7 : 41;
	target_ns = quick ? 1000000 : 10000000;
	reps = quick ? 11 : 51;

	t0 = bench_now_ns();
	for (size_t i = 0; i < ncases; i++) {
		ret = prepare_case((int)i);
		if (ret)
			return 1;
		cases[i].iters = bench_calibrate(cases[i].loop, target_ns);
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
		fprintf(stderr, "bench_hooks: run failed: %s\n",
			strerror(-ret));
		return 1;
	}
	for (size_t i = 0; i < ncases; i++) {
		double n = (double)cases[i].iters;

		cases[i].median_ns = cands[i].median_ns / n;
		cases[i].min_ns = cands[i].min_ns / n;
		if (cases[i].verified != rounds + 1) {
			fprintf(stderr, "bench_hooks: %s: %lu of %u runs "
				"verified\n", cases[i].name, cases[i].verified,
				rounds + 1);
			return 1;
		}
	}
	printf("timed in %.1f s; every run verified (return sums and each "
	       "module's argument sums)\n\n",
	       (double)(bench_now_ns() - t0) / 1e9);

	if (measure_updates(reps))
		return 1;
	measure_sizes();
	data_sizes(&ds);

	print_seed_table();
	print_detail_table(cases[0].instr >= 0);
	print_targets();
	print_updates();
	print_sizes(&ds);

	ulsm_get_stats(&total);
	printf("library totals: %lu batches (%lu failed), %lu core syncs, "
	       "%lu sites patched, %lu traps emulated, %lu rewound\n",
	       total.batches, total.batches_failed, total.core_syncs,
	       total.sites_patched, total.traps_emulated, total.traps_rewound);
	printf("call sites: %lu patchable (module calls made directly), "
	       "%lu left calling their trampoline\n", total.call_sites,
	       total.call_sites_skipped);

	if (json && write_json(json, quick, rounds, &ds))
		return 1;
	if (plot && write_plot(plot))
		return 1;
	return 0;
}
