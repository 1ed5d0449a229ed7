/* SPDX-License-Identifier: MIT */
/*
 * apr_diff SEED: drive APR-util's hooks through their public API in an
 * order drawn from SEED, and print everything that can be observed: what
 * each callback was called with and returned, what each run returned, the
 * arrays the hooks keep (after registrations, sorts and deregistrations),
 * APR's own debug output, optional hooks and functions, and what four
 * threads counted while dispatching at once. Built twice from the same
 * sources, against libaprutil and against ulsm's drop-in <apr_hooks.h>;
 * tests/apr/t_apr_diff.sh.in requires the two transcripts to be the same.
 *
 * Besides the plain uses: hooks run from inside callbacks, a callback
 * that registers on another hook, the pool of the hooks cleared after
 * deregistering (as httpd restarts), and sorts and deregistrations made
 * from the unit built with APR's probes (apr_diff_probe.c) and from the
 * unit built without the drop-in (apr_diff_plain.c: libaprutil's own
 * apr_hook_sort_all() and apr_hook_deregister_all(), behind the slots).
 *
 * The draws keep to what APR accepts: a hook whose entries have
 * predecessor or successor names never has an entry without a name (APR's
 * sort compares every entry's name with strcmp), and the constraints
 * never form a cycle (APR's sort would loop): a list only names modules
 * ranked before (predecessors) or after (successors) the entry's own, or
 * names that match no module (unknown, or of the wrong case).
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include <apr_hooks.h>
#include <apr_optional.h>
#include <apr_optional_hooks.h>
#include "apr_diff.h"

/* --- the hooks ----------------------------------------------------------
 * Every kind of hook, arity 0..10, int/long/pointer/double/struct/narrow
 * parameters, and results wider than int whose ok or decline value does
 * not fit in 32 bits, with other results equal to them in the low 32 bits
 * (a dispatcher that truncates would take one for the other). */
struct td_big { int x; long y; double z; };		/* passed in memory */
struct td_small { short a; signed char b; };		/* in a register */

#define H9_DECLINE	(-0x123456789LL)
#define H10_OK		((apr_off_t)0x100000001LL)	/* low half 1 */
#define H10_DECLINE	((apr_off_t)-0x200000000LL)	/* low half 0 */
static int td_okobj;
#define H12_OK		((void *)&td_okobj)

APR_DECLARE_EXTERNAL_HOOK(td, TD, void, h0, (void))
APR_DECLARE_EXTERNAL_HOOK(td, TD, int, h1, (int a))
APR_DECLARE_EXTERNAL_HOOK(td, TD, int, h2, (void *p, long l))
APR_DECLARE_EXTERNAL_HOOK(td, TD, void, h3, (int a, const char *s, long l))
APR_DECLARE_EXTERNAL_HOOK(td, TD, int, h4, (int a, void *p, long l, int b))
APR_DECLARE_EXTERNAL_HOOK(td, TD, int, h5, (long a, int b, void *p, int c, long d))
APR_DECLARE_EXTERNAL_HOOK(td, TD, long, h6,
			  (int a, void *p, int b, long c, void *q, int d))
APR_DECLARE_EXTERNAL_HOOK(td, TD, int, h7,
			  (double d, struct td_big b, struct td_small s))
APR_DECLARE_EXTERNAL_HOOK(td, TD, int, h8, (int a, int b, int c, int d, int e,
			  int f, int g, long l, void *p, double x))
APR_DECLARE_EXTERNAL_HOOK(td, TD, long long, h9, (int a, long long b))
APR_DECLARE_EXTERNAL_HOOK(td, TD, apr_off_t, h10, (apr_off_t off, int w))
APR_DECLARE_EXTERNAL_HOOK(td, TD, void *, h11, (int k, const void *p))
APR_DECLARE_EXTERNAL_HOOK(td, TD, void *, h12, (void *p, unsigned u))
APR_DECLARE_EXTERNAL_HOOK(td, TD, short, h13, (short a, unsigned char b))
/* Optional hooks: declared as hooks are (for their types), run by name. */
APR_DECLARE_EXTERNAL_HOOK(td, TD, int, oa, (int a))
APR_DECLARE_EXTERNAL_HOOK(td, TD, apr_off_t, ob, (apr_off_t off, int w))

APR_HOOK_STRUCT(
	APR_HOOK_LINK(h0) APR_HOOK_LINK(h1) APR_HOOK_LINK(h2)
	APR_HOOK_LINK(h3) APR_HOOK_LINK(h4) APR_HOOK_LINK(h5)
	APR_HOOK_LINK(h6) APR_HOOK_LINK(h7) APR_HOOK_LINK(h8)
	APR_HOOK_LINK(h9) APR_HOOK_LINK(h10) APR_HOOK_LINK(h11)
	APR_HOOK_LINK(h12) APR_HOOK_LINK(h13)
)

