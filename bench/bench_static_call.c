// SPDX-License-Identifier: MIT
/*
 * What does a static call cost, next to the direct call it is meant to
 * equal and the function-pointer call it replaces?
 *
 * The same small function, int target(int) (what abs computes), called in
 * the same loop in different ways, timed side by side in interleaved
 * rounds (bench/bench.h):
 *
 *   no call (abs inlined)       the loop and abs alone, for scale
 *   direct call                 call target
 *   static_call                 call the __SCT__ trampoline; jmp target
 *   static_call_inline          call target: the call site itself is
 *                               recorded and patched (the kernel's inline
 *                               static calls)
 *   function pointer            load a global pointer; call *%reg
 *
 * and the same three again from a retpoline build (an indirect call goes
 * through a thunk that keeps the CPU from predicting it; direct calls and
 * static calls have no indirect branch and should not change), and from a
 * build with return thunks as well (every ret, here the target's, goes
 * through a thunk: what the kernel does against Retbleed). Last, a call
 * into a shared library:
 *
 *   libc abs, direct (PLT)      call abs@PLT, whose stub jumps through
 *                               the GOT
 *   static_call -> libc abs     a static call pointed at libc's abs, out
 *                               of the trampoline's rel32 reach: its
 *                               indirect form, jmp *key.func
 *   hook -> libc abs            a hook whose one module's callback is
 *                               libc's abs (bench/sc_far.h): the entry
 *                               tail-calls its stub, jmp *%r11
 *
 * and those two far forms again from a retpoline build, where they go
 * through a retpoline thunk (ULSM_RETPOLINE), and from a retpoline build
 * without ULSM_RETPOLINE (the variant rpbare), where they are the bare
 * indirect jumps of the plain build: the cost of keeping them out of
 * the branch predictor, side by side with what it was before.
 *
 * Each way of calling is a loop in bench/sc_loops.c, compiled once per set
 * of flags (bench/sc_bench.h explains the variants); the loops differ in
 * the call instruction only. Every loop sums what its calls returned, and
 * the sum is checked after every timed run: all candidates compute the same
 * abs, so all must produce the same sum (exit 1 otherwise). Before timing,
 * each trampoline's bytes are decoded: each must jump to the function the
 * benchmark pointed it at.
 *
 * Also measured: what static_call_update() costs (median time between two
 * targets, and the library's counters per update), for a call in reach
 * (the trampoline is rewritten) and one out of reach (only the pointer
 * the indirect form jumps through changes).
 *
 * On the generic back end a static call is a function-pointer call, and
 * this benchmark measures that.
 *
 * Usage: bench_static_call [--quick] [--json FILE] [--plot PREFIX]
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/static_call.h>
#include <ulsm/ulsm.h>

#include "bench.h"
#include "sc_bench.h"

#define SC_COMPILER	BENCH_COMPILER

unsigned long sc_sum;

/* --- the candidates ------------------------------------------------------ */

enum {
	C_INLINE, C_DIRECT, C_SC, C_SCI, C_FNPTR,
	C_DIRECT_RP, C_SC_RP, C_SCI_RP, C_FNPTR_RP,
	C_DIRECT_RT, C_SC_RT, C_SCI_RT, C_FNPTR_RPRT,
	C_LIBC, C_LIBC_SC, C_LIBC_SC_RB, C_LIBC_SC_RP,
	C_HOOK, C_HOOK_RB, C_HOOK_RP, C_COUNT
};

enum { V_PLAIN, V_RETPOLINE, V_RETHUNK, V_RPBARE, V_COUNT };

static const char *const variant_name[V_COUNT] = {
	"plain", "retpoline", "rethunk", "rpbare"
};

/* Why a variant is absent (the Makefile probes for the flags). */
static const char *const variant_missing[V_COUNT] = {
	[V_RETPOLINE] = "the compiler has neither -mindirect-branch=thunk "
			"nor -mretpoline",
	[V_RETHUNK] = "needs -mfunction-return=thunk and a retpoline flag",
	[V_RPBARE] = "the compiler has neither -mindirect-branch=thunk "
		     "nor -mretpoline",
};

/* Filled in by main(): NULL means the compiler lacked the variant's flags. */
static const char *variant_flags[V_COUNT];

