// SPDX-License-Identifier: MIT
/*
 * src/base/hook_sets.c - the hook framework's table for the layers beside
 * it (hook_sets.h): published with release semantics, read with acquire,
 * so a reader that sees the table sees the claimed set that came with it.
 */
#include <string.h>

#include "base/base.h"
#include "base/hook_sets.h"

static const struct ulsm_lsm_ops *registered;

void ulsm_lsm_ops_register(const struct ulsm_lsm_ops *ops)
{
	const struct ulsm_lsm_ops *none = NULL;

	/*
	 * Pairs with the acquire load in ulsm_lsm_ops() (this file): a reader
	 * that sees the table sees the set claimed before it (ulsm_lsm_claim(),
	 * src/lsm/seal.c).
	 */
	__atomic_compare_exchange_n(&registered, &none, ops, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

const struct ulsm_lsm_ops *ulsm_lsm_ops(void)
{
	/*
	 * Pairs with the release compare-exchange in ulsm_lsm_ops_register()
	 * (this file).
	 */
	return __atomic_load_n(&registered, __ATOMIC_ACQUIRE);
}

struct set_named {
	const char *name;
	struct ulsm_hook_set *set;
};

static void set_named(void *arg, const struct ulsm_lsm_set_info *s)
{
	struct set_named *f = arg;

	if (!strcmp(s->name, f->name))
		f->set = s->set;
}

struct ulsm_hook_set *ulsm_lsm_set_named(const char *name)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();
	struct set_named f = { name, NULL };

	if (ops)
		ops->each_set(set_named, &f);
	return f.set;
}
