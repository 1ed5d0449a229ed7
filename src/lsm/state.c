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

static pthread_mutex_t lsm_lock;
static pthread_once_t lsm_lock_once = PTHREAD_ONCE_INIT;

static void lsm_lock_take(void)
{
	pthread_mutex_lock(&lsm_lock);
}

static void lsm_lock_release(void)
{
	pthread_mutex_unlock(&lsm_lock);
}

static void lsm_lock_create(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&lsm_lock, &a);
	pthread_mutexattr_destroy(&a);
}

static void lsm_lock_init(void)
{
	lsm_lock_create();
	/*
	 * As for the patch lock: a child must not inherit it held. The child
	 * makes a new one rather than unlocking: a recursive mutex checks its
	 * owner's thread id, which the forking thread no longer has there.
	 */
	if (pthread_atfork(lsm_lock_take, lsm_lock_release, lsm_lock_create))
		ulsm_die("pthread_atfork failed");
}

void ulsm_lsm_lock(void)
{
	pthread_once(&lsm_lock_once, lsm_lock_init);
	pthread_mutex_lock(&lsm_lock);
}

int ulsm_lsm_trylock(void)
{
	pthread_once(&lsm_lock_once, lsm_lock_init);
	return pthread_mutex_trylock(&lsm_lock) ? -EBUSY : 0;
}

void ulsm_lsm_unlock(void)
{
	pthread_mutex_unlock(&lsm_lock);
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
