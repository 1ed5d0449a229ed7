// SPDX-License-Identifier: MIT
/*
 * bench_hooks: the cases and their timing (bench/hk_driver.h).
 *
 * A case is a variant (plain, retpoline, rethunk), a hook (the int hook,
 * the void hook, the int hook with the first module denying), a module
 * count (0, 1, 2, 3, HK_MAX) and an implementation (baseline, limit,
 * ulsm, ulsm_c). Before each timed run, prepare_case() puts the modules
 * of the case on (the baseline's lists, or ulsm_lsm_toggle on the ulsm
 * set; the limit has one function per count) and resets the sums; after
 * it, check_run() compares what the callbacks saw with what the run
 * should have produced. Any mismatch fails the benchmark.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/lsm.h>
#include <ulsm/ulsm.h>
#include <ulsm/unroll.h>

#include "hk_driver.h"

/* --- what the callbacks and loops share (hk_bench.h) --------------------- */

int hk_ret[HK_MAX];
unsigned long hk_acc[HK_MAX];
unsigned long hk_vacc[HK_MAX];
unsigned long hk_sum;
__thread unsigned long hk_upd_calls;

/* --- variants, hooks, implementations ------------------------------------ */

const char *const vname[V_COUNT] = { "plain", "retpoline", "rethunk" };

const struct hk_variant *const variant[V_COUNT] = {
	&hk_variant_plain, &hk_variant_retpoline, &hk_variant_rethunk,
};

/* Why a variant is absent (the Makefile probes for the flags). */
const char *const variant_missing[V_COUNT] = {
	[V_RETPOLINE] = "the compiler has neither -mindirect-branch=thunk "
			"nor -mretpoline",
	[V_RETHUNK] = "the compiler lacks -mfunction-return=thunk",
};

bool present(int v)
{
	return variant[v]->flags != NULL;
}

const char *const hname[H_COUNT] = {
	"file_permission", "file_free_security", "file_permission, m0 denies",
};
/* Short forms, for names of candidates and the JSON. */
const char *const hkey[H_COUNT] = { "int", "void", "int_deny" };

const char *const iname[I_COUNT] = { "baseline", "limit", "ulsm", "ulsm_c" };

const unsigned int counts[HK_NCOUNTS] = { 0, 1, 2, 3, HK_MAX };

/* --- the cases ----------------------------------------------------------- */

#define HK_MAX_CASES	192
_Static_assert(V_COUNT * (2 * HK_NCOUNTS + 1) * I_COUNT <= HK_MAX_CASES,
	       "more cases than prepare functions");
struct hk_case cases[HK_MAX_CASES];
size_t ncases;
static struct bench_cand cands[HK_MAX_CASES];
static int case_at[V_COUNT][H_COUNT][HK_NCOUNTS][I_COUNT];

static void add_case(int v, int hook, int ki, int impl)
{
	const struct hk_variant *vd = variant[v];
	struct hk_case *c = &cases[ncases];
	bool vh = hook == H_VOID;

	c->v = v;
	c->hook = hook;
	c->ki = ki;
	c->impl = impl;
	c->instr = -1;
	switch (impl) {
	case I_BASE:
		c->loop = vh ? vd->base_void : vd->base_int;
		break;
	case I_ULSM:
		c->loop = vh ? vd->ulsm_void : vd->ulsm_int;
		break;
	case I_ULSM_C:
		c->loop = vh ? vd->ulsm_c_void : vd->ulsm_c_int;
		break;
	default:
		c->loop = vh ? vd->limit_void[ki] : vd->limit_int[ki];
		break;
	}
	snprintf(c->name, sizeof(c->name), "%s/%s/k%u/%s", vname[v], hkey[hook],
		 counts[ki], iname[impl]);
	case_at[v][hook][ki][impl] = (int)ncases++;
}

/*
 * Variant-major, then hook, module count and implementation: the
 * implementations of one configuration are neighbours in every round.
 */
void build_cases(void)
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

const struct hk_case *case_of(int v, int hook, int ki, int impl)
{
	int i = case_at[v][hook][ki][impl];

	return i < 0 ? NULL : &cases[i];
}

double med(int v, int hook, int ki, int impl)
{
	const struct hk_case *c = case_of(v, hook, ki, impl);

	return c ? c->median_ns : 0;
}

double ratio4(int v, int hook, int ki, int a, int b)
{
	return bench_ratio(med(v, hook, ki, a), med(v, hook, ki, b));
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
int ulsm_set_modules(int v, unsigned int k)
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

int prepare_case(int i)
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
	} else if (c->impl == I_ULSM || c->impl == I_ULSM_C) {
		ret = ulsm_set_modules(c->v, k);
	}
	memcpy(acc0, hk_acc, sizeof(acc0));
	memcpy(vacc0, hk_vacc, sizeof(vacc0));
	hk_sum = 0x5eed;	/* a loop that stores no sum fails */
	return ret;
}

/* bench_run() has no argument for prepare: one function per case index. */
#define HK_PREP(i, part)						\
static int prep_##part##_##i(void)					\
{									\
	return prepare_case(part * 64 + i);				\
}
UNROLL(64, HK_PREP, 0)
UNROLL(64, HK_PREP, 1)
UNROLL(64, HK_PREP, 2)
#define HK_PREP_REF(i, part)	prep_##part##_##i,
static int (*const prep_fn[HK_MAX_CASES])(void) = {
	UNROLL(64, HK_PREP_REF, 0)
	UNROLL(64, HK_PREP_REF, 1)
	UNROLL(64, HK_PREP_REF, 2)
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
int check_run(int i, unsigned long n)
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
int setup_sets(void)
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

/* --- timing -------------------------------------------------------------- */

int time_cases(bool quick, unsigned int *rounds)
{
	uint64_t target_ns, t0;
	int ret;

	/*
	 * Default: every case runs ~10 ms per round, 41 rounds: ~1.3 s a
	 * round for the 132 cases of three variants, about a minute in all.
	 * Quick: 7 rounds of ~1 ms. Each case gets the iteration count that
	 * makes its own run that long, so fast and slow cases are timed
	 * over the same span and the same kind of noise.
	 */
	*rounds = quick ? 7 : 41;
	target_ns = quick ? 1000000 : 10000000;

	t0 = bench_now_ns();
	for (size_t i = 0; i < ncases; i++) {
		ret = prepare_case((int)i);
		if (ret)
			return ret;
		cases[i].iters = bench_calibrate(cases[i].loop, target_ns);
		cands[i] = (struct bench_cand){
			.name = cases[i].name, .run = run_current,
			.prepare = prep_fn[i], .check = check_current,
		};
	}
	printf("timing %zu cases, %u interleaved rounds of ~%.0f ms each ...\n",
	       ncases, *rounds, (double)target_ns / 1e6);
	fflush(stdout);
	ret = bench_run(cands, ncases, *rounds, 1);
	if (ret) {
		fprintf(stderr, "bench_hooks: run failed: %s\n",
			strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < ncases; i++) {
		double n = (double)cases[i].iters;

		cases[i].median_ns = cands[i].median_ns / n;
		cases[i].min_ns = cands[i].min_ns / n;
		if (cases[i].verified != *rounds + 1) {
			fprintf(stderr, "bench_hooks: %s: %lu of %u runs "
				"verified\n", cases[i].name, cases[i].verified,
				*rounds + 1);
			return -EPROTO;
		}
	}
	printf("timed in %.1f s; every run verified (return sums and each "
	       "module's argument sums)\n\n",
	       (double)(bench_now_ns() - t0) / 1e9);
	return 0;
}
