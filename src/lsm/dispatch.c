// SPDX-License-Identifier: MIT
/*
 * Hook entries: the function that dispatches a hook (call_int_hook and
 * call_void_hook call it), emitted by the arch header in the set's
 * defining unit (ULSM__ARCH_HOOK_ENTRY, include/ulsm/arch/x86_64.h), and
 * patched here as the hook's slots change. docs/hook-framework.md
 * ("Dispatch") has the layout; in short, per hook:
 *
 *   R      ret while no slot is on; while one is, a jump to its callback
 *          (the tail call, without going through the slots); else a NOP
 *          (on to the slots)
 *   X<i>   slot i's switch: NOP (on: call it and go on), jmp to its
 *          callback (on, the last one: the tail call), jmp N<i> (off)
 *   C<i>   slot i's call: call its callback (when in reach), else call
 *          I<i>, which calls through the slot's key (or returns DEFAULT
 *          when there is no callback)
 *
 * Like a trampoline's, every site's instruction is derived, never stored:
 * from the hook's slots (which are on, which is the last) and each slot's
 * target (its static-call key's func). So the instruction expected at a
 * site before a change is always known, and the entry that was compiled
 * is the one for "no slot on, no callback".
 *
 * Why these forms are safe while other threads dispatch: a batch moves
 * every site of the hook from the old slots to the new ones, and a thread
 * may see any mix of old and new sites. A slot that is on in both is a
 * call or a tail call in both, so it is always reached: an X<j> before it
 * is only a tail call if j was the last slot on in that state, R only
 * returns if no slot was on in that state, and R only jumps to a callback
 * if that slot was the only one on in that state; every other slot is called or
 * skipped as in one of the two states (docs/hook-framework.md). A mixed
 * walk that calls nobody returns DEFAULT: the entry sets it before R.
 */
#include <errno.h>
#include <string.h>

#include "lsm_internal.h"

/* Roles of a hook entry's sites (struct ulsm_site.role). */
#define ROLE_R		0
#define ROLE_X(i)	(1 + 2 * (i))
#define ROLE_C(i)	(2 + 2 * (i))
#define ROLE_SLOT(r)	(((r) - 1) / 2)
#define ROLE_IS_C(r)	((r) && !((r) & 1))

/* Slots per hook an entry may have (UNROLL's limit). */
#define MAX_SLOTS	64

/* Test hook: emulate calls through the entry's stubs, as under a shadow stack. */
bool ulsm_test_hook_call_stubs;

/*
 * Whether a trapped call may push its return address (no shadow stack):
 * the engine asks once (a system call: asked per site, it made enabling a
 * 100-hook module 1.6x slower).
 */
static bool calls_patchable(void)
{
	return ulsm_caps()->calls_patchable && !ulsm_test_hook_call_stubs;
}

/* What a hook's sites are derived from. */
struct hook_view {
	unsigned int slots;
	unsigned int k;			/* slots on */
	int last;			/* the last slot on, or -1 */
	bool traced;			/* R jumps to the traced walk */
	bool on[MAX_SLOTS];
	const void *fn[MAX_SLOTS];
};

static uintptr_t map_addr(const struct ulsm_hook_entry *e, unsigned int i)
{
	return e->map[i] ? ulsm_rel(&e->map[i]) : 0;
}

static uintptr_t slot_addr(const struct ulsm_hook_entry *e, unsigned int slot,
			   unsigned int what)
{
	return map_addr(e, ULSM__HOOK_MAP_SLOT +
			ULSM__HOOK_MAP_PER_SLOT * slot + what);
}

static const struct lsm_static_call *slot_of(const struct ulsm_hook_entry *e,
					     unsigned int slot)
{
	return &e->set->table[e->hook * e->set->slots + slot];
}

static void view_finish(struct hook_view *v)
{
	v->k = 0;
	v->last = -1;
	for (unsigned int i = 0; i < v->slots; i++)
		if (v->on[i]) {
			v->k++;
			v->last = (int)i;
		}
}

