// SPDX-License-Identifier: MIT
/*
 * Tracing a set's dispatch (docs/hook-framework.md, "Tracing the
 * dispatch"): while a set is traced, each of its hooks is dispatched by
 * its traced walk, which calls the modules from the set's table, takes
 * each one's time, counts it, and hits the set's tracepoint
 * (lsm_hook_<set>: the recorder, USDT). Off, dispatch is what it always
 * was: turning tracing on and off changes, in one transaction, each
 * hook's trace key (the C walk's site; a NOP while off) and each entry's
 * R site (src/lsm/dispatch.c: the first instruction after the entry's
 * constant prologue, which the slots set anyway), so an entry costs not
 * one instruction more while off.
 *
 * It is wanted while something holds it (a recording of the set, a count
 * of its modules: ulsm_lsm_trace) or a USDT tracer listens at the set's
 * tracepoint (its semaphore: ulsm_lsm_trace_sync_set, for each set,
 * which the control endpoint's thread and ULSM_USDT's call through the
 * framework's table, with the tracepoints' own). A
 * sealed set may be traced: its trace keys are not sealed, and tracing
 * changes no table, only which code reads them.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <ulsm/tracepoint.h>

#include "lsm_internal.h"

static bool usdt_listens(const struct ulsm_hook_set *set)
{
	const struct ulsm_tracepoint *tp = set->tracepoint;

	return tp && tp->size >= offsetof(struct ulsm_tracepoint, usdt_sema) +
			       sizeof(tp->usdt_sema) && tp->usdt_sema &&
	       __atomic_load_n(tp->usdt_sema, __ATOMIC_RELAXED);
}

/* One transaction: every trace key, and every entry's R site. */
static int apply(struct ulsm_hook_set *set, bool on)
{
	struct ulsm_txn t = ULSM_TXN_INIT;
	int ret;

	if (!set->trace_keys)
		return ulsm_error(-ENOTSUP, "set %s was built without tracing",
				  set->name);
	ret = ulsm_update_lock();
	if (ret)
		return ret;
	for (size_t h = 0; h < set->nhooks && !ret; h++) {
		struct static_key *k = &set->trace_keys[h].key;

		if ((k->enabled > 0) != on)
			ret = ulsm_key_queue(&t, k, on, ulsm_key_stage(on));
	}
	if (!ret)
		ret = ulsm_lsm_plan_queue_trace(set, on, &t);
	return ulsm_txn_finish(&t, ret);
}

/* Make @set traced or not as it is wanted now. Framework lock held. */
static int sync_set(struct ulsm_hook_set *set)
{
	struct ulsm_lsm_state *st = set->state;
	bool want;
	int ret;

	if (!st || !st->initialised)
		return 0;
	want = st->trace_holders || usdt_listens(set);
	if (want == st->traced)
		return 0;
	ret = apply(set, want);
	if (!ret)
		st->traced = want;
	return ret;
}

ULSM_API int ulsm_lsm_trace(struct ulsm_hook_set *set, bool on)
{
	struct ulsm_lsm_state *st;
	int ret;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_trace: NULL set");
	ulsm_lsm_lock();
	st = set->state;
	if (!st || !st->initialised) {
		ulsm_lsm_unlock();
		return ulsm_error(-ENOENT, "set %s is not initialised",
				  set->name);
	}
	if (!on && !st->trace_holders) {
		ulsm_lsm_unlock();
		return ulsm_error(-EINVAL, "set %s: tracing was not asked for",
				  set->name);
	}
	st->trace_holders += on ? 1 : -1;
	ret = sync_set(set);
	/* Asked for and refused: as if never asked. Dropped: it is dropped. */
	if (ret && on)
		st->trace_holders--;
	else if (ret)
		ret = 0;	/* still traced: the next sync tries again */
	ulsm_lsm_unlock();
	return ret;
}

int ulsm_lsm_trace_sync_set(struct ulsm_hook_set *set)
{
	int ret;

	ulsm_lsm_lock();
	ret = sync_set(set);
	ulsm_lsm_unlock();
	return ret;
}

void ulsm_lsm_trace_counts(struct ulsm_hook_set *set,
			   void (*fn)(void *arg, const char *module,
				      unsigned long calls,
				      unsigned long refusals),
			   void *arg)
{
	struct ulsm_lsm_state *st;

	ulsm_lsm_lock();
	st = set->state;
	for (struct lsm_info *m = st ? st->modules : NULL; m; m = m->next) {
		unsigned long calls = 0, refusals = 0;

		for (size_t i = 0; set->trace_counts &&
		     i < set->nhooks * set->slots; i++) {
			const struct lsm_static_call *s = &set->table[i];

			if (!s->hl || !s->hl->lsmid ||
			    strcmp(s->hl->lsmid->name, m->name))
				continue;
			calls += __atomic_load_n(&set->trace_counts[2 * i],
						 __ATOMIC_RELAXED);
			refusals += __atomic_load_n(
				&set->trace_counts[2 * i + 1],
				__ATOMIC_RELAXED);
		}
		fn(arg, m->name, calls, refusals);
	}
	ulsm_lsm_unlock();
}