APR_IMPLEMENT_EXTERNAL_HOOK_VOID(td, TD, h0, (void), ())
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, int, h1, (int a), (a), 0, -1)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(td, TD, int, h2, (void *p, long l), (p, l), -1)
APR_IMPLEMENT_EXTERNAL_HOOK_VOID(td, TD, h3, (int a, const char *s, long l), (a, s, l))
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, int, h4, (int a, void *p, long l, int b),
				    (a, p, l, b), 7, -2)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(td, TD, int, h5,
				      (long a, int b, void *p, int c, long d),
				      (a, b, p, c, d), 0)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, long, h6,
				    (int a, void *p, int b, long c, void *q, int d),
				    (a, p, b, c, q, d), 0, -1)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(td, TD, int, h7,
				      (double d, struct td_big b, struct td_small s),
				      (d, b, s), -1)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, int, h8, (int a, int b, int c, int d,
				    int e, int f, int g, long l, void *p, double x),
				    (a, b, c, d, e, f, g, l, p, x), 0, -1)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(td, TD, long long, h9, (int a, long long b),
				      (a, b), H9_DECLINE)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, apr_off_t, h10, (apr_off_t off, int w),
				    (off, w), H10_OK, H10_DECLINE)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(td, TD, void *, h11, (int k, const void *p),
				      (k, p), NULL)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, void *, h12, (void *p, unsigned u),
				    (p, u), H12_OK, NULL)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, short, h13, (short a, unsigned char b),
				    (a, b), 0, -1)
APR_IMPLEMENT_OPTIONAL_HOOK_RUN_ALL(td, TD, int, oa, (int a), (a), 0, -1)
APR_IMPLEMENT_OPTIONAL_HOOK_RUN_ALL(td, TD, apr_off_t, ob, (apr_off_t off, int w),
				    (off, w), H10_OK, H10_DECLINE)

/* --- what callbacks return ---------------------------------------------- */
enum { K_VOID, K_ALL, K_FIRST };
struct td_pooldef {
	int kind;
	long long ok, decline, other[4];	/* pointer pools: td_pcode() codes */
};
static const struct td_pooldef td_pools[TD_NPOOL] = {
	[P_H0] = { K_VOID, 0, 0, { 0 } },
	[P_H1] = { K_ALL, 0, -1, { 1, -2, 500, INT_MIN } },
	[P_H2] = { K_FIRST, 0, -1, { 0, 1, 42, -7 } },
	[P_H3] = { K_VOID, 0, 0, { 0 } },
	[P_H4] = { K_ALL, 7, -2, { 0, -1, 1, 9 } },	/* 0 is not ok here */
	[P_H5] = { K_FIRST, 1, 0, { -1, 1, 2, 99 } },
	[P_H6] = { K_ALL, 0, -1, { 0x100000000LL, 0xffffffffLL, 3, LONG_MIN } },
	[P_H7] = { K_FIRST, 0, -1, { 0, 1, 2, 3 } },
	[P_H8] = { K_ALL, 0, -1, { 1, 2, -3, 4 } },
	[P_H9] = { K_FIRST, 0, H9_DECLINE,
		   { H9_DECLINE & 0xffffffffLL, H9_DECLINE + (1LL << 32), 0, -1 } },
	[P_H10] = { K_ALL, H10_OK, H10_DECLINE, { 1, 0, H10_OK + (1LL << 40), -1 } },
	[P_H11] = { K_FIRST, 3, -1, { 3, 7, -2, 63 } },
	[P_H12] = { K_ALL, -2, -1, { 0, 5, 9, 63 } },
	[P_H13] = { K_ALL, 0, -1, { 1, -2, 0x7fff, -0x8000 } },
	[P_P0] = { K_ALL, 0, -1, { 1, 2, 3, -5 } },
	[P_P1] = { K_VOID, 0, 0, { 0 } },
	[P_P2] = { K_FIRST, 0, -(1LL << 33), { 0, 1LL << 33, -1, 5 } },
	[P_Q0] = { K_ALL, 0, -1, { 1, -3, 8, INT_MAX } },
};
/* Written by the main thread only while no other thread runs. */
static long long td_ret[TD_NPOOL][TD_NCB];

/* Draw every callback's result for the next runs: per pool, a share of
 * "other" results (those stop a run), the rest ok or decline. */
static void td_pick_rets(struct td_rng *r)
{
	static const int stop_pct[] = { 0, 2, 10, 35 };

	for (int p = 0; p < TD_NPOOL; p++) {
		const struct td_pooldef *d = &td_pools[p];
		int stop = stop_pct[td_rnd(r, 4)];

		for (int i = 0; i < TD_NCB; i++) {
			int x = td_rnd(r, 100);

			if (x < stop)
				td_ret[p][i] = d->other[td_rnd(r, 4)];
			else if (d->kind == K_FIRST || (x & 1))
				td_ret[p][i] = d->decline;
			else
				td_ret[p][i] = d->ok;
		}
	}
}

__thread struct td_tctx *td_tls;