/* As compiled: no slot on, no callback. */
static void view_compiled(const struct ulsm_hook_entry *e, struct hook_view *v)
{
	memset(v, 0, sizeof(*v));
	v->slots = e->set->slots;
	view_finish(v);
}

/* As the committed keys and targets say now. */
static void view_now(const struct ulsm_hook_entry *e, struct hook_view *v)
{
	v->slots = e->set->slots;
	for (unsigned int i = 0; i < v->slots; i++) {
		const struct lsm_static_call *s = slot_of(e, i);

		v->on[i] = s->active->key.enabled > 0;
		v->fn[i] = s->key->func;
	}
	v->traced = e->trace_key && e->trace_key->key.enabled > 0;
	view_finish(v);
}

/* Where a slot's call or tail call goes: its callback, or its I stub. */
static uintptr_t slot_target(const struct ulsm_hook_entry *e,
			     const struct hook_view *v, unsigned int slot,
			     uintptr_t site)
{
	uintptr_t fn = (uintptr_t)v->fn[slot];

	if (fn && ulsm_site_reaches(site, ulsm_form(ULSM_OP_CALL, fn)))
		return fn;
	return slot_addr(e, slot, ULSM__HOOK_MAP_I);
}

static uintptr_t role_addr(const struct ulsm_hook_entry *e, unsigned int role)
{
	if (role == ROLE_R)
		return map_addr(e, ULSM__HOOK_MAP_RET);
	return slot_addr(e, ROLE_SLOT(role),
			 ROLE_IS_C(role) ? ULSM__HOOK_MAP_C : ULSM__HOOK_MAP_X);
}

/* What site @role of @e does for the slots of @v. */
static struct ulsm_form role_form(const struct ulsm_hook_entry *e,
				  const struct hook_view *v, unsigned int role)
{
	uintptr_t site = role_addr(e, role), target;
	unsigned int slot = ROLE_SLOT(role);
	struct ulsm_form call;

	if (role == ROLE_R) {
		/*
		 * Traced: to the traced walk, whatever the slots (it reads
		 * them itself). Any mix of old and new sites is still a
		 * valid walk: only R changes when tracing does.
		 */
		if (v->traced && e->traced)
			return ulsm_form(ULSM_OP_JUMP, (uintptr_t)e->traced);
		if (v->k == 1)
			return ulsm_form(ULSM_OP_JUMP, slot_target(e, v,
					(unsigned int)v->last, site));
		if (v->k)
			return ulsm_form(ULSM_OP_NOP, 0);
		return ulsm_form(ULSM_OP_RETURN,
				 map_addr(e, ULSM__HOOK_MAP_THUNK));
	}
	target = slot_target(e, v, slot, site);
	if (ROLE_IS_C(role)) {
		if (calls_patchable())
			return ulsm_form(ULSM_OP_CALL, target);
		call = ulsm_form(ULSM_OP_CALL_VIA, target);
		call.via = slot_addr(e, slot, ULSM__HOOK_MAP_M);
		return call;
	}
	if (!v->on[slot])
		return ulsm_form(ULSM_OP_JUMP,
				 slot_addr(e, slot, ULSM__HOOK_MAP_N));
	if ((int)slot == v->last)
		return ulsm_form(ULSM_OP_JUMP, target);
	return ulsm_form(ULSM_OP_NOP, 0);
}

/* Which site of @e is at @addr; -1 if none. */
static int role_at(const struct ulsm_hook_entry *e, uintptr_t addr)
{
	if (addr == map_addr(e, ULSM__HOOK_MAP_RET))
		return ROLE_R;
	for (unsigned int i = 0; i < e->set->slots && i < MAX_SLOTS; i++) {
		if (addr == slot_addr(e, i, ULSM__HOOK_MAP_X))
			return ROLE_X(i);
		if (addr == slot_addr(e, i, ULSM__HOOK_MAP_C))
			return ROLE_C(i);
	}
	return -1;
}

static const char *hook_name(const struct ulsm_hook_entry *e)
{
	return e->set->hook_names[e->hook];
}

