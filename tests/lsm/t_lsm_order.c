// SPDX-License-Identifier: MIT
/*
 * Module order, one rule at a time. A set is initialised once per process,
 * so each case runs ulsm_lsm_init() in a child and reports the active list
 * (and, for some, slot owners) through a pipe.
 *
 * The test modules (tests/lsm/test_lsm.h): capa is LSM_ORDER_FIRST, omega
 * LSM_ORDER_LAST, gamma and delta exclusive, offmod disabled by default;
 * MAX_LSM_COUNT is 3, so a fourth module does not fit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "tap.h"
#include "test_lsm.h"

struct result {
	int ret;
	char list[256];
	char owners[256];	/* file_open slots 0..2 */
};

struct order_case {
	const char *order, *env;
	int fail_module;
};

static void order_child(void *arg)
{
	const struct order_case *c = arg;
	struct result r;

	memset(&r, 0, sizeof(r));
	if (c->env)
		setenv("ULSM_LSM", c->env, 1);
	else
		unsetenv("ULSM_LSM");
	if (c->fail_module >= 0)
		tl_init_ret[c->fail_module] = -5;
	tl_defaults();
	r.ret = ulsm_lsm_init(&tl_hook_set, c->order);
	snprintf(r.list, sizeof(r.list), "%s", ulsm_lsm_list(&tl_hook_set));
	for (unsigned int s = 0; s < 3; s++) {
		const struct lsm_id *id =
			ulsm_lsm_slot_owner(&tl_hook_set, "file_open", s);
		size_t n = strlen(r.owners);

		snprintf(r.owners + n, sizeof(r.owners) - n, "%s%s",
			 s ? "," : "", id ? id->name : "-");
	}
	child_send(&r, sizeof(r));
}

/* ulsm_lsm_init() in a child: a set is initialised once per process. */
static struct result run(const char *order, const char *env, int fail_module)
{
	struct order_case c = { order, env, fail_module };
	struct result r;

	if (in_child(order ? order : env ? env : "(built-in)", order_child, &c,
		     &r, sizeof(r)) != sizeof(r)) {
		memset(&r, 0, sizeof(r));
		r.ret = -9999;
	}
	return r;
}

/*
 * One rule a case: the order string, ULSM_LSM and the module whose init
 * fails (-1: none) that run() takes, the list that comes up, and why.
 */
static const struct order_rule {
	const char *order, *env;
	int fail_module;
	const char *want, *why;
} rules[] = {
	{ "beta", NULL, -1, "capa,beta,omega",
	  "first, the order string, then last" },
	{ "beta,alpha", NULL, -1, "capa,beta,alpha",
	  "order string order; the fourth module (omega) does not fit" },
	{ "beta,beta", NULL, -1, "capa,beta,omega",
	  "duplicates ignored" },
	{ "nosuch,beta", NULL, -1, "capa,beta,omega",
	  "unknown names ignored" },
	{ " beta , ", NULL, -1, "capa,beta,omega",
	  "blanks and empty names ignored" },
	{ "gamma,delta", NULL, -1, "capa,gamma,omega",
	  "only the first exclusive module" },
	{ "delta,gamma", NULL, -1, "capa,delta,omega",
	  "... whichever comes first" },
	{ "beta", NULL, -1, "capa,beta,omega",
	  "modules not listed stay off" },
	{ "beta,!omega", NULL, -1, "capa,beta",
	  "!name removes a last module" },
	{ "!capa,alpha", NULL, -1, "alpha,omega",
	  "!name removes a first module" },
	{ "alpha,beta,!alpha", NULL, -1, "capa,beta,omega",
	  "!name removes a listed module" },
	/* The built-in order is alpha,beta,gamma. */
	{ "!alpha", NULL, -1, "capa,beta,gamma",
	  "only removals: built-in order minus alpha (omega does not fit)" },
	{ "omega,capa,beta", NULL, -1, "capa,beta,omega",
	  "first and last modules are placed by their class only" },
	{ "offmod,beta", NULL, -1, "capa,beta,omega",
	  "a module disabled by default stays off" },
	{ "", NULL, -1, "capa,alpha,beta",
	  "an empty order means the default" },
	{ NULL, NULL, -1, "capa,alpha,beta",
	  "the built-in order (alpha,beta,gamma: gamma does not fit)" },
	/* ULSM_LSM, the order of the environment. */
	{ NULL, "gamma", -1, "capa,gamma,omega",
	  "ULSM_LSM when no order is given" },
	{ NULL, "!capa", -1, "alpha,beta,gamma",
	  "only removals in ULSM_LSM too" },
	{ "beta", "gamma", -1, "capa,beta,omega",
	  "the argument beats ULSM_LSM" },
	/* Modules whose init fails. */
	{ "beta,alpha", NULL, M_BETA, "capa,alpha,omega",
	  "a module whose init fails stays off; the others go on" },
	/* As when the exclusive module arrives after init. */
	{ "gamma,delta", NULL, M_GAMMA, "capa,delta,omega",
	  "an exclusive module whose init fails keeps no other out" },
};

