// SPDX-License-Identifier: MIT
/*
 * Static keys: the count, and patching every site of a key when the count
 * crosses zero. The kernel's kernel/jump_label.c semantics, with errors
 * returned instead of WARNs.
 *
 * A site jumps when (key enabled) ^ (its branch bit). All registered sites
 * of a key agree with the key's count at all times outside the patch lock
 * (registration brings new ones in line), so the instruction expected at a
 * site is derived from the count, and any other bytes there mean someone
 * else changed the code (-EILSEQ).
 *
 * The count is stored after the sites are patched (release), in the same
 * transaction (src/engine/txn.c): who reads the count as enabled will
 * also find every site enabled. On the generic back end the count is all
 * there is.
 */
#include <errno.h>
#include <limits.h>

#include <string.h>

#include "static/static.h"

/* In struct static_key.ulsm_flags, beside ULSM_KEY_INIT_TRUE. */
#define KEY_CLAIMED	(1u << 16)

/*
 * The key sites of an object's "ulsm_jump_table": decode a record, check
 * that its site holds the instruction it was compiled with (else refuse
 * it: it is never patched), record it, and queue the change if its key's
 * state is not the compiled one (a key enabled before the object was
 * loaded).
 */
static int collect_key_site(struct ulsm_collect *c, const void *record)
{
	const struct ulsm_jump_entry *e = record;
	const void *const *kref = (const void *const *)ulsm_rel(&e->kref);
	bool compiled = e->flags & ULSM_JUMP_COMPILED_JUMP, want;
	struct ulsm_site *s = &c->sites[c->n];
	const struct static_key *key;
	int ret;

	memset(s, 0, sizeof(*s));
	s->addr = ulsm_rel(&e->code);
	s->target = ulsm_rel(&e->target);
	s->key = (void *)(uintptr_t)*kref;
	s->owner = c->owner;
	s->kind = &ulsm_kind_key_site;
	s->branch = !!(e->flags & ULSM_JUMP_BRANCH);
	key = s->key;

	if (!key) {
		ret = ulsm_error(-EINVAL, "site %#lx has a NULL key",
				 (unsigned long)s->addr);
	} else {
		ret = ulsm_site_holds(s->addr, ulsm_branch(s->target, compiled));
		if (ret == -EILSEQ)
			ulsm_error(-EILSEQ, "site %#lx does not hold the "
				   "instruction it was compiled with; refused",
				   (unsigned long)s->addr);
		else if (ret)
			ulsm_error(-EINVAL, "site %#lx: jump out of reach",
				   (unsigned long)s->addr);
	}
	if (ret) {
		c->refused++;
		return 0;
	}
	c->n++;
	want = (__atomic_load_n(&key->enabled, __ATOMIC_RELAXED) > 0) ^
	       s->branch;
	if (want == compiled)
		return 0;
	return ulsm_txn_site(c->txn, ulsm_key_stage(want ^ s->branch), s->addr,
			     ulsm_branch(s->target, compiled),
			     ulsm_branch(s->target, want));
}

const struct ulsm_site_kind ulsm_kind_key_site = {
	.name = "key sites",
	.table = ULSM_TABLE_JUMP,
	.collect = collect_key_site,
};

static const char *(*claims_describe)(const void *key);

void ulsm_claims_describe(const char *(*describe)(const void *key))
{
	/*
	 * Pairs with the acquire load in ulsm_claim_words() (this file): the
	 * describer can be called once seen.
	 */
	__atomic_store_n(&claims_describe, describe, __ATOMIC_RELEASE);
}

void ulsm_key_claim(struct static_key *key)
{
	__atomic_fetch_or(&key->ulsm_flags, KEY_CLAIMED, __ATOMIC_RELAXED);
}

const char *ulsm_claim_words(const void *key)
{
	/*
	 * Pairs with the release store in ulsm_claims_describe() (this file).
	 */
	const char *(*describe)(const void *) =
		__atomic_load_n(&claims_describe, __ATOMIC_ACQUIRE);

	return describe ? describe(key) : NULL;
}

/* A claimed key: refused, with the claimant's words. Patch lock held. */
static int refuse_claimed(const struct static_key *key, const char *what)
{
	const char *why = ulsm_claim_words(key);

	return ulsm_error(-EPERM, "%s: key %p is %s; nothing written", what,
			  (const void *)key,
			  why ? why : "claimed by a layer above: only it "
			  "changes the key");
}

