// SPDX-License-Identifier: MIT
/*
 * The site registry: every patchable site of every registered object.
 *
 * It is read by the patcher (under the patch lock) to find a key's sites,
 * and by the breakpoint handler (in any thread, in signal context) to tell
 * our traps from others'. So it is an immutable snapshot behind an atomic
 * pointer: a change builds a new snapshot, publishes it, waits until no
 * handler can still read the old one, and frees it. Changes only happen at
 * dlopen/dlclose time, so copying is cheap enough.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

struct registry {
	size_t n;
	struct ulsm_site *by_addr;	/* sorted by address */
	struct ulsm_site *by_key;	/* sorted by key, then address */
};

static struct registry *current;

static int cmp_addr(const void *a, const void *b)
{
	const struct ulsm_site *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int cmp_key(const void *a, const void *b)
{
	const struct ulsm_site *x = a, *y = b;
	uintptr_t kx = (uintptr_t)x->key, ky = (uintptr_t)y->key;

	if (kx != ky)
		return (kx > ky) - (kx < ky);
	return cmp_addr(a, b);
}

static void registry_free(struct registry *r)
{
	if (!r)
		return;
	ulsm_free(r->by_addr);
	ulsm_free(r->by_key);
	ulsm_free(r);
}

/*
 * Removal must not fail (dlclose, a registration undone): without memory
 * for a new snapshot, the owner's sites are marked dead in place, which
 * the handler may see or not (it only reads a byte; a dead site no longer
 * traps, its object being gone or its code as compiled), and the next
 * snapshot leaves them out.
 */
static void mark_dead(struct registry *r, const void *owner)
{
	for (size_t i = 0; r && i < r->n; i++) {
		if (r->by_addr[i].owner == owner)
			__atomic_store_n(&r->by_addr[i].dead, 1, __ATOMIC_RELAXED);
		if (r->by_key[i].owner == owner)
			__atomic_store_n(&r->by_key[i].dead, 1, __ATOMIC_RELAXED);
	}
}

int ulsm_registry_set_owner(const void *owner, const struct ulsm_site *sites,
			    size_t n)
{
	struct registry *old = current, *r;
	size_t keep = 0, total;

	if (old)
		for (size_t i = 0; i < old->n; i++)
			keep += old->by_addr[i].owner != owner &&
				!old->by_addr[i].dead;
	total = keep + n;

	r = ulsm_calloc(1, sizeof(*r));
	if (r && total) {
		r->by_addr = ulsm_calloc(total, sizeof(*r->by_addr));
		r->by_key = ulsm_calloc(total, sizeof(*r->by_key));
		if (!r->by_addr || !r->by_key) {
			registry_free(r);
			r = NULL;
		}
	}
	if (!r) {
		if (n)
			return ulsm_error(-ENOMEM, "no memory to register %zu "
					  "sites", n);
		mark_dead(old, owner);
		return 0;
	}
	if (old)
		for (size_t i = 0; i < old->n; i++)
			if (old->by_addr[i].owner != owner &&
			    !old->by_addr[i].dead)
				r->by_addr[r->n++] = old->by_addr[i];
	for (size_t i = 0; i < n; i++)
		r->by_addr[r->n++] = sites[i];
	if (total) {
		qsort(r->by_addr, total, sizeof(*r->by_addr), cmp_addr);
		memcpy(r->by_key, r->by_addr, total * sizeof(*r->by_key));
		qsort(r->by_key, total, sizeof(*r->by_key), cmp_key);
	}

	/*
	 * Pairs with the load of current in ulsm_registry_is_site() (this
	 * file), against ulsm_handler_enter() (quiesce.c): a handler sees the
	 * new registry whole, or the wait below sees it inside before the old
	 * one is freed.
	 */
	__atomic_store_n(&current, r, __ATOMIC_SEQ_CST);
	ulsm_wait_for_handlers(&ulsm_trap_quiesce);
	registry_free(old);
	return 0;
}

int ulsm_registry_for_key(const void *key,
			  int (*fn)(const struct ulsm_site *site, void *arg),
			  void *arg)
{
	const struct registry *r = current;
	size_t lo = 0, hi;

	if (!r)
		return 0;
	/* First site whose key is not below @key. */
	hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)r->by_key[mid].key < (uintptr_t)key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < r->n && r->by_key[lo].key == key; lo++) {
		int ret;

		if (__atomic_load_n(&r->by_key[lo].dead, __ATOMIC_RELAXED))
			continue;
		ret = fn(&r->by_key[lo], arg);

		if (ret)
			return ret;
	}
	return 0;
}

static const struct ulsm_site *lookup(const struct registry *r, uintptr_t addr)
{
	const struct ulsm_site *s;

	if (!r)
		return NULL;
	s = ulsm_find_addr(r->by_addr, r->n, sizeof(*r->by_addr),
			   offsetof(struct ulsm_site, addr), addr);
	return s && !__atomic_load_n(&s->dead, __ATOMIC_RELAXED) ? s : NULL;
}

/* The live sites of @from (@n), up to @max to @out; how many there are. */
static size_t copy_live(const struct ulsm_site *from, size_t n,
			struct ulsm_site *out, size_t max)
{
	size_t live = 0;

	for (size_t i = 0; i < n; i++)
		if (!from[i].dead) {
			if (live < max)
				out[live] = from[i];
			live++;
		}
	return live;
}

size_t ulsm_registry_snapshot(struct ulsm_site *out, size_t max)
{
	const struct registry *r = current;

	return r ? copy_live(r->by_addr, r->n, out, max) : 0;
}

size_t ulsm_registry_snapshot_by_key(struct ulsm_site *out, size_t max)
{
	const struct registry *r = current;

	return r ? copy_live(r->by_key, r->n, out, max) : 0;
}

bool ulsm_registry_is_site(uintptr_t addr)
{
	/*
	 * Pairs with the store of current in ulsm_registry_set_owner() (this
	 * file): after ulsm_handler_enter(), either this handler sees the new
	 * registry or the patcher waits for it.
	 */
	return lookup(__atomic_load_n(&current, __ATOMIC_SEQ_CST), addr);
}

const struct ulsm_site *ulsm_registry_find(uintptr_t addr)
{
	return lookup(current, addr);
}
