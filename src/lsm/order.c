// SPDX-License-Identifier: MIT
/*
 * Modules and their order: registration, the order string, and
 * ulsm_lsm_init(), which decides which modules run and initialises them.
 * The kernel's ordered_lsm_init() and its helpers, with "!name" removals
 * and one list of modules per set.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/lsm.h>

#include "lsm_internal.h"

/*
 * Register @info with @set; @signature is the hook list the module's unit
 * was compiled with (DEFINE_LSM passes it), NULL if unknown.
 */
static int lsm_register(struct lsm_info *info, struct ulsm_hook_set *set,
			const char *signature)
{
	struct ulsm_lsm_state *st;
	struct lsm_info **pp;
	int ret = 0;

	if (!info || !set || !info->name || !*info->name)
		return ulsm_error(-EINVAL, "ulsm_lsm_register: a module needs "
				  "a set and a name");
	ulsm_config_init();
	ulsm_lsm_lock();
	st = ulsm_lsm_state_of(set);
	if (!st) {
		ret = -ENOMEM;
	} else if (signature && set->signature &&
		   strcmp(signature, set->signature)) {
		/*
		 * Compiled against another hook list: its LSM_HOOK_INIT
		 * addresses other slots than the set's (a callback called
		 * for another hook). Never silent.
		 */
		ret = ulsm_error(-EPROTO, "module %s was compiled with another "
				 "hook list than set %s's defining unit; "
				 "refused", info->name, set->name);
		ulsm_lsm_note(set, info->name, true, "compiled with another "
			      "hook list than the set's defining unit "
			      "(ULSM_LSM_HOOK_DEFS differs); refused");
	} else {
		for (pp = &st->modules; *pp; pp = &(*pp)->next)
			if (*pp == info)
				goto out;
		if (st->initialised &&
		    ulsm_lsm_find_module(st, info->name, strlen(info->name))) {
			ret = ulsm_error(-EEXIST, "module %s: set %s has a "
					 "module of that name already",
					 info->name, set->name);
			goto out;
		}
		info->set = set;
		info->next = NULL;
		info->ulsm_state = MOD_REGISTERED;
		*pp = info;
		/* Late: a plug-in's constructor. It comes up in its place. */
		if (st->initialised) {
			ret = ulsm_lsm_arrive(set, info);
			if (info->ulsm_state != MOD_ACTIVE &&
			    info->ulsm_state != MOD_FAILED)
				info->ulsm_state = MOD_OFF;
		}
	}
out:
	ulsm_lsm_unlock();
	return ret;
}

ULSM_API int ulsm_lsm_register(struct lsm_info *info, struct ulsm_hook_set *set)
{
	return lsm_register(info, set, NULL);
}

ULSM_API int ulsm__lsm_register(struct lsm_info *info,
				struct ulsm_hook_set *set,
				const char *signature)
{
	return lsm_register(info, set, signature);
}


/*
 * The order string (docs/hook-framework.md, "The order string"):
 *
 *	order	:= entry ( "," entry )*
 *	entry	:= blanks [ "!" blanks ] name blanks
 *	blanks	:= ( " " | "\t" )*
 *
 * A name is everything else up to the comma, blanks inside it included
 * (module names have none). One tokenizer serves names and removals, so a
 * blank means the same on both sides, and between "!" and the name. An
 * entry with an empty name ("", "!", " ") is ignored.
 */
struct order_token {
	const char *name;
	size_t len;
	bool removal;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && is_blank(*s))
		s++;
	return s;
}

/*
 * The entry at *@p: false at the end of the string, else fill @t and move
 * *@p past the entry and its comma. Each byte is looked at a constant
 * number of times, so a walk over the string is linear in its length.
 */
static bool next_token(const char **p, struct order_token *t)
{
	const char *s = *p, *end;

	if (!s || !*s)
		return false;
	end = s + strcspn(s, ",");
	*p = *end ? end + 1 : end;
	s = skip_blanks(s, end);
	t->removal = s < end && *s == '!';
	if (t->removal)
		s = skip_blanks(s + 1, end);
	while (end > s && is_blank(end[-1]))
		end--;
	t->name = s;
	t->len = (size_t)(end - s);
	return true;
}