struct key_txn_arg {
	struct ulsm_txn *txn;
	bool from, to;
	enum ulsm_stage stage;
};

static int add_site(const struct ulsm_site *s, void *argp)
{
	struct key_txn_arg *arg = argp;
	int ret;

	ret = ulsm_txn_site(arg->txn, arg->stage, s->addr,
			    ulsm_branch(s->target, arg->from ^ s->branch),
			    ulsm_branch(s->target, arg->to ^ s->branch));
	if (ret && ret != -ENOMEM)
		ret = ulsm_error(ret, "site %#lx: cannot encode its jump",
				 (unsigned long)s->addr);
	return ret;
}

int ulsm_key_queue(struct ulsm_txn *t, struct static_key *key, int count,
		   enum ulsm_stage stage)
{
	struct key_txn_arg arg = { t, key->enabled > 0, count > 0, stage };
	int ret = 0;

	/* Sites move only when the key crosses zero. */
	if (arg.from != arg.to)
		ret = ulsm_registry_for_key(key, add_site, &arg);
	/*
	 * After the sites (release): who reads the count as enabled will
	 * also find every site enabled.
	 */
	if (!ret)
		ret = ulsm_txn_store_int(t, stage, ULSM_AFTER, &key->enabled,
					 count);
	return ret;
}

/* The key's count becomes @count, its sites following, in one transaction. */
static int key_set(struct static_key *key, int count)
{
	struct ulsm_txn t = ULSM_TXN_INIT;
	int ret;

	ret = ulsm_key_queue(&t, key, count, ulsm_key_stage(count > 0));
	if (!ret)
		ret = ulsm_txn_commit(&t);
	ulsm_txn_free(&t);
	return ret;
}

/* Common entry: check the key, take the lock. */
static int key_begin(struct static_key *key, const char *what)
{
	int ret;

	if (!key)
		return ulsm_error(-EINVAL, "%s: NULL key", what);
	ulsm_config_init();
	ulsm_clear_error();
	ret = ulsm_update_lock();
	if (ret)
		return ret;
	ret = ulsm_key_check(key, what);
	if (ret)
		ulsm_unlock();
	return ret;
}

int ulsm_key_check(const struct static_key *key, const char *what)
{
	/* A hook set's slot and tail keys are its framework's. */
	if (__atomic_load_n(&key->ulsm_flags, __ATOMIC_RELAXED) & KEY_CLAIMED)
		return refuse_claimed(key, what);
	if (key->enabled < 0)
		return ulsm_error(-EINVAL, "%s: key %p has a negative count (%d): "
				  "not a key, or corrupted", what,
				  (const void *)key, key->enabled);
	return 0;
}

/*
 * What the count @count becomes by one of the four functions below, or
 * a negative errno where that function refuses.
 */
typedef int key_count_fn(int count);

static int inc_count(int count)
{
	if (count == INT_MAX)
		return ulsm_error(-EOVERFLOW, "static_key_slow_inc: count overflow");
	return count + 1;
}

static int dec_count(int count)
{
	if (count == 0)
		return ulsm_error(-EINVAL, "static_key_slow_dec: unbalanced "
				  "decrement of a key whose count is 0");
	return count - 1;
}

static int enable_count(int count)
{
	return count ? count : 1;
}

static int disable_count(int count)
{
	if (count > 1)
		return ulsm_error(-EBUSY, "static_key_disable: the key is "
				  "reference counted (count %d): use dec",
				  count);
	return 0;
}

/*
 * The public entry of @what: under the lock, the key's count becomes
 * @next's, its sites following (nothing to do where the count stays).
 */
static int key_change(struct static_key *key, const char *what,
		      key_count_fn *next)
{
	int ret = key_begin(key, what);

	if (ret)
		return ret;
	ret = next(key->enabled);
	if (ret >= 0)
		ret = ret == key->enabled ? 0 : key_set(key, ret);
	ulsm_unlock();
	return ret;
}

ULSM_API int ulsm_static_key_slow_inc(struct static_key *key)
{
	return key_change(key, "static_key_slow_inc", inc_count);
}

ULSM_API int ulsm_static_key_slow_dec(struct static_key *key)
{
	return key_change(key, "static_key_slow_dec", dec_count);
}

ULSM_API int ulsm_static_key_enable(struct static_key *key)
{
	return key_change(key, "static_key_enable", enable_count);
}

ULSM_API int ulsm_static_key_disable(struct static_key *key)
{
	return key_change(key, "static_key_disable", disable_count);
}
