// SPDX-License-Identifier: MIT
/*
 * Objects that hold modules and may not go: a set that does not allow
 * unloading has no read-side sections to wait for, and a sealed set's
 * tables can no longer be written. Such an object is kept mapped for good
 * (RTLD_NODELETE): a dlclose() of it then leaves it in place, with its
 * module, as musl's dlclose() always does.
 */
#include <errno.h>
#include <unistd.h>
#include <string.h>

#include "lsm_internal.h"

void ulsm_lsm_pin_object(struct ulsm_hook_set *set, struct lsm_info *m)
{
	/* In no object (-ENOENT): nothing would unload it. */
	if (ulsm_loaded_keep(m) == -ELIBACC)
		ulsm_report("set %s: module %s: %s: do not unload it",
			    set->name, m->name, ulsm_last_error());
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