/*
 * Every site of an entry goes in the transaction's stage of targets: any
 * mix of old and new sites is a valid walk (above), so the entry may
 * change while its slots' keys and calls change around it.
 */
static int queue_change(struct ulsm_txn *t, const struct ulsm_hook_entry *e,
			unsigned int role, const struct hook_view *old,
			const struct hook_view *new)
{
	return ulsm_txn_site(t, ULSM_STAGE_TARGETS, role_addr(e, role),
			     role_form(e, old, role), role_form(e, new, role));
}

/*
 * The sites of hook entries, tagged records of the object's
 * "ulsm_call_sites" (<ulsm/arch/x86_64.h>): the reference is to the
 * struct ulsm_hook_entry and the address is the site itself. Check that
 * it holds what the entry was compiled with, record it, and queue the
 * instruction the hook's slots ask for now. A site that does not hold it
 * is refused, reported, and not counted in the object's -EILSEQ: its
 * hook's slots then cannot change (ulsm_lsm_plan_queue_entries).
 */
static int collect_hook_site(struct ulsm_collect *c, const void *record)
{
	const struct ulsm_hook_entry *e = ulsm_site_record_ref(record);
	uintptr_t addr = ulsm_site_record_addr(record);
	struct ulsm_site *s = &c->sites[c->n];
	struct hook_view compiled, now;
	int role, ret;

	if (!e->map || !e->set || e->set->slots > MAX_SLOTS ||
	    (role = role_at(e, addr)) < 0) {
		ulsm_error(-EINVAL, "hook entry site %#lx is not in its "
			   "entry's map; refused", (unsigned long)addr);
		return 0;
	}
	view_compiled(e, &compiled);
	view_now(e, &now);
	ret = ulsm_site_holds(addr, role_form(e, &compiled, (unsigned int)role));
	if (ret && ret != -EILSEQ)
		return ulsm_error(ret, "hook %s: entry site %#lx cannot be "
				  "encoded", hook_name(e), (unsigned long)addr);
	if (ret) {
		/*
		 * Someone else wrote there (a debugger's breakpoint?). The
		 * site is left alone; the hook's slots can then not change
		 * (src/lsm/slots.c refuses), so no module is skipped silently.
		 */
		ulsm_error(-EILSEQ, "hook %s: entry site %#lx does not hold "
			   "the instruction it was compiled with; refused",
			   hook_name(e), (unsigned long)addr);
		return 0;
	}
	memset(s, 0, sizeof(*s));
	s->addr = addr;
	s->target = (uintptr_t)e;
	s->key = role == ROLE_R ? (void *)(uintptr_t)e :
		 (void *)slot_of(e, ROLE_SLOT(role))->key;
	s->owner = c->owner;
	s->kind = &ulsm_kind_hook_site;
	s->role = (uint8_t)role;
	c->n++;
	if (ROLE_IS_C(role))
		ulsm_stat_add(call_sites, 1);
	ret = queue_change(c->txn, e, (unsigned int)role, &compiled, &now);
	if (ret && ret != -ENOMEM)
		ret = ulsm_error(ret, "hook %s: entry site %#lx cannot be "
				 "encoded", hook_name(e), (unsigned long)addr);
	return ret;
}

/* A slot's target changes from @from to @to (static_call_update). */
static int hook_site_retarget(const struct ulsm_site *s, const void *from,
			      const void *to, struct ulsm_txn *b)
{
	const struct ulsm_hook_entry *e = (const void *)s->target;
	unsigned int slot = ROLE_SLOT(s->role);
	struct hook_view old, new;
	int ret;

	if (s->role == ROLE_R)
		return 0;
	view_now(e, &old);
	new = old;
	old.fn[slot] = from;
	new.fn[slot] = to;
	ret = queue_change(b, e, s->role, &old, &new);
	/*
	 * R depends on the target of the one slot that is on, when only
	 * one is: queue it with the slot's X (one per slot, so R once).
	 */
	if (!ret && !ROLE_IS_C(s->role) && new.k == 1 &&
	    new.last == (int)slot) {
		if (!ulsm_registry_find(role_addr(e, ROLE_R)))
			return 0;	/* refused: the slots cannot be on */
		ret = queue_change(b, e, ROLE_R, &old, &new);
	}
	return ret;
}

