// SPDX-License-Identifier: MIT
/*
 * Static calls: registering trampolines and retargeting them.
 *
 * The key's func field always holds the current target (static_call_query,
 * the generic back end, and the indirect form all read it). The trampoline
 * holds the instruction derived from it, so the instruction expected at a
 * trampoline is always encode(key->func); anything else means someone else
 * changed it (-EILSEQ).
 *
 * Order of the two writes in an update (the transaction's stores,
 * src/engine/txn.c, in the stage of the trampoline and its call sites):
 *   - to the indirect form (jmp *key.func): func stored first, then the
 *     code, so the instruction never jumps through a stale pointer once
 *     there;
 *   - from indirect to indirect: only the store; an aligned 8-byte store
 *     is seen whole, and the instruction does not change;
 *   - otherwise: the code, then the store (a thread still running the
 *     indirect form meanwhile goes to the old target, which is allowed
 *     mid-update).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "static/static.h"

/* In struct static_call_key.ulsm_flags. */
#define CALL_CLAIMED	1ul


/* What a trampoline's indirect form reads: the key's target. */
static uintptr_t tramp_slot(const struct static_call_key *key)
{
	return (uintptr_t)&key->func;
}

/*
 * The trampolines of an object's "ulsm_call_table": check each, record
 * it, and bring it in line with its key's target (it was compiled as a
 * jump to the initial target's PLT entry).
 */
static int collect_trampoline(struct ulsm_collect *c, const void *record)
{
	const struct ulsm_call_entry *e = record;
	uintptr_t tramp = (uintptr_t)e->tramp;
	struct ulsm_site *s = &c->sites[c->n];
	int ret;

	if (!e->key || !tramp) {
		c->refused++;
		ulsm_error(-EINVAL, "static call entry %p is empty",
			   (const void *)e);
		return 0;
	}
	/* Compiled as "jmp func@PLT": go straight to the target. */
	ret = ulsm_txn_tramp_adopt(c->txn, tramp, tramp_slot(e->key),
				   e->key->func);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		c->refused++;
		if (ret == -EILSEQ)
			ulsm_error(-EILSEQ, "%#lx is not an intact static-call "
				   "trampoline; refused", (unsigned long)tramp);
		else
			ulsm_error(ret, "trampoline %#lx cannot reach %p",
				   (unsigned long)tramp, e->key->func);
		return 0;
	}
	memset(s, 0, sizeof(*s));
	s->addr = tramp;
	s->key = e->key;
	s->owner = c->owner;
	s->kind = &ulsm_kind_trampoline;
	c->n++;
	return 0;
}

const struct ulsm_site_kind ulsm_kind_trampoline = {
	.name = "trampolines",
	.table = ULSM_TABLE_CALL,
	.collect = collect_trampoline,
};

int ulsm_call_check(const struct static_call_key *key, const char *what)
{
	const char *why;

	/* A sealed hook set's slot calls are read-only: refuse, write nothing. */
	if (!(__atomic_load_n(&key->ulsm_flags, __ATOMIC_RELAXED) &
	      CALL_CLAIMED))
		return 0;
	why = ulsm_claim_words(key);
	return ulsm_error(-EPERM, "%s: key %p is %s; nothing written", what,
			  (const void *)key, why ? why : "sealed read-only");
}

static int find_tramp(const struct ulsm_site *s, void *arg)
{
	if (s->kind != &ulsm_kind_trampoline)
		return 0;
	*(uintptr_t *)arg = s->addr;
	return 1;
}

#define SITE_TAIL	1	/* struct ulsm_site.role: a jump, a tail call */

/*
 * Tail sites: a static call's "jmp <trampoline>", recorded just after the
 * jump as a call site is (ULSM__ARCH_TAIL_SITE), on a back end whose
 * header writes them. A jump needs no return address, so it is emulated
 * mid-patch (the thread goes to the target) under a shadow stack too.
 *
 * What the site does to @target: a call, or a tail site's jump. A tail
 * site aimed at the instruction right after it is a NOP of the jump's
 * length (ULSM_OP_TAIL): the same path, with no taken branch (an APR run
 * function whose slots follow its run site, <ulsm/apr_hooks.h). Derived
 * like every other form, so the instruction expected before a change is
 * known either way.
 */
static struct ulsm_form site_form(const struct ulsm_site *s, uintptr_t target)
{
	return ulsm_form(s->role == SITE_TAIL ? ULSM_OP_TAIL : ULSM_OP_CALL,
			 target);
}

/* Whether tail site @s holds its instruction to @target. */
static bool tail_holds(const struct ulsm_site *s, uintptr_t target)
{
	return !ulsm_site_holds(s->addr, site_form(s, target));
}

