// SPDX-License-Identifier: MIT
/*
 * Sealing: once a set's modules are in, its hook tables and the slot
 * calls' keys become read-only (mprotect, and mseal where the kernel has
 * it), as the kernel's static_calls_table is __ro_after_init, so that a
 * stray or hostile write cannot redirect a hook. The slot keys are sealed
 * too unless the application opted in to toggling before sealing, which
 * needs them writable. And the public update functions leave a set's keys
 * to the framework: it claims them (below).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "lsm_internal.h"

/*
 * What the public update functions (static_branch_*, static_key_*,
 * static_call_update) must not change, per hook set:
 *
 *   - its slot and tail keys, from ulsm_lsm_init() on: the framework moves
 *     them together, in one batch, and sets their counts itself
 *     (slots.c); a key flipped by hand breaks that: a tail key turned on
 *     ends the walk before active modules, a slot key turned off skips its
 *     module (without a word, both), and the next batch overwrites a count
 *     taken with static_branch_inc(). ulsm_lsm_toggle() is the way to turn
 *     a module off;
 *   - its slot calls' keys, once sealed: they are read-only then, and the
 *     update would patch the code before faulting on the key, leaving the
 *     code and the key in disagreement. Before sealing, retargeting a
 *     slot's call leaves the keys' invariant alone, and tests use it.
 *
 * The refusal is a property of each key (src/static/static.h): claiming
 * sets a flag in every slot and tail key, sealing one in every slot call,
 * both under the patch lock so that no public update is half-way past its
 * check. The framework changes its keys itself, by queueing them into its
 * own batches, which no flag stops. The table below only names the set in
 * the refusal's message (claimed_words) and lists the sets for the dump:
 * sets are claimed rarely and never released, so a fixed table whose
 * count is published with release semantics is enough. It is never
 * freed, so a set's object must not be dlclose()d once the set is
 * initialised.
 */
#define CLAIMED_MAX	64

struct claimed_set {
	const struct ulsm_hook_set *set;
	const char *name;
	uintptr_t keys, keys_end;	/* slot and tail keys */
	uintptr_t sealed, sealed_end;	/* tables and slot calls' keys */
	char words[2][160];		/* what a refusal says of its keys */
};

static struct claimed_set claimed[CLAIMED_MAX];
static unsigned int nclaimed;

static struct claimed_set *claimed_find(const struct ulsm_hook_set *set)
{
	/*
	 * Pairs with the release store of nclaimed in ulsm_lsm_claim() (this
	 * file): each set counted has its entry filled.
	 */
	unsigned int n = __atomic_load_n(&nclaimed, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++)
		if (claimed[i].set == set)
			return &claimed[i];
	return NULL;
}

size_t ulsm_lsm_sets(struct ulsm_hook_set **out, size_t max)
{
	/*
	 * Pairs with the release store of nclaimed in ulsm_lsm_claim() (this
	 * file): each set counted has its entry filled.
	 */
	unsigned int n = __atomic_load_n(&nclaimed, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n && i < max; i++)
		out[i] = (struct ulsm_hook_set *)(uintptr_t)claimed[i].set;
	return n;
}

/* Each claimed set, for the control endpoint (src/base/hook_sets.h). */
static int each_set(void (*fn)(void *arg, const struct ulsm_lsm_set_info *),
		    void *arg)
{
	struct ulsm_hook_set *sets[64];
	size_t n;

	ulsm_lsm_lock();
	n = ulsm_lsm_sets(sets, ARRAY_SIZE(sets));
	if (n > ARRAY_SIZE(sets))
		n = ARRAY_SIZE(sets);
	for (size_t i = 0; i < n; i++) {
		struct ulsm_hook_set *set = sets[i];
		struct ulsm_lsm_state *st = set->state;
		struct ulsm_lsm_set_info info = {
			.name = set->name,
			.sealed = st && st->sealed,
			.toggle_allowed = st && st->toggle_allowed,
			.unloadable = set->unloadable != 0,
			.set = set,
		};

		fn(arg, &info);
	}
	ulsm_lsm_unlock();
	return (int)n;
}