/* A slot's call (C<i>) counts among its static call's call sites. */
static int hook_site_callee(const struct ulsm_site *s, uintptr_t *callee)
{
	if (!ROLE_IS_C(s->role))
		return 0;
	*callee = 0;
	ulsm_site_callee(s->addr, callee);
	return 1;
}

static const struct ulsm_call_follower hook_site_ops = {
	.retarget = hook_site_retarget,
	.callee = hook_site_callee,
	/* The I stubs call through the slot's key (mid-patch, far targets). */
	.reads_func = true,
};

const struct ulsm_site_kind ulsm_kind_hook_site = {
	.name = "hook-entry sites",
	.table = ULSM_TABLE_SITE_TAGGED,
	.collect = collect_hook_site,
	.ops = &hook_site_ops,
};

/* Are all the sites of @e registered (none refused)? */
static bool entry_registered(const struct ulsm_hook_entry *e)
{
	unsigned int roles = 1 + 2 * e->set->slots;

	for (unsigned int r = 0; r < roles; r++) {
		const struct ulsm_site *s = ulsm_registry_find(role_addr(e, r));

		if (!s || s->kind != &ulsm_kind_hook_site ||
		    s->target != (uintptr_t)e)
			return false;
	}
	return true;
}

int ulsm_lsm_plan_queue_entries(const struct slot_plan *p,
				struct ulsm_txn *b)
{
	const struct ulsm_hook_set *set = p->set;
	unsigned int slots = set->slots;
	int ret = 0;

	/* Hooks without an entry (the generic back end's: all) have no map. */
	if (!set->entries)
		return 0;
	if (slots > MAX_SLOTS)
		return ulsm_error(-EINVAL, "set %s: %u slots per hook, entries "
				  "have at most %d", set->name, slots,
				  MAX_SLOTS);
	for (size_t h = 0; h < set->nhooks && !ret; h++) {
		const struct ulsm_hook_entry *e = &set->entries[h];
		struct hook_view old, new;
		bool changed = false;

		if (!e->map)
			continue;
		view_now(e, &old);
		new = old;
		for (unsigned int i = 0; i < slots; i++) {
			size_t idx = h * slots + i;

			new.on[i] = p->on[idx];
			if (p->fn && p->fn[idx])
				new.fn[i] = p->fn[idx];
			changed |= new.on[i] != old.on[i] ||
				   new.fn[i] != old.fn[i];
		}
		if (!changed)
			continue;
		if (!entry_registered(e))
			return ulsm_error(-EILSEQ, "set %s: the entry of hook "
					  "%s was refused at registration (its "
					  "code was changed by someone else); "
					  "its slots cannot change", set->name,
					  hook_name(e));
		view_finish(&new);
		for (unsigned int r = 0; r < 1 + 2 * slots && !ret; r++)
			ret = queue_change(b, e, r, &old, &new);
	}
	return ret;
}

/*
 * Add to @b each entry's R site as tracing @on asks (the traced walk, or
 * what the slots say): the rest of an entry does not depend on it.
 */
int ulsm_lsm_plan_queue_trace(struct ulsm_hook_set *set, bool on,
			      struct ulsm_txn *b)
{
	int ret = 0;

	if (!set->entries)
		return 0;
	for (size_t h = 0; h < set->nhooks && !ret; h++) {
		const struct ulsm_hook_entry *e = &set->entries[h];
		struct hook_view old, new;

		if (!e->map || !e->traced)
			continue;
		view_now(e, &old);
		new = old;
		new.traced = on;
		if (old.traced == new.traced)
			continue;
		if (!entry_registered(e))
			return ulsm_error(-EILSEQ, "set %s: the entry of hook "
					  "%s was refused at registration: it "
					  "cannot be traced", set->name,
					  hook_name(e));
		ret = queue_change(b, e, ROLE_R, &old, &new);
	}
	return ret;
}
