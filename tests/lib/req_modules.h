/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/req_modules.h - two modules on a hook set with the hook
 * req_check(int req), for the programs that serve requests through one
 * (tests/fuzz/fuzz_control.c, tests/trace/usdt_server.c): "allow", which
 * allows every request, and "deny", which denies an odd one with -13
 * (-EACCES), so that a recording of the set has both answers.
 *
 * Included once, after <ulsm/lsm_hooks.h> has defined the set
 * (ULSM_LSM_SET, ULSM_LSM_DEFINE); the program initialises the set with
 * the order "allow,deny".
 */
#ifndef ULSM_TESTS_REQ_MODULES_H
#define ULSM_TESTS_REQ_MODULES_H

#define REQ_CAT_(a, b)	a##b
#define REQ_CAT(a, b)	REQ_CAT_(a, b)
#define REQ_HOOK_LIST	struct REQ_CAT(ULSM_LSM_SET, _hook_list)

static int allow_check(int req)
{
	(void)req;
	return 0;
}

static int deny_check(int req)
{
	return req & 1 ? -13 : 0;
}

static REQ_HOOK_LIST allow_hooks[] = {
	LSM_HOOK_INIT(req_check, allow_check),
};
static REQ_HOOK_LIST deny_hooks[] = {
	LSM_HOOK_INIT(req_check, deny_check),
};
static const struct lsm_id allow_id = { .name = "allow" };
static const struct lsm_id deny_id = { .name = "deny" };

static int allow_init(void)
{
	security_add_hooks(allow_hooks, 1, &allow_id);
	return 0;
}

static int deny_init(void)
{
	security_add_hooks(deny_hooks, 1, &deny_id);
	return 0;
}

DEFINE_LSM(allow) = { .name = "allow", .init = allow_init, .id = &allow_id };
DEFINE_LSM(deny) = { .name = "deny", .init = deny_init, .id = &deny_id };

#endif /* ULSM_TESTS_REQ_MODULES_H */
