// SPDX-License-Identifier: MIT
/*
 * What unload safety costs per dispatch (docs/hook-framework.md, "Modules
 * that come and go"): the same hook, the same 1, 2 or 3 callbacks (each
 * adds its argument to a global and returns 0, as in the APR hooks
 * measurement), dispatched three ways side by side in one run:
 *
 *   limit       hard-coded direct calls to the callbacks, in order, each
 *               result tested as call_int_hook does;
 *   ulsm        a set that does not allow unloading (the default);
 *   unloadable  the same set with ULSM_LSM_UNLOADABLE, its modules in
 *               the program: they cannot be unloaded, and pay nothing;
 *   plug-in     a third such set, its modules in a plug-in
 *               (unload_plugin.c, the same callbacks): each is called
 *               through its slot's guard, a read-side section;
 *   sealed      then that set sealed: the plug-in is kept loaded, its
 *               modules called directly, as a built-in's (a second
 *               table, with the limit, the unloadable set, and "far": a
 *               set that never unloads, the same plug-in's modules, at
 *               the same distance from the program, beside it).
 *
 * The first two sets are defined in this file, with the same modules; the
 * number of modules on is set with the toggle. Medians of interleaved
 * rounds (bench.h); ratios to the limit of the same run.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ulsm/ulsm.h>

#include "bench.h"

/* The set that does not allow unloading. */
#define ULSM_LSM_SET		ux
#define ULSM_LSM_HOOK_DEFS	"unload_hook_defs.h"
#define MAX_LSM_COUNT		4
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

/* The same, allowing unloading. */
#undef ULSM_LSM_SET
#define ULSM_LSM_SET		uy
#define ULSM_LSM_UNLOADABLE
#include <ulsm/lsm_hooks.h>

/* The plug-in's set. */
#undef ULSM_LSM_SET
#undef ULSM_LSM_HOOK_DEFS
#undef MAX_LSM_COUNT
#undef ULSM_LSM_UNLOADABLE
#include "unload_plugin_set.h"

#include "unload_cbs.h"

static const struct lsm_id ids[3] = { { "m1", 1 }, { "m2", 2 }, { "m3", 3 } };
static struct ux_hook_list ux_hooks[3] = {
	ulsm_lsm_hook_init(ux, req_check, cb1),
	ulsm_lsm_hook_init(ux, req_check, cb2),
	ulsm_lsm_hook_init(ux, req_check, cb3),
};
static struct uy_hook_list uy_hooks[3] = {
	ulsm_lsm_hook_init(uy, req_check, cb1),
	ulsm_lsm_hook_init(uy, req_check, cb2),
	ulsm_lsm_hook_init(uy, req_check, cb3),
};

#define MODULE(set, n)							\
static int set##_init##n(void)						\
{									\
	return ulsm_security_add_hooks_to(set, &set##_hooks[n - 1], 1,	\
					  &ids[n - 1]);			\
}									\
DEFINE_LSM_IN(set, set##_m##n) = {					\
	.name = "m" #n, .init = set##_init##n, .id = &ids[n - 1],	\
};
MODULE(ux, 1)
MODULE(ux, 2)
MODULE(ux, 3)
MODULE(uy, 1)
MODULE(uy, 2)
MODULE(uy, 3)

/* The security_* functions: C around call_int_hook, as the kernel's. */
__attribute__((noinline)) static int sec_ux(int request)
{
	return ulsm_call_int_hook(ux, req_check, request);
}

__attribute__((noinline)) static int sec_uy(int request)
{
	return ulsm_call_int_hook(uy, req_check, request);
}

__attribute__((noinline)) static int sec_uz(int request)
{
	return ulsm_call_int_hook(uz, req_check, request);
}

__attribute__((noinline)) static int sec_uw(int request)
{
	return ulsm_call_int_hook(uw, req_check, request);
}

__attribute__((noinline)) static int limit1(int request)
{
	return cb1(request);
}

__attribute__((noinline)) static int limit2(int request)
{
	int rc = cb1(request);

	return rc ? rc : cb2(request);
}

__attribute__((noinline)) static int limit3(int request)
{
	int rc = cb1(request);

	if (rc)
		return rc;
	rc = cb2(request);
	return rc ? rc : cb3(request);
}

#define LOOP(name, fn)							\
__attribute__((noinline)) static void name(unsigned long iters)		\
{									\
	long acc = 0;							\
									\
	for (unsigned long i = 0; i < iters; i++)			\
		acc += fn((int)i);					\
	if (acc)							\
		abort();	/* every callback returns 0 */		\
}
LOOP(run_limit1, limit1)
LOOP(run_limit2, limit2)
LOOP(run_limit3, limit3)
LOOP(run_ux, sec_ux)
LOOP(run_uy, sec_uy)
LOOP(run_uz, sec_uz)
LOOP(run_uw, sec_uw)

