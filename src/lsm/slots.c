// SPDX-License-Identifier: MIT
/*
 * Slots: filling them with a module's hooks (the kernel's
 * security_add_hooks), and the slot plan that keeps every slot key and
 * tail key in step with the slots, in the transaction that changes them
 * (src/lsm/lsm_internal.h). Registration and the toggle (src/lsm/toggle.c)
 * only say which slots change; the plan works out the keys, and the
 * engine's transaction the order in which every site and word changes
 * (src/engine/txn.c).
 */
#include <errno.h>
#include <string.h>

#include "lsm_internal.h"

static const char *hook_name(struct ulsm_hook_set *set,
			     const struct lsm_static_call *scalls)
{
	size_t idx = (size_t)(scalls - set->table) / set->slots;

	return idx < set->nhooks ? set->hook_names[idx] : "?";
}

/* Is @scalls the first slot of one of @set's hooks? */
static bool valid_hook(struct ulsm_hook_set *set,
		       const struct lsm_static_call *scalls)
{
	uintptr_t lo = (uintptr_t)set->table;
	uintptr_t p = (uintptr_t)scalls;
	size_t stride = set->slots * sizeof(*scalls);

	return p >= lo && p < lo + set->nhooks * stride &&
	       (p - lo) % stride == 0;
}

static bool key_on(const struct static_key *k)
{
	return k->enabled > 0;
}

/* Start from the slots as they are now. */
int ulsm_lsm_plan_begin(struct slot_plan *p, struct ulsm_hook_set *set)
{
	p->set = set;
	p->n = set->nhooks * set->slots;
	p->fn = NULL;
	p->hl = NULL;
	p->inner = NULL;
	p->on = ulsm_calloc(2 * p->n + 1, sizeof(*p->on));
	if (!p->on)
		return -ENOMEM;
	p->tail = p->on + p->n;
	for (size_t i = 0; i < p->n; i++)
		p->on[i] = key_on(&set->table[i].active->key);
	return 0;
}

/* Room for new targets and owners (a registration). */
int ulsm_lsm_plan_targets(struct slot_plan *p)
{
	p->fn = ulsm_calloc(p->n + 1, sizeof(*p->fn));
	p->hl = ulsm_calloc(p->n + 1, sizeof(*p->hl));
	p->inner = ulsm_calloc(p->n + 1, sizeof(*p->inner));
	return p->fn && p->hl && p->inner ? 0 : -ENOMEM;
}

void ulsm_lsm_plan_end(struct slot_plan *p)
{
	ulsm_free(p->on);
	ulsm_free(p->fn);
	ulsm_free(p->hl);
	ulsm_free(p->inner);
	p->on = p->tail = NULL;
	p->fn = NULL;
	p->hl = NULL;
	p->inner = NULL;
}

/*
 * The guards' inner calls, from the plan: a new module's callback (before
 * its slot's key opens); for a guarded slot the plan leaves on, its
 * module's callback (back on after a toggle); for one it leaves off, the
 * hook's default, so that a thread that reaches the guard once the
 * transaction is over never enters the module (a toggle, a departure).
 * Nothing for a slot whose inner call is aimed right already.
 */
static int queue_guards(struct slot_plan *p, struct ulsm_txn *t)
{
	int ret = 0;

	/*
	 * Sealed, its memory read-only (closed to plug-ins): the inner
	 * calls cannot be written, and no module can leave. A toggle flips
	 * the slot keys only, as for a module called directly.
	 */
	if (p->set->state->sealed && !p->set->state->plugins_allowed)
		return 0;

	for (size_t i = 0; i < p->n && !ret; i++) {
		const struct ulsm_hook_guard *g = ulsm_lsm_guard(p->set, i);
		const struct lsm_static_call *s = &p->set->table[i];
		void *to;

		if (!g)
			continue;
		if (p->inner && p->inner[i])
			to = p->inner[i];
		else if (s->hl && s->key->func == g->fn)
			to = p->on[i] ? s->hl->hook.lsm_callback : g->dflt;
		else
			continue;
		ret = ulsm_call_queue(t, g->inner, g->inner_tramp, to, NULL);
	}
	return ret;
}

static size_t plan_index(const struct slot_plan *p,
			 const struct lsm_static_call *s)
{
	return (size_t)(s - p->set->table);
}

/*
 * Add to @t every key the plan moves: the slot keys whose state changes
 * (on: their callbacks start being reached, the last stage; off: the
 * first), and the tail keys that follow from the new slot states (on
 * ends a walk earlier, so it goes with the guards that close); the new
 * targets of slots, their owners, and the sites of the hooks' entries,
 * in the stage of targets.
 */
