// SPDX-License-Identifier: MIT
/*
 * The module of t_apr_reload: hooks of its own (ask: RUN_FIRST, note:
 * VOID), and functions it registers on them and on the program's hook
 * (handle), which round @round chooses.
 */
#include "reload.h"

APR_HOOK_STRUCT(
	APR_HOOK_LINK(ask)
	APR_HOOK_LINK(note)
)

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(pl, PL, int, ask, (int x), (x), -1)
APR_IMPLEMENT_EXTERNAL_HOOK_VOID(pl, PL, note, (long *acc, int x), (acc, x))

static int triple(int x)
{
	return 3 * x;
}

static int decline(int x)
{
	(void)x;
	return -1;
}

static void add_one(long *acc, int x)
{
	*acc += x;
}

static void add_hundred(long *acc, int x)
{
	*acc += 100L * x;
}

rl_register_fn rl_register;
rl_call_fn rl_call;

/* Odd rounds decline the program's hook; rounds with bit 1 note twice. */
void rl_register(int round)
{
	ho_hook_handle(round & 1 ? decline : triple, NULL, NULL,
		       APR_HOOK_MIDDLE);
	pl_hook_ask(decline, NULL, NULL, APR_HOOK_FIRST);
	pl_hook_ask(triple, NULL, NULL, APR_HOOK_LAST);
	pl_hook_note(add_one, NULL, NULL, APR_HOOK_MIDDLE);
	if (round & 2)
		pl_hook_note(add_hundred, NULL, NULL, APR_HOOK_MIDDLE);
}

int rl_call(int x, long *acc)
{
	pl_run_note(acc, x);
	return pl_run_ask(x);
}
