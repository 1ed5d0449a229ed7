// SPDX-License-Identifier: MIT
/*
 * Slots: filling them with a module's hooks (the kernel's
 * security_add_hooks), and the slot plan that keeps every slot key and
 * tail key in step with the slots, in the batch that changes them
 * (src/lsm/lsm_internal.h). Registration and the toggle (src/lsm/toggle.c)
 * only say which slots change; the plan works out the keys.
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
	p->on = ulsm_calloc(2 * p->n + 1, sizeof(*p->on));
	if (!p->on)
		return -ENOMEM;
	p->tail = p->on + p->n;
	for (size_t i = 0; i < p->n; i++)
		p->on[i] = key_on(&set->table[i].active->key);
	return 0;
}

void ulsm_lsm_plan_end(struct slot_plan *p)
{
	ulsm_free(p->on);
	ulsm_free(p->fn);
	p->on = p->tail = NULL;
	p->fn = NULL;
}

static size_t plan_index(const struct slot_plan *p,
			 const struct lsm_static_call *s)
{
	return (size_t)(s - p->set->table);
}

/*
 * Queue every key the plan moves: the slot keys whose state changes, then
 * the tail keys that follow from the new slot states; then the sites of
 * the hooks' entries.
 */
int ulsm_lsm_plan_queue(struct slot_plan *p, struct ulsm_batch *b)
{
	unsigned int slots = p->set->slots;
	int ret = 0;

	for (size_t i = 0; i < p->n && !ret; i++) {
		struct static_key *k = &p->set->table[i].active->key;

		if (key_on(k) != p->on[i])
			ret = ulsm_key_queue(k, !p->on[i], p->on[i], b);
	}
	for (size_t h = 0; h < p->set->nhooks && !ret; h++) {
		bool empty = true;

		for (unsigned int j = slots; j-- > 0 && !ret;) {
			size_t i = h * slots + j;
			struct static_key *k = &p->set->tails[i].key;

			empty = empty && !p->on[i];
			p->tail[i] = empty;
			if (key_on(k) != empty)
				ret = ulsm_key_queue(k, !empty, empty, b);
		}
	}
	if (!ret)
		ret = ulsm_lsm_plan_queue_entries(p, b);
	return ret;
}

/* After the batch: the keys' counts say what their sites now do. */
void ulsm_lsm_plan_commit(const struct slot_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		__atomic_store_n(&p->set->table[i].active->key.enabled,
				 p->on[i], __ATOMIC_RELEASE);
		__atomic_store_n(&p->set->tails[i].key.enabled, p->tail[i],
				 __ATOMIC_RELEASE);
	}
}

/* Queue the slots' calls from their targets now to @fn (NULL: none). */
static int queue_calls(struct lsm_static_call **slot, void **fn, int n,
		       struct ulsm_batch *b)
{
	bool first;
	int ret = 0;

	for (int i = 0; i < n && !ret; i++)
		if (arch_protocol != ULSM_PROTO_NONE)
			ret = ulsm_call_queue(slot[i]->key,
					(uintptr_t)slot[i]->trampoline,
					fn ? fn[i] : NULL, b, &first,
					&ulsm_kind_hook_site);
	return ret;
}

static void store_targets(struct lsm_static_call **slot, void **fn, int n)
{
	for (int i = 0; i < n; i++)
		__atomic_store_n(&slot[i]->key->func, fn ? fn[i] : NULL,
				 __ATOMIC_RELEASE);
}

/*
 * Where the protocol makes one word at a time atomic (aarch64), a thread
 * may see a slot's key turned on before it sees the slot's trampoline or
 * call site aimed at the new callback: the old target, for an empty slot
 * the trampoline's "ret", returns the hook's first argument as its
 * result. So there the calls go first, in a batch of their own, whose end
 * (cache maintenance, then a core sync) every thread has passed before
 * the keys change. The breakpoint protocol (x86-64) shows a whole batch
 * at once (a thread meets the breakpoint on every site, or the new
 * instruction), so one batch is enough there.
 */
static bool calls_first(void)
{
	return arch_protocol == ULSM_PROTO_ATOMIC_WORD;
}