/* Each claimed set traced, or not, as its tracepoint's tracers ask. */
static int trace_sync(void)
{
	struct ulsm_hook_set *sets[64];
	size_t n = ulsm_lsm_sets(sets, ARRAY_SIZE(sets));
	int ret = 0;

	if (n > ARRAY_SIZE(sets))
		n = ARRAY_SIZE(sets);
	for (size_t i = 0; i < n; i++) {
		int r = ulsm_lsm_trace_sync_set(sets[i]);

		if (r && !ret)
			ret = r;
	}
	return ret;
}

/*
 * What the control endpoint may ask of the framework: registered with the
 * first claimed set, so that it calls none of these by name.
 */
static const struct ulsm_lsm_ops framework_ops = {
	.each_set = each_set,
	.each_module = ulsm_lsm_each_module,
	.toggle = ulsm_lsm_toggle_report,
	.each_expected = ulsm_lsm_each_expected,
	.trace = ulsm_lsm_trace,
	.trace_sync = trace_sync,
	.trace_counts = ulsm_lsm_trace_counts,
};

/* The refusal's words for a key of a claimed set (ulsm_claims_describe). */
static const char *claimed_words(const void *key)
{
	/*
	 * Pairs with the release store of nclaimed in ulsm_lsm_claim() (this
	 * file): each set counted has its words written.
	 */
	unsigned int n = __atomic_load_n(&nclaimed, __ATOMIC_ACQUIRE);
	uintptr_t a = (uintptr_t)key;

	for (unsigned int i = 0; i < n; i++) {
		const struct claimed_set *c = &claimed[i];

		if (a >= c->keys && a < c->keys_end)
			return c->words[0];
		if (a >= c->sealed && a < c->sealed_end)
			return c->words[1];
	}
	return NULL;
}

int ulsm_lsm_claim(struct ulsm_hook_set *set)
{
	struct claimed_set *c;
	int ret;

	if (claimed_find(set))
		return 0;
	if (nclaimed == CLAIMED_MAX)
		return ulsm_error(-ENOSPC, "set %s: more than %d hook sets in "
				  "the process", set->name, CLAIMED_MAX);
	/* Under the patch lock: no public update is half-way past its check. */
	ret = ulsm_lock();
	if (ret)
		return ret;
	c = &claimed[nclaimed];
	c->set = set;
	c->name = set->name ? set->name : "?";
	c->keys = (uintptr_t)set->keys;
	c->keys_end = c->keys + set->keys_size;
	c->sealed = (uintptr_t)set->sealed;
	c->sealed_end = c->sealed + set->sealed_size;
	snprintf(c->words[0], sizeof(c->words[0]), "a slot or tail key of hook "
		 "set %s: only the framework changes it (ulsm_lsm_toggle)",
		 c->name);
	snprintf(c->words[1], sizeof(c->words[1]), "a slot call of hook set "
		 "%s, which is sealed", c->name);
	/* The keys region is the slot and tail keys, and nothing else. */
	for (size_t off = 0; off + sizeof(struct static_key) <= set->keys_size;
	     off += sizeof(struct static_key))
		ulsm_key_claim((struct static_key *)((char *)set->keys + off));
	ulsm_claims_describe(claimed_words);
	/*
	 * Pairs with the acquire loads of nclaimed in claimed_find(),
	 * ulsm_lsm_sets() and claimed_words() (this file): the entry, filled
	 * above, is seen with the count.
	 */
	__atomic_store_n(&nclaimed, nclaimed + 1, __ATOMIC_RELEASE);
	ulsm_unlock();
	ulsm_lsm_ops_register(&framework_ops);
	return 0;
}

/* Claim, or give back, the slot calls' keys (ulsm_call_claim). */
static void claim_calls(struct ulsm_hook_set *set, bool sealed)
{
	for (size_t i = 0; i < set->nhooks * set->slots; i++) {
		const struct ulsm_hook_guard *g = ulsm_lsm_guard(set, i);

		if (sealed)
			ulsm_call_claim(set->table[i].key);
		else
			ulsm_call_unclaim(set->table[i].key);
		if (g && sealed)
			ulsm_call_claim(g->inner);
		else if (g)
			ulsm_call_unclaim(g->inner);
	}
}