/*
 * Call sites. A site calls its key's target directly when the target is in
 * reach, else (and for NULL) the trampoline, which holds the matching form.
 * Like a trampoline's, a site's instruction is always derived from the
 * key's func, so the bytes expected before a change are known.
 */
static uintptr_t site_callee(const struct ulsm_site *s, const void *func)
{
	if (func && ulsm_site_reaches(s->addr, site_form(s, (uintptr_t)func)))
		return (uintptr_t)func;
	if (func)
		ulsm_debug("call site %#lx cannot reach %p: it calls its "
			   "trampoline", (unsigned long)s->addr, func);
	return s->target;
}

/* What the site does while its key's target is @func. */
static struct ulsm_form site_follows(const struct ulsm_site *s,
				     const void *func)
{
	return site_form(s, site_callee(s, func));
}

/* The object's own trampolines, sorted by key, to look keys up in. */
struct fresh_tramps {
	const struct ulsm_site **v;
	size_t n;
};

static int cmp_site_key(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)(*(const struct ulsm_site *const *)a)->key;
	uintptr_t y = (uintptr_t)(*(const struct ulsm_site *const *)b)->key;

	return (x > y) - (x < y);
}

/*
 * The object's own trampolines, collected before its call sites (the
 * engine hands the tables over in order), sorted by key once, on the
 * first call site, and kept in the registration's scratch.
 */
static struct fresh_tramps *fresh_tramps(struct ulsm_collect *c)
{
	struct fresh_tramps *f = c->scratch[ULSM_TABLE_SITE];

	if (f)
		return f;
	f = ulsm_calloc(1, sizeof(*f) + (c->n + 1) * sizeof(*f->v));
	if (!f)
		return NULL;
	f->v = (const struct ulsm_site **)(f + 1);
	for (size_t i = 0; i < c->n; i++)
		if (c->sites[i].kind == &ulsm_kind_trampoline)
			f->v[f->n++] = &c->sites[i];
	qsort(f->v, f->n, sizeof(*f->v), cmp_site_key);
	c->scratch[ULSM_TABLE_SITE] = f;
	return f;
}

/* The trampoline of @key: the object's own, or a known one; 0 if none. */
static uintptr_t tramp_of(const struct static_call_key *key,
			  const struct fresh_tramps *f)
{
	struct ulsm_site probe = { .key = (void *)(uintptr_t)key };
	const struct ulsm_site *pp = &probe, *const *hit;
	uintptr_t tramp = 0;

	hit = bsearch(&pp, f->v, f->n, sizeof(*f->v), cmp_site_key);
	if (hit)
		return (*hit)->addr;
	ulsm_registry_for_key(key, find_tramp, &tramp);
	return tramp;
}

/*
 * The call sites of an object's "ulsm_call_sites": record one, and queue
 * it if its key's target is not the trampoline it was compiled to call. A
 * site is left alone (counted, not refused) when it does not hold "call
 * <the key's trampoline>" nor "jmp <the key's trampoline>" (a tail site,
 * above), which the object's own trampolines or the registry knows. A
 * site compiled as "call tramp@PLT" (a -fPIC shared object, where the
 * trampoline has default visibility) is patched like a direct call to
 * the trampoline, and calls the PLT entry where it would call the
 * trampoline (target NULL, or out of reach): ulsm_find_call().
 */
static int collect_call_site(struct ulsm_collect *c, const void *record)
{
	const struct ulsm_call_site *e = record;
	struct static_call_key *key = (void *)(uintptr_t)ulsm_site_record_ref(e);
	uintptr_t label = ulsm_site_record_addr(e), site = 0, tramp = 0, callee;
	struct ulsm_site *s = &c->sites[c->n];
	bool patchable = ulsm_caps()->calls_patchable, tail;
	struct fresh_tramps *fresh = fresh_tramps(c);

	if (!fresh)
		return ulsm_error(-ENOMEM, "no memory to sort %zu trampolines",
				  c->n);
	if (key)
		tramp = tramp_of(key, fresh);
	tail = tramp && !ulsm_find_jump(label, tramp, &site);
	patchable = patchable || tail;
	/* What the site calls as compiled: the trampoline, or its PLT entry. */
	callee = tramp;
	if (!tail && patchable && tramp &&
	    ulsm_find_call(label, tramp, &site, &callee))
		callee = 0;
	if (!patchable || !tramp || !callee) {
		/* It keeps calling what it was compiled to call. */
		ulsm_stat_add(call_sites_skipped, 1);
		ulsm_debug("call site before %#lx left as compiled (%s)",
			   (unsigned long)label,
			   !patchable ? "shadow stack" :
			   !tramp ? "no trampoline known for its key" :
			   "not a direct call to the trampoline or its PLT "
			   "entry");
		return 0;
	}
	memset(s, 0, sizeof(*s));
	s->addr = site;
	s->target = callee;
	s->key = key;
	s->owner = c->owner;
	s->kind = &ulsm_kind_call_site;
	s->role = tail ? SITE_TAIL : 0;
	c->n++;
	ulsm_stat_add(call_sites, 1);
	return ulsm_txn_site(c->txn, ULSM_STAGE_TARGETS, site,
			     site_form(s, callee), site_follows(s, key->func));
}

