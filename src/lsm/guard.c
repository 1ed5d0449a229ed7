// SPDX-License-Identifier: MIT
/*
 * Slots' guards (struct ulsm_hook_guard, <ulsm/lsm.h>): in a set that
 * allows unloading, only a module whose object may be unmapped is called
 * through a read-side section, its slot's guard; the program's modules
 * are called as in any other set (docs/hook-framework.md, "Departure and
 * the grace period").
 */
#include "lsm_internal.h"

const struct ulsm_hook_guard *ulsm_lsm_guard(const struct ulsm_hook_set *set,
					     size_t idx)
{
	const struct ulsm_hook_guard *g;

	if (!set->unloadable || !set->guards ||
	    idx >= set->nhooks * set->slots)
		return NULL;
	g = &set->guards[idx];
	return g->fn ? g : NULL;
}

/*
 * Code that stays mapped for good needs no guard (src/base/kept.c): the
 * program, an object loaded at start-up or linked with -z nodelete, one
 * the framework pinned (sealing, ulsm_lsm_pin), any object under musl.
 * Any other may be unmapped, as far as the library can tell: one that
 * the program opened with RTLD_NODELETE pays the guard all the same, and
 * so does code in no object.
 */
bool ulsm_lsm_needs_guard(const struct ulsm_hook_set *set, const void *fn)
{
	if (!set->unloadable || !set->guards)
		return false;
	return !ulsm_loaded_kept(fn);
}
