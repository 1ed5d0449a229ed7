// SPDX-License-Identifier: MIT
/*
 * The hook framework's lock, each set's private state, and its modules by
 * name.
 *
 * The lock is recursive because a module's init, called by ulsm_lsm_init()
 * with the lock held, registers its hooks (src/lsm/lsm_internal.h). A set's
 * state is allocated on first use: a set is defined statically by
 * <ulsm/lsm_hooks.h>, in whichever unit the application chose, and its
 * modules register from constructors in any order.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "lsm_internal.h"

/*
 * The hook framework's lock: recursive by a depth of the thread's own
 * over a plain mutex. A recursive pthread mutex cannot be released in the
 * child of fork() (its owner's thread id is the parent thread's), so it
 * had to be made anew there, which ThreadSanitizer takes for a lock still
 * held; a plain mutex is unlocked in the child like the others.
 */
static pthread_mutex_t lsm_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned int lsm_depth;

void ulsm_lsm_lock(void)
{
	if (!lsm_depth)
		pthread_mutex_lock(&lsm_lock);
	lsm_depth++;
}

int ulsm_lsm_trylock(void)
{
	if (!lsm_depth && pthread_mutex_trylock(&lsm_lock))
		return -EBUSY;
	lsm_depth++;
	return 0;
}

void ulsm_lsm_unlock(void)
{
	if (!lsm_depth)
		ulsm_die("unlock of the hook framework's lock, not held");
	if (!--lsm_depth)
		pthread_mutex_unlock(&lsm_lock);
}

/*
 * fork() (src/init.c calls these in the lock order): taken before, so
 * that a child never inherits it held by a thread it does not have;
 * released after, in the parent and in the child (where the forking
 * thread, with its depth, is the same).
 */
void ulsm_lsm_fork_prepare(void)
{
	ulsm_lsm_lock();
}

void ulsm_lsm_fork_parent(void)
{
	ulsm_lsm_unlock();
}

void ulsm_lsm_fork_child(void)
{
	ulsm_lsm_unlock();
}

/*
 * A set's record comes from the program's or a plug-in's headers, not
 * the library's (docs/abi.md, "Records the library reads"): 0.2.0 is the
 * first layout with @size, so a record shorter than that is from headers
 * the library cannot read (and a later library compares with 0.2.0's
 * size, not its own, so that records from these headers stay readable).
 */
int ulsm_lsm_set_check(const struct ulsm_hook_set *set)
{
	if (set->size < sizeof(*set))
		return ulsm_error(-EPROTO, "hook set at %p: its record is %u "
				  "bytes, from headers older than this "
				  "library (%zu bytes at least); rebuild it "
				  "with ulsm %s's headers", (const void *)set,
				  set->size, sizeof(*set), ULSM_VERSION);
	return 0;
}

struct ulsm_lsm_state *ulsm_lsm_state_of(struct ulsm_hook_set *set)
{
	if (!set->state)
		set->state = ulsm_calloc(1, sizeof(*set->state));
	return set->state;
}

struct lsm_info *ulsm_lsm_find_module(struct ulsm_lsm_state *st,
				      const char *name, size_t len)
{
	for (struct lsm_info *m = st->modules; m; m = m->next)
		if (strlen(m->name) == len && !strncmp(m->name, name, len))
			return m;
	return NULL;
}

struct lsm_info *ulsm_lsm_exclusive_on(struct ulsm_lsm_state *st)
{
	for (struct lsm_info *m = st->modules; m; m = m->next)
		if (m->ulsm_state == MOD_ACTIVE &&
		    (m->flags & LSM_FLAG_EXCLUSIVE))
			return m;
	return NULL;
}

const char *ulsm_lsm_keep_text(char ***texts, size_t *n, const char *text)
{
	char **v, *copy;

	for (size_t i = *n; i-- > 0;)
		if (!strcmp((*texts)[i], text))
			return (*texts)[i];
	copy = ulsm_strdup(text);
	if (!copy)
		return NULL;
	v = ulsm_reallocarray(*texts, *n + 1, sizeof(*v));
	if (!v) {
		ulsm_free(copy);
		return NULL;
	}
	v[(*n)++] = copy;
	*texts = v;
	return copy;
}

bool ulsm_lsm_slot_owned_by(const struct lsm_static_call *s,
			    const char *name)
{
	return s->hl && s->hl->lsmid && !strcmp(s->hl->lsmid->name, name);
}

bool ulsm_lsm_module_owns(const struct ulsm_hook_set *set,
			  const struct lsm_info *m, bool on)
{
	for (size_t i = 0; i < set->nhooks * set->slots; i++) {
		const struct lsm_static_call *s = &set->table[i];

		if (ulsm_lsm_slot_owned_by(s, m->name) &&
		    (!on || static_key_enabled(&s->active->key)))
			return true;
	}
	return false;
}

/*
 * Whether active module @m was toggled off (ulsm_lsm_toggle): it owns
 * slots, and none of them is on. A module without a hook is never off.
 */
bool ulsm_lsm_module_toggled_off(const struct ulsm_hook_set *set,
				 const struct lsm_info *m)
{
	return ulsm_lsm_module_owns(set, m, false) &&
	       !ulsm_lsm_module_owns(set, m, true);
}