static const int cand_variant[C_COUNT] = {
	[C_INLINE] = V_PLAIN, [C_DIRECT] = V_PLAIN, [C_SC] = V_PLAIN,
	[C_SCI] = V_PLAIN, [C_FNPTR] = V_PLAIN, [C_DIRECT_RP] = V_RETPOLINE,
	[C_SC_RP] = V_RETPOLINE, [C_SCI_RP] = V_RETPOLINE,
	[C_FNPTR_RP] = V_RETPOLINE, [C_DIRECT_RT] = V_RETHUNK,
	[C_SC_RT] = V_RETHUNK, [C_SCI_RT] = V_RETHUNK,
	[C_FNPTR_RPRT] = V_RETHUNK, [C_LIBC] = V_PLAIN, [C_LIBC_SC] = V_PLAIN,
	[C_LIBC_SC_RB] = V_RPBARE, [C_LIBC_SC_RP] = V_RETPOLINE,
	[C_HOOK] = V_PLAIN, [C_HOOK_RB] = V_RPBARE, [C_HOOK_RP] = V_RETPOLINE,
};

/*
 * Every candidate's prepare records which one runs, so that a failed
 * checksum can be told apart, and clears the sum, so that a loop that
 * stored nothing fails.
 */
static int cur;
static unsigned long runs_verified[C_COUNT];

static int begin_run(int c)
{
	cur = c;
	sc_sum = 0;
	return 0;
}

#define SC_PREPARE(c)							\
static int prepare_##c(void)						\
{									\
	return begin_run(c);						\
}
SC_PREPARE(C_INLINE)
SC_PREPARE(C_DIRECT)
SC_PREPARE(C_SC)
SC_PREPARE(C_SCI)
SC_PREPARE(C_FNPTR)
SC_PREPARE(C_DIRECT_RP)
SC_PREPARE(C_SC_RP)
SC_PREPARE(C_SCI_RP)
SC_PREPARE(C_FNPTR_RP)
SC_PREPARE(C_DIRECT_RT)
SC_PREPARE(C_SC_RT)
SC_PREPARE(C_SCI_RT)
SC_PREPARE(C_FNPTR_RPRT)
SC_PREPARE(C_LIBC)
SC_PREPARE(C_LIBC_SC)
SC_PREPARE(C_LIBC_SC_RB)
SC_PREPARE(C_LIBC_SC_RP)
SC_PREPARE(C_HOOK)
SC_PREPARE(C_HOOK_RB)
SC_PREPARE(C_HOOK_RP)

/* Names of the static-call rows are completed with the trampoline's form. */
static char name_sc[64], name_sc_rp[64], name_sc_rt[64], name_libc_sc[64];

static struct bench_cand cands[C_COUNT] = {
	[C_INLINE] = { .name = "no call (abs inlined)",
		       .run = sc_loop_inline_plain },
	[C_DIRECT] = { .name = "direct call",
		       .run = sc_loop_direct_plain },
	[C_SC] = { .name = name_sc, .run = sc_loop_static_call_plain },
	[C_SCI] = { .name = "static_call_inline",
		    .run = sc_loop_static_call_inline_plain },
	[C_FNPTR] = { .name = "function pointer",
		      .run = sc_loop_fnptr_plain },
	[C_DIRECT_RP] = { .name = "direct call, retpoline",
			  .run = sc_loop_direct_retpoline },
	[C_SC_RP] = { .name = name_sc_rp,
		      .run = sc_loop_static_call_retpoline },
	[C_SCI_RP] = { .name = "static_call_inline, retpoline",
		       .run = sc_loop_static_call_inline_retpoline },
	[C_FNPTR_RP] = { .name = "fnptr, retpoline",
			 .run = sc_loop_fnptr_retpoline },
	[C_DIRECT_RT] = { .name = "direct call, rethunk",
			  .run = sc_loop_direct_rethunk },
	[C_SC_RT] = { .name = name_sc_rt,
		      .run = sc_loop_static_call_rethunk },
	[C_SCI_RT] = { .name = "static_call_inline, rethunk",
		       .run = sc_loop_static_call_inline_rethunk },
	[C_FNPTR_RPRT] = { .name = "fnptr, retpoline+rethunk",
			   .run = sc_loop_fnptr_rethunk },
	[C_LIBC] = { .name = "libc abs, direct (PLT)",
		     .run = sc_loop_libc_plain },
	[C_LIBC_SC] = { .name = name_libc_sc,
			.run = sc_loop_libc_static_call_plain },
	[C_LIBC_SC_RB] = { .name = "static_call -> libc abs, rpbare",
			   .run = sc_loop_libc_static_call_rpbare },
	[C_LIBC_SC_RP] = { .name = "static_call -> libc abs, retpoline",
			   .run = sc_loop_libc_static_call_retpoline },
	[C_HOOK] = { .name = "hook -> libc abs",
		     .run = sc_loop_libc_hook_plain },
	[C_HOOK_RB] = { .name = "hook -> libc abs, rpbare",
			.run = sc_loop_libc_hook_rpbare },
	[C_HOOK_RP] = { .name = "hook -> libc abs, retpoline",
			.run = sc_loop_libc_hook_retpoline },
};

