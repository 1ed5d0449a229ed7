// SPDX-License-Identifier: MIT
/*
 * A plug-in whose destructor runs while dlclose() holds the dynamic
 * linker's lock, says so to its host, waits, then flips a key of the
 * host's (which takes the patch lock): t_dump races ulsm_dump() with it.
 * Built without -lulsm: it uses the library of its host (-rdynamic).
 */
#include <time.h>

#include <ulsm/static_key.h>

DEFINE_STATIC_KEY_FALSE(slowfini_key);	/* its own tables: registered */

void slowfini_entered(void);		/* the host's */
extern struct static_key_false slowfini_host_key;

int slowfini_use(void);
int slowfini_use(void)
{
	return static_branch_unlikely(&slowfini_key);
}

__attribute__((destructor)) static void slow_fini(void)
{
	slowfini_entered();
	nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
	static_branch_enable(&slowfini_host_key);
}
