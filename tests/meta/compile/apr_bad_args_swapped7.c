// SPDX-License-Identifier: MIT
/*
 * Must NOT compile: apr_bad_args_swapped.c with seven parameters, two of
 * them (both int, so no warning either) swapped. Such a hook's slots are
 * C, which pass args_use on as written, but its run function still
 * jumps to a single function with the caller's arguments untouched: up
 * to sixteen parameters, the order is checked as it is for six.
 */
/* expect: args_use_in_order_4 */
#include <apr_hooks.h>

#define T_DECLARE(type)	type

#define T7_DECL	(int a, int b, int c, int d, int e, int f, char *g)
APR_DECLARE_EXTERNAL_HOOK(t, T, int, seven, T7_DECL)

APR_HOOK_STRUCT(
	APR_HOOK_LINK(seven)
)

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(t, T, int, seven, T7_DECL,
				      (a, b, c, d, f, e, g), -1)