long long td_hit(int pool, int id, const char *fmt, ...)
{
	long long v = td_ret[pool][id];
	struct td_tctx *c = td_tls;
	va_list ap;

	if (c) {
		/* Counted: the call, the callback, its arguments, its result. */
		char args[160];
		unsigned long long h = (unsigned)id * 7919u + (unsigned long long)v;

		va_start(ap, fmt);
		vsnprintf(args, sizeof args, fmt, ap);
		va_end(ap);
		for (const char *q = args; *q; q++)
			h = h * 131 + (unsigned char)*q;
		c->calls[pool]++;
		c->mix[pool] = c->mix[pool] * 1000003u + h;
		return v;
	}
	printf(" %d(", id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (td_pools[pool].kind == K_VOID)
		fputs(")", stdout);
	else
		printf(")=%lld", v);
	return v;
}

/* --- the callback pools ------------------------------------------------- */
int td_objs[64];

int td_pidx(const void *p)
{
	if (!p)
		return -1;
	if (p == &td_okobj)
		return -2;
	for (int i = 0; i < 64; i++)
		if (p == &td_objs[i])
			return i;
	return 99;
}

void *td_pcode(long long code)
{
	return code == -1 ? NULL : code == -2 ? (void *)&td_okobj : &td_objs[code];
}

TD_POOL(h0, void, (void), td_hit(P_H0, id, "%s", "");)
/* Some callbacks of h1 (and so of oa and of the hand-made array) run
 * another hook from inside, and in the main thread some register a
 * callback on h0 (legal in APR: h0's array is not the one being walked). */
#define CAP 48			/* entries per array: APR's sort is cubic */
/* Module names: a module's rank is its index; "" is a module too. */
static const char *const td_mods[] = { "core", "log", "auth", "ssl", "cache",
				       "proxy", "rewrite", "alias", "status", "" };
#define NMOD 10
static int td_dirty;		/* registered or sorted since deregistering */

static int td_h1(int id, int a)
{
	int v = (int)td_hit(P_H1, id, "%d", a);
	apr_array_header_t *h0 = td_hook_get_h0();
	const char *cur = apr_hook_debug_current;

	if (id % 16 == 3) {
		short rv;

		if (!td_tls)
			fputs(" [", stdout);
		rv = td_run_h13((short)a, (unsigned char)id);
		if (!td_tls)
			printf(" ]=%d", rv);
	}
	if (id % 16 == 7 && !td_tls && (!h0 || h0->nelts < CAP)) {
		/* Named, without lists: right for either kind of h0 array. */
		apr_hook_debug_current = td_mods[0];
		if (apr_hook_debug_enabled)
			fflush(stdout);
		td_hook_h0(cbs_h0[a & 31], NULL, NULL, APR_HOOK_MIDDLE);
		if (apr_hook_debug_enabled)
			fflush(stdout);
		apr_hook_debug_current = cur;
		td_dirty = 1;
	}
	return v;
}
TD_POOL(h1, int, (int a), return td_h1(id, a);)
TD_POOL(h2, int, (void *p, long l),
	return (int)td_hit(P_H2, id, "%d,%ld", td_pidx(p), l);)
TD_POOL(h3, void, (int a, const char *s, long l),
	td_hit(P_H3, id, "%d,%s,%ld", a, s, l);)
TD_POOL(h4, int, (int a, void *p, long l, int b),
	return (int)td_hit(P_H4, id, "%d,%d,%ld,%d", a, td_pidx(p), l, b);)
TD_POOL(h5, int, (long a, int b, void *p, int c, long d),
	return (int)td_hit(P_H5, id, "%ld,%d,%d,%d,%ld", a, b, td_pidx(p), c, d);)
TD_POOL(h6, long, (int a, void *p, int b, long c, void *q, int d),
	return (long)td_hit(P_H6, id, "%d,%d,%d,%ld,%d,%d", a, td_pidx(p), b, c,
			    td_pidx(q), d);)
TD_POOL(h7, int, (double d, struct td_big b, struct td_small s),
	return (int)td_hit(P_H7, id, "%g,{%d,%ld,%g},{%d,%d}", d, b.x, b.y, b.z,
			   s.a, s.b);)
TD_POOL(h8, int, (int a, int b, int c, int d, int e, int f, int g, long l,
		  void *p, double x),
	return (int)td_hit(P_H8, id, "%d,%d,%d,%d,%d,%d,%d,%ld,%d,%g", a, b, c, d,
			   e, f, g, l, td_pidx(p), x);)
TD_POOL(h9, long long, (int a, long long b),
	return td_hit(P_H9, id, "%d,%lld", a, b);)
TD_POOL(h10, apr_off_t, (apr_off_t off, int w),
	return (apr_off_t)td_hit(P_H10, id, "%lld,%d", (long long)off, w);)
TD_POOL(h11, void *, (int k, const void *p),
	return td_pcode(td_hit(P_H11, id, "%d,%d", k, td_pidx(p)));)
TD_POOL(h12, void *, (void *p, unsigned u),
	return td_pcode(td_hit(P_H12, id, "%d,%u", td_pidx(p), u));)
TD_POOL(h13, short, (short a, unsigned char b),
	return (short)td_hit(P_H13, id, "%d,%d", a, b);)

/* --- arguments and runs -------------------------------------------------
 * run_h draws the arguments, runs the hook and prints the call and its
 * result, or, quiet (in a thread), only returns the result. */
long long td_int(struct td_rng *r)
{
	static const long long odd[] = { 0, -1, INT_MAX, INT_MIN, LLONG_MAX,
					 1LL << 32, -(1LL << 40) };

	return td_rnd(r, 8) ? td_rnd(r, 61) - 20 : odd[td_rnd(r, 7)];
}
static void *td_ptr(struct td_rng *r) { return td_pcode(td_rnd(r, 65) - 1); }
static double td_dbl(struct td_rng *r) { return (td_rnd(r, 81) - 40) / 4.0; }
static const char *const td_strs[] = { "", "x", "hello world", "%s%n" };

#define SAY(...) do { if (!quiet) printf(__VA_ARGS__); } while (0)

static long long run_h0(struct td_rng *r, int quiet)
{
	(void)r;
	SAY("run h0():");
	td_run_h0();
	SAY("\n");
	return 0;
}

/*
 * Hooks of one prototype share a runner: h1 and the optional hook oa take
 * (int), h10 and ob (apr_off_t, int); @name is the hook's, @run its run
 * function.
 */
static long long run_int(struct td_rng *r, int quiet, const char *name,
			 int (*run)(int))
{
	int a = (int)td_int(r), rv;

	SAY("run %s(%d):", name, a);
	rv = run(a);
	SAY(" -> %d\n", rv);
	return rv;
}

static long long run_off(struct td_rng *r, int quiet, const char *name,
			 apr_off_t (*run)(apr_off_t, int))
{
	apr_off_t off = (apr_off_t)td_int(r), rv;
	int w = (int)td_int(r);

	SAY("run %s(%lld,%d):", name, (long long)off, w);
	rv = run(off, w);
	SAY(" -> %lld\n", (long long)rv);
	return rv;
}

static long long run_h1(struct td_rng *r, int quiet)
{
	return run_int(r, quiet, "h1", td_run_h1);
}

static long long run_h2(struct td_rng *r, int quiet)
{
	void *p = td_ptr(r);
	long l = (long)td_int(r);
	int rv;

	SAY("run h2(%d,%ld):", td_pidx(p), l);
	rv = td_run_h2(p, l);
	SAY(" -> %d\n", rv);
	return rv;
}

static long long run_h3(struct td_rng *r, int quiet)
{
	int a = (int)td_int(r);
	const char *s = td_strs[td_rnd(r, 4)];
	long l = (long)td_int(r);

	SAY("run h3(%d,%s,%ld):", a, s, l);
	td_run_h3(a, s, l);
	SAY("\n");
	return 0;
}

static long long run_h4(struct td_rng *r, int quiet)
{
	int a = (int)td_int(r), b = (int)td_int(r), rv;
	void *p = td_ptr(r);
	long l = (long)td_int(r);

	SAY("run h4(%d,%d,%ld,%d):", a, td_pidx(p), l, b);
	rv = td_run_h4(a, p, l, b);
	SAY(" -> %d\n", rv);
	return rv;
}

static long long run_h5(struct td_rng *r, int quiet)
{
	long a = (long)td_int(r), d = (long)td_int(r);
	int b = (int)td_int(r), c = (int)td_int(r), rv;
	void *p = td_ptr(r);

	SAY("run h5(%ld,%d,%d,%d,%ld):", a, b, td_pidx(p), c, d);
	rv = td_run_h5(a, b, p, c, d);
	SAY(" -> %d\n", rv);
	return rv;
}

static long long run_h6(struct td_rng *r, int quiet)
{
	int a = (int)td_int(r), b = (int)td_int(r), d = (int)td_int(r);
	void *p = td_ptr(r), *q = td_ptr(r);
	long c = (long)td_int(r), rv;

	SAY("run h6(%d,%d,%d,%ld,%d,%d):", a, td_pidx(p), b, c, td_pidx(q), d);
	rv = td_run_h6(a, p, b, c, q, d);
	SAY(" -> %ld\n", rv);
	return rv;
}

static long long run_h7(struct td_rng *r, int quiet)
{
	double d = td_dbl(r);
	struct td_big b;
	struct td_small s;
	int rv;

	/* One draw per statement: the order of a braced list's is unspecified. */
	b.x = (int)td_int(r);
	b.y = (long)td_int(r);
	b.z = td_dbl(r);
	s.a = (short)td_int(r);
	s.b = (signed char)td_int(r);

	SAY("run h7(%g,{%d,%ld,%g},{%d,%d}):", d, b.x, b.y, b.z, s.a, s.b);
	rv = td_run_h7(d, b, s);
	SAY(" -> %d\n", rv);
	return rv;
}

static long long run_h8(struct td_rng *r, int quiet)
{
	int v[7], rv;
	long l = (long)td_int(r);
	void *p = td_ptr(r);
	double x = td_dbl(r);

	for (int i = 0; i < 7; i++)
		v[i] = (int)td_int(r);
	SAY("run h8(%d,%d,%d,%d,%d,%d,%d,%ld,%d,%g):", v[0], v[1], v[2], v[3],
	    v[4], v[5], v[6], l, td_pidx(p), x);
	rv = td_run_h8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], l, p, x);
	SAY(" -> %d\n", rv);
	return rv;
}