static int (*const cand_prepare[C_COUNT])(void) = {
	prepare_C_INLINE, prepare_C_DIRECT, prepare_C_SC, prepare_C_SCI,
	prepare_C_FNPTR, prepare_C_DIRECT_RP, prepare_C_SC_RP,
	prepare_C_SCI_RP, prepare_C_FNPTR_RP, prepare_C_DIRECT_RT,
	prepare_C_SC_RT, prepare_C_SCI_RT, prepare_C_FNPTR_RPRT,
	prepare_C_LIBC, prepare_C_LIBC_SC, prepare_C_LIBC_SC_RB,
	prepare_C_LIBC_SC_RP, prepare_C_HOOK, prepare_C_HOOK_RB,
	prepare_C_HOOK_RP,
};

static int present(int c)
{
	return variant_flags[cand_variant[c]] != NULL;
}

/* --- checksums ----------------------------------------------------------- */

/* The sum every loop of @iters calls must leave, computed here inline. */
static unsigned long expected_sum(unsigned long iters)
{
	static unsigned long cached_iters, cached_sum;

	if (iters != cached_iters) {
		unsigned long sum = 0;

		for (unsigned long i = 0; i < iters; i++)
			sum += (unsigned long)sc_abs(sc_arg(i));
		cached_iters = iters;
		cached_sum = sum;
	}
	return cached_sum;
}

static int check_sum(unsigned long iters)
{
	unsigned long want = expected_sum(iters);

	if (sc_sum != want) {
		fprintf(stderr, "bench_static_call: %s: %lu calls summed to "
			"%lu, want %lu\n", cands[cur].name, iters, sc_sum,
			want);
		return -EPROTO;
	}
	runs_verified[cur]++;
	return 0;
}

/* --- the trampolines ----------------------------------------------------- */

static const char *form_name(const struct static_call_key *key)
{
	return ulsm_static_call_form_name(ulsm_static_call_form(key));
}

/*
 * Where a static call goes, according to the bytes of its trampoline
 * (layout in <ulsm/arch/x86_64.h>), and not to the library's own account
 * of them: a benchmark that called something else than it says would
 * report nonsense. On the generic back end there is no trampoline and
 * the pointer is all there is.
 */
static const void *tramp_dest(const void *tramp,
			      const struct static_call_key *key)
{
#ifdef ULSM_ARCH_X86_64
	const unsigned char *p = tramp;
	uintptr_t next;
	int32_t d;

	if (p[0] == 0xe9) {			/* jmp rel32 */
		memcpy(&d, p + 1, sizeof(d));
		next = (uintptr_t)p + 5;
		/*
		 * A retpoline trampoline's far form: its stub at byte 16,
		 * which loads the target from the key.
		 */
		if (next + (uintptr_t)(intptr_t)d == (uintptr_t)p + 16 &&
		    !memcmp(p + 8, "\x0f\xb9\xcd", 3))
			return __atomic_load_n(&key->func, __ATOMIC_RELAXED);
		return (const void *)(next + (uintptr_t)(intptr_t)d);
	}
	if (p[0] == 0xff && p[1] == 0x25) {	/* jmp *disp32(%rip) */
		memcpy(&d, p + 2, sizeof(d));
		next = (uintptr_t)p + 6;
		if (next + (uintptr_t)(intptr_t)d != (uintptr_t)&key->func)
			return NULL;
		return __atomic_load_n(&key->func, __ATOMIC_RELAXED);
	}
	return NULL;
#else
	(void)tramp;
	return __atomic_load_n(&key->func, __ATOMIC_RELAXED);
#endif
}

static int check_tramp(const char *name, const void *tramp,
		       const struct static_call_key *key, const void *want,
		       const char *want_name)
{
	const void *dest = tramp_dest(tramp, key);

	if (dest != want) {
		fprintf(stderr, "bench_static_call: %s goes to %p, not to "
			"%s at %p\n", name, dest, want_name, want);
		return -EPROTO;
	}
	printf("  %-20s %-9s -> %s\n", name, form_name(key), want_name);
	return 0;
}

