// SPDX-License-Identifier: MIT
/*
 * Two independent hook sets in one process: the test set "tl" (from
 * tests/lsm/test_lsm.c) and a small set "net" defined here, each with its
 * own modules, order, slots and seal. What happens to one must not show
 * in the other.
 */
#include <stdio.h>

#include "tap.h"
#include "test_lsm.h"

/*
 * The second set. From here on ULSM_LSM_SET names "net", so the kernel's
 * names (call_int_hook...) would dispatch it: both sets are used through
 * the set-first ulsm_ forms below.
 */
#undef ULSM_LSM_SET
#undef ULSM_LSM_HOOK_DEFS
#define ULSM_LSM_SET		net
#define ULSM_LSM_HOOK_DEFS	"net_hook_defs.h"
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

static int port_calls;

static int fw_connect(int port)
{
	port_calls++;
	return port == 23 ? -EACCES : 0;
}

static const struct lsm_id fw_id = { "firewall", 300 };
static struct net_hook_list fw_hooks[] = {
	ulsm_lsm_hook_init(net, socket_connect, fw_connect),
};

static int fw_init(void)
{
	return ulsm_security_add_hooks_to(net, fw_hooks, 1, &fw_id);
}

DEFINE_LSM_IN(net, firewall) = {
	.name = "firewall", .init = fw_init, .id = &fw_id,
};

int main(void)
{
	struct t_file f = { NULL, 0 };

	tl_defaults();
	is_int(ulsm_lsm_init(&tl_hook_set, "beta"), 0, "init the test set");
	is_int(ulsm_lsm_init(&net_hook_set, NULL), 0, "init the net set");
	ok(!strcmp(ulsm_lsm_list(&tl_hook_set), "capa,beta,omega"),
	   "test set modules: %s", ulsm_lsm_list(&tl_hook_set));
	ok(!strcmp(ulsm_lsm_list(&net_hook_set), "firewall"),
	   "net set modules: %s", ulsm_lsm_list(&net_hook_set));
	is_int(ulsm_lsm_module_active(&net_hook_set, "beta"), -ENOENT,
	       "beta is not a module of the net set");

	is_int(ulsm_call_int_hook(net, socket_connect, 23), -EACCES,
	       "net: telnet denied");
	is_int(ulsm_call_int_hook(net, socket_connect, 443), 0, "net: https allowed");
	is_int(port_calls, 2, "the firewall ran twice");
	tl_trace_reset();
	is_int(ulsm_call_int_hook(tl, file_open, &f), 0, "test set dispatch");
	ok(!strcmp(tl_trace, "capa:file_open beta:file_open omega:file_open"),
	   "  only the test set's modules: %s", tl_trace);
	is_int(port_calls, 2, "  and not the firewall");

	is_int(ulsm_lsm_seal(&net_hook_set), 0, "seal the net set");
	{
		static const struct lsm_id late_id = { "late", 9 };
		static struct tl_hook_list late[] = {
			ulsm_lsm_hook_init(tl, noargs, NULL),
		};

		is_int(ulsm_security_add_hooks_to(tl, late, 1, &late_id), -EINVAL,
		       "the test set is not sealed: a bad hook gets -EINVAL, "
		       "not -EPERM");
	}
	is_int(ulsm_call_int_hook(net, socket_connect, 23), -EACCES,
	       "net still dispatches when sealed");
	return done_testing();
}
