// SPDX-License-Identifier: MIT
/*
 * Start-up, the top of the library: it may use every layer below. Once,
 * before the first object's sites are collected, it reads the
 * configuration, registers the fork handlers, registers every kind of
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

/* src/dump.c */
void ulsm_dump_arm(const void *object);

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void start(void)
{
	ulsm_config_init();
	ulsm_lock_atfork_init();
	ulsm_trace_atfork_init();	/* after: it prepares first */
	ulsm_trace_recorder_atfork_init();
	ulsm_site_kind_register(&ulsm_kind_key_site);
	ulsm_site_kind_register(&ulsm_kind_trampoline);
	ulsm_site_kind_register(&ulsm_kind_call_site);
	ulsm_site_kind_register(&ulsm_kind_hook_site);
	ulsm_dump_arm(NULL);
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
