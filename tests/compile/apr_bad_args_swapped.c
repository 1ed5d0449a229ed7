// SPDX-License-Identifier: MIT
/*
 * Must NOT compile: a hook whose args_use names its parameters in
 * another order than args_decl. APR's own macros pass them on as
 * written; the drop-in's run function passes the caller's registers on
 * to the slots (x86-64: include/ulsm/apr_hooks.h, ULSM__APR_SHAPE), so
 * it would call every function with the parameters swapped: it refuses
 * to compile, naming the structure of the parameter that is out of place.
 * Where the slots are C (other back ends) the parameters are passed as
 * written, as APR does, and there is nothing to check: the check fails
 * on purpose, with the same message, so that this file is refused
 * everywhere.
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

#ifndef ULSM__APR_TAIL
struct ulsm__apr_t__handle_args_use_in_order_0 { int a; };
unsigned long t_probe(void);
unsigned long t_probe(void)
{
	return __builtin_offsetof(struct ulsm__apr_t__handle_args_use_in_order_0,
				  b);
}
#endif
