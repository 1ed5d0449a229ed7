// SPDX-License-Identifier: MIT
/*
 * Must compile: the control for the compile-fail cases, so that a broken
 * harness (wrong flags, missing headers) cannot pass them by failing
 * everything. Same shapes, right types.
 */
#include <stddef.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>

static int takes_int(int x) { return x; }
static int also_int(int x) { return x + 1; }

DEFINE_STATIC_CALL(c, takes_int);
DEFINE_STATIC_KEY_FALSE(k);

int main(void)
{
	int (*fp)(int) = also_int;

	if (static_call_update(c, also_int) || static_call_update(c, fp) ||
	    static_call_update(c, NULL) ||
	    static_call_update(c, (void *)__static_call_return0))
		return 1;
	(void)takes_int;
	return static_branch_unlikely(&k);
}