/* Modules 1..k on, the others off, in the three sets. */
static int modules_on(int k)
{
	int ret = 0;

	for (int n = 1; n <= 3 && !ret; n++) {
		char name[4], pname[4];

		snprintf(name, sizeof(name), "m%d", n);
		snprintf(pname, sizeof(pname), "p%d", n);
		ret = ulsm_lsm_toggle(&ux_hook_set, name, n <= k);
		if (!ret)
			ret = ulsm_lsm_toggle(&uy_hook_set, name, n <= k);
		if (!ret)
			ret = ulsm_lsm_toggle(&uz_hook_set, pname, n <= k);
		pname[0] = 'q';
		if (!ret)
			ret = ulsm_lsm_toggle(&uw_hook_set, pname, n <= k);
	}
	return ret;
}

/*
 * With @k modules on in each set, the @n candidates @c side by side
 * (medians of @rounds interleaved rounds); 0, or 1 (said why).
 */
static int measure(int k, struct bench_cand *c, unsigned int n,
		   unsigned int rounds, int quick)
{
	unsigned long iters;
	int ret;

	if (modules_on(k)) {
		fprintf(stderr, "bench_unload: toggle: %s\n", ulsm_last_error());
		return 1;
	}
	iters = bench_calibrate(run_uz, quick ? 5000000 : 20000000);
	ret = bench_run(c, n, rounds, iters);
	if (ret)
		fprintf(stderr, "bench_unload: %d\n", ret);
	return ret != 0;
}

/* At most @limit ns per call of @k modules @what, @got over @base. */
static void per_call_target(int k, const char *what, double limit,
			    const struct bench_cand *got,
			    const struct bench_cand *base, const char *over)
{
	double d = (got->median_ns - base->median_ns) / k;
	char name[120];

	snprintf(name, sizeof(name), "%d %s module%s: <= %+.2f ns per call "
		 "over %s", k, what, k > 1 ? "s" : "", limit, over);
	bench_target("bench_unload", name, d <= limit,
		     "%+.3f ns per call (%.3f vs %.3f ns)", d, got->median_ns,
		     base->median_ns);
}

/* The plug-in @name, next to this program. */
static void *load_plugin(const char *name)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;
	void *h;

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	slash = strrchr(path, '/');
	snprintf(slash ? slash + 1 : path, 32, "%s", name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fprintf(stderr, "bench_unload: %s\n", dlerror());
	return h;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_unload [--quick] [--json FILE]\n"
		"What a set that allows unloading pays per dispatch: ulsm, ulsm\n"
		"unloadable (modules in the program) and a plug-in's modules\n"
		"against hard-coded calls, 1 to 3 modules.\n");
}

