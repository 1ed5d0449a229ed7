// SPDX-License-Identifier: MIT
/*
 * Must compile: the control for bad_key_auto.c. A key may be a global, a
 * static local, or a member of a global.
 */
#include <ulsm/static_key.h>

DEFINE_STATIC_KEY_FALSE(global);
static struct { int x; struct static_key_true k; } outer = {
	0, STATIC_KEY_TRUE_INIT
};

int main(void)
{
	static DEFINE_STATIC_KEY_FALSE(local);

	return static_branch_unlikely(&global) +
	       static_branch_unlikely(&local) + !static_branch_likely(&outer.k);
}
