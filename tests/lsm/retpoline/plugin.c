// SPDX-License-Identifier: MIT
/*
 * A plug-in of t_retpoline, built once per name (RP_NAME: p1, p2): a
 * module with a callback on each hook of set "rp", and the targets the
 * host points its static call, tracepoint and APR hooks at. Every
 * function here is a leaf: the path the host steps through ends in it.
 */
#include "retpoline/set.h"

#define STR_(x)	#x
#define STR(x)	STR_(x)

RP_NOSAN static int int_cb(int x)
{
	(void)x;
	return 0;		/* the hook's default: the walk goes on */
}

RP_NOSAN static void void_cb(int x)
{
	(void)x;
}

RP_NOSAN static int walk_cb(int x)
{
	(void)x;
	return 0;
}

RP_NOSAN int rp_target(int x)
{
	return x + 1;
}

RP_NOSAN void rp_probe(void *data, int x)
{
	(void)data;
	(void)x;
}

RP_NOSAN int rp_apr_all(int x)
{
	(void)x;
	return -1;		/* DECLINED: RUN_ALL goes on */
}

RP_NOSAN int rp_apr_first(int x)
{
	return x + 2;
}

static const struct lsm_id id = { STR(RP_NAME), 700 };
static struct rp_hook_list hooks[] = {
	LSM_HOOK_INIT(rp_int, int_cb),
	LSM_HOOK_INIT(rp_void, void_cb),
	LSM_HOOK_INIT(rp_walk, walk_cb),
};

static int init(void)
{
	return security_add_hooks(hooks, 3, &id);
}

DEFINE_LSM(RP_NAME) = { .name = STR(RP_NAME), .init = init, .id = &id };

/* The same module in set "ru" (unloadable): called through guards. */
static struct ru_hook_list hooks_u[] = {
	ulsm_lsm_hook_init(ru, rp_int, int_cb),
	ulsm_lsm_hook_init(ru, rp_void, void_cb),
};

static int init_u(void)
{
	return ulsm_security_add_hooks_to(ru, hooks_u, 2, &id);
}

DEFINE_LSM_IN(ru, ru_module) = { .name = STR(RP_NAME), .init = init_u,
				 .id = &id };
