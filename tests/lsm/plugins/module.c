// SPDX-License-Identifier: MIT
/*
 * A plug-in of set "pg", built once per name (PG_NAME): it denies the
 * request PG_DENY with -EACCES, notes each call of req_log, and with
 * PG_SLOW sleeps inside its callbacks, so that a thread is in its code
 * when it is unloaded; with PG_LAG its loading calls the host first.
 */
#include <errno.h>
#include <time.h>

#include "plugins/set.h"

#define STR_(x)	#x
#define STR(x)	STR_(x)

static void maybe_sleep(void)
{
#ifdef PG_SLOW
	nanosleep(&(struct timespec){ 0, 200000 }, NULL);
#endif
}

static int check(int request)
{
	pg_hold(STR(PG_NAME), request);
	maybe_sleep();
	return request == PG_DENY ? -EACCES : 0;
}

static void log_it(int request)
{
	pg_hold(STR(PG_NAME), request);
	maybe_sleep();
	pg_note(STR(PG_NAME));
}

#ifdef PG_LAG
/*
 * A constructor that runs before its module's registers: the host hears
 * that the dynamic linker is loading it (and holds its lock), and may
 * keep it there a while (t_depart: a seal meanwhile).
 */
void pg_loading(void) __attribute__((weak));
__attribute__((constructor(101))) static void lag(void)
{
	if (pg_loading)
		pg_loading();
}
#endif

static const struct lsm_id id = { STR(PG_NAME), 500 + PG_DENY };
static struct pg_hook_list hooks[] = {
	LSM_HOOK_INIT(req_check, check),
	LSM_HOOK_INIT(req_log, log_it),
};

static int init(void)
{
	return security_add_hooks(hooks, 2, &id);
}

DEFINE_LSM(PG_NAME) = { .name = STR(PG_NAME), .init = init, .id = &id };