static long long run_h9(struct td_rng *r, int quiet)
{
	int a = (int)td_int(r);
	long long b = td_int(r), rv;

	SAY("run h9(%d,%lld):", a, b);
	rv = td_run_h9(a, b);
	SAY(" -> %lld\n", rv);
	return rv;
}

static long long run_h10(struct td_rng *r, int quiet)
{
	return run_off(r, quiet, "h10", td_run_h10);
}

static long long run_h11(struct td_rng *r, int quiet)
{
	int k = (int)td_int(r);
	const void *p = td_ptr(r);
	void *rv;

	SAY("run h11(%d,%d):", k, td_pidx(p));
	rv = td_run_h11(k, p);
	SAY(" -> %d\n", td_pidx(rv));
	return td_pidx(rv);
}

static long long run_h12(struct td_rng *r, int quiet)
{
	void *p = td_ptr(r), *rv;
	unsigned u = (unsigned)td_int(r);

	SAY("run h12(%d,%u):", td_pidx(p), u);
	rv = td_run_h12(p, u);
	SAY(" -> %d\n", td_pidx(rv));
	return td_pidx(rv);
}

static long long run_h13(struct td_rng *r, int quiet)
{
	short a = (short)td_int(r), rv;
	unsigned char b = (unsigned char)td_int(r);

	SAY("run h13(%d,%d):", a, b);
	rv = td_run_h13(a, b);
	SAY(" -> %d\n", rv);
	return rv;
}

