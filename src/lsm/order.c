// SPDX-License-Identifier: MIT
/*
 * Modules and their order: registration, the order string, and
 * ulsm_lsm_init(), which decides which modules run and initialises them.
 * The kernel's ordered_lsm_init() and its helpers, with "!name" removals
 * and one list of modules per set. A module comes up one way, at init or
 * when it registers later (a plug-in): bring_up().
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/lsm.h>

#include "lsm_internal.h"

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
 * with them (the walk stays linear in the string's length). The removed
 * modules that are there get a removed place after the walk
 * (keep_removals).
 */
#define MAX_REMOVED_UNKNOWN	16

/* Whether the order removed @name: it has a removed place. */
static bool is_removed(struct ulsm_lsm_state *st, const char *name,
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

/* The class of @m's place in the order. */
static int order_class(const struct lsm_info *m)
{
	return m->order == LSM_ORDER_FIRST ? POS_FIRST :
	       m->order == LSM_ORDER_LAST ? POS_LAST : POS_LISTED;
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
				  order_class(m)))
		ulsm_debug("%s: no memory for %s's place", from, m->name);
	ulsm_debug("%s: ordered %s", from, m->name);
}

/*
 * The modules the order removed, as removed places (best effort, after
 * the string is parsed, which compares names with removed places): so
 * that such a module, if it leaves (dlclose) and comes back, stays off.
 */