int main(int argc, char **argv)
{
	static void (*const limits[3])(unsigned long) = {
		run_limit1, run_limit2, run_limit3,
	};
	const char *json = NULL;
	struct bench_cand res[3][4], sealed[3][4];
	unsigned int rounds;
	int quick = 0, ret;
	FILE *f = NULL;

	ret = bench_options(argc, argv, usage, &quick, &json, NULL);
	if (ret >= 0)
		return ret;
	rounds = quick ? 11 : 31;
	if (ulsm_lsm_allow_toggle(&ux_hook_set) ||
	    ulsm_lsm_allow_toggle(&uy_hook_set) ||
	    ulsm_lsm_allow_toggle(&uz_hook_set) ||
	    ulsm_lsm_allow_toggle(&uw_hook_set) ||
	    ulsm_lsm_init(&uw_hook_set, NULL) ||
	    ulsm_lsm_init(&ux_hook_set, NULL) || ulsm_lsm_init(&uy_hook_set, NULL) ||
	    ulsm_lsm_init(&uz_hook_set, NULL)) {
		fprintf(stderr, "bench_unload: init: %s\n", ulsm_last_error());
		return 1;
	}
	if (!load_plugin("unload_plugin.so") ||
	    !load_plugin("unload_twin.so") ||
	    strcmp(ulsm_lsm_list(&uz_hook_set), "p1,p2,p3") ||
	    strcmp(ulsm_lsm_list(&uw_hook_set), "q1,q2,q3")) {
		fprintf(stderr, "bench_unload: the plug-in's modules are not up "
			"(%s; %s)\n", ulsm_lsm_list(&uz_hook_set),
			ulsm_lsm_list(&uw_hook_set));
		return 1;
	}
	printf("ulsm unload-safety benchmark: back end %s; the same callbacks, "
	       "ns per dispatch (median of %u rounds)\n", ulsm_backend(), rounds);
	printf("%-8s %10s %10s %11s %10s %13s %19s %16s\n", "modules",
	       "limit", "ulsm", "unloadable", "plug-in", "ulsm / limit",
	       "unloadable / limit", "plug-in / limit");
	for (int k = 1; k <= 3; k++) {
		struct bench_cand *c = res[k - 1];

		c[0] = (struct bench_cand){ .name = "limit", .run = limits[k - 1] };
		c[1] = (struct bench_cand){ .name = "ulsm", .run = run_ux };
		c[2] = (struct bench_cand){ .name = "unloadable", .run = run_uy };
		c[3] = (struct bench_cand){ .name = "plug-in", .run = run_uz };
		if (measure(k, c, 4, rounds, quick))
			return 1;
		printf("%-8d %10.3f %10.3f %11.3f %10.3f %13.3f %19.3f %16.3f\n",
		       k, c[0].median_ns, c[1].median_ns, c[2].median_ns,
		       c[3].median_ns,
		       bench_ratio(c[1].median_ns, c[0].median_ns),
		       bench_ratio(c[2].median_ns, c[0].median_ns),
		       bench_ratio(c[3].median_ns, c[0].median_ns));
		{
			char what[120];
			double d = c[2].median_ns - c[1].median_ns;

			/* issue 24: built-in modules pay nothing for it. */
			snprintf(what, sizeof(what), "%d built-in module%s: "
				 "an unloadable set pays nothing (<= +0.25 ns)",
				 k, k > 1 ? "s" : "");
			bench_target("bench_unload", what, d <= 0.25,
				     "%+.3f ns (%.3f vs %.3f ns)", d,
				     c[2].median_ns, c[1].median_ns);
			/* A module that can be unloaded: +1 ns per call. */
			per_call_target(k, "plug-in", 1.0, &c[3], &c[2],
					"built-in");
		}
	}
	/* Sealed: the plug-in's modules past their guards, pinned. */
	if (ulsm_lsm_seal(&uz_hook_set)) {
		fprintf(stderr, "bench_unload: seal: %s\n", ulsm_last_error());
		return 1;
	}
	printf("the plug-in's set sealed (its object kept loaded):\n");
	printf("%-8s %10s %11s %10s %10s %19s %15s %15s\n", "modules", "limit",
	       "unloadable", "far", "sealed", "unloadable / limit",
	       "far / limit", "sealed / limit");
	for (int k = 1; k <= 3; k++) {
		struct bench_cand *c = sealed[k - 1];

		c[0] = (struct bench_cand){ .name = "limit", .run = limits[k - 1] };
		c[1] = (struct bench_cand){ .name = "unloadable", .run = run_uy };
		c[2] = (struct bench_cand){ .name = "far", .run = run_uw };
		c[3] = (struct bench_cand){ .name = "sealed", .run = run_uz };
		if (measure(k, c, 4, rounds, quick))
			return 1;
		printf("%-8d %10.3f %11.3f %10.3f %10.3f %19.3f %15.3f %15.3f\n",
		       k, c[0].median_ns, c[1].median_ns, c[2].median_ns,
		       c[3].median_ns,
		       bench_ratio(c[1].median_ns, c[0].median_ns),
		       bench_ratio(c[2].median_ns, c[0].median_ns),
		       bench_ratio(c[3].median_ns, c[0].median_ns));
		/*
		 * issue 24: pinned, a plug-in's module pays no guard: what
		 * it costs is its distance, as in a set that never unloads.
		 */
		per_call_target(k, "sealed plug-in", 0.25, &c[3], &c[2],
				"one as far that never unloads");
	}
	if (json) {
		f = bench_open("bench_unload", json);
		if (!f)
			return 1;
		fprintf(f, "{\n  \"benchmark\": \"unload\",\n  \"rows\": [\n");
		for (int k = 1; k <= 3; k++)
			fprintf(f, "    { \"modules\": %d, \"limit_ns\": %.4f, "
				"\"ulsm_ns\": %.4f, \"unloadable_ns\": %.4f, "
				"\"plugin_ns\": %.4f, \"sealed_limit_ns\": %.4f, "
				"\"sealed_unloadable_ns\": %.4f, "
				"\"far_ns\": %.4f, \"sealed_ns\": %.4f }%s\n",
				k, res[k - 1][0].median_ns, res[k - 1][1].median_ns,
				res[k - 1][2].median_ns, res[k - 1][3].median_ns,
				sealed[k - 1][0].median_ns,
				sealed[k - 1][1].median_ns,
				sealed[k - 1][2].median_ns,
				sealed[k - 1][3].median_ns, k < 3 ? "," : "");
		fprintf(f, "  ]\n}\n");
		return bench_close(f, "bench_unload", json);
	}
	return 0;
}