int ulsm_lsm_plan_queue(struct slot_plan *p, struct ulsm_txn *t)
{
	unsigned int slots = p->set->slots;
	int ret = 0;

	for (size_t i = 0; i < p->n && !ret; i++) {
		struct static_key *k = &p->set->table[i].active->key;

		if (key_on(k) != p->on[i])
			ret = ulsm_key_queue(t, k, p->on[i],
					     ulsm_key_stage(p->on[i]));
	}
	for (size_t h = 0; h < p->set->nhooks && !ret; h++) {
		bool empty = true;

		for (unsigned int j = slots; j-- > 0 && !ret;) {
			size_t i = h * slots + j;
			struct static_key *k = &p->set->tails[i].key;

			empty = empty && !p->on[i];
			p->tail[i] = empty;
			if (key_on(k) != empty)
				ret = ulsm_key_queue(t, k, empty,
						     ulsm_key_stage(!empty));
		}
	}
	if (!ret)
		ret = queue_guards(p, t);
	for (size_t i = 0; p->fn && i < p->n && !ret; i++) {
		struct lsm_static_call *s = &p->set->table[i];

		if (!p->fn[i])
			continue;
		/* The entries' sites follow from the whole plan, below. */
		ret = ulsm_call_queue(t, s->key, s->trampoline, p->fn[i],
				      &ulsm_kind_hook_site);
		/* Its owner, before its key opens (lsm_for_each_hook reads it). */
		if (!ret)
			ret = ulsm_txn_store_ptr(t, ULSM_STAGE_TARGETS,
						 ULSM_AFTER, &s->hl, p->hl[i]);
	}
	if (!ret)
		ret = ulsm_lsm_plan_queue_entries(p, t);
	return ret;
}

/* Apply @p in one transaction; all or nothing. Framework lock held. */
static int plan_apply(struct slot_plan *p)
{
	struct ulsm_txn t = ULSM_TXN_INIT;
	int ret = ulsm_update_lock();

	if (ret)
		return ret;
	ret = ulsm_lsm_plan_queue(p, &t);
	return ulsm_txn_finish(&t, ret);
}

/*
 * Fill @n planned slots with their callbacks @fn, owned by @hl: the slot
 * calls, their owners, the keys and the hooks' entries, in one
 * transaction. The targets are stored before the stage of targets: the
 * trampolines' indirect form jumps through them, and so do the entries'
 * stubs (an entry that reaches a new slot mid-change, or a callback out
 * of rel32 reach). All or nothing: on failure the slots are as they were.
 */
static int fill_slots(struct ulsm_hook_set *set, struct lsm_static_call **slot,
		      void **fn, struct security_hook_list **hl, int n)
{
	struct slot_plan plan;
	int ret;

	if (ulsm_lsm_plan_begin(&plan, set))
		return -ENOMEM;
	ret = ulsm_lsm_plan_targets(&plan);
	for (int i = 0; i < n && !ret; i++) {
		size_t idx = plan_index(&plan, slot[i]);
		const struct ulsm_hook_guard *g = ulsm_lsm_guard(set, idx);

		plan.on[idx] = true;
		plan.fn[idx] = fn[i];
		plan.hl[idx] = hl[i];
		if (g && ulsm_lsm_needs_guard(set, fn[i])) {
			plan.inner[idx] = fn[i];
			plan.fn[idx] = g->fn;
		}
	}
	if (!ret)
		ret = plan_apply(&plan);
	ulsm_lsm_plan_end(&plan);
	return ret;
}

/* Whether @fn is in one of the @n objects @h. */
static bool held(const struct ulsm_hold *h, size_t n, const void *fn)
{
	for (size_t i = 0; i < n; i++)
		if (ulsm_loaded_holds(&h[i], fn))
			return true;
	return false;
}

/*
 * Aim each owned slot of @set that is aimed at its guard, and whose
 * callback is in one of the @n objects @h (sealing's) and is kept now,
 * at its callback, past the guard; each one is marked in @moved (one
 * entry per slot). @back: aim each slot marked in @moved at its guard
 * again, its inner call at the callback, or at the default while its
 * module is off. Only those: what sealing changed is undone exactly. One
 * transaction; all or nothing. Framework lock held.
 */
