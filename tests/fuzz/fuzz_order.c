// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_order.c - the hook framework's order string (the
 * argument of ulsm_lsm_init(), or ULSM_LSM) under libFuzzer
 * (tests/fuzz/fuzz.mk; make check replays its corpus).
 *
 * An input is an order string, up to its first NUL byte; the bytes after
 * that NUL, if any, up to the next one, are the set's built-in order (else
 * it has none: every module). The string goes through
 * ulsm_lsm_order_decide() (src/lsm/order.c), the part of ulsm_lsm_init()
 * that reads it, on a scratch state of six modules: capa (first), alpha,
 * beta, gamma and a second beta (mutable), omega (last). The bring-up,
 * which patches code and happens once per set and process, is left out.
 *
 * What it decided is compared with what the grammar says
 * (docs/hook-framework.md, "The order string"), worked out here by a
 * tokenizer of the harness's own: which modules are ordered, in which
 * order, and that every other is off; the places it kept stay in order
 * and within their bounds. A difference aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsm/lsm_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NMODS = 6 };
static struct lsm_info mods[NMODS] = {
	{ .name = "capa", .order = LSM_ORDER_FIRST },
	{ .name = "alpha" }, { .name = "beta" }, { .name = "gamma" },
	{ .name = "beta" },	/* a second module of that name */
	{ .name = "omega", .order = LSM_ORDER_LAST },
};
static struct ulsm_hook_set set = { .size = sizeof(set), .name = "fz" };
/* Its notes stay from input to input: they are a few, by module name. */
static struct ulsm_lsm_state st;

/* At most this many places the order may keep (order.c's bounds). */
#define MAX_PLACES	(2 * NMODS + 64 + 16)

static void fail(const char *what, const char *order)
{
	fprintf(stderr, "fuzz_order: %s (order \"%.200s\")\n", what, order);
	abort();
}

/* --- the grammar, as the documentation says it ------------------------ */

struct entry {
	const char *name;
	size_t len;
	bool removal;
};

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The entry that starts at @s (up to a comma or the end): its name. */
static struct entry entry_at(const char *s)
{
	size_t n = strcspn(s, ","), i = 0;
	struct entry e = { 0 };

	while (i < n && blank(s[i]))
		i++;
	if (i < n && s[i] == '!') {
		e.removal = true;
		for (i++; i < n && blank(s[i]); i++)
			;
	}
	while (n > i && blank(s[n - 1]))
		n--;
	e.name = s + i;
	e.len = n - i;
	return e;
}

/* Each entry of @order with a name, to @fn; stop when it returns true. */
static bool each_entry(const char *order, bool (*fn)(void *arg, struct entry e),
		       void *arg)
{
	for (const char *s = order; s && *s;) {
		struct entry e = entry_at(s);
		size_t n = strcspn(s, ",");

		if (e.len && fn(arg, e))
			return true;
		s += n + (s[n] == ',');
	}
	return false;
}

static bool same(struct entry e, const char *name)
{
	return strlen(name) == e.len && !memcmp(e.name, name, e.len);
}

static bool is_name(void *arg, struct entry e)
{
	(void)arg;
	return !e.removal;
}

static bool removes(void *arg, struct entry e)
{
	return e.removal && same(e, arg);
}

struct expect {
	const char *order;		/* the order: the string, or built in */
	const char *given;		/* the string (its removals count) */
	struct lsm_info *ordered[NMODS];
	size_t n;
};

static bool removed(const struct expect *x, const struct lsm_info *m)
{
	return each_entry(x->given, removes, (void *)(uintptr_t)m->name);
}

/* The first module of @e's name: two of one name are one name. */
static struct lsm_info *first_named(struct entry e)
{
	for (int i = 0; i < NMODS; i++)
		if (same(e, mods[i].name))
			return &mods[i];
	return NULL;
}

static void place(struct expect *x, struct lsm_info *m)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->ordered[i] == m)
			return;
	if (!removed(x, m))
		x->ordered[x->n++] = m;
}

