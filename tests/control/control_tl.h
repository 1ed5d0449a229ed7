/* SPDX-License-Identifier: MIT */
/*
 * tests/control/control_tl.h - the test hook set "tl" (tests/lsm/) behind
 * the control endpoint, as t_control, t_control_door and t_control_walk
 * set it up: tl_endpoint_init() in main, before the cases (modules alpha
 * and beta); tl_seal_toggleable() in a case, a sealed set whose modules
 * may still be toggled; tl_beta_off(), a toggle through the endpoint.
 */
#ifndef ULSM_TESTS_CONTROL_TL_H
#define ULSM_TESTS_CONTROL_TL_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ulsm/lsm.h>

#include "child.h"
#include "control_client.h"
#include "tap.h"
#include "test_lsm.h"

/*
 * No endpoint from the environment, a reply timeout of @timeout_ms, and
 * the set initialised with alpha and beta; the test skips without it.
 */
__attribute__((unused))
static void tl_endpoint_init(const char *timeout_ms)
{
	unsetenv("ULSM_CONTROL");
	setenv("ULSM_CONTROL_TIMEOUT_MS", timeout_ms, 1);
	tl_defaults();
	if (ulsm_lsm_init(&tl_hook_set, "alpha,beta"))
		skip_all("the test hook set does not initialise");
}

/* In a case: the set sealed, with toggling allowed first (a check). */
__attribute__((unused))
static void tl_seal_toggleable(void)
{
	check(ulsm_lsm_allow_toggle(&tl_hook_set) == 0 &&
	      ulsm_lsm_seal(&tl_hook_set) == 0, "toggle allowed, sealed");
}

/*
 * "toggle tl beta off" to this process's endpoint: answered with 0, and
 * the reply names beta, off (@reply_says: that check's words).
 */
__attribute__((unused))
static void tl_beta_off(const char *reply_says)
{
	char *p, msg[600];

	check(cc_once(getpid(), "toggle tl beta off\n", &p, msg,
		      sizeof(msg)) == 0, "toggle beta off (%s)", msg);
	check(p && strstr(p, "\"name\":\"beta\"") && strstr(p, "\"on\":false"),
	      "%s (%s)", reply_says, p ? p : "");
	free(p);
}

#endif /* ULSM_TESTS_CONTROL_TL_H */