/* For "%.*s": a name longer than INT_MAX is shown cut. */
static int shown_len(size_t len)
{
	return len > INT_MAX ? INT_MAX : (int)len;
}

/*
 * The modules of a set by name, for ordering: an open-addressing hash
 * table, so that each entry of the order string costs a constant time
 * however many modules there are, and a removal mark per module. Two
 * modules with the same name are one name: the first registered answers
 * for both (as ulsm_lsm_find_module() does) and a removal removes both.
 */
struct module_index {
	struct lsm_info **slot;		/* mask + 1 of them; NULL: free */
	bool *removed;			/* per slot */
	size_t mask;
};

static size_t name_hash(const char *name, size_t len)
{
	size_t h = 2166136261u;		/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

/* The slot of the first module named @name, or of the free slot for it. */
static size_t index_pos(const struct module_index *x, const char *name,
			size_t len)
{
	size_t i = name_hash(name, len) & x->mask;

	/* The table is at most half full: there is always a free slot. */
	while (x->slot[i] && (strlen(x->slot[i]->name) != len ||
			      memcmp(x->slot[i]->name, name, len)))
		i = (i + 1) & x->mask;
	return i;
}

static int index_build(struct module_index *x, struct ulsm_lsm_state *st,
		       size_t count)
{
	size_t size = 2;

	/* At least twice the modules; lsm_info structures bound the count. */
	while (size < count * 2)
		size *= 2;
	x->mask = size - 1;
	x->slot = ulsm_calloc(size, sizeof(*x->slot));
	x->removed = ulsm_calloc(size, sizeof(*x->removed));
	if (!x->slot || !x->removed)
		return -ENOMEM;
	for (struct lsm_info *m = st->modules; m; m = m->next) {
		size_t i = index_pos(x, m->name, strlen(m->name));

		if (!x->slot[i])
			x->slot[i] = m;
	}
	return 0;
}

static void index_free(struct module_index *x)
{
	ulsm_free(x->slot);
	ulsm_free(x->removed);
	x->slot = NULL;
	x->removed = NULL;
}

static struct lsm_info *index_find(const struct module_index *x,
				   const char *name, size_t len)
{
	return x->slot[index_pos(x, name, len)];
}

static bool index_removed(const struct module_index *x,
			  const struct lsm_info *m)
{
	return x->removed[index_pos(x, m->name, strlen(m->name))];
}

/*
 * One walk over the order given at run time: mark every "!name" module
 * removed, wherever the removal stands, before anything is ordered. Return
 * whether the string names any module (not only removals).
 */
/*
 * "!name" of a module not registered (yet) is kept as a removed place, so
 * that the module is not brought up if it arrives later: at most
 * MAX_REMOVED_UNKNOWN of them, since each name of the order is compared
 * with them (the walk stays linear in the string's length).
 */
#define MAX_REMOVED_UNKNOWN	16

static bool removed_unknown(struct ulsm_lsm_state *st, const char *name,
			    size_t len)
{
	for (size_t i = 0; i < st->npos; i++)
		if (st->pos[i].cls == POS_REMOVED &&
		    strlen(st->pos[i].name) == len &&
		    !memcmp(st->pos[i].name, name, len))
			return true;
	return false;
}

static bool mark_removals(struct ulsm_lsm_state *st, struct module_index *x,
			  const char *order, const char *origin)
{
	struct order_token t;
	bool names = false;
	int unknown = 0;

	while (next_token(&order, &t)) {
		size_t i;

		if (!t.len)
			continue;
		if (!t.removal) {
			names = true;
			continue;
		}
		i = index_pos(x, t.name, t.len);
		if (x->slot[i])
			x->removed[i] = true;
		else if (unknown++ < MAX_REMOVED_UNKNOWN)
			(void)ulsm_lsm_position_add(st, t.name, t.len,
						    POS_REMOVED);
		else
			ulsm_debug("%s: removal of unknown module %.*s ignored",
				   origin, shown_len(t.len), t.name);
	}
	return names;
}

/* A module is ordered at most once: its state says whether it is. */
static void append(struct ulsm_lsm_state *st, const struct module_index *x,
		   struct lsm_info *m, const char *from)
{
	if (index_removed(x, m)) {
		m->ulsm_state = MOD_OFF;
		ulsm_lsm_note(m->set, m->name, false, "removed by \"!%s\" in "
			      "the order (%s)", m->name, from);
		return;
	}
	if (m->ulsm_state == MOD_ORDERED) {
		ulsm_debug("%s: duplicate %s ignored", from, m->name);
		return;
	}
	st->ordered[st->nordered++] = m;
	m->ulsm_state = MOD_ORDERED;
	/* Best effort: without it, a module arriving later goes last. */
	if (ulsm_lsm_position_add(st, m->name, strlen(m->name),
				  m->order == LSM_ORDER_FIRST ? POS_FIRST :
				  m->order == LSM_ORDER_LAST ? POS_LAST :
				  POS_LISTED))
		ulsm_debug("%s: no memory for %s's place", from, m->name);
	ulsm_debug("%s: ordered %s", from, m->name);
}

/*
 * First, then the order string (its removals are already marked, and
 * removal entries here are skipped: a built-in order's "!name" means
 * nothing), then last. NULL @order: every mutable module.
 */
/*
 * A name the order lists that no module has (yet): its place, for when a
 * module of that name arrives (a plug-in), unless the order removes it.
 * At most MAX_PLACEHOLDERS of them (a hook has at most 64 slots, so more
 * could not be kept apart), each compared with the others: linear.
 */
#define MAX_PLACEHOLDERS	64

static void keep_place(struct ulsm_lsm_state *st, const char *name,
		       size_t len, const char *origin, int *placeholders)
{
	if (removed_unknown(st, name, len)) {
		ulsm_debug("%s: %.*s removed", origin, shown_len(len), name);
		return;
	}
	for (size_t i = 0; i < st->npos; i++)
		if (st->pos[i].cls == POS_LISTED &&
		    strlen(st->pos[i].name) == len &&
		    !memcmp(st->pos[i].name, name, len))
			return;		/* a duplicate */
	if (*placeholders >= MAX_PLACEHOLDERS) {
		ulsm_debug("%s: %.*s not registered, and more than %d such "
			   "names: ignored", origin, shown_len(len), name,
			   MAX_PLACEHOLDERS);
		return;
	}
	(*placeholders)++;
	ulsm_debug("%s: %.*s not registered (yet): its place is kept",
		   origin, shown_len(len), name);
	(void)ulsm_lsm_position_add(st, name, len, POS_LISTED);
}

static void parse_order(struct ulsm_lsm_state *st, const struct module_index *x,
			const char *order, const char *origin)
{
	struct order_token t;
	struct lsm_info *m;
	int placeholders = 0;

	for (m = st->modules; m; m = m->next)
		if (m->order == LSM_ORDER_FIRST)
			append(st, x, m, "first");

	if (order) {
		while (next_token(&order, &t)) {
			if (!t.len || t.removal)
				continue;
			m = index_find(x, t.name, t.len);
			if (!m)
				keep_place(st, t.name, t.len, origin,
					   &placeholders);
			else if (m->order != LSM_ORDER_MUTABLE)
				ulsm_debug("%s: %s is placed by its order "
					   "class; ignored here", origin, m->name);
			else
				append(st, x, m, origin);
		}
	} else {
		for (m = st->modules; m; m = m->next)
			if (m->order == LSM_ORDER_MUTABLE)
				append(st, x, m, origin);
	}

	for (m = st->modules; m; m = m->next)
		if (m->order == LSM_ORDER_LAST)
			append(st, x, m, "last");

	for (m = st->modules; m; m = m->next)
		if (m->ulsm_state == MOD_REGISTERED) {
			m->ulsm_state = MOD_OFF;
			ulsm_lsm_note(m->set, m->name, false, "not listed in the "
				      "order (%s)", origin);
		}
}

/*
 * The list of active modules, allocated before any module is initialised
 * (room for every module) so that filling it in afterwards cannot fail.
 */
static char *list_alloc(struct ulsm_lsm_state *st)
{
	size_t len = 1;

	for (struct lsm_info *m = st->modules; m; m = m->next)
		len += strlen(m->name) + 1;
	return ulsm_malloc(len);
}

static void list_fill(struct ulsm_hook_set *set, char *s)
{
	ulsm_lsm_list_write(set, s);
	ulsm_free(set->state->list);
	set->state->list = s;
}

ULSM_API int ulsm_lsm_init(struct ulsm_hook_set *set, const char *order)
{
	struct module_index x = { NULL, NULL, 0 };
	struct ulsm_lsm_state *st;
	struct lsm_info *exclusive = NULL, *m;
	const char *origin = "argument";
	char *list = NULL;
	size_t count = 0;
	int ret = 0;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_init: NULL set");
	ulsm_config_init();
	ulsm_lsm_lock();
	st = ulsm_lsm_state_of(set);
	if (!st) {
		ret = -ENOMEM;
		goto out;
	}
	if (st->initialised) {
		ret = ulsm_error(-EALREADY, "set %s is already initialised",
				 set->name);
		goto out;
	}
	for (m = st->modules; m; m = m->next)
		count++;
	/*
	 * Everything that can fail, before anything changes. From here on,
	 * the slot and tail keys are the framework's (src/lsm/seal.c).
	 */
	ret = ulsm_lsm_claim(set);
	if (!ret)
		ret = index_build(&x, st, count);
	if (!ret) {
		st->ordered = ulsm_calloc(count + 1, sizeof(*st->ordered));
		list = list_alloc(st);
		if (!st->ordered || !list)
			ret = -ENOMEM;
	}
	if (ret) {
		ulsm_free(st->ordered);
		st->ordered = NULL;
		ulsm_free(list);
		goto out;
	}
	if (!order) {
		order = getenv("ULSM_LSM");
		origin = "ULSM_LSM";
	}
	if (!mark_removals(st, &x, order, origin)) {
		/* Only "!name" entries: the default order, minus those. */
		order = set->builtin_order;
		origin = order ? "built-in order" : "every module";
	}
	parse_order(st, &x, order, origin);
	st->explicit_order = order != NULL;

	/* The kernel's lsm_allowed / prepare_lsm, then initialize_lsm. */
	for (size_t i = 0; i < st->nordered; i++) {
		m = st->ordered[i];
		if (m->enabled && !*m->enabled) {
			m->ulsm_state = MOD_OFF;
			ulsm_lsm_note(set, m->name, false, "disabled (its "
				      "enabled flag is 0)");
			continue;
		}
		if ((m->flags & LSM_FLAG_EXCLUSIVE) && exclusive) {
			m->ulsm_state = MOD_OFF;
			ulsm_lsm_note(set, m->name, true, "exclusive, and the "
				      "exclusive module %s is already on",
				      exclusive->name);
			continue;
		}
		/*
		 * Beyond the kernel, whose blob sizes cannot fail: a module
		 * refused for its blobs fails as its init would, and does
		 * not keep the next exclusive module out.
		 */
		if (ulsm_lsm_prepare_blobs(st, m)) {
			m->ulsm_state = MOD_FAILED;
			ulsm_lsm_note(set, m->name, true, "its blob sizes were "
				      "refused: %s", ulsm_last_error());
			continue;
		}
		if (m->flags & LSM_FLAG_EXCLUSIVE)
			exclusive = m;
	}
	st->initialised = true;
	for (size_t i = 0; i < st->nordered; i++) {
		m = st->ordered[i];
		if (m->ulsm_state != MOD_ORDERED)
			continue;
		ulsm_clear_error();
		ret = m->init ? m->init() : 0;
		m->ulsm_state = ret ? MOD_FAILED : MOD_ACTIVE;
		if (ret) {
			ulsm_lsm_note(set, m->name, true, "its init failed "
				      "(%d%s%s)", ret, *ulsm_last_error() ?
				      ": " : "", ulsm_last_error());
			continue;
		}
		ulsm_lsm_note_clear(set, m->name);
		/* Its object may not go: no sections to wait for. */
		if (!set->unloadable)
			ulsm_lsm_pin_object(set, m);
	}
	/* A module's init failing is the module's failure, not the set's. */
	ret = 0;
	list_fill(set, list);
	ulsm_lsm_watch_exit(set);
	ulsm_debug("set %s: %s", set->name, *st->list ? st->list : "(none)");
out:
	index_free(&x);
	ulsm_lsm_unlock();
	return ret;
}