static long long run_oa(struct td_rng *r, int quiet)
{
	return run_int(r, quiet, "oa", td_run_oa);
}

static long long run_ob(struct td_rng *r, int quiet)
{
	return run_off(r, quiet, "ob", td_run_ob);
}

/* --- the places hooks live in ------------------------------------------- */
TD_GLUE(h0) TD_GLUE(h1) TD_GLUE(h2) TD_GLUE(h3) TD_GLUE(h4) TD_GLUE(h5)
TD_GLUE(h6) TD_GLUE(h7) TD_GLUE(h8) TD_GLUE(h9) TD_GLUE(h10) TD_GLUE(h11)
TD_GLUE(h12) TD_GLUE(h13)

/* Optional hooks reuse the callbacks of hooks of the same type. */
static void reg_oa(int id, const char *const *pre, const char *const *succ, int order)
{
	APR_OPTIONAL_HOOK(td, oa, cbs_h1[id], pre, succ, order);
}
static void reg_ob(int id, const char *const *pre, const char *const *succ, int order)
{
	APR_OPTIONAL_HOOK(td, ob, cbs_h10[id], pre, succ, order);
}
static apr_array_header_t *get_oa(void) { return apr_optional_hook_get("oa"); }
static apr_array_header_t *get_ob(void) { return apr_optional_hook_get("ob"); }
TD_ENT(oa, h1) TD_ENT(ob, h10)

/* A hand-made array, given to apr_hook_sort_register as a program with
 * hooks of its own would: sorted by apr_hook_sort_all, set to NULL by
 * apr_hook_deregister_all. Sometimes registered twice (sorted twice). */
typedef td_LINK_h1_t td_LINK_hand_t;
static apr_array_header_t *td_hand;
static int td_hand_twice;

static void reg_hand(int id, const char *const *pre, const char *const *succ, int order)
{
	td_LINK_hand_t *e;

	if (!td_hand) {
		td_hand = apr_array_make(apr_hook_global_pool, 1, sizeof *e);
		apr_hook_sort_register("hand", &td_hand);
		if (td_hand_twice)
			apr_hook_sort_register("hand2", &td_hand);
	}
	e = apr_array_push(td_hand);
	e->pFunc = cbs_h1[id];
	e->szName = apr_hook_debug_current;
	e->aszPredecessors = pre;
	e->aszSuccessors = succ;
	e->nOrder = order;
}
static apr_array_header_t *get_hand(void) { return td_hand; }
TD_ENT(hand, h1)
#define run_hand NULL

static const struct td_slot td_slots[] = {
	TD_SLOT(h0, P_H0), TD_SLOT(h1, P_H1), TD_SLOT(h2, P_H2),
	TD_SLOT(h3, P_H3), TD_SLOT(h4, P_H4), TD_SLOT(h5, P_H5),
	TD_SLOT(h6, P_H6), TD_SLOT(h7, P_H7), TD_SLOT(h8, P_H8),
	TD_SLOT(h9, P_H9), TD_SLOT(h10, P_H10), TD_SLOT(h11, P_H11),
	TD_SLOT(h12, P_H12), TD_SLOT(h13, P_H13),
	TD_SLOT(oa, P_H1), TD_SLOT(ob, P_H10), TD_SLOT(hand, P_H1),
};
#define NSLOT ((int)(sizeof td_slots / sizeof td_slots[0]))
#define NALL (NSLOT + 3 + 1)
/* Ours, then apr_diff_probe.c's, then apr_diff_plain.c's. */
static const struct td_slot *slot(int i)
{
	if (i < NSLOT)
		return &td_slots[i];
	if (i < NSLOT + 3)
		return &td_probe_slots[i - NSLOT];
	return &td_plain_slots[i - NSLOT - 3];
}

