// SPDX-License-Identifier: MIT
/*
 * The patch lock: one mutex serialises batches, object registration and
 * configuration changes.
 *
 * fork(): a child inherits the parent's text. If another thread of the
 * parent is between writing int3 and writing the last byte of a batch, the
 * child's text holds int3 bytes that nobody will ever finish. The prepare
 * handler therefore takes the lock, so no batch is in flight at the fork.
 */
#include <errno.h>
#include <pthread.h>

#include "internal.h"

static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread bool lock_held;
static bool atfork_locked;

int ulsm_lock(void)
{
	if (lock_held)
		return ulsm_error(-EDEADLK,
			"update from a signal handler that interrupted an update");
	pthread_mutex_lock(&patch_lock);
	lock_held = true;
	return 0;
}

void ulsm_unlock(void)
{
	if (!lock_held)
		ulsm_die("unlock of a patch lock this thread does not hold");
	lock_held = false;
	pthread_mutex_unlock(&patch_lock);
}

bool ulsm_lock_held(void)
{
	return lock_held;
}

static void atfork_prepare(void)
{
	/* A fork from a signal handler inside an update: we hold it already. */
	atfork_locked = !lock_held;
	if (atfork_locked)
		pthread_mutex_lock(&patch_lock);
}

static void atfork_release(void)
{
	if (atfork_locked)
		pthread_mutex_unlock(&patch_lock);
}

void ulsm_lock_atfork_init(void)
{
	if (pthread_atfork(atfork_prepare, atfork_release, atfork_release))
		ulsm_die("pthread_atfork failed");
}
