/* SPDX-License-Identifier: MIT */
/*
 * tests/engine/key_sites.h - a key's sites read back from the jump table,
 * with the test's functions that hold them (t_refusals, t_write_fail,
 * t_hostile): whether the bytes of every site and the result of every
 * function agree with the key being on.
 *
 *	static struct key_sites ks = { &key, { site_1, site_2 } };
 *
 *	key_sites_find(&ks);		how many sites, read once
 *	ok(key_sites_follow(&ks, 1), ...);
 *
 * Each function returns the branch its site takes (1 where the key's
 * branch is taken), so all of them return @on when the code follows.
 */
#ifndef ULSM_TESTS_KEY_SITES_H
#define ULSM_TESTS_KEY_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "sites.h"

#define KEY_SITES_MAX	8

struct key_sites {
	const void *key;
	int (*run[KEY_SITES_MAX])(void);	/* NULL after the last */
	uintptr_t addr[KEY_SITES_MAX];		/* from key_sites_find() */
	int branch[KEY_SITES_MAX];
	size_t n;
};

/* Read @k's sites from the jump table (find_sites()): how many. */
__attribute__((unused))
static size_t key_sites_find(struct key_sites *k)
{
	k->n = find_sites(k->key, k->addr, k->branch, KEY_SITES_MAX);
	return k->n;
}

/* Whether every site holds, and every function runs, the key being @on. */
__attribute__((unused))
static int key_sites_follow(const struct key_sites *k, int on)
{
	if (!sites_follow(k->addr, k->branch, k->n, on))
		return 0;
	for (size_t i = 0; i < KEY_SITES_MAX && k->run[i]; i++)
		if (k->run[i]() != on)
			return 0;
	return 1;
}

#endif /* ULSM_TESTS_KEY_SITES_H */
