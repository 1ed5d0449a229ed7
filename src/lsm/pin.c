// SPDX-License-Identifier: MIT
/*
 * Objects that hold modules and may not go: a set that does not allow
 * unloading has no read-side sections to wait for, and a sealed set's
 * tables can no longer be written. Such an object is kept loaded for good:
 * a dlclose() of it then leaves it in place, with its module, as musl's
 * dlclose() always does.
 *
 * Never with the framework's lock held, since pinning calls the dynamic
 * linker: a plug-in's constructor runs with the linker's lock held, and
 * its module's registration takes the framework's (t_pin_lock). So a
 * registration or an init holds the objects of the modules it may bring
 * up before it takes the lock (a reference, dlopen RTLD_NOLOAD); under the
 * lock, a module that comes up marks its object's reference as kept, for
 * good; after the lock, the references not kept are dropped. A module
 * whose object was not held (one that registered while init held the
 * others, or whose object the linker would not hold) is pinned after the
 * lock (RTLD_NODELETE): for that moment a dlclose() of it would still
 * meet ulsm_lsm_keep_mapped() below.
 */
#include <errno.h>
#include <unistd.h>
#include <string.h>

#include "lsm_internal.h"

size_t ulsm_lsm_hold_objects(struct ulsm_hook_set *set, struct ulsm_hold *h,
			     const void *const *addrs, size_t n,
			     const char *refused)
{
	size_t held = 0;

	/* A module's lsm_info is in its object: no need to read it. */
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < held && !ulsm_loaded_holds(&h[j], addrs[i]))
			j++;
		if (j < held)
			continue;
		if (ulsm_loaded_hold(addrs[i], &h[held])) {
			h[held].obj.nsegs = 0;
			if (refused)
				ulsm_report("set %s: %s: %s", set->name,
					    ulsm_last_error(), refused);
		}
		held++;
	}
	return held;
}

int ulsm_lsm_pins_hold(struct ulsm_hook_set *set, struct ulsm_lsm_pins *p,
		       const void *const *mods, size_t n)
{
	memset(p, 0, sizeof(*p));
	if (set->unloadable || !n)
		return 0;
	p->h = ulsm_calloc(n, sizeof(*p->h));
	p->keep = ulsm_calloc(n, sizeof(*p->keep));
	if (!p->h || !p->keep) {
		ulsm_free(p->h);
		ulsm_free(p->keep);
		p->h = NULL;
		p->keep = NULL;
		return -ENOMEM;
	}
	/* Refused: not held; pinned after the lock, which says why. */
	p->n = ulsm_lsm_hold_objects(set, p->h, mods, n, NULL);
	return 0;
}

int ulsm_lsm_pins_room(struct ulsm_hook_set *set, struct ulsm_lsm_pins *p,
		       size_t n)
{
	if (set->unloadable || !n)
		return 0;
	p->late = ulsm_calloc(n, sizeof(*p->late));
	if (!p->late)
		return -ENOMEM;
	p->cap = n;
	return 0;
}

void ulsm_lsm_pin_object(struct ulsm_hook_set *set, struct ulsm_lsm_pins *p,
			 struct lsm_info *m)
{
	if (set->unloadable)
		return;
	for (size_t i = 0; i < p->n; i++)
		if (ulsm_loaded_holds(&p->h[i], m)) {
			/* Held (or kept already): never released now. */
			ulsm_loaded_publish(&p->h[i]);
			p->keep[i] = true;
			return;
		}
	if (p->nlate < p->cap)
		p->late[p->nlate++] = m;
	else
		ulsm_report("set %s: module %s: its object could not be kept "
			    "loaded (no memory): do not unload it", set->name,
			    m->name);
}

void ulsm_lsm_pins_finish(struct ulsm_hook_set *set, struct ulsm_lsm_pins *p)
{
	/* In no object (-ENOENT): nothing would unload it. */
	for (size_t i = 0; i < p->nlate; i++)
		if (ulsm_loaded_keep(p->late[i]) == -ELIBACC)
			ulsm_report("set %s: module %s: %s: do not unload it",
				    set->name, p->late[i]->name,
				    ulsm_last_error());
	for (size_t i = 0; i < p->n; i++)
		if (!p->keep[i])
			ulsm_loaded_release(&p->h[i]);
	ulsm_free(p->h);
	ulsm_free(p->keep);
	ulsm_free(p->late);
	memset(p, 0, sizeof(*p));
}

/*
 * Keep @m's object mapped for good, once its dlclose has begun and its
 * module could not leave: seal its segments (mseal, Linux 6.10+), so
 * that the dynamic linker's unmapping of the object fails and its code
 * and data stay where threads may still run and read them (glibc ignores
 * that failure; musl never unmaps). The object is gone from the linker's
 * list; its memory is never given back. Return 0 (also for the program,
 * which is never unmapped), or the seal's error when nothing could be
 * sealed.
 */
int ulsm_lsm_keep_mapped(const struct lsm_info *m)
{
	uintptr_t psz = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct ulsm_loaded f;
	int ret = -ENOENT, sealed = 0;

	if (ulsm_loaded_find(m, &f))
		return -ENOENT;
	if (f.program)
		return 0;
	/*
	 * One sealed page in the object's range makes the dynamic linker's
	 * one unmapping of it fail; all are sealed all the same, in case a
	 * loader unmaps segment by segment.
	 */
	for (int i = 0; i < f.nsegs; i++) {
		uintptr_t lo = f.seg[i].lo & ~(psz - 1);
		uintptr_t hi = (f.seg[i].hi + psz - 1) & ~(psz - 1);
		int r = ulsm_sys_mseal((void *)lo, hi - lo);

		sealed += !r;
		if (r)
			ret = r;
	}
	return sealed ? 0 : ret;
}