static int protect(struct ulsm_hook_set *set, void *addr, size_t len,
		   const char *what)
{
	int ret = ulsm_sys_mprotect(addr, len, PROT_READ);

	if (ret)
		return ulsm_error(ret, "set %s: cannot seal the %s: %s",
				  set->name, what, strerror(-ret));
	return 0;
}

static void seal_for_good(void *addr, size_t len, const char *what)
{
	/* Linux 6.10+; older kernels say ENOSYS and mprotect must do. */
	int ret = ulsm_sys_mseal(addr, len);

	if (ret && ret != -ENOSYS)
		ulsm_debug("mseal of the %s failed: %s", what, strerror(-ret));
}

/*
 * All or nothing: both ranges are made read-only before either is
 * mseal()ed, since a sealed range can never be made writable again. If
 * the second mprotect fails, the first is undone and the set is as it
 * was. Only if that undo fails too is the set left half read-only; it
 * then counts as sealed, so that nothing (registration, public updates)
 * writes to its read-only tables, and the error is returned.
 */
static int seal(struct ulsm_hook_set *set)
{
	bool keys = !set->state->toggle_allowed;
	int ret, undo = 0;

	/* Under the patch lock: no public update is half-way past its check. */
	ret = ulsm_lock();
	if (ret)
		return ret;
	/* While the keys can still be written: refused from now on. */
	claim_calls(set, true);
	/*
	 * A set open to plug-ins (ulsm_lsm_allow_plugins) keeps its memory
	 * writable: a module that arrives or leaves writes its slots' calls,
	 * keys and owners. Sealing closes the public API and the opt-ins.
	 */
	if (set->state->plugins_allowed) {
		set->state->sealed = true;
		ulsm_unlock();
		return 0;
	}
	ret = protect(set, set->sealed, set->sealed_size, "hook tables");
	if (!ret && keys) {
		ret = protect(set, set->keys, set->keys_size, "slot keys");
		if (ret)
			undo = ulsm_sys_mprotect(set->sealed, set->sealed_size,
						 PROT_READ | PROT_WRITE);
		if (undo)
			ulsm_error(ret, "set %s: cannot seal the slot keys, nor "
				   "make the hook tables writable again (%s): "
				   "the set counts as sealed", set->name,
				   strerror(-undo));
	}
	if (!ret) {
		seal_for_good(set->sealed, set->sealed_size, "hook tables");
		if (keys)
			seal_for_good(set->keys, set->keys_size, "slot keys");
	}
	if (!ret || undo)
		set->state->sealed = true;
	else
		claim_calls(set, false);	/* writable again, or never protected */
	ulsm_unlock();
	return ret;
}

/*
 * The objects of the modules a seal keeps: a set that allows unloading
 * but no more plug-ins. Each is held before the framework's lock is
 * taken (ulsm_loaded_hold: the dynamic linker's lock comes first), for
 * good once sealed, dropped again if the seal fails.
 */
struct holds {
	size_t n;
	struct ulsm_hold *h;
	bool *moved;		/* the slots aimed past their guards */
};

static bool keeps_modules(const struct ulsm_hook_set *set)
{
	return set->unloadable && !set->state->plugins_allowed;
}

/*
 * Hold the objects of @set's active modules: 0 (none to hold, too), or
 * -ENOMEM with nothing held. Takes the framework's lock for the list,
 * and drops it before the dynamic linker is called; a module that
 * arrives in between, or whose object the linker will not hold (said on
 * standard error), is not held, and keeps its guards.
 */