/* A call site follows its key's target: the call site kind's ops. */
static int call_site_retarget(const struct ulsm_site *s, const void *from,
			      const void *to, struct ulsm_txn *t)
{
	return ulsm_txn_site(t, ULSM_STAGE_TARGETS, s->addr,
			     site_follows(s, from), site_follows(s, to));
}

static int call_site_callee(const struct ulsm_site *s, uintptr_t *callee)
{
	const struct static_call_key *key = s->key;
	uintptr_t func;

	*callee = 0;
	if (s->role != SITE_TAIL) {
		ulsm_site_callee(s->addr, callee);
		return 1;
	}
	/* A tail site jumps to its key's target, or to the trampoline. */
	func = (uintptr_t)__atomic_load_n(&key->func, __ATOMIC_RELAXED);
	if (func && tail_holds(s, func))
		*callee = func;
	else if (tail_holds(s, s->target))
		*callee = s->target;
	return 1;
}

static const struct ulsm_call_follower call_site_ops = {
	.retarget = call_site_retarget,
	.callee = call_site_callee,
};

const struct ulsm_site_kind ulsm_kind_call_site = {
	.name = "call sites",
	.table = ULSM_TABLE_SITE,
	.collect = collect_call_site,
	.ops = &call_site_ops,
};

/* The follower ops of @s's kind, or NULL (a trampoline). */
static const struct ulsm_call_follower *follower(const struct ulsm_site *s)
{
	return s->kind == &ulsm_kind_trampoline ? NULL : s->kind->ops;
}

struct sites_arg {
	const void *from, *to;
	struct ulsm_txn *txn;
	const struct ulsm_site_kind *skip;
	bool reads_func;
};

static int queue_site(const struct ulsm_site *s, void *arg)
{
	struct sites_arg *a = arg;
	const struct ulsm_call_follower *f = follower(s);

	if (!f || s->kind == a->skip)
		return 0;
	a->reads_func |= f->reads_func;
	return f->retarget(s, a->from, a->to, a->txn);
}

static int any_tramp(const struct ulsm_site *s, void *arg)
{
	(void)arg;
	return s->kind == &ulsm_kind_trampoline;
}

/* The trampoline's change, if it has one; *@first: store the target first. */
static int queue_tramp(struct ulsm_txn *t, struct static_call_key *key,
		       uintptr_t tramp, void *func, bool *first)
{
	const struct ulsm_site *site = ulsm_registry_find(tramp);
	enum ulsm_static_call_form form;
	int ret;

	if (!site || site->kind != &ulsm_kind_trampoline)
		return ulsm_error(-ENOENT, "static_call_update: %#lx is not a "
				  "registered trampoline", (unsigned long)tramp);
	if (site->key != key)
		return ulsm_error(-EINVAL, "static_call_update: trampoline "
				  "%#lx belongs to another key",
				  (unsigned long)tramp);
	if (ulsm_tramp_form(tramp, &form))
		return ulsm_error(-EILSEQ, "static_call_update: trampoline %#lx "
				  "was changed by someone else; nothing written",
				  (unsigned long)tramp);
	/* The indirect form jumps through the key: the target goes first. */
	ret = ulsm_txn_tramp(t, tramp, tramp_slot(key), key->func, func, first);
	if (ret == -EILSEQ)
		/* Same instruction (indirect to indirect): a store is enough. */
		return ulsm_error(-EILSEQ, "static_call_update: trampoline "
				  "%#lx does not hold the expected instruction; "
				  "nothing written", (unsigned long)tramp);
	if (ret && ret != -ENOMEM)
		return ulsm_error(ret, "static_call_update: %p is out of the "
				  "trampoline's reach", func);
	return ret;
}

