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

/*
 * The list as a string that stays valid, and unchanged, for the set's
 * whole life: the set's own list is rewritten in place and reallocated
 * as modules come and go, while another thread may still be reading what
 * an earlier call returned. Each distinct list is copied once, and kept
 * (hosts see few distinct lists, however often plug-ins come and go).
 * Without memory for a new copy, the last one given (stale, never freed
 * memory). Framework lock held.
 */
static const char *shown_list(struct ulsm_lsm_state *st)
{
	const char *kept = ulsm_lsm_keep_text(&st->shown, &st->nshown,
					      st->list ? st->list : "");

	if (kept)
		return kept;
	return st->nshown ? st->shown[st->nshown - 1] : "";
}

ULSM_API const char *ulsm_lsm_list(struct ulsm_hook_set *set)
{
	const char *s;

	if (!set)
		return "";
	ulsm_lsm_lock();
	s = set->state ? shown_list(set->state) : "";
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

const char *ulsm_lsm_state_name(int state)
{
	switch (state) {
	case MOD_REGISTERED:
		return "registered";
	case MOD_OFF:
		return "off";
	case MOD_ORDERED:
		return "ordered";
	case MOD_ACTIVE:
		return "active";
	case MOD_FAILED:
		return "failed";
	default:
		return "?";
	}
}

void ulsm_lsm_module_info(struct ulsm_hook_set *set, struct lsm_info *m,
			  struct ulsm_lsm_module_info *info)
{
	struct ulsm_lsm_state *st = set->state;

	*info = (struct ulsm_lsm_module_info){
		.name = m->name,
		.state = ulsm_lsm_state_name(m->ulsm_state),
		.reason = ulsm_lsm_note_of(st, m->name),
	};
	info->position = ulsm_lsm_place_of(st, m->name);
	info->on = m->ulsm_state == MOD_ACTIVE &&
		   !ulsm_lsm_module_toggled_off(set, m);
}

/*
 * Each module of @set in the order's places (what ulsm_lsm_list() shows
 * of those active), then those without a place, in registration order.
 */
void ulsm_lsm_each_module(struct ulsm_hook_set *set,
			  void (*fn)(void *arg,
				     const struct ulsm_lsm_module_info *),
			  void *arg)
{
	struct ulsm_lsm_state *st = set->state;
	struct ulsm_lsm_module_info info;

	if (!st)
		return;
	for (size_t i = 0; i < st->npos; i++) {
		struct lsm_info *m;

		if (st->pos[i].cls == POS_REMOVED)
			continue;
		m = ulsm_lsm_find_module(st, st->pos[i].name,
					 strlen(st->pos[i].name));
		if (!m)
			continue;
		ulsm_lsm_module_info(set, m, &info);
		fn(arg, &info);
	}
	for (struct lsm_info *m = st->modules; m; m = m->next) {
		if (ulsm_lsm_position_of(st, m->name))
			continue;
		ulsm_lsm_module_info(set, m, &info);
		fn(arg, &info);
	}
}

void ulsm_lsm_each_expected(struct ulsm_hook_set *set,
			    void (*fn)(void *arg, const char *name), void *arg)
{
	struct ulsm_lsm_state *st = set->state;

	for (size_t i = 0; st && i < st->npos; i++)
		if (st->pos[i].cls == POS_LISTED &&
		    !ulsm_lsm_find_module(st, st->pos[i].name,
					  strlen(st->pos[i].name)))
			fn(arg, st->pos[i].name);
}
