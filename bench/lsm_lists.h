/* SPDX-License-Identifier: MIT */
/*
 * bench/lsm_lists.h - the hook dispatch the kernel change replaced, for the
 * benchmarks' baselines: per hook a list head, per module and hook a
 * struct security_hook_list on that list, and call_int_hook /
 * call_void_hook walking the list with one indirect call per entry (a
 * retpoline in a retpoline build).
 *
 * The lists are the kernel's hlist (a head of one pointer, nodes with next
 * and pprev), written here from scratch. The kernel filled them once at
 * boot and walked them with plain loads (hlist_for_each_entry); so do the
 * benchmarks, which only change them between timed runs.
 *
 * Include it once per translation unit with LSM_LISTS_HOOK_DEFS naming the
 * hook list (the kernel's LSM_HOOK form; int and void hooks). Everything
 * is static: each variant's object has its own lists.
 */
#ifndef ULSM_BENCH_LSM_LISTS_H
#define ULSM_BENCH_LSM_LISTS_H

#include <stddef.h>

#ifndef LSM_LISTS_HOOK_DEFS
# error "define LSM_LISTS_HOOK_DEFS, the hook list, first"
#endif

/* --- a minimal hlist ----------------------------------------------------- */

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

#define lsm_lists_container_of(ptr, type, member)				\
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* The entry that holds @node, or NULL at the end of the list. */
#define hlist_entry_or_null(node, type, member)				\
({									\
	struct hlist_node *lsm_lists__n = (node);				\
	lsm_lists__n ? lsm_lists_container_of(lsm_lists__n, type, member) : NULL;		\
})

#define hlist_for_each_entry(pos, head, member)				\
	for (pos = hlist_entry_or_null((head)->first,			\
				       __typeof__(*(pos)), member);	\
	     pos;							\
	     pos = hlist_entry_or_null((pos)->member.next,		\
				       __typeof__(*(pos)), member))

static void __attribute__((unused))
hlist_add_tail(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node **pp = &h->first;

	while (*pp)
		pp = &(*pp)->next;
	n->next = NULL;
	n->pprev = pp;
	*pp = n;
}

static void __attribute__((unused)) hlist_del(struct hlist_node *n)
{
	if (!n->pprev)
		return;			/* not on a list */
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	n->next = NULL;
	n->pprev = NULL;
}

/* --- the hook lists ------------------------------------------------------ */

#define LSM_RET_VOID	((void)0)

union security_list_options {
#define LSM_HOOK(RET, DEFAULT, NAME, ...) RET (*NAME)(__VA_ARGS__);
#include LSM_LISTS_HOOK_DEFS
#undef LSM_HOOK
};

struct security_hook_list {
	struct hlist_node list;
	struct hlist_head *head;
	union security_list_options hook;
	const char *lsm;
};

struct security_hook_heads {
#define LSM_HOOK(RET, DEFAULT, NAME, ...) struct hlist_head NAME;
#include LSM_LISTS_HOOK_DEFS
#undef LSM_HOOK
};

static struct security_hook_heads security_hook_heads;

/* Each int hook's default, by the hook's return type (void has none). */
#define LSM_LISTS_DEFAULT_void(NAME, DEFAULT)
#define LSM_LISTS_DEFAULT_int(NAME, DEFAULT)				\
	static const int __attribute__((unused)) NAME##_default = (DEFAULT);
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	LSM_LISTS_DEFAULT_##RET(NAME, DEFAULT)
#include LSM_LISTS_HOOK_DEFS
#undef LSM_HOOK

#define base_call_void_hook(FUNC, ...)					\
do {									\
	struct security_hook_list *P;					\
									\
	hlist_for_each_entry(P, &security_hook_heads.FUNC, list)	\
		P->hook.FUNC(__VA_ARGS__);				\
} while (0)

#define base_call_int_hook(FUNC, ...)					\
({									\
	int RC = FUNC##_default;					\
	struct security_hook_list *P;					\
									\
	hlist_for_each_entry(P, &security_hook_heads.FUNC, list) {	\
		RC = P->hook.FUNC(__VA_ARGS__);				\
		if (RC != FUNC##_default)				\
			break;						\
	}								\
	RC;								\
})

/* --- registration -------------------------------------------------------- */

#define LSM_HOOK_INIT(HEAD, HOOK)					\
	{ .head = &security_hook_heads.HEAD, .hook = { .HEAD = HOOK } }

/* The kernel's security_add_hooks(): each entry to the tail of its list. */
static void __attribute__((unused))
security_add_hooks(struct security_hook_list *hooks, int count, const char *lsm)
{
	for (int i = 0; i < count; i++) {
		hooks[i].lsm = lsm;
		hlist_add_tail(&hooks[i].list, hooks[i].head);
	}
}

static int __attribute__((unused)) list_length(const struct hlist_head *h)
{
	int n = 0;

	for (const struct hlist_node *p = h->first; p; p = p->next)
		n++;
	return n;
}

#endif /* ULSM_BENCH_LSM_LISTS_H */
