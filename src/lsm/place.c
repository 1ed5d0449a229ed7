// SPDX-License-Identifier: MIT
/*
 * Placement (docs/hook-framework.md, "Placement"): the places of the set's
 * order, kept by name (copies), and the slot each hook of a module gets:
 * a free slot between the slots of the modules placed before it and
 * after it, never one taken by moving another, with a gap kept for each
 * listed module that is not there yet, as far as the slots allow.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lsm_internal.h"

/* --- places ------------------------------------------------------------ */

static int key_cmp(const struct lsm_position *a, const struct lsm_position *b)
{
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

int ulsm_lsm_position_add(struct ulsm_lsm_state *st, const char *name,
			  size_t len, int cls)
{
	struct lsm_position *p, *v;
	long idx = 0;
	size_t at;

	v = ulsm_grow_array(st->pos, st->npos, &st->cappos, sizeof(*v), 16);
	if (!v)
		return -ENOMEM;
	st->pos = v;
	/* The end of its class: the places stay in order of keys. */
	for (at = 0; at < st->npos && st->pos[at].cls <= cls; at++)
		if (st->pos[at].cls == cls)
			idx = st->pos[at].idx + 1;
	p = &st->pos[at];
	memmove(p + 1, p, (st->npos - at) * sizeof(*p));
	p->name = ulsm_malloc(len + 1);
	if (!p->name) {
		memmove(p, p + 1, (st->npos - at) * sizeof(*p));
		return -ENOMEM;
	}
	memcpy(p->name, name, len);
	p->name[len] = '\0';
	p->cls = cls;
	p->idx = idx;
	st->npos++;
	return 0;
}

void ulsm_lsm_position_drop(struct ulsm_lsm_state *st,
			    const struct lsm_position *p)
{
	size_t at = (size_t)(p - st->pos);

	ulsm_free(st->pos[at].name);
	memmove(&st->pos[at], &st->pos[at + 1],
		(st->npos - at - 1) * sizeof(*st->pos));
	st->npos--;
}

const struct lsm_position *ulsm_lsm_position_of(struct ulsm_lsm_state *st,
						const char *name)
{
	for (size_t i = 0; i < st->npos; i++)
		if (st->pos[i].cls != POS_REMOVED && !strcmp(st->pos[i].name, name))
			return &st->pos[i];
	return NULL;
}

static struct lsm_info *module_named(struct ulsm_lsm_state *st,
				     const char *name)
{
	return ulsm_lsm_find_module(st, name, strlen(name));
}

static bool active(struct ulsm_lsm_state *st, const char *name)
{
	struct lsm_info *m = module_named(st, name);

	return m && m->ulsm_state == MOD_ACTIVE;
}

/* Active and dispatching: what ulsm_lsm_list() shows (toggled off: not). */
static bool listed(const struct ulsm_hook_set *set, struct lsm_info *m)
{
	return m && m->ulsm_state == MOD_ACTIVE &&
	       !ulsm_lsm_module_toggled_off(set, m);
}

int ulsm_lsm_place_of(struct ulsm_lsm_state *st, const char *name)
{
	int place = 0;

	for (size_t i = 0; i < st->npos; i++) {
		if (st->pos[i].cls == POS_REMOVED)
			continue;
		place++;
		if (!strcmp(st->pos[i].name, name))
			return place;
	}
	return 0;
}

/*
 * Whether ulsm_lsm_init() is about to bring @name's module up: it is
 * ordered, and neither disabled nor a second exclusive module (which its
 * bring-up will turn off). One whose blobs will be refused still counts:
 * a slot kept for it is only a gap.
 */
static bool to_come(struct ulsm_lsm_state *st, const char *name)
{
	struct lsm_info *m = module_named(st, name);

	return m && m->ulsm_state == MOD_ORDERED &&
	       !(m->enabled && !*m->enabled) &&
	       !((m->flags & LSM_FLAG_EXCLUSIVE) && ulsm_lsm_exclusive_on(st));
}

/* The place of the module in a slot; NULL: none (after every other). */
static const struct lsm_position *slot_place(struct ulsm_hook_set *set,
					     const struct lsm_static_call *s)
{
	return s->hl ? ulsm_lsm_position_of(set->state, s->hl->lsmid->name) :
	       NULL;
}

/* a < b, where NULL is after every place. */
static bool before(const struct lsm_position *a, const struct lsm_position *b)
{
	return a && (!b || key_cmp(a, b) < 0);
}

/*
 * No room for a hook of the module at @p: the slots before @lo hold
 * modules placed before it (or its own other callback of the hook), the
 * slot @lo one placed after it (or @lo is the end). Say which, and
 * whether the hook is full (a larger MAX_LSM_COUNT would help) or its
 * free slots are elsewhere (no gap was kept for it when its neighbours
 * came, and a module never moves), in @set's no_room: the module's note
 * says that rather than "its init failed".
 */
static void explain_no_room(struct ulsm_hook_set *set,
			    const struct lsm_static_call *scalls, int lo,
			    struct lsm_static_call *const *planned, int nplanned)
{
	struct ulsm_lsm_state *st = set->state;
	size_t hook = (size_t)(scalls - set->table) / set->slots;
	char *s = st->no_room;
	size_t len = sizeof(st->no_room);
	unsigned int used = 0;
	int n;

	for (unsigned int j = 0; j < set->slots; j++) {
		bool mine = false;

		for (int k = 0; k < nplanned; k++)
			mine |= planned[k] == &scalls[j];
		used += scalls[j].hl || mine;
	}
	if (used == set->slots) {
		snprintf(s, len, "no free slot for hook %s: all %u slots "
			 "(MAX_LSM_COUNT) are taken", set->hook_names[hook],
			 set->slots);
		return;
	}
	n = snprintf(s, len, "no free slot for hook %s in its place:",
		     set->hook_names[hook]);
	/* Slot lo - 1 without an owner yet: its own other callback. */
	if (lo > 0 && (size_t)n < len)
		n += snprintf(s + n, len - (size_t)n, " slot %d holds %s%s%s",
			      lo - 1,
			      scalls[lo - 1].hl ? scalls[lo - 1].hl->lsmid->name :
			      "its other callback", scalls[lo - 1].hl ?
			      " (before it)" : "",
			      lo < (int)set->slots ? "," : ";");
	if (lo < (int)set->slots && (size_t)n < len)
		n += snprintf(s + n, len - (size_t)n, " slot %d holds %s "
			      "(after it);", lo, scalls[lo].hl ?
			      scalls[lo].hl->lsmid->name : "?");
	if ((size_t)n < len)
		snprintf(s + n, len - (size_t)n, " %u of %u slots are free "
			 "elsewhere, and modules never move", set->slots - used,
			 set->slots);
}

int ulsm_lsm_choose_slot(struct ulsm_hook_set *set,
			 const struct lsm_position *p,
			 const struct lsm_static_call *scalls,
			 struct lsm_static_call *const *planned, int nplanned)
{
	struct ulsm_lsm_state *st = set->state;
	const struct lsm_position *prev = NULL;
	int lo = 0, hi = (int)set->slots, gaps = 0, coming = 0, s;

	for (int j = 0; j < (int)set->slots; j++) {
		const struct lsm_static_call *c = &scalls[j];
		const struct lsm_position *q;
		bool mine = false;

		for (int k = 0; k < nplanned; k++)
			mine |= planned[k] == c;
		if (!c->hl && !mine)
			continue;
		q = mine ? p : slot_place(set, c);
		if (mine || !before(p, q)) {
			/* Placed before @p (or @p's own): @p goes after it. */
			lo = j + 1;
			prev = q;
		} else if (j < hi) {
			hi = j;
		}
	}
	if (lo >= hi) {
		explain_no_room(set, scalls, lo, planned, nplanned);
		return -1;
	}
	if (!p)
		return lo;
	/*
	 * Gaps for listed modules not there, between prev and @p. With no
	 * module before @p in this hook (lo is 0), that is every place
	 * before @p's: prev is NULL then, which before() reads as "after
	 * every place", so it must not be asked.
	 */
	for (size_t i = 0; i < st->npos; i++) {
		const struct lsm_position *q = &st->pos[i];

		if (q->cls == POS_REMOVED || q == p)
			continue;
		if ((!lo || before(prev, q)) && before(q, p) &&
		    !active(st, q->name) && !to_come(st, q->name))
			gaps++;
		if (before(p, q) && to_come(st, q->name))
			coming++;
	}
	s = lo + gaps;
	if (s > hi - 1 - coming)
		s = hi - 1 - coming;
	return s < lo ? lo : s;
}

/* Append @name to the list being written at @s + *@at. */
static void list_put(char *s, size_t *at, const char *name)
{
	size_t n = strlen(name);

	if (*at)
		s[(*at)++] = ',';
	memcpy(s + *at, name, n);
	*at += n;
}

void ulsm_lsm_list_write(struct ulsm_hook_set *set, char *s)
{
	struct ulsm_lsm_state *st = set->state;
	size_t at = 0;

	for (size_t i = 0; i < st->npos; i++)
		if (st->pos[i].cls != POS_REMOVED &&
		    listed(set, module_named(st, st->pos[i].name)))
			list_put(s, &at, st->pos[i].name);
	/* Without memory for their places, in registration order. */
	for (struct lsm_info *m = st->modules; m; m = m->next)
		if (listed(set, m) && !ulsm_lsm_position_of(st, m->name))
			list_put(s, &at, m->name);
	s[at] = '\0';
}

/*
 * The set's list made anew (a module came, went, or was toggled); without
 * memory, the old one stays: stale, never wrong memory.
 */
void ulsm_lsm_list_refresh(struct ulsm_hook_set *set)
{
	char *list = ulsm_lsm_list_build(set);

	if (!list)
		return;
	ulsm_free(set->state->list);
	set->state->list = list;
}

char *ulsm_lsm_list_build(struct ulsm_hook_set *set)
{
	struct ulsm_lsm_state *st = set->state;
	size_t len = 1;
	char *s;

	for (struct lsm_info *m = st->modules; m; m = m->next)
		len += strlen(m->name) + 1;
	s = ulsm_malloc(len);
	if (s)
		ulsm_lsm_list_write(set, s);
	return s;
}