/*
 * Fill @n planned slots: static calls, then the keys and the hooks'
 * entries, in one batch (two where calls_first()). The targets are stored
 * before the batch: the trampolines' indirect form jumps through them,
 * and so do the entries' stubs (an entry that reaches a new slot
 * mid-batch, or a callback out of rel32 reach). All or nothing: on
 * failure the slots are as they were (off, with no target), or, if even
 * the calls' undo failed, off with their new target, which nothing
 * reaches and from which the next change starts.
 */
static int fill_slots(struct ulsm_hook_set *set, struct lsm_static_call **slot,
		      void **fn, int n)
{
	struct ulsm_batch b = ULSM_BATCH_INIT;
	struct slot_plan plan;
	bool calls_done = false;
	int ret;

	if (ulsm_lsm_plan_begin(&plan, set))
		return -ENOMEM;
	plan.fn = ulsm_calloc(plan.n + 1, sizeof(*plan.fn));
	if (!plan.fn) {
		ulsm_lsm_plan_end(&plan);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		plan.on[plan_index(&plan, slot[i])] = true;
		plan.fn[plan_index(&plan, slot[i])] = fn[i];
	}
	ret = ulsm_update_lock();
	if (ret)
		goto out;
	ret = queue_calls(slot, fn, n, &b);
	if (!ret && calls_first()) {
		store_targets(slot, fn, n);
		ret = ulsm_batch_apply(&b);
		if (ret)
			store_targets(slot, NULL, n);
		calls_done = !ret;
		ulsm_batch_free(&b);
	}
	if (!ret)
		ret = ulsm_lsm_plan_queue(&plan, &b);
	if (!ret) {
		store_targets(slot, fn, n);
		ret = ulsm_batch_apply(&b);
		if (!ret)
			ulsm_lsm_plan_commit(&plan);
	}
	if (ret && calls_done) {
		/* The keys did not change: take the calls back. */
		struct ulsm_batch undo = ULSM_BATCH_INIT;

		if (!queue_calls(slot, NULL, n, &undo) &&
		    !ulsm_batch_apply(&undo))
			store_targets(slot, NULL, n);
		ulsm_batch_free(&undo);
	} else if (ret) {
		store_targets(slot, NULL, n);
	}
	ulsm_unlock();
out:
	ulsm_batch_free(&b);
	ulsm_lsm_plan_end(&plan);
	return ret;
}

ULSM_API int ulsm_security_add_hooks(struct ulsm_hook_set *set,
				     struct security_hook_list *hooks, int count,
				     const struct lsm_id *lsmid)
{
	const struct lsm_position *place;
	struct lsm_static_call **slot;
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
	if (!slot || !fn) {
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
	}
	ret = fill_slots(set, slot, fn, count);
	if (!ret)
		for (int i = 0; i < count; i++) {
			hooks[i].lsmid = lsmid;
			slot[i]->hl = &hooks[i];
		}
out:
	ulsm_lsm_unlock();
	ulsm_free(slot);
	ulsm_free(fn);
	return ret;
}

static bool owned_by(const struct lsm_static_call *s, const char *name)
{
	return s->hl && !strcmp(s->hl->lsmid->name, name);
}

int ulsm_lsm_switch_module(struct ulsm_hook_set *set, const char *name,
			   bool on)
{
	struct ulsm_batch b = ULSM_BATCH_INIT;
	struct slot_plan plan = { 0 };
	int ret = ulsm_lsm_plan_begin(&plan, set);

	for (size_t i = 0; !ret && i < plan.n; i++)
		if (owned_by(&set->table[i], name))
			plan.on[i] = on;
	if (!ret)
		ret = ulsm_update_lock();
	if (!ret) {
		ret = ulsm_lsm_plan_queue(&plan, &b);
		if (!ret)
			ret = ulsm_batch_apply(&b);
		if (!ret)
			ulsm_lsm_plan_commit(&plan);
		ulsm_unlock();
	}
	ulsm_batch_free(&b);
	ulsm_lsm_plan_end(&plan);
	return ret;
}