#define CHECK_TRAMP(name, want)						\
	check_tramp(#name, STATIC_CALL_TRAMP_ADDR(name),		\
		    &STATIC_CALL_KEY(name), (const void *)(want), #want)

/*
 * The static_call_inline() loop's call site: recorded, and calling the
 * target directly (on x86-64; elsewhere there are no sites, and the loop
 * makes the same call as the static_call() one).
 */
static int check_sites(const char *name, const struct static_call_key *key,
		       const char *want_name)
{
	int direct = 0, n = ulsm_static_call_sites(key, &direct);

	if (strcmp(ulsm_backend(), "generic") && (n < 1 || direct != n)) {
		fprintf(stderr, "bench_static_call: %s: %d call site(s), %d "
			"calling %s directly\n", name, n, direct, want_name);
		return -EPROTO;
	}
	printf("  %-20s %d call site(s), %d calling %s directly\n", name, n,
	       direct, want_name);
	return 0;
}

#define CHECK_SITES(name, want)						\
	check_sites(#name, &STATIC_CALL_KEY(name), #want)

/*
 * Point the libc static call at libc's abs, then make sure every
 * trampoline measured jumps where it should. Taken here, in a PIE, abs's
 * address is libc's own (from the GOT), normally out of rel32 reach.
 */
static int setup_calls(void)
{
	int ret = static_call_update(sc_libc_call_plain, abs);

	if (!ret && present(C_LIBC_SC_RB))
		ret = static_call_update(sc_libc_call_rpbare, abs);
	if (!ret && present(C_LIBC_SC_RP))
		ret = static_call_update(sc_libc_call_retpoline, abs);
	if (ret) {
		fprintf(stderr, "bench_static_call: static_call_update to "
			"libc's abs: %s (%s)\n", strerror(-ret),
			ulsm_last_error());
		return ret;
	}
	/* The far hooks: one module each, whose callback is libc's abs. */
	ret = sc_far_init_plain();
	if (!ret && present(C_HOOK_RB))
		ret = sc_far_init_rpbare();
	if (!ret && present(C_HOOK_RP))
		ret = sc_far_init_retpoline();
	if (ret) {
		fprintf(stderr, "bench_static_call: ulsm_lsm_init of a far "
			"hook set: %s (%s)\n", strerror(-ret),
			ulsm_last_error());
		return ret;
	}
	printf("static calls (trampoline form, where its bytes jump):\n");
	ret = CHECK_TRAMP(sc_call_plain, sc_target_plain);
	if (!ret && present(C_SC_RP))
		ret = CHECK_TRAMP(sc_call_retpoline, sc_target_retpoline);
	if (!ret && present(C_SC_RT))
		ret = CHECK_TRAMP(sc_call_rethunk, sc_target_rethunk);
	if (!ret)
		ret = CHECK_TRAMP(sc_libc_call_plain, abs);
	if (!ret && present(C_LIBC_SC_RB))
		ret = CHECK_TRAMP(sc_libc_call_rpbare, abs);
	if (!ret && present(C_LIBC_SC_RP))
		ret = CHECK_TRAMP(sc_libc_call_retpoline, abs);
	if (!ret)
		ret = CHECK_SITES(sc_call_plain, sc_target_plain);
	if (!ret && present(C_SCI_RP))
		ret = CHECK_SITES(sc_call_retpoline, sc_target_retpoline);
	if (!ret && present(C_SCI_RT))
		ret = CHECK_SITES(sc_call_rethunk, sc_target_rethunk);
	if (ret)
		return ret;

	snprintf(name_sc, sizeof(name_sc), "static_call (%s)",
		 form_name(&STATIC_CALL_KEY(sc_call_plain)));
	snprintf(name_sc_rp, sizeof(name_sc_rp), "static_call (%s), retpoline",
		 form_name(&STATIC_CALL_KEY(sc_call_retpoline)));
	snprintf(name_sc_rt, sizeof(name_sc_rt), "static_call (%s), rethunk",
		 form_name(&STATIC_CALL_KEY(sc_call_rethunk)));
	snprintf(name_libc_sc, sizeof(name_libc_sc),
		 "static_call (%s) -> libc abs",
		 form_name(&STATIC_CALL_KEY(sc_libc_call_plain)));
	return 0;
}

/* --- the cost of an update ----------------------------------------------- */

static int upd_a(int x)
{
	return x + 1;
}

static int upd_b(int x)
{
	return x + 2;
}

/* Calls of their own: updating them disturbs nothing that is timed. */
DEFINE_STATIC_CALL(sc_upd, upd_a);
DEFINE_STATIC_CALL_RET0(sc_upd_far, upd_a);

struct update_cost {
	const char *form;	/* of the trampoline, after the updates */
	unsigned int updates;
	double median_us, min_us;
	double batches, core_syncs, sites_patched;	/* per update */
};

static void stats_delta(struct ulsm_stats *d, const struct ulsm_stats *a,
			const struct ulsm_stats *b)
{
	d->batches = b->batches - a->batches;
	d->batches_failed = b->batches_failed - a->batches_failed;
	d->sites_patched = b->sites_patched - a->sites_patched;
	d->core_syncs = b->core_syncs - a->core_syncs;
}

/*
 * Time @n updates of the static call @key/@tramp, alternating between @f[0]
 * and @f[1] (so that every update changes the target), and check after
 * each that a call reaches the new target: @arg must give @want[0] or
 * @want[1]. The untyped __static_call_update() is what static_call_update()
 * expands to, minus the compile-time type check.
 */
static int measure_updates(struct update_cost *uc, unsigned int n,
			   struct static_call_key *key, void *tramp,
			   int (*call)(int), int (*const f[2])(int),
			   int arg, const int want[2])
{
	struct ulsm_stats before, after, d;
	double *us;
	int ret = 0;

	us = calloc(n, sizeof(*us));
	if (!us)
		return -ENOMEM;
	/* Start from f[0], uncounted, so that every timed update changes. */
	ret = __static_call_update(key, tramp, (void *)(uintptr_t)f[0]);
	if (ret)
		fprintf(stderr, "bench_static_call: static_call_update: %s "
			"(%s)\n", strerror(-ret), ulsm_last_error());
	ulsm_get_stats(&before);
	for (unsigned int i = 0; i < n && !ret; i++) {
		int which = !(i & 1);
		uint64_t t0 = bench_now_ns();

		ret = __static_call_update(key, tramp,
					   (void *)(uintptr_t)f[which]);
		us[i] = (double)(bench_now_ns() - t0) / 1000.0;
		if (ret) {
			fprintf(stderr, "bench_static_call: static_call_update:"
				" %s (%s)\n", strerror(-ret),
				ulsm_last_error());
		} else if (call(arg) != want[which]) {
			fprintf(stderr, "bench_static_call: after update %u "
				"the call returned %d, want %d\n", i,
				call(arg), want[which]);
			ret = -EPROTO;
		}
	}
	ulsm_get_stats(&after);
	if (!ret) {
		stats_delta(&d, &before, &after);
		uc->form = form_name(key);
		uc->updates = n;
		uc->median_us = bench_median(us, n);
		uc->min_us = us[0];
		uc->batches = (double)d.batches / n;
		uc->core_syncs = (double)d.core_syncs / n;
		uc->sites_patched = (double)d.sites_patched / n;
	}
	free(us);
	return ret;
}

static int call_upd(int x)
{
	return static_call(sc_upd)(x);
}

static int call_upd_far(int x)
{
	return static_call(sc_upd_far)(x);
}

/*
 * In reach: two functions of this program, the trampoline's jmp rel32 is
 * rewritten each time. Out of reach: libc's toupper and tolower, the
 * indirect form both ways, so only the pointer it jumps through changes.
 */
static int measure_all_updates(struct update_cost *in_reach,
			       struct update_cost *out_reach, unsigned int n)
{
	static int (*const near_f[2])(int) = { upd_a, upd_b };
	static int (*const far_f[2])(int) = { tolower, toupper };
	static const int near_want[2] = { 2, 3 }, far_want[2] = { 'a', 'A' };
	int ret;

	ret = measure_updates(in_reach, n, &STATIC_CALL_KEY(sc_upd),
			      STATIC_CALL_TRAMP_ADDR(sc_upd), call_upd, near_f,
			      1, near_want);
	if (!ret)
		ret = measure_updates(out_reach, n,
				      &STATIC_CALL_KEY(sc_upd_far),
				      STATIC_CALL_TRAMP_ADDR(sc_upd_far),
				      call_upd_far, far_f, 'a', far_want);
	return ret;
}

/* --- output -------------------------------------------------------------- */

static double ratio(int a, int b)
{
	return bench_ratio(cands[a].median_ns, cands[b].median_ns);
}

static void print_ratio(const char *what, int a, int b, const char *note)
{
	if (!present(a) || !present(b))
		return;
	printf("  %-44s %6.3f (%+.3f ns/call)%s\n", what, ratio(a, b),
	       cands[a].median_ns - cands[b].median_ns, note);
}

static void print_table(void)
{
	printf("%-36s %14s %12s %9s\n", "candidate", "median ns/call",
	       "min ns/call", "x direct");
	for (int i = 0; i < C_COUNT; i++) {
		if (!present(i))
			continue;
		printf("%-36s %14.3f %12.3f %9.2f\n", cands[i].name,
		       cands[i].median_ns, cands[i].min_ns,
		       ratio(i, C_DIRECT));
	}
}

static void print_update(const char *what, const struct update_cost *uc)
{
	printf("static_call_update(), %s (%s form), %u updates:\n"
	       "  median %.2f us, min %.2f us; per update %.2f batch(es), "
	       "%.2f core sync(s), %.2f site(s) patched\n", what, uc->form,
	       uc->updates, uc->median_us, uc->min_us, uc->batches,
	       uc->core_syncs, uc->sites_patched);
}

static void json_update(FILE *f, const char *key,
			const struct update_cost *uc, const char *end)
{
	fprintf(f, "  \"%s\": { \"form\": ", key);
	bench_json_string(f, uc->form);
	fprintf(f, ", \"updates\": %u, \"median_us\": %.3f, \"min_us\": %.3f, "
		"\"batches_per_update\": %.3f, \"core_syncs_per_update\": %.3f,"
		" \"sites_patched_per_update\": %.3f }%s\n", uc->updates,
		uc->median_us, uc->min_us, uc->batches, uc->core_syncs,
		uc->sites_patched, end);
}

static void json_ratio(FILE *f, const char *key, int a, int b, int *first)
{
	if (!present(a) || !present(b))
		return;
	fprintf(f, "%s\n    \"%s\": %.4f", *first ? "" : ",", key,
		ratio(a, b));
	*first = 0;
}

static int write_json(const char *path, int quick, unsigned long iters,
		      unsigned int rounds, const struct update_cost *in_reach,
		      const struct update_cost *out_reach)
{
	FILE *f = bench_open("bench_static_call", path);
	int first = 1;

	if (!f)
		return -1;
	fprintf(f, "{\n  \"benchmark\": \"static_call\",\n  \"backend\": ");
	bench_json_string(f, ulsm_backend());
	fprintf(f, ",\n  \"sync_method\": ");
	bench_json_string(f, ulsm_sync_method());
	fprintf(f, ",\n  \"compiler\": ");
	bench_json_string(f, SC_COMPILER);
	fprintf(f, ",\n  \"quick\": %s,\n", quick ? "true" : "false");
	fprintf(f, "  \"variants\": {");
	for (int v = 0; v < V_COUNT; v++) {
		fprintf(f, "%s\n    \"%s\": ", v ? "," : "", variant_name[v]);
		if (variant_flags[v])
			bench_json_string(f, variant_flags[v]);
		else
			fprintf(f, "null");
	}
	fprintf(f, "\n  },\n");
	fprintf(f, "  \"iterations_per_run\": %lu,\n  \"rounds\": %u,\n",
		iters, rounds);
	fprintf(f, "  \"candidates\": [");
	first = 1;
	for (int i = 0; i < C_COUNT; i++) {
		const struct bench_cand *c = &cands[i];

		if (!present(i))
			continue;
		fprintf(f, "%s\n    { \"name\": ", first ? "" : ",");
		bench_json_string(f, c->name);
		fprintf(f, ", \"variant\": \"%s\", \"median_ns_per_call\": "
			"%.4f, \"min_ns_per_call\": %.4f, "
			"\"ratio_to_direct\": %.4f, \"verified_runs\": %lu }",
			variant_name[cand_variant[i]], c->median_ns, c->min_ns,
			ratio(i, C_DIRECT), runs_verified[i]);
		first = 0;
	}
	fprintf(f, "\n  ],\n  \"ratios\": {");
	first = 1;
	json_ratio(f, "static_call_vs_direct", C_SC, C_DIRECT, &first);
	json_ratio(f, "static_call_inline_vs_direct", C_SCI, C_DIRECT, &first);
	json_ratio(f, "fnptr_vs_static_call", C_FNPTR, C_SC, &first);
	json_ratio(f, "retpoline_static_call_vs_retpoline_direct", C_SC_RP,
		   C_DIRECT_RP, &first);
	json_ratio(f, "retpoline_fnptr_vs_retpoline_static_call", C_FNPTR_RP,
		   C_SC_RP, &first);
	json_ratio(f, "rethunk_static_call_vs_rethunk_direct", C_SC_RT,
		   C_DIRECT_RT, &first);
	json_ratio(f, "rethunk_retpoline_fnptr_vs_rethunk_static_call",
		   C_FNPTR_RPRT, C_SC_RT, &first);
	json_ratio(f, "libc_static_call_vs_libc_direct", C_LIBC_SC, C_LIBC,
		   &first);
	json_ratio(f, "retpoline_far_static_call_vs_rpbare", C_LIBC_SC_RP,
		   C_LIBC_SC_RB, &first);
	json_ratio(f, "retpoline_far_hook_vs_rpbare", C_HOOK_RP, C_HOOK_RB,
		   &first);
	json_ratio(f, "retpoline_far_static_call_vs_retpoline_fnptr",
		   C_LIBC_SC_RP, C_FNPTR_RP, &first);
	json_ratio(f, "rpbare_far_static_call_vs_plain", C_LIBC_SC_RB,
		   C_LIBC_SC, &first);
	fprintf(f, "\n  },\n");
	json_update(f, "update_in_reach", in_reach, ",");
	json_update(f, "update_out_of_reach", out_reach, ",");
	fprintf(f, "  \"checksum_per_run\": %lu\n}\n", expected_sum(iters));
	return bench_close(f, "bench_static_call", path);
}

/*
 * PREFIX-calls.dat: one row per candidate, "name median min x-direct";
 * PREFIX.gp draws PREFIX.png: static keys (PREFIX-keys.dat, written by
 * bench_static_key --plot PREFIX, when it is there) and static calls, ns
 * per iteration, on a log scale (a retpoline and a return thunk cost 30
 * times a direct call here).
 */
static int write_plot(const char *prefix, int quick)
{
	char path[4096], keys[4096], sub[512];
	struct bench_machine m;
	bool have_keys;
	FILE *f;

	snprintf(path, sizeof(path), "%s-calls.dat", prefix);
	f = bench_open("bench_static_call", path);
	if (!f)
		return -1;
	fprintf(f, "# bench_static_call: ns per call (median, min), and x "
		"direct\n");
	for (int i = 0; i < C_COUNT; i++)
		if (present(i))
			fprintf(f, "\"%s\" %.4f %.4f %.4f\n", cands[i].name,
				cands[i].median_ns, cands[i].min_ns,
				ratio(i, C_DIRECT));
	if (bench_close(f, "bench_static_call", path))
		return -1;

	snprintf(keys, sizeof(keys), "%s-keys.dat", prefix);
	have_keys = !access(keys, R_OK);
	bench_read_machine(&m);
	bench_chart_subtitle(sub, sizeof(sub), &m, quick);
	snprintf(path, sizeof(path), "%s.gp", prefix);
	f = bench_open("bench_static_call", path);
	if (!f)
		return -1;
	fprintf(f, "# Generated by bench_static_call; run: gnuplot %s.gp\n"
		"set terminal pngcairo noenhanced size %d,620 font "
		"'sans,11'\nset output '%s.png'\n", prefix,
		have_keys ? 1500 : 1000, prefix);
	fprintf(f, "set multiplot layout 1,%d title \"static keys and static "
		"calls: ns per iteration (median, bars; min, points); back end "
		"%s\\n%s\" font 'sans,13'\n", have_keys ? 2 : 1,
		ulsm_backend(), sub);
	fprintf(f, "set style data histograms\nset style histogram clustered "
		"gap 1\nset style fill solid 0.8 border -1\nset grid ytics\n"
		"set xtics rotate by -40 left\nset bmargin 13\nset rmargin 10\n"
		"set ylabel 'ns per iteration'\nset key top left\n");
	if (have_keys)
		fprintf(f, "set title 'bench_static_key: a site next to a "
			"branch on a flag'\nset yrange [0:*]\n"
			"plot '%s' using 2:xtic(1) lc rgb '#2471a3' title "
			"'median', '' using 0:3 with points pt 7 lc rgb "
			"'#1b2631' title 'min'\n", keys);
	fprintf(f, "set title 'bench_static_call: calls of the same "
		"function (log scale)'\nset logscale y\nset yrange [0.3:*]\n"
		"plot '%s-calls.dat' using 2:xtic(1) lc rgb '#b03a2e' title "
		"'median', '' using 0:3 with points pt 7 lc rgb '#1b2631' "
		"title 'min'\nunset multiplot\n", prefix);
	return bench_close(f, "bench_static_call", path);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_static_call [--quick] [--json FILE] "
		"[--plot PREFIX]\n"
		"  --quick        fewer and shorter rounds (about a second)\n"
		"  --json FILE    also write the results to FILE as JSON\n"
		"  --plot PREFIX  write PREFIX-calls.dat and PREFIX.gp, which "
		"draws PREFIX.png\n"
		"                 with bench_static_key --plot PREFIX's "
		"data when present\n");
}

int main(int argc, char **argv)
{
	static struct bench_cand run[C_COUNT];
	static int run_role[C_COUNT];
	struct update_cost in_reach = { 0 }, out_reach = { 0 };
	const char *json = NULL, *plot = NULL;
	size_t n = 0;
	int quick = 0, slowest, ret;
	unsigned long iters;
	unsigned int rounds;
	uint64_t target_ns;

	ret = bench_options(argc, argv, usage, &quick, &json, &plot);
	if (ret >= 0)
		return ret;

	variant_flags[V_PLAIN] = sc_flags_plain;
	variant_flags[V_RETPOLINE] = sc_flags_retpoline;
	variant_flags[V_RETHUNK] = sc_flags_rethunk;
	variant_flags[V_RPBARE] = sc_flags_rpbare;

	printf("ulsm static call benchmark: back end %s, %s\n",
	       ulsm_backend(), SC_COMPILER);
	printf("loops and target compiled per variant with:\n");
	for (int v = 0; v < V_COUNT; v++) {
		if (!variant_flags[v])
			printf("  %-10s left out: %s\n", variant_name[v],
			       variant_missing[v]);
		else
			printf("  %-10s %s\n", variant_name[v],
			       *variant_flags[v] ? variant_flags[v] :
						   "(no extra flags)");
	}
	if (!strcmp(ulsm_backend(), "generic"))
		printf("(generic back end: a static call is a function-pointer"
		       " call)\n");

	ret = setup_calls();
	if (ret)
		return 1;

	/*
	 * Default: 51 rounds in which the slowest loop runs ~60 ms, about
	 * 10 s in all with gcc (the direct call is some 8 times faster than
	 * the slowest, a retpoline and a return thunk on every call); quick:
	 * 21 rounds of ~15 ms, about a second. Calibrating on the slowest
	 * keeps any one run from exceeding the target.
	 */
	rounds = quick ? 21 : 51;
	target_ns = quick ? 15000000 : 60000000;

	for (int i = 0; i < C_COUNT; i++) {
		cands[i].prepare = cand_prepare[i];
		cands[i].check = check_sum;
		if (present(i)) {
			run_role[n] = i;
			run[n++] = cands[i];
		}
	}
	slowest = present(C_FNPTR_RPRT) ? C_FNPTR_RPRT :
		  present(C_FNPTR_RP) ? C_FNPTR_RP : C_FNPTR;
	iters = bench_calibrate(cands[slowest].run, target_ns);

	ret = bench_run(run, n, rounds, iters);
	if (ret) {
		fprintf(stderr, "bench_static_call: run failed: %s\n",
			strerror(-ret));
		return 1;
	}
	for (size_t k = 0; k < n; k++)
		cands[run_role[k]] = run[k];

	ret = measure_all_updates(&in_reach, &out_reach, 200);
	if (ret)
		return 1;

	printf("\ncore sync: %s\n", ulsm_sync_method());
	print_update("in reach", &in_reach);
	print_update("out of reach", &out_reach);

	printf("\n%u interleaved rounds, %lu calls per run; every run's sum "
	       "checked (%lu)\n\n", rounds, iters, expected_sum(iters));
	print_table();
	printf("(per call, loop included: the \"no call\" row is the loop "
	       "and abs alone)\n\n");

	printf("measured in this run (medians):\n");
	print_ratio("static_call / direct call:", C_SC, C_DIRECT,
		    ratio(C_SC, C_DIRECT) <= 1.3 ?
		    "  within 1.3x" : "  NOT within 1.3x");
	print_ratio("static_call_inline / direct call:", C_SCI, C_DIRECT,
		    ratio(C_SCI, C_DIRECT) <= 1.05 ?
		    "  within 1.05x" : "  NOT within 1.05x");
	print_ratio("function pointer / static_call:", C_FNPTR, C_SC, "");
	print_ratio("retpoline build: static_call / direct call:", C_SC_RP,
		    C_DIRECT_RP, "");
	print_ratio("retpoline build: static_call_inline / direct:",
		    C_SCI_RP, C_DIRECT_RP, "");
	print_ratio("retpoline build: fnptr / static_call:", C_FNPTR_RP,
		    C_SC_RP, "");
	print_ratio("rethunk build: static_call / direct call:", C_SC_RT,
		    C_DIRECT_RT, "");
	print_ratio("rethunk build: static_call_inline / direct:", C_SCI_RT,
		    C_DIRECT_RT, "");
	print_ratio("rethunk build: fnptr / static_call:", C_FNPTR_RPRT,
		    C_SC_RT, "");
	print_ratio("libc abs: static_call / direct (PLT):", C_LIBC_SC,
		    C_LIBC, "");
	print_ratio("far static_call: retpoline / rpbare:", C_LIBC_SC_RP,
		    C_LIBC_SC_RB, "  (thunk / bare jmp *)");
	print_ratio("far hook: retpoline / rpbare:", C_HOOK_RP, C_HOOK_RB,
		    "  (thunk / bare jmp *)");
	print_ratio("far static_call: rpbare / plain:", C_LIBC_SC_RB,
		    C_LIBC_SC, strcmp(ulsm_backend(), "generic") ?
		    "  (the same code)" : "");
	print_ratio("far static_call, retpoline / fnptr, retpoline:",
		    C_LIBC_SC_RP, C_FNPTR_RP, "");

	if (json &&
	    write_json(json, quick, iters, rounds, &in_reach, &out_reach))
		return 1;
	if (plot && write_plot(plot, quick))
		return 1;
	return 0;
}
