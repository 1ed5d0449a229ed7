// SPDX-License-Identifier: MIT
/*
 * A module of set "ch", built once per name: CH_NAME (a, p1, b, p2) with
 * CH_ID its rank in the order. a and b are linked into the host; p1 and
 * p2 are plug-ins (a DEFINE_LSM in a shared object registers from its
 * constructor and leaves from its destructor, at dlclose).
 */
#include "churn/set.h"

#define STR_(x)	#x
#define STR(x)	STR_(x)

static int int2_cb(int x, int y)
{
	ch_note(CH_ID, y == ch_arg2(x));
	return ch_answer(CH_ID, x);
}

static void void2_cb(int x, int y)
{
	ch_note(CH_ID, y == ch_arg2(x));
}

static bool args7_ok(int x0, int x1, int x2, int x3, int x4, int x5, int x6)
{
	return x1 == ch_arg7(x0, 1) && x2 == ch_arg7(x0, 2) &&
	       x3 == ch_arg7(x0, 3) && x4 == ch_arg7(x0, 4) &&
	       x5 == ch_arg7(x0, 5) && x6 == ch_arg7(x0, 6);
}

static int int7_cb(int x0, int x1, int x2, int x3, int x4, int x5, int x6)
{
	ch_note(CH_ID, args7_ok(x0, x1, x2, x3, x4, x5, x6));
	return ch_answer(CH_ID, x0);
}

static void void7_cb(int x0, int x1, int x2, int x3, int x4, int x5, int x6)
{
	ch_note(CH_ID, args7_ok(x0, x1, x2, x3, x4, x5, x6));
}

static int each_cb(int x, int y)
{
	ch_note(CH_ID, y == ch_arg2(x));
	return ch_each_answer(CH_ID, x);
}

static const struct lsm_id id = { STR(CH_NAME), CH_ID };
static struct ch_hook_list hooks[] = {
	LSM_HOOK_INIT(int2, int2_cb),
	LSM_HOOK_INIT(void2, void2_cb),
	LSM_HOOK_INIT(int7, int7_cb),
	LSM_HOOK_INIT(void7, void7_cb),
	LSM_HOOK_INIT(each, each_cb),
};

static int init(void)
{
	return security_add_hooks(hooks, sizeof(hooks) / sizeof(hooks[0]), &id);
}

DEFINE_LSM(CH_NAME) = { .name = STR(CH_NAME), .init = init, .id = &id };
