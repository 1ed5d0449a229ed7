/* SPDX-License-Identifier: MIT */
/*
 * A unit compiled without the drop-in, in both programs: APR's own
 * <apr_hooks.h>, so apr_hook_sort_all() and apr_hook_deregister_all() here
 * are libaprutil's, not ulsm's macros. A program whose units are not all
 * built with ulsm-apr's flags (a library, a module built elsewhere) does
 * this; the hooks of the drop-in's units then see their arrays replaced
 * behind their slots (a sort makes a new array, a deregistration leaves
 * NULL), and must answer as APR does all the same. The unit also has a
 * hook of its own, dispatched by APR's run function in both programs.
 */
#include <apr_hooks.h>
#include "apr_diff.h"

#ifdef ULSM_APR_HOOKS_H
# error "apr_diff_plain.c must be compiled without the drop-in's include path"
#endif

APR_DECLARE_EXTERNAL_HOOK(td, TD, int, q0, (int a, long b))

APR_HOOK_STRUCT(
	APR_HOOK_LINK(q0)
)

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, int, q0, (int a, long b), (a, b),
				    0, -1)

TD_POOL(q0, int, (int a, long b), return (int)td_hit(P_Q0, id, "%d,%ld", a, b);)

#define SAY(...) do { if (!quiet) printf(__VA_ARGS__); } while (0)

static long long run_q0(struct td_rng *r, int quiet)
{
	int a = (int)td_int(r), rv;
	long b = (long)td_int(r);

	SAY("run q0(%d,%ld):", a, b);
	rv = td_run_q0(a, b);
	SAY(" -> %d\n", rv);
	return rv;
}

void td_plain_sort_all(void)
{
	apr_hook_sort_all();
}

void td_plain_deregister_all(void)
{
	apr_hook_deregister_all();
}

TD_GLUE(q0)

const struct td_slot td_plain_slots[1] = {
	TD_SLOT(q0, P_Q0),
};