static int hold_modules(struct ulsm_hook_set *set, struct holds *hs)
{
	const void **at = NULL;
	size_t n = 0;
	int ret = 0;

	hs->n = 0;
	hs->h = NULL;
	hs->moved = NULL;
	ulsm_lsm_lock();
	if (!ulsm_lsm_state_of(set)) {
		ret = -ENOMEM;
	} else if (!set->state->sealed && keeps_modules(set)) {
		for (struct lsm_info *m = set->state->modules; m; m = m->next)
			n += m->ulsm_state == MOD_ACTIVE;
		at = n ? ulsm_calloc(n, sizeof(*at)) : NULL;
		if (n && !at)
			ret = -ENOMEM;
		n = 0;
		for (struct lsm_info *m = set->state->modules; at && m;
		     m = m->next)
			if (m->ulsm_state == MOD_ACTIVE)
				at[n++] = m;
	}
	ulsm_lsm_unlock();
	if (ret || !n)
		return ret;
	hs->h = ulsm_calloc(n, sizeof(*hs->h));
	hs->moved = ulsm_calloc((size_t)set->nhooks * set->slots + 1,
				sizeof(*hs->moved));
	if (hs->h && hs->moved)
		hs->n = ulsm_lsm_hold_objects(set, hs->h, at, n, "sealing: "
					      "its module keeps its guards");
	ulsm_free(at);
	if (hs->h && hs->moved)
		return 0;
	ulsm_free(hs->h);
	ulsm_free(hs->moved);
	hs->h = NULL;
	hs->moved = NULL;
	return -ENOMEM;
}

/*
 * Sealing, framework lock held: while the tables can still be written,
 * the slots of the modules whose objects are held (or kept already) are
 * aimed at their callbacks, past the guards; aimed back if the seal
 * fails. Whether the holds are kept: *@keep.
 */
static int seal_holding(struct ulsm_hook_set *set, struct holds *hs,
			bool *keep)
{
	bool pin = keeps_modules(set) && hs->n;
	int ret;

	*keep = false;
	ret = ulsm_lsm_claim(set);
	if (ret)
		return ret;
	for (size_t i = 0; pin && i < hs->n; i++)
		ulsm_loaded_publish(&hs->h[i]);
	if (pin)
		ret = ulsm_lsm_aim_guards(set, hs->h, hs->n, hs->moved, false);
	if (!ret)
		ret = seal(set);
	if (!ret || set->state->sealed) {
		*keep = pin;
		return ret;
	}
	/* Not aimed back: called directly, so held for good. */
	if (pin && ulsm_lsm_aim_guards(set, hs->h, hs->n, hs->moved, true)) {
		*keep = true;
		return ret;
	}
	for (size_t i = 0; pin && i < hs->n; i++)
		ulsm_loaded_unpublish(&hs->h[i]);
	return ret;
}

ULSM_API int ulsm_lsm_seal(struct ulsm_hook_set *set)
{
	struct holds hs;
	bool keep = false;
	int ret;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_seal: NULL set");
	ulsm_config_init();
	ret = hold_modules(set, &hs);
	if (ret)
		return ret;
	ulsm_lsm_lock();
	if (!ulsm_lsm_state_of(set))
		ret = -ENOMEM;
	else if (set->state->sealed)
		ret = ulsm_error(-EALREADY, "set %s is already sealed", set->name);
	else
		/*
		 * A set may be sealed without being initialised. Its modules
		 * can no longer leave, so their objects stay.
		 */
		ret = seal_holding(set, &hs, &keep);
	ulsm_lsm_unlock();
	/* Kept: the references are never dropped. */
	for (size_t i = 0; !keep && i < hs.n; i++)
		ulsm_loaded_release(&hs.h[i]);
	ulsm_free(hs.h);
	ulsm_free(hs.moved);
	return ret;
}

enum opt_in { OPT_TOGGLE, OPT_PLUGINS };

/* An opt-in, before sealing: the toggle, or plug-ins after sealing. */
static int opt_in(struct ulsm_hook_set *set, enum opt_in what)
{
	const char *name = what == OPT_TOGGLE ? "toggle" : "plugins";
	int ret = 0;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_allow_%s: NULL set", name);
	ulsm_lsm_lock();
	if (!ulsm_lsm_state_of(set))
		ret = -ENOMEM;
	else if (set->state->sealed)
		ret = ulsm_error(-EPERM, "set %s is sealed: opt in to %s before "
				 "sealing", set->name, name);
	else if (what == OPT_TOGGLE)
		set->state->toggle_allowed = true;
	else
		set->state->plugins_allowed = true;
	ulsm_lsm_unlock();
	return ret;
}

ULSM_API int ulsm_lsm_allow_toggle(struct ulsm_hook_set *set)
{
	return opt_in(set, OPT_TOGGLE);
}

ULSM_API int ulsm_lsm_allow_plugins(struct ulsm_hook_set *set)
{
	return opt_in(set, OPT_PLUGINS);
}