int ulsm_call_queue(struct ulsm_txn *t, struct static_call_key *key,
		    void *tramp, void *func, const struct ulsm_site_kind *skip)
{
	struct sites_arg arg = { key->func, func, t, skip, false };
	bool first = false;
	int ret = 0;

	if (tramp)
		ret = queue_tramp(t, key, (uintptr_t)tramp, func, &first);
	if (ret || key->func == func)
		return ret;	/* checked, and nothing to change */
	if (!tramp && ulsm_registry_for_key(key, any_tramp, NULL))
		ret = ulsm_error(-EINVAL, "static_call_update: key %p has a "
				 "trampoline, and none was given",
				 (const void *)key);
	/*
	 * The call sites and other followers, in the same stage (their own
	 * checks in step 0). A follower that calls through the key when it
	 * emulates a call mid-patch, or reaches a target out of rel32 reach
	 * (hook entries), needs the new target stored first.
	 */
	if (!ret)
		ret = ulsm_registry_for_key(key, queue_site, &arg);
	if (!ret)
		ret = ulsm_txn_store_ptr(t, ULSM_STAGE_TARGETS,
					 first || arg.reads_func ? ULSM_BEFORE :
					 ULSM_AFTER, &key->func, func);
	return ret;
}

ULSM_API int ulsm_static_call_update(struct static_call_key *key, void *tramp,
				  void *func)
{
	struct ulsm_txn t = ULSM_TXN_INIT;
	int ret;

	if (!key)
		return ulsm_error(-EINVAL, "static_call_update: NULL key");
	ulsm_config_init();
	ulsm_clear_error();
	ret = ulsm_update_lock();
	if (ret)
		return ret;
	ret = ulsm_call_check(key, "static_call_update");
	if (!ret)
		ret = ulsm_call_queue(&t, key, tramp, func, NULL);
	return ulsm_txn_finish(&t, ret);
}

ULSM_API int ulsm_static_call_form(const struct static_call_key *key)
{
	enum ulsm_static_call_form form;
	uintptr_t tramp = 0;
	int ret;

	if (!key)
		return ulsm_error(-EINVAL, "ulsm_static_call_form: NULL key");
	/* No code of its own: a pointer, loaded by every caller. */
	if (!ulsm_caps()->patches_code)
		return ULSM_SC_FORM_POINTER;
	ulsm_config_init();
	ret = ulsm_lock();
	if (ret)
		return ret;
	ulsm_registry_for_key(key, find_tramp, &tramp);
	if (!tramp)
		ret = ulsm_error(-ENOENT, "no registered trampoline for key %p",
				 (const void *)key);
	else if (ulsm_tramp_form(tramp, &form))
		ret = -EILSEQ;
	else
		ret = (int)form;
	ulsm_unlock();
	return ret;
}

struct count_arg {
	const struct static_call_key *key;
	int sites, direct;
};

static int count_site(const struct ulsm_site *s, void *arg)
{
	struct count_arg *a = arg;
	const struct ulsm_call_follower *f = follower(s);
	uintptr_t callee;

	if (!f || !f->callee(s, &callee))
		return 0;
	a->sites++;
	a->direct += a->key->func && callee == (uintptr_t)a->key->func;
	return 0;
}

int ulsm_call_sites_count(const struct static_call_key *key, int *direct)
{
	struct count_arg arg = { key, 0, 0 };

	ulsm_registry_for_key(key, count_site, &arg);
	*direct = arg.direct;
	return arg.sites;
}

ULSM_API int ulsm_static_call_sites(const struct static_call_key *key,
				    int *direct)
{
	struct count_arg arg = { key, 0, 0 };
	int ret;

	if (!key)
		return ulsm_error(-EINVAL, "ulsm_static_call_sites: NULL key");
	if (direct)
		*direct = 0;
	ulsm_config_init();
	ret = ulsm_lock();
	if (ret)
		return ret;
	ret = ulsm_call_sites_count(key, &arg.direct);
	ulsm_unlock();
	if (direct)
		*direct = arg.direct;
	return ret;
}

ULSM_API const char *ulsm_static_call_form_name(int form)
{
	switch (form) {
	case ULSM_SC_FORM_NULL:
		return "null";
	case ULSM_SC_FORM_DIRECT:
		return "direct";
	case ULSM_SC_FORM_INDIRECT:
		return "indirect";
	case ULSM_SC_FORM_POINTER:
		return "pointer";
	default:
		return "unknown";
	}
}

void ulsm_call_claim(struct static_call_key *key)
{
	__atomic_fetch_or(&key->ulsm_flags, CALL_CLAIMED, __ATOMIC_RELAXED);
}

void ulsm_call_unclaim(struct static_call_key *key)
{
	__atomic_fetch_and(&key->ulsm_flags, ~CALL_CLAIMED, __ATOMIC_RELAXED);
}
