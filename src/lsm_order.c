// SPDX-License-Identifier: MIT
/*
 * Modules and their order: registration, the order string, and
 * ulsm_lsm_init(), which decides which modules run and initialises them.
 * The kernel's ordered_lsm_init() and its helpers, with "!name" removals
 * and one list of modules per set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * <ulsm/lsm.h> comes before lsm_internal.h, so before ULSM_BUILDING_LIBRARY
 * is defined, and <ulsm/object.h> gives this file (alone in the library)
 * the constructor that registers the tables of the object it is linked
 * into, as in a program's own units. The hook framework has always done
 * so; moving the include after lsm_internal.h would drop it.
 */
#include <ulsm/lsm.h>

#include "lsm_internal.h"

ULSM_API int ulsm_lsm_register(struct lsm_info *info, struct ulsm_hook_set *set)
{
	struct ulsm_lsm_state *st;
	struct lsm_info **pp;
	int ret = 0;

	if (!info || !set || !info->name || !*info->name)
		return ulsm_error(-EINVAL, "ulsm_lsm_register: a module needs "
				  "a set and a name");
	ulsm_init();
	ulsm_lsm_lock();
	st = ulsm_lsm_state_of(set);
	if (!st) {
		ret = -ENOMEM;
	} else if (st->initialised) {
		ret = ulsm_error(-EPERM, "module %s: set %s is already "
				 "initialised", info->name, set->name);
	} else {
		for (pp = &st->modules; *pp; pp = &(*pp)->next)
			if (*pp == info)
				goto out;
		info->set = set;
		info->next = NULL;
		info->ulsm_state = MOD_REGISTERED;
		*pp = info;
	}
out:
	ulsm_lsm_unlock();
	return ret;
}

struct lsm_info *ulsm_lsm_find_module(struct ulsm_lsm_state *st,
				      const char *name, size_t len)
{
	for (struct lsm_info *m = st->modules; m; m = m->next)
		if (strlen(m->name) == len && !strncmp(m->name, name, len))
			return m;
	return NULL;
}

static bool is_ordered(struct ulsm_lsm_state *st, const struct lsm_info *m)
{
	for (size_t i = 0; i < st->nordered; i++)
		if (st->ordered[i] == m)
			return true;
	return false;
}

static void append(struct ulsm_lsm_state *st, struct lsm_info *m,
		   const char *from)
{
	if (is_ordered(st, m)) {
		ulsm_debug("%s: duplicate %s ignored", from, m->name);
		return;
	}
	st->ordered[st->nordered++] = m;
	m->ulsm_state = MOD_ORDERED;
	ulsm_debug("%s: ordered %s", from, m->name);
}