/* --- module names and order lists --------------------------------------
 * (td_mods is above.) Entries and lists point into static storage: APR
 * keeps the pointers, not copies. */
static const char *const td_wrong[] = { "CORE", "Log", "AUTH", "Ssl", "cachE",
					"PROXY", "Rewrite", "ALIAS", "Status" };
static const char *const td_unknown[] = { "mod_none", "cor", "core ", "logx" };
static const char *const td_empty[] = { NULL };
static const char *td_arena[1 << 15];	/* lists */
static int td_arena_n;
static char td_names[1 << 14];		/* copies of module names */
static int td_names_n;
static char td_mutname[16] = "mut0";	/* a name whose text changes */

void td_print_name(const char *n)
{
	if (!n) {
		fputs("-", stdout);
		return;
	}
	for (int i = 0; i < NMOD; i++)
		if (n == td_mods[i]) {
			fputs(*n ? n : "''", stdout);
			return;
		}
	if ((uintptr_t)n - (uintptr_t)td_names < sizeof td_names)
		printf("~%s", *n ? n : "''");	/* our copy */
	else if (n == td_mutname)
		printf("*%s", n);
	else
		printf("?%s", n);		/* not a pointer we gave */
}

static void td_print_list(const char *tag, const char *const *l)
{
	if (!l)
		return;
	printf("%s%s{", tag, l == td_empty ||
	       (uintptr_t)l - (uintptr_t)td_arena < sizeof td_arena ? "" : "?");
	for (int i = 0; l[i]; i++)
		printf("%s%s", i ? "," : "", *l[i] ? l[i] : "''");
	fputs("}", stdout);
}

/* A predecessor (dir < 0) or successor list for an entry of module mod;
 * mod is -1 in a hook whose entries may have no name: no names at all. */
static const char *const *td_list(struct td_rng *r, int mod, int dir)
{
	int x = td_rnd(r, 10), len = 1 + td_rnd(r, 3);
	int lo = dir < 0 ? 0 : mod + 1, hi = dir < 0 ? mod : NMOD;
	const char **l;

	if (x < 4)
		return NULL;
	if (x < 5 || mod < 0 || td_arena_n + len + 1 > (int)(sizeof td_arena /
							     sizeof td_arena[0]))
		return td_empty;
	l = &td_arena[td_arena_n];
	td_arena_n += len + 1;
	for (int i = 0; i < len; i++) {
		int y = td_rnd(r, 20);

		if (y < 12 && hi > lo)
			l[i] = td_mods[lo + td_rnd(r, hi - lo)];
		else if (y < 15)
			l[i] = td_unknown[td_rnd(r, 4)];
		else if (y < 18 || i == 0)
			l[i] = td_wrong[td_rnd(r, NMOD - 1)];
		else
			l[i] = l[i - 1];	/* twice in one list */
	}
	l[len] = NULL;
	return l;
}

/* The module of an entry: anon hooks (no lists) get NULL names too. */
static const char *td_pick_name(struct td_rng *r, int anon, int *mod)
{
	int x = td_rnd(r, 10);

	*mod = anon ? -1 : td_rnd(r, NMOD);
	if (anon)
		return x < 4 ? NULL : x < 5 ? td_mutname : td_mods[td_rnd(r, NMOD)];
	if (x == 0 && td_names_n + 16 <= (int)sizeof td_names) {
		char *c = &td_names[td_names_n];

		td_names_n += (int)strlen(td_mods[*mod]) + 1;
		return strcpy(c, td_mods[*mod]);
	}
	return td_mods[*mod];
}

static int td_pick_order(struct td_rng *r)
{
	static const int odd[] = { -6, 5, 30, 15, -11, 31, 100, -100, 11, 9 };

	if (td_rnd(r, 4))
		return APR_HOOK_REALLY_FIRST + 10 * td_rnd(r, 5);
	return odd[td_rnd(r, 10)];
}

/* APR prints its debug output with stdio on stdout, as we do; flushing
 * around its calls keeps the order even if a dispatcher wrote otherwise. */
#define TD_APR(stmt) do { \
	int dbg_ = apr_hook_debug_enabled; \
	if (dbg_) \
		fflush(stdout); \
	stmt; \
	if (dbg_) \
		fflush(stdout); \
} while (0)

/* --- operations ---------------------------------------------------------- */
static int td_anon[NALL];

static void dump_slot(const struct td_slot *s)
{
	apr_array_header_t *a = s->get();
	struct td_entry e;

	printf("  %s:", s->name);
	if (!a) {
		puts(" NULL");
		return;
	}
	printf(" [%d]", a->nelts);
	for (int i = 0; i < a->nelts; i++) {
		s->ent(a, i, &e);
		printf(" %d:", e.id);
		td_print_name(e.name);
		printf("@%d", e.order);
		td_print_list("<", e.pre);
		td_print_list(">", e.succ);
	}
	putchar('\n');
}

static void op_dump(void)
{
	for (int i = 0; i < NALL; i++)
		dump_slot(slot(i));
}

