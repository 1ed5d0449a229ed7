// SPDX-License-Identifier: MIT
/* Must NOT compile: static_branch_unlikely() on something not a typed key. */
/* expect: need a struct static_key_true */
#include <ulsm/static_key.h>

struct static_key plain = STATIC_KEY_INIT_FALSE;

int main(void)
{
	return static_branch_unlikely(&plain);
}
