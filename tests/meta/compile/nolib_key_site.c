// SPDX-License-Identifier: MIT
/*
 * A unit with a static key, in a program that does not link libulsm:
 * it must link and run (the key stays as compiled). httpd's support
 * tools are such programs once the APR drop-in is on their include path.
 */
#include <stdio.h>
#include <ulsm/static_key.h>

DEFINE_STATIC_KEY_FALSE(nolib_key);

int main(void)
{
	if (static_branch_unlikely(&nolib_key))
		return 1;
	puts("ran");
	return 0;
}
