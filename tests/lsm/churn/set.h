/* SPDX-License-Identifier: MIT */
/*
 * The hook set "ch" of t_lsm_churn: a set that allows unloading, with four
 * slots per hook and the order "a,p1,b,p2". a and b are the host's, p1
 * and p2 plug-ins; all four are built from module.c. What each module's
 * callbacks do is defined here, so that the checker knows every answer a
 * module can give:
 *
 *   - each callback notes its module's id (ch_note, in the host) in the
 *     calling thread's trace, negated if its arguments are not those the
 *     dispatcher passed (ch_args_ok);
 *   - an int hook's callback returns ch_answer(): its module "decides"
 *     (a result other than the default, 0) for one x in eight, with a
 *     value no other module and no argument can take;
 *   - each's callback returns ch_each_answer(), never 0.
 */
#ifndef CH_SET_H
#define CH_SET_H

#include <stdbool.h>

#define ULSM_LSM_SET		ch
#define ULSM_LSM_HOOK_DEFS	"churn/hook_defs.h"
#define MAX_LSM_COUNT		4
#define ULSM_LSM_UNLOADABLE
#include <ulsm/lsm_hooks.h>

/* The modules' ids: their rank in the order. */
enum { CH_A = 1, CH_P1 = 2, CH_B = 3, CH_P2 = 4, CH_NMOD = 4 };

/*
 * The arguments a dispatcher passes for x (0 <= x < 2^20): the second of
 * a two-parameter hook, and the k-th of a seven-parameter hook (as the
 * reviewer's x + 101 k).
 */
static inline int ch_arg2(int x)
{
	return x ^ 0x5a5a5;
}

static inline int ch_arg7(int x, int k)
{
	return x + 101 * k;
}

/* Module @id's result for x: negative, so never an argument's value. */
static inline int ch_answer(int id, int x)
{
	return (x & 7) == id ? -(id << 24 | (x & 0xfffff)) : 0;
}

static inline int ch_each_answer(int id, int x)
{
	return -(id << 24 | 1 << 22 | (x & 0xfffff));
}

/* In the host, exported (-rdynamic): module @id was called. */
void ch_note(int id, bool args_ok);
#endif
