// SPDX-License-Identifier: MIT
/*
 * Must NOT compile: a key on the stack. Its sites record its address at
 * build time, so a key must be a global or a static; the error says so
 * (clang: the macro it expanded; gcc: the field it was initialising).
 */
/* expect: must_be_global_or_static */
#include <ulsm/static_key.h>

int main(void)
{
	DEFINE_STATIC_KEY_FALSE(local);

	return static_branch_unlikely(&local);
}