/* Is "!name" somewhere in @order? */
static bool removed(const char *order, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = order; p && *p; ) {
		size_t n = strcspn(p, ",");

		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		if (n == len + 1 && *p == '!' && !strncmp(p + 1, name, len))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/* Does @order name any module (not only "!name" removals)? */
static bool names_modules(const char *order)
{
	for (const char *p = order; p && *p; ) {
		size_t n = strcspn(p, ",");
		const char *name = p;

		while (n && (*name == ' ' || *name == '\t'))
			name++, n--;
		if (n && *name != '!')
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static void parse_order(struct ulsm_lsm_state *st, const char *order,
			const char *removals, const char *origin)
{
	struct lsm_info *m;

	for (m = st->modules; m; m = m->next)
		if (m->order == LSM_ORDER_FIRST && !removed(removals, m->name))
			append(st, m, "first");

	if (order) {
		for (const char *p = order; *p; ) {
			size_t n = strcspn(p, ",");
			const char *name = p;

			while (n && (*name == ' ' || *name == '\t'))
				name++, n--;
			while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
				n--;
			p += strcspn(p, ",");
			if (*p == ',')
				p++;
			if (!n || *name == '!')
				continue;
			m = ulsm_lsm_find_module(st, name, n);
			if (!m)
				ulsm_debug("%s: unknown module %.*s ignored",
					   origin, (int)n, name);
			else if (m->order != LSM_ORDER_MUTABLE)
				ulsm_debug("%s: %s is placed by its order "
					   "class; ignored here", origin, m->name);
			else if (!removed(removals, m->name))
				append(st, m, origin);
		}
	} else {
		for (m = st->modules; m; m = m->next)
			if (m->order == LSM_ORDER_MUTABLE &&
			    !removed(removals, m->name))
				append(st, m, origin);
	}

	for (m = st->modules; m; m = m->next)
		if (m->order == LSM_ORDER_LAST && !removed(removals, m->name))
			append(st, m, "last");

	for (m = st->modules; m; m = m->next)
		if (m->ulsm_state == MOD_REGISTERED) {
			m->ulsm_state = MOD_OFF;
			ulsm_debug("%s: %s not listed, off", origin, m->name);
		}
}
/*
 * All the memory initialisation needs, taken before anything changes:
 * once modules' hooks are in, nothing may fail (ulsm_lsm_init would
 * report an error for a set that is up), and a failure before must leave
 * the set as it was, so that ulsm_lsm_init can be called again.
 */
static int reserve(struct ulsm_lsm_state *st)
{
	size_t count = 0, len = 1;
	struct lsm_info **ordered;
	char *list;

	for (struct lsm_info *m = st->modules; m; m = m->next) {
		count++;
		len += strlen(m->name) + 1;
	}
	ordered = ulsm_calloc(count + 1, sizeof(*ordered));
	list = ulsm_malloc(len);
	if (!ordered || !list) {
		ulsm_free(ordered);
		ulsm_free(list);
		return ulsm_error(-ENOMEM, "no memory to order %zu modules",
				  count);
	}
	list[0] = '\0';
	ulsm_free(st->ordered);
	ulsm_free(st->list);
	st->ordered = ordered;
	st->nordered = 0;
	st->list = list;
	return 0;
}

/* The active modules, in order, into the reserved list. */
static void build_list(struct ulsm_lsm_state *st)
{
	char *end = st->list;

	for (size_t i = 0; i < st->nordered; i++) {
		size_t n = strlen(st->ordered[i]->name);

		if (st->ordered[i]->ulsm_state != MOD_ACTIVE)
			continue;
		if (end != st->list)
			*end++ = ',';
		memcpy(end, st->ordered[i]->name, n);
		end += n;
	}
	*end = '\0';
}

ULSM_API int ulsm_lsm_init(struct ulsm_hook_set *set, const char *order)
{
	struct ulsm_lsm_state *st;
	struct lsm_info *exclusive = NULL, *m;
	const char *origin = "argument", *removals;
	int ret = 0;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_init: NULL set");
	ulsm_init();
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
	if (!order) {
		order = getenv("ULSM_LSM");
		origin = "ULSM_LSM";
	}
	removals = order;
	if (!order || !*order || !names_modules(order)) {
		/* Only "!name" entries: the default order, minus those. */
		order = set->builtin_order;
		origin = order ? "built-in order" : "every module";
	}
	ret = reserve(st);
	if (ret)
		goto out;
	parse_order(st, order, removals, origin);

	/* The kernel's lsm_allowed / prepare_lsm, then initialize_lsm. */
	for (size_t i = 0; i < st->nordered; i++) {
		m = st->ordered[i];
		if (m->enabled && !*m->enabled) {
			m->ulsm_state = MOD_OFF;
			ulsm_debug("%s: disabled", m->name);
			continue;
		}
		if (m->flags & LSM_FLAG_EXCLUSIVE) {
			if (exclusive) {
				m->ulsm_state = MOD_OFF;
				ulsm_debug("%s: exclusive %s is already on, "
					   "skipped", m->name, exclusive->name);
				continue;
			}
			exclusive = m;
		}
		ulsm_lsm_prepare_blobs(st, m);
	}
	st->initialised = true;
	for (size_t i = 0; i < st->nordered; i++) {
		m = st->ordered[i];
		if (m->ulsm_state != MOD_ORDERED)
			continue;
		ret = m->init ? m->init() : 0;
		m->ulsm_state = ret ? MOD_FAILED : MOD_ACTIVE;
		if (ret)
			ulsm_debug("%s: init failed (%d), off", m->name, ret);
	}
	build_list(st);
	ret = 0;
	ulsm_debug("set %s: %s", set->name, st->list);
out:
	ulsm_lsm_unlock();
	return ret;
}