static void keep_removals(struct ulsm_lsm_state *st,
			  const struct module_index *x)
{
	for (struct lsm_info *m = st->modules; m; m = m->next)
		if (index_removed(x, m) && !is_removed(st, m->name,
							    strlen(m->name)))
			(void)ulsm_lsm_position_add(st, m->name, strlen(m->name),
						    POS_REMOVED);
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
	if (is_removed(st, name, len)) {
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
 * Decide @st's order from @order, told by @origin in messages: which
 * modules come up and in which order (st->ordered, each module's state)
 * and the places kept for those to come (st->pos). NULL @order, or one of
 * removals only: the set's built-in order (minus the removals), else
 * every module. 0, or -ENOMEM with nothing changed.
 *
 * Apart from ulsm_lsm_init() so that the parser of a string that comes
 * from outside (ULSM_LSM) can be fuzzed on a scratch state, without the
 * bring-up, which a set allows once per process
 * (tests/fuzz/fuzz_order.c). Framework lock held.
 */
int ulsm_lsm_order_decide(struct ulsm_hook_set *set, struct ulsm_lsm_state *st,
			  const char *order, const char *origin)
{
	struct module_index x = { NULL, NULL, 0 };
	size_t count = 0;

	for (struct lsm_info *m = st->modules; m; m = m->next)
		count++;
	st->ordered = ulsm_calloc(count + 1, sizeof(*st->ordered));
	if (!st->ordered || index_build(&x, st, count)) {
		ulsm_free(st->ordered);
		st->ordered = NULL;
		index_free(&x);
		return -ENOMEM;
	}
	if (!mark_removals(st, &x, order, origin)) {
		/* Only "!name" entries: the default order, minus those. */
		order = set->builtin_order;
		origin = order ? "built-in order" : "every module";
	}
	parse_order(st, &x, order, origin);
	keep_removals(st, &x);
	st->explicit_order = order != NULL;
	index_free(&x);
	return 0;
}

/* --- the list of active modules ---------------------------------------- */

/* Room for every module's name and a separator, and the final NUL. */
static size_t list_size(const struct ulsm_lsm_state *st)
{
	size_t len = 1;

	for (const struct lsm_info *m = st->modules; m; m = m->next)
		len += strlen(m->name) + 1;
	return len;
}

/*
 * The list of active modules always has room for every module of an
 * initialised set, so that writing it when a module comes up cannot
 * fail (it used to be rebuilt after a late module came up, and stayed
 * without it when that allocation failed): room for @m, before @m joins.
 */
static int list_make_room(struct ulsm_lsm_state *st, const struct lsm_info *m)
{
	char *s = ulsm_reallocarray(st->list, list_size(st) + strlen(m->name) + 1,
				    1);

	if (!s)
		return -ENOMEM;
	if (!st->list)
		s[0] = '\0';
	st->list = s;
	return 0;
}

/* --- bringing a module up: at init, and when it arrives later -------- */

/*
 * The order's word on @m, which registered after ulsm_lsm_init() (at
 * init, parse_order() made the same decisions for every module, from the
 * string, and ordered it): ORDER_YES if it may come up. A first or last
 * module is placed by its class, whatever the string says, as at init; a
 * mutable one must be listed, unless the order is the default one
 * ("every module"); "!name" keeps any of them off.
 */
enum { ORDER_YES, ORDER_REMOVED, ORDER_NOT_LISTED };

static int order_admits(struct ulsm_lsm_state *st, const struct lsm_info *m)
{
	if (is_removed(st, m->name, strlen(m->name)))
		return ORDER_REMOVED;
	if (m->order == LSM_ORDER_MUTABLE && st->explicit_order &&
	    !ulsm_lsm_position_of(st, m->name))
		return ORDER_NOT_LISTED;
	return ORDER_YES;
}

/*
 * @m's place, made now if it has none of its class: a module the default
 * order appends, a first or last module that arrives later, or one whose
 * place could not be kept at init (no memory). A first or last module
 * whose name the string listed had that place kept while it was not
 * there: it goes, so that the module has one place, its class's (the
 * list of active modules names it once).
 */
static int take_place(struct ulsm_lsm_state *st, const struct lsm_info *m)
{
	int cls = order_class(m), ret;

	for (size_t i = 0; i < st->npos; i++)
		if (st->pos[i].cls == cls && !strcmp(st->pos[i].name, m->name))
			return 0;
	ret = ulsm_lsm_position_add(st, m->name, strlen(m->name), cls);
	for (size_t i = st->npos; !ret && i-- > 0;)
		if (st->pos[i].cls != cls && st->pos[i].cls != POS_REMOVED &&
		    !strcmp(st->pos[i].name, m->name))
			ulsm_lsm_position_drop(st, &st->pos[i]);
	return ret;
}

/*
 * Bring @m up, or say why not: the one way a module comes up, for each
 * module ulsm_lsm_init() ordered (MOD_ORDERED) and for a module that
 * registers later (a plug-in's constructor). In turn: the order, the
 * enabled flag, a sealed set, the exclusive module, the blobs, a place;
 * then its init; then the outcome is recorded: its state, its note
 * (printed if it could not come up), its object marked in @pins if it
 * may not leave (pinned once the lock is dropped), the list of active
 * modules. Return 0 if it came up or the host
 * chose to leave it off (not listed, removed, disabled), else why it
 * could not come up (-EPERM sealed, -EBUSY another exclusive module is
 * on, the blobs' error, -ENOMEM, its init's error). Lock held.
 */
static int bring_up(struct ulsm_hook_set *set, struct lsm_info *m,
		    struct ulsm_lsm_pins *pins)
{
	struct ulsm_lsm_state *st = set->state;
	struct lsm_info *x;
	bool was_arriving;
	int ret, type;

	switch (m->ulsm_state == MOD_ORDERED ? ORDER_YES : order_admits(st, m)) {
	case ORDER_REMOVED:
		m->ulsm_state = MOD_OFF;
		ulsm_lsm_note(set, m->name, false, "removed by \"!%s\" in the "
			      "order", m->name);
		return 0;
	case ORDER_NOT_LISTED:
		m->ulsm_state = MOD_OFF;
		ulsm_lsm_note(set, m->name, false, "not listed in the order");
		return 0;
	default:
		break;
	}
	if (m->enabled && !*m->enabled) {
		m->ulsm_state = MOD_OFF;
		ulsm_lsm_note(set, m->name, false, "disabled (its enabled flag "
			      "is 0)");
		return 0;
	}
	if (st->sealed && !st->plugins_allowed) {
		m->ulsm_state = MOD_OFF;
		ulsm_lsm_note(set, m->name, true, "the set is sealed "
			      "(ulsm_lsm_allow_plugins, before sealing, opens "
			      "it to modules that come up later)");
		return -EPERM;
	}
	if ((m->flags & LSM_FLAG_EXCLUSIVE) && (x = ulsm_lsm_exclusive_on(st))) {
		m->ulsm_state = MOD_OFF;
		ulsm_lsm_note(set, m->name, true, "exclusive, and the exclusive "
			      "module %s is already on", x->name);
		return -EBUSY;
	}
	/*
	 * Beyond the kernel, whose blob sizes cannot fail: a module refused
	 * for its blobs fails as its init would (and so does not keep the
	 * next exclusive module out). Once init is over, objects may have
	 * been allocated with the blobs as they are: no more space.
	 */
	if (st->blobs_fixed && (type = ulsm_lsm_blob_asked(set, m)) >= 0) {
		m->ulsm_state = MOD_FAILED;
		ulsm_lsm_note(set, m->name, true, "asks for %s blob space after "
			      "the set's blobs were laid out (ulsm_lsm_init); "
			      "a module that arrives later may not",
			      ulsm_lsm_blob_name(set, type));
		return -ENOSPC;
	}
	if (!st->blobs_fixed && (ret = ulsm_lsm_prepare_blobs(st, m))) {
		m->ulsm_state = MOD_FAILED;
		ulsm_lsm_note(set, m->name, true, "its blob sizes were "
			      "refused: %s", ulsm_last_error());
		return ret;
	}
	ret = take_place(st, m);
	if (ret) {
		m->ulsm_state = MOD_FAILED;
		ulsm_lsm_note(set, m->name, true, "no memory for its place");
		return ret;
	}

	m->ulsm_state = MOD_ORDERED;
	ulsm_clear_error();
	st->no_room[0] = '\0';
	/* Its registration may write a sealed set open to plug-ins. */
	was_arriving = st->arriving;
	st->arriving = true;
	ret = m->init ? m->init() : 0;
	st->arriving = was_arriving;

	m->ulsm_state = ret ? MOD_FAILED : MOD_ACTIVE;
	if (ret == -ENOSPC && st->no_room[0]) {
		/*
		 * security_add_hooks() found no slot: say which modules
		 * hold the slots around its place, not only the count.
		 */
		ulsm_error(ret, "module %s: %s", m->name, st->no_room);
		ulsm_lsm_note(set, m->name, true, "%s", st->no_room);
		return ret;
	}
	if (ret) {
		ulsm_lsm_note(set, m->name, true, "its init failed (%d%s%s)", ret,
			      *ulsm_last_error() ? ": " : "",
			      ulsm_last_error());
		return ret;
	}
	ulsm_lsm_note_clear(set, m->name);
	/* Its object may not go: no sections to wait for. */
	ulsm_lsm_pin_object(set, pins, m);
	ulsm_lsm_list_write(set, st->list);
	if (st->blobs_fixed)
		ulsm_debug("set %s: %s arrived: %s", set->name, m->name,
			   st->list);
	return 0;
}

/* --- registration ------------------------------------------------------- */

/*
 * Register @info with @set; @signature is the hook list the module's unit
 * was compiled with (DEFINE_LSM passes it), NULL if unknown.
 */
static int lsm_register(struct lsm_info *info, struct ulsm_hook_set *set,
			const char *signature)
{
	struct ulsm_lsm_pins pins;
	struct ulsm_lsm_state *st;
	struct lsm_info **pp;
	int ret = 0;

	if (!info || !set || !info->name || !*info->name)
		return ulsm_error(-EINVAL, "ulsm_lsm_register: a module needs "
				  "a set and a name");
	ret = ulsm_lsm_set_check(set);
	if (ret)
		return ret;
	ulsm_config_init();
	/* Its object, held before the lock (src/lsm/pin.c). */
	if (ulsm_lsm_pins_hold(set, &pins, (const void *[]){ info }, 1) ||
	    ulsm_lsm_pins_room(set, &pins, 1)) {
		ulsm_lsm_pins_finish(set, &pins);
		return ulsm_error(-ENOMEM, "module %s: no memory to register "
				  "it", info->name);
	}
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
		/* Before it joins: the list of active modules has its room. */
		if (st->initialised && list_make_room(st, info)) {
			ret = -ENOMEM;
			ulsm_lsm_note(set, info->name, true, "no memory to "
				      "register it");
			goto out;
		}
		info->set = set;
		info->next = NULL;
		info->ulsm_state = MOD_REGISTERED;
		*pp = info;
		/* Late: a plug-in's constructor. It comes up in its place. */
		if (st->initialised)
			ret = bring_up(set, info, &pins);
	}
out:
	ulsm_lsm_unlock();
	ulsm_lsm_pins_finish(set, &pins);
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
 * Before ulsm_lsm_init() takes the lock: hold the objects of the modules
 * registered so far (those that register meanwhile are pinned after it).
 * 0, or -ENOMEM with nothing held.
 */
static int hold_registered(struct ulsm_hook_set *set,
			   struct ulsm_lsm_pins *pins)
{
	const void **at = NULL;
	struct ulsm_lsm_state *st;
	size_t n = 0;
	int ret = 0;

	memset(pins, 0, sizeof(*pins));
	if (set->unloadable)
		return 0;
	ulsm_lsm_lock();
	st = ulsm_lsm_state_of(set);
	if (st && !st->initialised) {
		for (struct lsm_info *m = st->modules; m; m = m->next)
			n++;
		at = n ? ulsm_calloc(n, sizeof(*at)) : NULL;
		if (n && !at)
			ret = -ENOMEM;
		n = 0;
		for (struct lsm_info *m = st->modules; at && m; m = m->next)
			at[n++] = m;
	}
	ulsm_lsm_unlock();
	if (!ret)
		ret = ulsm_lsm_pins_hold(set, pins, at, n);
	ulsm_free(at);
	return ret;
}

ULSM_API int ulsm_lsm_init(struct ulsm_hook_set *set, const char *order)
{
	struct ulsm_lsm_pins pins;
	struct ulsm_lsm_state *st;
	struct lsm_info *m;
	const char *origin = "argument";
	char *list = NULL;
	size_t count = 0;
	int ret = 0;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_init: NULL set");
	ret = ulsm_lsm_set_check(set);
	if (ret)
		return ret;
	ulsm_config_init();
	if (hold_registered(set, &pins))
		return ulsm_error(-ENOMEM, "set %s: no memory to initialise "
				  "it", set->name);
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
		ret = ulsm_lsm_pins_room(set, &pins, count);
	if (!ret) {
		list = ulsm_malloc(list_size(st));
		if (!list)
			ret = -ENOMEM;
	}
	if (!order) {
		order = getenv("ULSM_LSM");
		origin = "ULSM_LSM";
	}
	/* The last thing that can fail: it changes nothing when it does. */
	if (!ret)
		ret = ulsm_lsm_order_decide(set, st, order, origin);
	if (ret) {
		ulsm_free(list);
		goto out;
	}

	/* From here on, a module that registers arrives (lsm_register). */
	list[0] = '\0';
	st->list = list;
	st->initialised = true;
	/* The kernel's prepare_lsm and initialize_lsm, module by module. */
	for (size_t i = 0; i < st->nordered; i++)
		if (st->ordered[i]->ulsm_state == MOD_ORDERED)
			(void)bring_up(set, st->ordered[i], &pins);
	/* A module's init failing is the module's failure, not the set's. */
	ret = 0;
	st->blobs_fixed = true;
	ulsm_lsm_watch_exit(set);
	ulsm_debug("set %s: %s", set->name, *st->list ? st->list : "(none)");
	if ((set->unloadable || st->plugins_allowed) && ulsm_program_is_static())
		ulsm_report("set %s takes plug-ins, but this program is linked "
			    "statically: a plug-in cannot find the set in it "
			    "(its dlopen fails with \"undefined symbol: "
			    "ulsm_hook_set_%s__...\"). Link the program "
			    "dynamically, with -rdynamic, to load plug-ins",
			    set->name, set->name);
out:
	ulsm_lsm_unlock();
	ulsm_lsm_pins_finish(set, &pins);
	return ret;
}
