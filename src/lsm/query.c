// SPDX-License-Identifier: MIT
/*
 * Introspection: the active modules in order (what the kernel shows in
 * /sys/kernel/security/lsm), whether a module came up, and which module
 * sits in a slot; read-only views for tests, diagnostics and an
 * application's own reports.
 */
#include <errno.h>
#include <string.h>

#include "lsm_internal.h"

ULSM_API const char *ulsm_lsm_list(struct ulsm_hook_set *set)
{
	const char *s;

	if (!set)
		return "";
	ulsm_lsm_lock();
	s = set->state && set->state->list ? set->state->list : "";
	ulsm_lsm_unlock();
	return s;
}

ULSM_API int ulsm_lsm_module_active(struct ulsm_hook_set *set, const char *name)
{
	struct lsm_info *m;
	int ret;

	if (!set || !name)
		return ulsm_error(-EINVAL, "ulsm_lsm_module_active: bad arguments");
	ulsm_lsm_lock();
	m = set->state ?
	    ulsm_lsm_find_module(set->state, name, strlen(name)) : NULL;
	if (!m && set->state && ulsm_lsm_note_of(set->state, name))
		ret = 0;	/* refused at registration: it has a note */
	else if (!m)
		ret = ulsm_error(-ENOENT, "set %s has no module %s", set->name,
				 name);
	else
		ret = m->ulsm_state == MOD_ACTIVE;
	ulsm_lsm_unlock();
	return ret;
}

ULSM_API const struct lsm_id *ulsm_lsm_slot_owner(struct ulsm_hook_set *set,
						  const char *hook,
						  unsigned int slot)
{
	if (!set || !hook || slot >= set->slots)
		return NULL;
	for (size_t i = 0; i < set->nhooks; i++)
		if (!strcmp(set->hook_names[i], hook)) {
			const struct lsm_static_call *s =
				&set->table[i * set->slots + slot];

			return s->hl ? s->hl->lsmid : NULL;
		}
	return NULL;
}
