// SPDX-License-Identifier: MIT
/*
 * Objects kept for good: whether the code at an address may be unmapped
 * while threads still run it, as far as the library can tell. The hook
 * framework calls a module directly when it may not be (src/lsm/guard.c),
 * through its slot's guard when it may.
 *
 * Kept: what the dynamic linker never unloads (src/base/startup.c), and
 * each object the library itself pinned (ulsm_loaded_keep, RTLD_NODELETE:
 * the modules of a set that does not allow unloading), and each one it
 * holds a reference to, for good (ulsm_loaded_hold, then publish: the
 * modules of a sealed set; a reference taken without the framework's
 * lock, and dropped again if the seal fails).
 * A pinned object never moves, so its segments are remembered, in a
 * table that only grows: a slot is claimed, filled, then published (its
 * end stored last, with release), and a reader takes a range whose end it
 * reads non-zero (acquire). No lock: it is read from a fork child and
 * under the framework's lock alike. Past MAX_KEPT objects the rest are
 * pinned all the same but not remembered: their modules keep their guards
 * (correct, slower).
 *
 * Under musl, dlclose() unmaps nothing: any object is kept (code in no
 * object, one a program mapped itself, is not).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>

#include "base/base.h"

#define MAX_KEPT	64

static struct ulsm_range kept[MAX_KEPT * ULSM_LOADED_SEGS];
static unsigned int nkept;		/* ranges claimed */

#if defined(__GLIBC__) || defined(__UCLIBC__) || defined(__BIONIC__)
# define DLCLOSE_UNMAPS	1
#else
# define DLCLOSE_UNMAPS	0		/* musl */
#endif

static bool remembered(uintptr_t addr)
{
	unsigned int n = __atomic_load_n(&nkept, __ATOMIC_RELAXED);

	if (n > ARRAY_SIZE(kept))
		n = ARRAY_SIZE(kept);
	for (unsigned int i = 0; i < n; i++) {
		/*
		 * Pairs with the release stores of hi in remember() and
		 * ulsm_loaded_unpublish() (this file): a range whose end is
		 * seen has its start.
		 */
		uintptr_t hi = __atomic_load_n(&kept[i].hi, __ATOMIC_ACQUIRE);

		if (hi && addr >= kept[i].lo && addr < hi)
			return true;
	}
	return false;
}

/* Where @f's ranges went in the table, or ~0u when it is full. */
static unsigned int remember(const struct ulsm_loaded *f)
{
	unsigned int at = __atomic_fetch_add(&nkept, (unsigned int)f->nsegs,
					     __ATOMIC_RELAXED);

	if (at + (unsigned int)f->nsegs > ARRAY_SIZE(kept))
		return ~0u;
	for (int i = 0; i < f->nsegs; i++) {
		kept[at + i].lo = f->seg[i].lo;
		/*
		 * Pairs with the acquire load of hi in remembered() (this
		 * file): the start, stored above, is seen with the end.
		 */
		__atomic_store_n(&kept[at + i].hi, f->seg[i].hi,
				 __ATOMIC_RELEASE);
	}
	return at;
}

int ulsm_loaded_keep(const void *addr)
{
	struct ulsm_loaded f;
	const char *err;
	void *h;

	if (ulsm_loaded_find(addr, &f))
		return -ENOENT;
	if (f.program || remembered((uintptr_t)addr))
		return 0;
	h = dlopen(f.name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
	if (!h) {
		err = dlerror();
		return ulsm_error(-ELIBACC, "%s cannot be kept loaded (%s)",
				  f.name, err ? err : "not found");
	}
	/* The reference is dropped; the object stays (NODELETE). */
	dlclose(h);
	remember(&f);
	return 0;
}

int ulsm_loaded_hold(const void *addr, struct ulsm_hold *h)
{
	const char *err;

	h->handle = NULL;
	h->at = ~0u;
	if (ulsm_loaded_find(addr, &h->obj) || h->obj.program) {
		h->obj.nsegs = 0;
		return 0;
	}
	/* Kept already: its segments known, nothing to hold. */
	if (ulsm_loaded_kept(addr))
		return 0;
	h->handle = dlopen(h->obj.name, RTLD_NOW | RTLD_NOLOAD);
	if (!h->handle) {
		err = dlerror();
		return ulsm_error(-ELIBACC, "%s cannot be held loaded (%s)",
				  h->obj.name, err ? err : "not found");
	}
	return 0;
}

bool ulsm_loaded_publish(struct ulsm_hold *h)
{
	if (h->handle && h->at == ~0u)
		h->at = remember(&h->obj);
	return h->at != ~0u;
}

/*
 * Its ranges read as empty from now on (their slots stay used): a reader
 * that took one a moment before holds the framework's lock, as the one
 * who publishes and unpublishes does, or sees the object still held.
 */
void ulsm_loaded_unpublish(struct ulsm_hold *h)
{
	if (h->at == ~0u)
		return;
	/*
	 * Pairs with the acquire load of hi in remembered() (this file): the
	 * range then reads as empty; the release publishes nothing.
	 */
	for (int i = 0; i < h->obj.nsegs; i++)
		__atomic_store_n(&kept[h->at + i].hi, 0, __ATOMIC_RELEASE);
	h->at = ~0u;
}

bool ulsm_loaded_holds(const struct ulsm_hold *h, const void *addr)
{
	for (int i = 0; i < h->obj.nsegs; i++)
		if ((uintptr_t)addr >= h->obj.seg[i].lo &&
		    (uintptr_t)addr < h->obj.seg[i].hi)
			return true;
	return false;
}

void ulsm_loaded_release(struct ulsm_hold *h)
{
	ulsm_loaded_unpublish(h);
	if (h->handle)
		dlclose(h->handle);
	h->handle = NULL;
}

bool ulsm_loaded_kept(const void *addr)
{
	struct ulsm_loaded f;

	if (!DLCLOSE_UNMAPS)
		return !ulsm_loaded_find(addr, &f);
	return remembered((uintptr_t)addr) || ulsm_loaded_for_good(addr);
}