static void op_register(struct td_rng *r)
{
	puts("register");
	for (int i = 0; i < NALL; i++) {
		const struct td_slot *s = slot(i);
		apr_array_header_t *a = s->get();
		int k = td_rnd(r, 41);

		if (td_rnd(r, 10) >= 3)
			continue;
		if (!a) {
			td_anon[i] = td_rnd(r, 4) == 0;
			if (s->reg == reg_hand)
				td_hand_twice = td_rnd(r, 3) == 0;
		}
		if (a && k > CAP - a->nelts)
			k = CAP - a->nelts;
		printf("  %s +%d%s\n", s->name, k, td_anon[i] ? " anon" : "");
		for (int j = 0; j < k; j++) {
			int mod, id = td_rnd(r, TD_NCB), order;
			const char *name = td_pick_name(r, td_anon[i], &mod);
			const char *const *pre = td_list(r, mod, -1);
			const char *const *succ = td_list(r, mod, 1);

			order = td_pick_order(r);
			apr_hook_debug_current = name;
			TD_APR(s->reg(id, pre, succ, order));
			td_dirty = 1;
		}
	}
	if (td_rnd(r, 3) == 0)
		op_dump();
}

/* apr_hook_sort_all and apr_hook_deregister_all, called from this unit
 * or, one time in four each, from apr_diff_probe.c's or from
 * apr_diff_plain.c's (libaprutil's own, behind the drop-in). */
static void td_sort_all(struct td_rng *r)
{
	int x = td_rnd(r, 8);

	if (x < 4) {
		TD_APR(apr_hook_sort_all());
	} else if (x < 6) {
		fputs("  (from the probes' unit)\n", stdout);
		TD_APR(td_probe_sort_all());
	} else {
		fputs("  (from the plain unit)\n", stdout);
		TD_APR(td_plain_sort_all());
	}
	td_dirty = 1;
}

static void td_deregister_all(struct td_rng *r)
{
	int x = td_rnd(r, 8);

	if (x < 4) {
		apr_hook_deregister_all();
	} else if (x < 6) {
		puts("  (from the probes' unit)");
		td_probe_deregister_all();
	} else {
		puts("  (from the plain unit)");
		td_plain_deregister_all();
	}
	td_dirty = 0;
}

static void op_sort(struct td_rng *r)
{
	puts("sort_all");
	td_sort_all(r);
	op_dump();
}

/* Optional functions: registered by name, retrieved by name. */
APR_DECLARE_OPTIONAL_FN(int, td_ofn_a, (int));
APR_DECLARE_OPTIONAL_FN(long long, td_ofn_b, (long long, int));
APR_DECLARE_OPTIONAL_FN(const char *, td_ofn_c, (void));
static int td_ofn_a(int x) { return x * 3 + 1; }
static long long td_ofn_b(long long x, int y) { return x * (1LL << 20) + y; }
static const char *td_ofn_c(void) { return "c"; }

static void op_optfn_print(void)
{
	APR_OPTIONAL_FN_TYPE(td_ofn_a) *a = APR_RETRIEVE_OPTIONAL_FN(td_ofn_a);
	APR_OPTIONAL_FN_TYPE(td_ofn_b) *b = APR_RETRIEVE_OPTIONAL_FN(td_ofn_b);
	APR_OPTIONAL_FN_TYPE(td_ofn_c) *c = APR_RETRIEVE_OPTIONAL_FN(td_ofn_c);

	printf("  optfn a=%s", !a ? "NULL" : a == td_ofn_a ? "a" : "?");
	if (a)
		printf(":%d", a(5));
	printf(" b=%s", !b ? "NULL" : b == td_ofn_b ? "b" : "?");
	if (b)
		printf(":%lld", b(3, -1));
	printf(" c=%s", !c ? "NULL" : c == td_ofn_c ? "c" : "?");
	if (c)
		printf(":%s", c());
	putchar('\n');
}

static void op_optfn_register(struct td_rng *r)
{
	int k = td_rnd(r, 3);

	printf("optfn +%c\n", "abc"[k]);
	if (k == 0)
		APR_REGISTER_OPTIONAL_FN(td_ofn_a);
	else if (k == 1)
		APR_REGISTER_OPTIONAL_FN(td_ofn_b);
	else
		APR_REGISTER_OPTIONAL_FN(td_ofn_c);
}

/* As httpd restarts: deregister everything, then sometimes clear the pool
 * the hooks lived in (not after an early return: the optional functions'
 * table, in that pool, is still used then). */
static apr_pool_t *td_hookpool;

static void op_deregister(struct td_rng *r)
{
	int clear = td_dirty && td_rnd(r, 2);

	puts("deregister_all");
	td_deregister_all(r);
	if (clear) {
		puts("  pool cleared");
		apr_pool_clear(td_hookpool);
	}
	printf("  hand %s\n", td_hand ? "kept" : "NULL");
	op_dump();
	op_optfn_print();
}

/* apr_hook_deregister_all does nothing when no hook was registered (nor
 * apr_hook_sort_all called) since its last call: optional functions
 * registered in between stay. */
static void op_deregister_twice(struct td_rng *r)
{
	puts("deregister_all twice");
	td_deregister_all(r);
	if (td_rnd(r, 2)) {
		puts("  sort_all");
		td_sort_all(r);
	}
	op_optfn_register(r);
	td_deregister_all(r);
	op_optfn_print();
}