static bool place_named(void *arg, struct entry e)
{
	struct lsm_info *m = first_named(e);

	if (!e.removal && m && m->order == LSM_ORDER_MUTABLE)
		place(arg, m);
	return false;
}

/* What the grammar orders, from @given (and the built-in @builtin). */
static void expected(struct expect *x, const char *given, const char *builtin)
{
	*x = (struct expect){ .order = given, .given = given };
	/* Only removals (or nothing): the built-in order, minus them. */
	if (!each_entry(given, is_name, NULL))
		x->order = builtin;
	for (int i = 0; i < NMODS; i++)
		if (mods[i].order == LSM_ORDER_FIRST)
			place(x, &mods[i]);
	if (x->order) {
		each_entry(x->order, place_named, x);
	} else {
		for (int i = 0; i < NMODS; i++)
			if (mods[i].order == LSM_ORDER_MUTABLE)
				place(x, &mods[i]);
	}
	for (int i = 0; i < NMODS; i++)
		if (mods[i].order == LSM_ORDER_LAST)
			place(x, &mods[i]);
}

/* --- the harness -------------------------------------------------------- */

/* A fresh state: every module registered, nothing ordered, no place. */
static void fresh(void)
{
	for (size_t i = 0; i < st.npos; i++)
		ulsm_free(st.pos[i].name);
	ulsm_free(st.pos);
	ulsm_free(st.ordered);
	st.pos = NULL;
	st.npos = st.cappos = 0;
	st.ordered = NULL;
	st.nordered = 0;
	st.explicit_order = false;
	st.modules = NULL;
	for (int i = NMODS - 1; i >= 0; i--) {
		mods[i].set = &set;
		mods[i].ulsm_state = MOD_REGISTERED;
		mods[i].next = st.modules;
		st.modules = &mods[i];
	}
	set.state = &st;
}

static void check(const char *given, const char *builtin)
{
	struct expect x;
	size_t on = 0;

	expected(&x, given, builtin);
	if (st.nordered != x.n)
		fail("not the modules the grammar orders", given);
	for (size_t i = 0; i < x.n; i++)
		if (st.ordered[i] != x.ordered[i])
			fail("not in the order the grammar says", given);
	for (int i = 0; i < NMODS; i++) {
		on += mods[i].ulsm_state == MOD_ORDERED;
		if (mods[i].ulsm_state != MOD_ORDERED &&
		    mods[i].ulsm_state != MOD_OFF)
			fail("a module neither ordered nor off", given);
	}
	if (on != x.n)
		fail("a module ordered but not in the list", given);
	if (st.explicit_order != (x.order != NULL))
		fail("explicit_order is wrong", given);
	if (st.npos > MAX_PLACES)
		fail("more places kept than the bounds allow", given);
	for (size_t i = 1; i < st.npos; i++)
		if (st.pos[i - 1].cls > st.pos[i].cls ||
		    (st.pos[i - 1].cls == st.pos[i].cls &&
		     st.pos[i - 1].idx >= st.pos[i].idx))
			fail("the places are out of order", given);
	for (int i = 0; i < NMODS; i++)
		if ((mods[i].ulsm_state == MOD_ORDERED) !=
		    (ulsm_lsm_place_of(&st, mods[i].name) > 0) &&
		    &mods[i] == first_named((struct entry){ mods[i].name,
							    strlen(mods[i].name),
							    false }))
			fail("an ordered module without a place, or a "
			     "removed one with", given);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 2);
	const char *builtin = NULL;
	size_t len;
	int ret;

	if (!copy)
		abort();
	memcpy(copy, data, size);
	copy[size] = copy[size + 1] = '\0';
	len = strlen(copy);
	if (len < size)
		builtin = copy + len + 1;
	set.builtin_order = builtin;
	fresh();
	ulsm_lsm_lock();
	ret = ulsm_lsm_order_decide(&set, &st, copy, "ULSM_LSM");
	ulsm_lsm_unlock();
	if (ret)
		fail("ulsm_lsm_order_decide failed", copy);
	check(copy, builtin);
	free(copy);
	return 0;
}
