/* SPDX-License-Identifier: MIT */
/*
 * The differential test of the APR hooks drop-in (tests/apr/t_apr_diff.sh.in):
 * what apr_diff.c, apr_diff_probe.c and apr_diff_plain.c share. Only
 * APR's public headers: the same sources are built against libaprutil and
 * against the drop-in (apr_diff_plain.c against libaprutil in both), and
 * both programs must print the same transcript for every seed.
 */
#ifndef TD_APR_DIFF_H
#define TD_APR_DIFF_H

#include <stdio.h>
#include <apr_pools.h>
#include <apr_tables.h>

/* The link prefix of our hooks, as an APR program defines its own. */
#define TD_DECLARE(type) type

#define TD_NCB 48	/* callbacks per pool */

/* X(i, ...) for i = 0..47: the callback pools are generated with it. */
#define TD_REP8(X, b, ...) X(b##0, __VA_ARGS__) X(b##1, __VA_ARGS__) \
	X(b##2, __VA_ARGS__) X(b##3, __VA_ARGS__) X(b##4, __VA_ARGS__) \
	X(b##5, __VA_ARGS__) X(b##6, __VA_ARGS__) X(b##7, __VA_ARGS__)
#define TD_REP48(X, ...) TD_REP8(X, 0, __VA_ARGS__) TD_REP8(X, 1, __VA_ARGS__) \
	TD_REP8(X, 2, __VA_ARGS__) TD_REP8(X, 3, __VA_ARGS__) \
	TD_REP8(X, 4, __VA_ARGS__) TD_REP8(X, 5, __VA_ARGS__)
/* Callback i of hook h (i is 00..57 in octal, so its id is 0..47): the
 * body sees its id; cbs_h lists them in id order. */
#define TD_CB(i, h, RET, DECL, ...) \
	static RET cb_##h##_##i DECL { const int id = 0##i; __VA_ARGS__ }
#define TD_REF(i, h) cb_##h##_##i,
#define TD_POOL(h, RET, DECL, ...) \
	TD_REP48(TD_CB, h, RET, DECL, __VA_ARGS__) \
	static td_HOOK_##h##_t *const cbs_##h[TD_NCB] = { TD_REP48(TD_REF, h) };

/* Pools of callbacks; the optional hooks reuse those of h1 and h10. */
enum { P_H0, P_H1, P_H2, P_H3, P_H4, P_H5, P_H6, P_H7, P_H8, P_H9, P_H10,
       P_H11, P_H12, P_H13, P_P0, P_P1, P_P2, P_Q0, TD_NPOOL };

/* Splitmix64: the same sequence everywhere, unlike rand(). */
struct td_rng { unsigned long long s; };
unsigned long long td_next(struct td_rng *r);
int td_rnd(struct td_rng *r, int n);		/* 0..n-1 */

/* Counters of a dispatching thread: its callbacks count instead of
 * printing (the transcript stays the main thread's). */
struct td_tctx {
	unsigned long long calls[TD_NPOOL], mix[TD_NPOOL], probes;
};
extern __thread struct td_tctx *td_tls;

/* A callback's body: print (or count) its call, return its pool's value
 * for it in this round. */
long long td_hit(int pool, int id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Pointers in and out of hooks are printed as indexes into td_objs. */
extern int td_objs[64];
int td_pidx(const void *p);
void *td_pcode(long long code);			/* code -> pointer */
long long td_int(struct td_rng *r);		/* argument values */
void td_print_name(const char *name);		/* a szName, and its origin */

/* One place hooks are registered in, sorted, listed and run from. */
struct td_entry {
	int id;
	const char *name;
	const char *const *pre, *const *succ;
	int order;
};
struct td_slot {
	const char *name;
	int pool;
	void (*reg)(int id, const char *const *pre, const char *const *succ, int order);
	apr_array_header_t *(*get)(void);
	void (*ent)(const apr_array_header_t *a, int i, struct td_entry *e);
	long long (*run)(struct td_rng *r, int quiet);	/* NULL: not runnable */
};
extern const struct td_slot td_probe_slots[3];
void td_probe_sort_all(void);			/* from the probes' unit */
void td_probe_deregister_all(void);
/* From the unit built without the drop-in: libaprutil's own calls. */
extern const struct td_slot td_plain_slots[1];
void td_plain_sort_all(void);
void td_plain_deregister_all(void);

/* reg_h, get_h and ent_h of hook h: its own registration and array. */
#define TD_GLUE(h) \
	static void reg_##h(int id, const char *const *pre, \
			    const char *const *succ, int order) \
	{ td_hook_##h(cbs_##h[id], pre, succ, order); } \
	static apr_array_header_t *get_##h(void) { return td_hook_get_##h(); } \
	TD_ENT(h, h)
/* ent_h: an entry of an array of hook h, whose callbacks are pool c's. */
#define TD_ENT(h, c) \
	static void ent_##h(const apr_array_header_t *a, int i, struct td_entry *e) \
	{ \
		const td_LINK_##h##_t *l = &((const td_LINK_##h##_t *)a->elts)[i]; \
		e->id = -1; \
		for (int k = 0; k < TD_NCB; k++) \
			if (l->pFunc == cbs_##c[k]) \
				e->id = k; \
		e->name = l->szName; \
		e->pre = l->aszPredecessors; \
		e->succ = l->aszSuccessors; \
		e->order = l->nOrder; \
	}
#define TD_SLOT(h, pool) { #h, pool, reg_##h, get_##h, ent_##h, run_##h }

#endif
