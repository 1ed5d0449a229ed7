// SPDX-License-Identifier: MIT
/*
 * The baseline of bench_hooks, compiled once per variant (hk_bench.h): the
 * dispatch that "lsm: replace indirect LSM hook calls with static calls"
 * replaced, rebuilt from its description. Per hook a list head; per module
 * and hook a struct security_hook_list on that list; call_int_hook and
 * call_void_hook walk the list and call each entry's function pointer, an
 * indirect call (a retpoline in a retpoline build).
 *
 * The lists are the kernel's hlist (a head of one pointer, nodes with next
 * and pprev), written here from scratch. The kernel filled them once at
 * boot and walked them with plain loads (hlist_for_each_entry); so does
 * this file, and the benchmark only changes them between timed runs.
 */
#include <errno.h>
#include <stddef.h>

#include <ulsm/unroll.h>

#include "hk_bench.h"

#ifndef VARIANT
# error "compile with -DVARIANT=plain, retpoline or rethunk"
#endif

/* --- a minimal hlist ----------------------------------------------------- */

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct hlist_head {
	struct hlist_node *first;
};

#define hk_container_of(ptr, type, member)				\
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* The entry that holds @node, or NULL at the end of the list. */
#define hlist_entry_or_null(node, type, member)				\
({									\
	struct hlist_node *hk__n = (node);				\
	hk__n ? hk_container_of(hk__n, type, member) : NULL;		\
})

#define hlist_for_each_entry(pos, head, member)				\
	for (pos = hlist_entry_or_null((head)->first,			\
				       __typeof__(*(pos)), member);	\
	     pos;							\
	     pos = hlist_entry_or_null((pos)->member.next,		\
				       __typeof__(*(pos)), member))

static void hlist_add_tail(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node **pp = &h->first;

	while (*pp)
		pp = &(*pp)->next;
	n->next = NULL;
	n->pprev = pp;
	*pp = n;
}

static void hlist_del(struct hlist_node *n)
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
#include "bench_hook_defs.h"
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
#include "bench_hook_defs.h"
#undef LSM_HOOK
};

static struct security_hook_heads security_hook_heads;

/* Each int hook's default, by the hook's return type (void has none). */
#define HK_BASE_DEFAULT_void(NAME, DEFAULT)
#define HK_BASE_DEFAULT_int(NAME, DEFAULT)				\
	static const int __attribute__((unused)) NAME##_default = (DEFAULT);
#define LSM_HOOK(RET, DEFAULT, NAME, ...)				\
	HK_BASE_DEFAULT_##RET(NAME, DEFAULT)
#include "bench_hook_defs.h"
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

hk_fn int HK_SYM(sec_base_int, VARIANT)(int mask)
{
	return base_call_int_hook(file_permission, mask);
}

hk_fn void HK_SYM(sec_base_void, VARIANT)(int x)
{
	base_call_void_hook(file_free_security, x);
}

/* --- the modules' entries ------------------------------------------------ */

#define LSM_HOOK_INIT(HEAD, HOOK)					\
	{ .head = &security_hook_heads.HEAD, .hook = { .HEAD = HOOK } }

#define HK_BASE_MODULE(M, v)						\
	{ LSM_HOOK_INIT(file_permission, HK_SYM(m##M##_file_permission, v)), \
	  LSM_HOOK_INIT(file_free_security,				\
			HK_SYM(m##M##_file_free_security, v)) },
static struct security_hook_list m_hooks[HK_MAX][2] = {
	UNROLL(HK_MAX, HK_BASE_MODULE, VARIANT)
};

static const char *const m_names[HK_MAX] = {
	"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7",
};

#define HK_U1_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u1_cb, VARIANT)),
#define HK_U10_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u10_cb, VARIANT)),
#define HK_U100_HOOK(NAME)	LSM_HOOK_INIT(NAME, HK_SYM(u100_cb, VARIANT)),

static struct security_hook_list u1_hooks[] = { HK_U1_HOOK(upd_00) };
static struct security_hook_list u10_hooks[] = { HK_UPD_ROW(HK_U10_HOOK, 0) };
static struct security_hook_list u100_hooks[] = {
	HK_FOR_EACH_UPD(HK_U100_HOOK)
};

static struct {
	struct security_hook_list *hooks;
	int count;
	const char *lsm;
} u_mods[HK_NU] = {
	{ u1_hooks, 1, "u1" },
	{ u10_hooks, 10, "u10" },
	{ u100_hooks, 100, "u100" },
};

/* The kernel's security_add_hooks(): each entry to the tail of its list. */
static void security_add_hooks(struct security_hook_list *hooks, int count,
			       const char *lsm)
{
	for (int i = 0; i < count; i++) {
		hooks[i].lsm = lsm;
		hlist_add_tail(&hooks[i].list, hooks[i].head);
	}
}

static int list_length(const struct hlist_head *h)
{
	int n = 0;

	for (const struct hlist_node *p = h->first; p; p = p->next)
		n++;
	return n;
}

/*
 * Make m0 .. m(k-1) the modules on the lists, in that order (the others
 * off them). The kernel had no such thing; the benchmark needs it to
 * measure each module count in one process.
 */
int HK_SYM(base_set, VARIANT)(unsigned int k)
{
	if (k > HK_MAX)
		return -EINVAL;
	for (int m = 0; m < HK_MAX; m++)
		for (int i = 0; i < 2; i++)
			hlist_del(&m_hooks[m][i].list);
	for (unsigned int m = 0; m < k; m++)
		security_add_hooks(m_hooks[m], 2, m_names[m]);
	if (list_length(&security_hook_heads.file_permission) != (int)k ||
	    list_length(&security_hook_heads.file_free_security) != (int)k)
		return -EPROTO;
	return 0;
}

/* What enabling a u-module costs here: the time of this call. */
int HK_SYM(base_add_u, VARIANT)(int u)
{
	if (u < 0 || u >= HK_NU)
		return -EINVAL;
	security_add_hooks(u_mods[u].hooks, u_mods[u].count, u_mods[u].lsm);
	return 0;
}

/* Take a u-module off the lists; -EPROTO if it was not on all of them. */
int HK_SYM(base_del_u, VARIANT)(int u)
{
	int ret = 0;

	if (u < 0 || u >= HK_NU)
		return -EINVAL;
	for (int i = 0; i < u_mods[u].count; i++) {
		if (!u_mods[u].hooks[i].list.pprev)
			ret = -EPROTO;
		hlist_del(&u_mods[u].hooks[i].list);
	}
	return ret;
}

const struct hk_base_sizes HK_SYM(base_sizes, VARIANT) = {
	.head = sizeof(struct hlist_head),
	.hook_list = sizeof(struct security_hook_list),
};