int ulsm_lsm_aim_guards(struct ulsm_hook_set *set, const struct ulsm_hold *h,
			size_t n, bool *moved, bool back)
{
	struct slot_plan plan;
	bool change = false;
	int ret;

	if (!set->unloadable || !set->guards)
		return 0;
	if (ulsm_lsm_plan_begin(&plan, set))
		return -ENOMEM;
	ret = ulsm_lsm_plan_targets(&plan);
	for (size_t i = 0; i < plan.n && !ret; i++) {
		const struct ulsm_hook_guard *g = ulsm_lsm_guard(set, i);
		struct lsm_static_call *s = &set->table[i];
		void *cb;

		if (!g || !s->hl)
			continue;
		cb = s->hl->hook.lsm_callback;
		if (back && moved[i] && s->key->func == cb) {
			plan.fn[i] = g->fn;
			plan.inner[i] = plan.on[i] ? cb : g->dflt;
		} else if (!back && s->key->func == g->fn && held(h, n, cb) &&
			   !ulsm_lsm_needs_guard(set, cb)) {
			plan.fn[i] = cb;
			moved[i] = true;
		} else {
			continue;
		}
		plan.hl[i] = s->hl;
		change = true;
	}
	if (!ret && change)
		ret = plan_apply(&plan);
	if (ret && !back)
		memset(moved, 0, plan.n * sizeof(*moved));
	ulsm_lsm_plan_end(&plan);
	return ret;
}

ULSM_API int ulsm_security_add_hooks(struct ulsm_hook_set *set,
				     struct security_hook_list *hooks, int count,
				     const struct lsm_id *lsmid)
{
	const struct lsm_position *place;
	struct lsm_static_call **slot;
	struct security_hook_list **hl;
	void **fn;
	int ret = 0;

	if (!set || (!hooks && count) || count < 0 || !lsmid || !lsmid->name)
		return ulsm_error(-EINVAL, "security_add_hooks: bad arguments");
	ulsm_config_init();
	ulsm_lsm_lock();
	if (!ulsm_lsm_state_of(set) ||
	    (set->state->sealed && !set->state->arriving)) {
		ret = set->state ? ulsm_error(-EPERM, "security_add_hooks(%s): "
					      "set %s is sealed", lsmid->name,
					      set->name) : -ENOMEM;
		ulsm_lsm_unlock();
		return ret;
	}
	slot = ulsm_calloc((size_t)count + 1, sizeof(*slot));
	fn = ulsm_calloc((size_t)count + 1, sizeof(*fn));
	hl = ulsm_calloc((size_t)count + 1, sizeof(*hl));
	if (!slot || !fn || !hl) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * Plan every hook first: a module that does not fit gets nothing.
	 * Each hook's slot is chosen in the module's place in the order,
	 * never by moving another module (src/lsm/plugins.c).
	 */
	place = ulsm_lsm_position_of(set->state, lsmid->name);
	for (int i = 0; i < count; i++) {
		struct lsm_static_call *s = hooks[i].scalls;
		int j;

		if (!valid_hook(set, s) || !hooks[i].hook.lsm_callback) {
			ret = ulsm_error(-EINVAL, "security_add_hooks(%s): hook "
					 "%d is not a hook of set %s, or has no "
					 "callback", lsmid->name, i, set->name);
			goto out;
		}
		j = ulsm_lsm_choose_slot(set, place, s, slot, i);
		if (j < 0) {
			ret = ulsm_error(-ENOSPC, "security_add_hooks(%s): no "
					 "free slot for hook %s (MAX_LSM_COUNT "
					 "%u)%s; nothing registered", lsmid->name,
					 hook_name(set, s), set->slots,
					 place ? " in its place in the order" : "");
			goto out;
		}
		slot[i] = &s[j];
		fn[i] = hooks[i].hook.lsm_callback;
		hl[i] = &hooks[i];
		/* Read through the slot's owner, which the filling publishes. */
		hooks[i].lsmid = lsmid;
	}
	ret = fill_slots(set, slot, fn, hl, count);
out:
	ulsm_lsm_unlock();
	ulsm_free(slot);
	ulsm_free(fn);
	ulsm_free(hl);
	return ret;
}

int ulsm_lsm_switch_module(struct ulsm_hook_set *set, const char *name,
			   bool on)
{
	struct slot_plan plan = { 0 };
	int ret = ulsm_lsm_plan_begin(&plan, set);

	for (size_t i = 0; !ret && i < plan.n; i++)
		if (ulsm_lsm_slot_owned_by(&set->table[i], name))
			plan.on[i] = on;
	if (!ret)
		ret = plan_apply(&plan);
	ulsm_lsm_plan_end(&plan);
	return ret;
}
