// SPDX-License-Identifier: MIT
/* Must NOT compile: static_call_update() with a function of another type. */
/* expect: does not match the static call */
#include <ulsm/static_call.h>

static int takes_int(int x) { return x; }
static long takes_long(long x) { return x; }

DEFINE_STATIC_CALL(c, takes_int);

int main(void)
{
	(void)takes_int;
	return static_call_update(c, takes_long);
}
