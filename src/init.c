// SPDX-License-Identifier: MIT
/*
 * Start-up, the top of the library: it may use every layer below. Once,
 * before the first object's sites are collected, it reads the
 * configuration, registers the fork handlers (one set, every layer's in
 * the lock order), registers every kind of
 * site with the engine (static keys' and calls', src/static/; the hook
 * entries', src/lsm/), and arms the dump at exit. And it is where every
 * object comes in: the public ulsm_object_register(), which each object's
 * constructor calls (<ulsm/object.h>), starts the library first, since a
 * program's constructors may run before the library's own (static
 * linking).
 */
#include <pthread.h>

#include "control/control.h"
#include "lsm/lsm_internal.h"
#include "static/static.h"
#include "trace/trace.h"
#include "dump.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/*
 * fork(): every layer's locks, taken in the prepare handler in the lock
 * order (the switches' (src/control/), the tracepoints', the hook
 * framework's, the patch lock, the grace periods' leaf), released in the
 * parent and made anew or released in the child in reverse. One registration, so that the order is the
 * same in every process: with a registration per layer, made at its
 * first use, the order followed which layer a program used first, and
 * ThreadSanitizer found a real inversion (the hook framework's lock is
 * held while the patch lock is taken, but could be prepared after it).
 */
static void fork_prepare(void)
{
	ulsm_switch_fork_prepare();
	ulsm_trace_fork_prepare();
	ulsm_lsm_fork_prepare();
	ulsm_lock_fork_prepare();
	ulsm_grace_fork_prepare();
}

static void fork_parent(void)
{
	ulsm_grace_fork_parent();
	ulsm_lock_fork_parent();
	ulsm_lsm_fork_parent();
	ulsm_trace_fork_release();
	ulsm_switch_fork_release();
}

static void fork_child(void)
{
	ulsm_grace_fork_child();
	ulsm_lock_fork_child();
	ulsm_lsm_fork_child();
	ulsm_lsm_leaving_fork_child();
	ulsm_trace_fork_release();
	ulsm_switch_fork_release();
}

static void start(void)
{
	ulsm_config_init();
	if (pthread_atfork(fork_prepare, fork_parent, fork_child))
		ulsm_die("pthread_atfork failed");
	ulsm_trace_recorder_atfork_init();
	ulsm_site_kind_register(&ulsm_kind_key_site);
	ulsm_site_kind_register(&ulsm_kind_trampoline);
	ulsm_site_kind_register(&ulsm_kind_call_site);
	ulsm_site_kind_register(&ulsm_kind_hook_site);
	ulsm_dump_arm(NULL);
	ulsm_trace_usdt_from_env();
	ulsm_control_from_env();	/* last: it may serve at once */
}

static void ulsm_init(void)
{
	pthread_once(&init_once, start);
}

/*
 * Also before main(), while the process has one thread: a fork() racing
 * with a first-time initialisation in another thread would leave the child
 * waiting on a once-control copied mid-way (glibc's pthread_once copes;
 * ThreadSanitizer's replacement does not, and t_fork hung under it).
 */
__attribute__((constructor)) static void init_early(void)
{
	ulsm_init();
}

ULSM_API int ulsm_object_register(const struct ulsm_object_tables *t)
{
	int ret;

	ulsm_init();
	ret = ulsm_objects_add(t);
	if (t)
		ulsm_dump_arm(t->jump_start);
	return ret;
}

ULSM_API int ulsm_object_unregister(const struct ulsm_object_tables *t)
{
	return ulsm_objects_remove(t);
}

/*
 * What could not be done when it was asked, tried again: the objects
 * left pending (the engine), and the departures of plug-in modules that
 * could not leave when their object was unloaded (the hook framework).
 */
ULSM_API int ulsm_retry_pending(void)
{
	int objects = ulsm_objects_retry();
	int departures = ulsm_lsm_finish_departures();

	return objects ? objects : departures;
}