static void order_is(const struct order_rule *c)
{
	struct result r = run(c->order, c->env, c->fail_module);

	ok(r.ret == 0 && !strcmp(r.list, c->want),
	   "%s: \"%s\" -> \"%s\" (got \"%s\", %d)", c->why,
	   c->order ? c->order : c->env ? c->env : "(built-in)", c->want,
	   r.list, r.ret);
}

int main(void)
{
	struct result r;

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		order_is(&rules[i]);
	r = run("beta,alpha", NULL, -1);
	is_int(strcmp(r.owners, "capa,beta,alpha"), 0,
	       "slot order is module order (file_open slots: %s)", r.owners);

	/* In this process: init twice, and bad arguments. */
	tl_defaults();
	is_int(ulsm_lsm_init(&tl_hook_set, "beta"), 0, "init");
	is_int(ulsm_lsm_init(&tl_hook_set, "alpha"), -EALREADY,
	       "a second init -> -EALREADY");
	ok(!strcmp(ulsm_lsm_list(&tl_hook_set), "capa,beta,omega"),
	   "and the first one stands: %s", ulsm_lsm_list(&tl_hook_set));
	is_int(ulsm_lsm_module_active(&tl_hook_set, "beta"), 1, "beta is active");
	is_int(ulsm_lsm_module_active(&tl_hook_set, "alpha"), 0, "alpha is not");
	is_int(ulsm_lsm_module_active(&tl_hook_set, "nosuch"), -ENOENT,
	       "no such module -> -ENOENT");
	is_int(ulsm_lsm_init(NULL, "beta"), -EINVAL, "NULL set -> -EINVAL");
	{
		static struct lsm_info late = { .name = "late" };

		const char *why;

		is_int(ulsm_lsm_register(&late, &tl_hook_set), 0,
		       "a module registered after init, not listed: 0");
		is_int(ulsm_lsm_module_active(&tl_hook_set, "late"), 0,
		       "  it stays off");
		why = ulsm_lsm_module_reason(&tl_hook_set, "late");
		ok(why && strstr(why, "not listed"), "  and says why: %s",
		   why ? why : "(none)");
		ok(!strcmp(ulsm_lsm_list(&tl_hook_set), "capa,beta,omega"),
		   "  the set is unchanged: %s", ulsm_lsm_list(&tl_hook_set));
	}
	{
		/*
		 * A set's record from older headers (shorter than this
		 * library's first sized layout; docs/abi.md): refused, by
		 * its size alone, and nothing changes.
		 */
		static struct lsm_info older = { .name = "older" };
		unsigned int size = tl_hook_set.size;

		tl_hook_set.size = 8;
		is_int(ulsm_lsm_register(&older, &tl_hook_set), -EPROTO,
		       "a set's record shorter than this library's -> -EPROTO");
		ok(strstr(ulsm_last_error(), "older than this library") != NULL,
		   "  and says why: %s", ulsm_last_error());
		is_int(ulsm_lsm_init(&tl_hook_set, "beta"), -EPROTO,
		       "  ulsm_lsm_init too");
		tl_hook_set.size = size;
		is_int(ulsm_lsm_module_active(&tl_hook_set, "older"), -ENOENT,
		       "  the module was not registered");
		ok(!strcmp(ulsm_lsm_list(&tl_hook_set), "capa,beta,omega"),
		   "  the set is unchanged: %s", ulsm_lsm_list(&tl_hook_set));
	}
	return done_testing();
}
