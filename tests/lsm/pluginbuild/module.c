// SPDX-License-Identifier: MIT
/*
 * A plug-in module of set "pb", which denies request 7: "rate", built as
 * it should be (pb_rate.so), against another hook list (pb_list.so) and
 * with another MAX_LSM_COUNT (pb_count.so); t_plugin_build loads each.
 * t_pin_lock builds two more: "lag" (PB_LAG: its loading calls the host
 * first, and the host keeps it there a while) and "manual" (PB_MANUAL:
 * no DEFINE_LSM, its lsm_info exported for the host to register).
 */
#include <errno.h>

#include "pluginbuild/set.h"

#ifndef PB_NAME
# define PB_NAME	rate
#endif
#define STR_(x)	#x
#define STR(x)	STR_(x)

static int rate_check(int request)
{
	return request == 7 ? -EACCES : 0;
}

static const struct lsm_id rate_id = { STR(PB_NAME), 77 };
static struct pb_hook_list rate_hooks[] = {
	LSM_HOOK_INIT(request_check, rate_check),
};

static int rate_init(void)
{
	return security_add_hooks(rate_hooks, 1, &rate_id);
}

#ifdef PB_LAG
/*
 * A constructor that runs before its module's registers: the host hears
 * that the dynamic linker is loading the object (and holds its lock).
 */
void pb_loading(void) __attribute__((weak));
__attribute__((constructor(101))) static void lag(void)
{
	if (pb_loading)
		pb_loading();
}
#endif

#ifdef PB_MANUAL
struct lsm_info pb_manual_info;
struct lsm_info pb_manual_info = {
	.name = STR(PB_NAME), .init = rate_init, .id = &rate_id,
};
#else
DEFINE_LSM(PB_NAME) = {
	.name = STR(PB_NAME), .init = rate_init, .id = &rate_id,
};
#endif
