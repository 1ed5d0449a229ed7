// SPDX-License-Identifier: MIT
/*
 * Must NOT compile: a hook whose args_use names its parameters in
 * another order than args_decl. APR's own macros pass them on as
 * written; the drop-in's run function, where the back end writes it
 * (x86-64), passes the caller's registers on to the one function
 * registered and to the slots in assembly, so it would call every
 * function with the parameters swapped. The drop-in refuses it on every
 * back end (include/ulsm/apr_hooks.h, ULSM__APR_ORDER), naming the
 * structure of the parameter that is out of place.
 */
/* expect: args_use_in_order_0 */
#include <apr_hooks.h>

#define T_DECLARE(type)	type

APR_DECLARE_EXTERNAL_HOOK(t, T, int, handle, (int a, long b))

APR_HOOK_STRUCT(
	APR_HOOK_LINK(handle)
)

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(t, T, int, handle, (int a, long b),
				      (b, a), -1)