static void op_run(struct td_rng *r)
{
	puts("run");
	td_pick_rets(r);
	for (int i = 0; i < NALL; i++) {
		const struct td_slot *s = slot(i);

		for (int n = 1 + td_rnd(r, 2); s->run && n; n--)
			s->run(r, 0);
	}
	op_optfn_print();
}

/* Four threads run every hook at once; nothing changes meanwhile. */
#define NTHR 4
#define ITER 12
struct td_thr {
	pthread_t t;
	struct td_rng r;
	struct td_tctx c;
	unsigned long long rv[NALL];
};

static void *td_thread(void *arg)
{
	struct td_thr *t = arg;

	td_tls = &t->c;
	for (int n = 0; n < ITER; n++)
		for (int i = 0; i < NALL; i++)
			if (slot(i)->run)
				t->rv[i] = t->rv[i] * 31 +
					   (unsigned long long)slot(i)->run(&t->r, 1);
	return NULL;
}

static void op_threads(struct td_rng *r)
{
	static struct td_thr thr[NTHR];

	puts("threads");
	td_pick_rets(r);
	memset(thr, 0, sizeof thr);
	fflush(stdout);
	for (int i = 0; i < NTHR; i++) {
		thr[i].r.s = td_next(r);
		if (pthread_create(&thr[i].t, NULL, td_thread, &thr[i])) {
			puts("pthread_create failed");
			exit(3);
		}
	}
	for (int i = 0; i < NTHR; i++)
		pthread_join(thr[i].t, NULL);
	for (int i = 0; i < NTHR; i++) {
		printf("  t%d probes %llu", i, thr[i].c.probes);
		for (int s = 0; s < NALL; s++)
			if (slot(s)->run)
				printf(" %s=%llx", slot(s)->name, thr[i].rv[s]);
		for (int p = 0; p < TD_NPOOL; p++)
			printf(" c%d=%llu/%llx", p, thr[i].c.calls[p], thr[i].c.mix[p]);
		putchar('\n');
	}
}

static void op_debug(struct td_rng *r)
{
	apr_hook_debug_enabled = !apr_hook_debug_enabled;
	printf("debug %s\n", apr_hook_debug_enabled ? "on" : "off");
	if (td_rnd(r, 2)) {
		const char *const *pre = td_list(r, td_rnd(r, NMOD), -1);

		TD_APR(apr_hook_debug_show("shown", pre, td_list(r, 0, 1)));
	}
}

static void op_mutate(struct td_rng *r)
{
	snprintf(td_mutname, sizeof td_mutname, "mut%d", td_rnd(r, 100));
	printf("mutname %s\n", td_mutname);
}

unsigned long long td_next(struct td_rng *r)
{
	unsigned long long z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int td_rnd(struct td_rng *r, int n)
{
	return (int)(td_next(r) % (unsigned)n);
}

static void op_dump_step(struct td_rng *r)
{
	(void)r;
	op_dump();
}

/* The operations drawn at each step, each with its weight. */
static const struct td_op {
	int weight;
	void (*fn)(struct td_rng *r);
} td_ops[] = {
	{ 5, op_register }, { 4, op_sort }, { 4, op_run }, { 1, op_dump_step },
	{ 1, op_deregister }, { 1, op_deregister_twice }, { 1, op_threads },
	{ 1, op_optfn_register }, { 2, op_debug }, { 1, op_mutate },
};
#define NOPS	((int)(sizeof td_ops / sizeof td_ops[0]))

int main(int argc, char **argv)
{
	int total = 0;
	struct td_rng r;
	apr_pool_t *pool;
	char *end;

	if (argc != 2 || (r.s = strtoull(argv[1], &end, 10), *end)) {
		fprintf(stderr, "usage: %s SEED\n", argv[0]);
		return 2;
	}
	/* One buffer, flushed at exit and around APR's debug output. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (apr_initialize() != APR_SUCCESS || apr_pool_create(&pool, NULL)) {
		fputs("APR does not start\n", stderr);
		return 3;
	}
	if (apr_pool_create(&td_hookpool, pool)) {
		fputs("no pool\n", stderr);
		return 3;
	}
	apr_hook_global_pool = td_hookpool;
	printf("seed %s\n", argv[1]);
	op_dump();
	if (td_rnd(&r, 2)) {
		/* Nothing registered yet: deregistration returns early. */
		op_optfn_register(&r);
		puts("deregister_all first");
		apr_hook_deregister_all();
		op_optfn_print();
	}
	for (int i = 0; i < NOPS; i++)
		total += td_ops[i].weight;
	for (int step = 0; step < 24; step++) {
		int x = td_rnd(&r, total), i = 0;

		while ((x -= td_ops[i].weight) >= 0)
			i++;
		td_ops[i].fn(&r);
	}
	puts("end");
	op_sort(&r);
	op_run(&r);
	op_deregister(&r);
	apr_hook_debug_enabled = 0;
	apr_hook_global_pool = NULL;
	apr_pool_destroy(pool);
	apr_terminate();
	return fflush(stdout) != 0;
}
