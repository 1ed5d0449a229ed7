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
 * Order of the two writes in an update:
 *   - to the indirect form (jmp *key.func): store func first, then patch,
 *     so the instruction never jumps through a stale pointer once there;
 *   - from indirect to indirect: only the store; an aligned 8-byte store is
 *     seen whole, and the instruction does not change;
 *   - otherwise: patch, then store (a thread still running the indirect
 *     form meanwhile goes to the old target, which is allowed mid-update).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lsm_internal.h"

ULSM_API long __static_call_return0(void)
{
	return 0;
}

ULSM_API void __static_call_nop(void)
{
}

static int tramp_insn(const struct static_call_key *key, uintptr_t tramp,
		      const void *func, struct ulsm_insn *out, int *form)
{
	return arch_encode_tramp(tramp, (uintptr_t)func, (uintptr_t)&key->func,
				 out, form);
}

int ulsm_calls_collect(const struct ulsm_call_entry *start,
		       const struct ulsm_call_entry *stop, const void *owner,
		       struct ulsm_site *sites, size_t *n, int *refused,
		       struct ulsm_batch *b)
{
	for (const struct ulsm_call_entry *e = start; e < stop; e++) {
		uintptr_t tramp = (uintptr_t)e->tramp;
		struct ulsm_insn cur, want;
		int form, ret;

		if (!e->key || !tramp) {
			(*refused)++;
			ulsm_error(-EINVAL, "static call entry %p is empty",
				   (const void *)e);
			continue;
		}
		if (arch_read_tramp(tramp, &cur, &form)) {
			(*refused)++;
			ulsm_error(-EILSEQ, "%#lx is not an intact static-call "
				   "trampoline; refused", (unsigned long)tramp);
			continue;
		}
		ret = tramp_insn(e->key, tramp, e->key->func, &want, &form);
		if (ret) {
			(*refused)++;
			ulsm_error(ret, "trampoline %#lx cannot reach %p",
				   (unsigned long)tramp, e->key->func);
			continue;
		}
		memset(&sites[*n], 0, sizeof(sites[*n]));
		sites[*n].addr = tramp;
		sites[*n].key = e->key;
		sites[*n].owner = owner;
		sites[*n].kind = ULSM_SITE_TRAMP;
		(*n)++;
		/* Compiled as "jmp func@PLT": go straight to the target. */
		if (memcmp(cur.bytes, want.bytes, want.len)) {
			ret = ulsm_batch_add(b, tramp, &cur, &want);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static void set_func(struct static_call_key *key, void *func)
{
	__atomic_store_n(&key->func, func, __ATOMIC_RELEASE);
}

static int find_tramp(const struct ulsm_site *s, void *arg)
{
	if (s->kind != ULSM_SITE_TRAMP)
		return 0;
	*(uintptr_t *)arg = s->addr;
	return 1;
}

/*
 * Call sites. A site calls its key's target directly when the target is in
 * reach, else (and for NULL) the trampoline, which holds the matching form.
 * Like a trampoline's, a site's instruction is always derived from the
 * key's func, so the bytes expected before a change are known.
 */
static uintptr_t site_callee(uintptr_t site, uintptr_t tramp, const void *func)
{
	struct ulsm_insn insn;

	if (func && !arch_encode_call(site, (uintptr_t)func, &insn))
		return (uintptr_t)func;
	if (func)
		ulsm_debug("call site %#lx cannot reach %p: it calls its "
			   "trampoline", (unsigned long)site, func);
	return tramp;
}

static int site_insn(const struct ulsm_site *s, const void *func,
		     struct ulsm_insn *out)
{
	return arch_encode_call(s->addr, site_callee(s->addr, s->target, func),
				out);
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

static int fresh_tramps_init(struct fresh_tramps *f,
			     const struct ulsm_site *sites, size_t n)
{
	f->n = 0;
	f->v = ulsm_malloc((n + 1) * sizeof(*f->v));
	if (!f->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (sites[i].kind == ULSM_SITE_TRAMP)
			f->v[f->n++] = &sites[i];
	qsort(f->v, f->n, sizeof(*f->v), cmp_site_key);
	return 0;
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

int ulsm_call_sites_collect(const struct ulsm_call_site *start,
			    const struct ulsm_call_site *stop,
			    const void *owner, struct ulsm_site *sites,
			    size_t *n, struct ulsm_batch *b)
{
	bool patchable = arch_calls_patchable();
	struct fresh_tramps fresh;
	int ret = fresh_tramps_init(&fresh, sites, *n);

	for (const struct ulsm_call_site *e = start; e < stop && !ret; e++) {
		const void *const *kref = (const void *const *)ulsm_rel(&e->kref);
		uintptr_t label = ulsm_rel(&e->ret), site = 0;
		struct static_call_key *key = (void *)(uintptr_t)*kref;
		uintptr_t tramp;
		struct ulsm_site *s = &sites[*n];
		struct ulsm_insn cur, want;

		if ((uintptr_t)key & 1) {
			/*
			 * A site of a hook's entry: the reference is to the
			 * struct ulsm_hook_entry, tagged, and @ret is the site
			 * itself (<ulsm/arch/x86_64.h>).
			 */
			ret = ulsm_hook_site_collect((const void *)
						     ((uintptr_t)key - 1), label,
						     owner, s, b);
			if (!ret)
				(*n)++;
			ret = ret > 0 ? 0 : ret;
			continue;
		}
		tramp = key ? tramp_of(key, &fresh) : 0;
		if (!patchable || !tramp ||
		    arch_find_call(label, tramp, &site)) {
			/* It keeps calling what it was compiled to call. */
			ulsm_stat_add(call_sites_skipped, 1);
			ulsm_debug("call site before %#lx left as compiled (%s)",
				   (unsigned long)label,
				   !patchable ? "shadow stack" :
				   !tramp ? "no trampoline known for its key" :
				   "not a direct call to the trampoline");
			continue;
		}
		memset(s, 0, sizeof(*s));
		s->addr = site;
		s->target = tramp;
		s->key = key;
		s->owner = owner;
		s->kind = ULSM_SITE_CALL;
		(*n)++;
		ulsm_stat_add(call_sites, 1);
		ret = arch_encode_call(site, tramp, &cur);
		if (!ret)
			ret = site_insn(s, key->func, &want);
		if (!ret && memcmp(cur.bytes, want.bytes, want.len))
			ret = ulsm_batch_add(b, site, &cur, &want);
	}
	ulsm_free(fresh.v);
	return ret;
}

struct sites_arg {
	const void *from, *to;
	struct ulsm_batch *b;
	bool hooks;
};

static int queue_site(const struct ulsm_site *s, void *arg)
{
	const struct sites_arg *a = arg;
	struct ulsm_insn old, new;
	int ret;

	if (s->kind == ULSM_SITE_HOOK && a->hooks)
		return ulsm_hook_site_retarget(s, a->from, a->to, a->b);
	if (s->kind != ULSM_SITE_CALL)
		return 0;
	ret = site_insn(s, a->from, &old);
	if (!ret)
		ret = site_insn(s, a->to, &new);
	if (!ret && memcmp(old.bytes, new.bytes, old.len))
		ret = ulsm_batch_add(a->b, s->addr, &old, &new);
	return ret;
}

static int has_hook_site(const struct ulsm_site *s, void *arg)
{
	(void)arg;
	return s->kind == ULSM_SITE_HOOK;
}

static int call_queue(struct static_call_key *key, uintptr_t tramp,
		      void *func, struct ulsm_batch *b, bool *func_first,
		      bool hooks)
{
	const struct ulsm_site *site = ulsm_registry_find(tramp);
	struct ulsm_insn old, new, cur;
	int ret, old_form, new_form, cur_form;

	*func_first = false;
	if (!site || site->kind != ULSM_SITE_TRAMP)
		return ulsm_error(-ENOENT, "static_call_update: %#lx is not a "
				  "registered trampoline", (unsigned long)tramp);
	if (site->key != key)
		return ulsm_error(-EINVAL, "static_call_update: trampoline "
				  "%#lx belongs to another key",
				  (unsigned long)tramp);
	if (arch_read_tramp(tramp, &cur, &cur_form))
		return ulsm_error(-EILSEQ, "static_call_update: trampoline %#lx "
				  "was changed by someone else; nothing written",
				  (unsigned long)tramp);
	ret = tramp_insn(key, tramp, key->func, &old, &old_form);
	if (!ret)
		ret = tramp_insn(key, tramp, func, &new, &new_form);
	if (ret)
		return ulsm_error(ret, "static_call_update: %p is out of the "
				  "trampoline's reach", func);
	if (!memcmp(old.bytes, new.bytes, old.len)) {
		/* Same instruction (indirect to indirect): a store is enough. */
		if (memcmp((const void *)tramp, old.bytes, old.len))
			return ulsm_error(-EILSEQ, "static_call_update: "
					  "trampoline %#lx does not hold the "
					  "expected instruction; nothing written",
					  (unsigned long)tramp);
	} else {
		*func_first = new_form == ULSM_SC_FORM_INDIRECT;
		ret = ulsm_batch_add(b, tramp, &old, &new);
		if (ret)
			return ret;
	}
	/*
	 * Hook entries call through the key when they emulate a call
	 * mid-patch, or reach a target out of rel32 reach: store first.
	 */
	if (hooks && ulsm_registry_for_key(key, has_hook_site, NULL))
		*func_first = true;
	/* The call sites, in the same batch (their own checks in step 0). */
	struct sites_arg arg = { key->func, func, b, hooks };

	return ulsm_registry_for_key(key, queue_site, &arg);
}

int ulsm_call_queue(struct static_call_key *key, uintptr_t tramp, void *func,
		    struct ulsm_batch *b, bool *func_first)
{
	return call_queue(key, tramp, func, b, func_first, true);
}

int ulsm_call_queue_no_hooks(struct static_call_key *key, uintptr_t tramp,
			     void *func, struct ulsm_batch *b,
			     bool *func_first)
{
	return call_queue(key, tramp, func, b, func_first, false);
}

static int update_locked(struct static_call_key *key, uintptr_t tramp,
			 void *func)
{
	struct ulsm_batch b = ULSM_BATCH_INIT;
	void *old_func = key->func;
	bool first;
	int ret;

	ret = ulsm_call_queue(key, tramp, func, &b, &first);
	if (!ret) {
		if (first)
			set_func(key, func);
		ret = ulsm_batch_apply(&b);
		set_func(key, ret ? old_func : func);
	}
	ulsm_batch_free(&b);
	return ret;
}

ULSM_API int __static_call_update(struct static_call_key *key, void *tramp,
				  void *func)
{
	int ret;

	if (!key)
		return ulsm_error(-EINVAL, "static_call_update: NULL key");
	ulsm_init();
	ulsm_clear_error();
	ret = ulsm_update_lock();
	if (ret)
		return ret;
	/* A sealed hook set's slot calls are read-only: refuse, write nothing. */
	ret = ulsm_lsm_check_update(key);
	if (ret) {
		ulsm_unlock();
		return ret;
	}
	if (arch_protocol == ULSM_PROTO_NONE)
		set_func(key, func);	/* the pointer is all there is */
	else
		ret = update_locked(key, (uintptr_t)tramp, func);
	ulsm_unlock();
	return ret;
}

ULSM_API int ulsm_static_call_form(const struct static_call_key *key)
{
	struct ulsm_insn cur;
	uintptr_t tramp = 0;
	int ret, form = 0;

	if (!key)
		return ulsm_error(-EINVAL, "ulsm_static_call_form: NULL key");
	if (arch_protocol == ULSM_PROTO_NONE)
		return ULSM_SC_FORM_POINTER;
	ulsm_init();
	ret = ulsm_lock();
	if (ret)
		return ret;
	ulsm_registry_for_key(key, find_tramp, &tramp);
	if (!tramp)
		ret = ulsm_error(-ENOENT, "no registered trampoline for key %p",
				 (const void *)key);
	else if (arch_read_tramp(tramp, &cur, &form))
		ret = -EILSEQ;
	else
		ret = form;
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
	uintptr_t callee;

	if (ulsm_hook_site_is_call(s)) {
		a->sites++;
		a->direct += ulsm_hook_site_calls(s, a->key->func);
		return 0;
	}
	if (s->kind != ULSM_SITE_CALL)
		return 0;
	a->sites++;
	if (!arch_decode_call(s->addr, &callee) && a->key->func &&
	    callee == (uintptr_t)a->key->func)
		a->direct++;
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
	if (arch_protocol == ULSM_PROTO_NONE)
		return 0;
	ulsm_init();
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
