// SPDX-License-Identifier: MIT
/*
 * Must compile: APR hooks through the drop-in (include/ulsm/apr), each
 * kind, args_use naming the parameters of args_decl in their order: with
 * up to six parameters (the slots in assembly on x86-64), seven (the
 * slots in C), sixteen (the last count whose order is checked) and
 * seventeen. The control of apr_bad_args_*.c.
 */
#include <apr_hooks.h>

#define T_DECLARE(type)	type

APR_DECLARE_EXTERNAL_HOOK(t, T, int, handle, (int a, long b))
APR_DECLARE_EXTERNAL_HOOK(t, T, int, check, (const char *s, void *p))
APR_DECLARE_EXTERNAL_HOOK(t, T, void, note, (unsigned k, const char *s))
#define T7_DECL	(int a, int b, int c, int d, int e, int f, char *g)
#define T7_USE	(a, b, c, d, e, f, g)
APR_DECLARE_EXTERNAL_HOOK(t, T, int, seven, T7_DECL)
#define T16_DECL	(int a, int b, int c, int d, int e, int f, int g, int h, \
			 int i, int j, int k, int l, int m, int n2, int o, \
			 double p)
#define T16_USE	(a, b, c, d, e, f, g, h, i, j, k, l, m, n2, o, p)
APR_DECLARE_EXTERNAL_HOOK(t, T, void, sixteen, T16_DECL)
#define T17_DECL	(int a, int b, int c, int d, int e, int f, int g, int h, \
			 int i, int j, int k, int l, int m, int n2, int o, \
			 int p, int q)
#define T17_USE	(a, b, c, d, e, f, g, h, i, j, k, l, m, n2, o, p, q)
APR_DECLARE_EXTERNAL_HOOK(t, T, int, seventeen, T17_DECL)

APR_HOOK_STRUCT(
	APR_HOOK_LINK(handle)
	APR_HOOK_LINK(check)
	APR_HOOK_LINK(note)
	APR_HOOK_LINK(seven)
	APR_HOOK_LINK(sixteen)
	APR_HOOK_LINK(seventeen)
)

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(t, T, int, handle, (int a, long b),
				      (a, b), -1)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(t, T, int, check, (const char *s, void *p),
				    (s, p), 0, -1)
APR_IMPLEMENT_EXTERNAL_HOOK_VOID(t, T, note, (unsigned k, const char *s),
				 (k, s))
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(t, T, int, seven, T7_DECL, T7_USE, -1)
APR_IMPLEMENT_EXTERNAL_HOOK_VOID(t, T, sixteen, T16_DECL, T16_USE)
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(t, T, int, seventeen, T17_DECL, T17_USE,
				      -1)
