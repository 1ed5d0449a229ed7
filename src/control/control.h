/* SPDX-License-Identifier: MIT */
/*
 * src/control/control.h - the control endpoint (<ulsm/control.h>,
 * docs/control.md), the library's top layer beside start-up and the
 * dump: none uses it but start-up. It reaches the hook framework through
 * the table the framework registers (src/base/hook_sets.h), not by name.
 * Never installed; hidden visibility, as in src/base/base.h.
 */
#ifndef ULSM_SRC_CONTROL_H
#define ULSM_SRC_CONTROL_H

#include <stdbool.h>

#include <ulsm/control.h>

#include "base/base.h"

/*
 * Each registered switch, with the switch lock held while @fn runs (NULL:
 * only count them); returns how many there are.
 */
int ulsm_switch_each(void (*fn)(void *arg, const struct ulsm_switch *sw),
		     void *arg);
/*
 * Turn the switch called @name on or off (static_branch_enable/disable),
 * then, if that worked, give it to @fn, switch lock held. 0, -ENOENT, or
 * the update's error (its message in ulsm_last_error()).
 */
int ulsm_switch_set(const char *name, bool on,
		    void (*fn)(void *arg, const struct ulsm_switch *sw),
		    void *arg);

/* The switch lock's fork handlers, which src/init.c calls first. */
void ulsm_switch_fork_prepare(void);
void ulsm_switch_fork_release(void);

/*
 * Test seams (the tests link the library statically): a function the
 * endpoint's thread calls at each point, so that a test can fork, or
 * change what a reply describes, exactly there; and the cap of a
 * connection's unsent bytes.
 */
enum ulsm_control_point {
	ULSM_CTL_OUT_FREED,	/* a connection's sent reply just freed */
	ULSM_CTL_TOGGLED,	/* a toggle done, its reply not yet made */
};
extern void (*ulsm_control_test_point)(enum ulsm_control_point point);
extern size_t ulsm_control_out_max;
/* Call the test's function at @point, if it set one. */
void ulsm_control_test(enum ulsm_control_point point);

/*
 * ULSM_CONTROL=1: start the endpoint (start-up, src/init.c); unset, ""
 * and 0: not; anything else is reported and ignored (ulsm_env_flag()).
 */
void ulsm_control_from_env(void);

/*
 * The environment's values (NULL: unset), read apart from their use so
 * that tests/fuzz/fuzz_env.c can give them any bytes:
 * ULSM_CONTROL_TIMEOUT_MS in milliseconds (a value that is not a number
 * from 1 to 600000 is reported, and 5000 used).
 */
int ulsm_control_timeout_parse(const char *v);

#endif /* ULSM_SRC_CONTROL_H */
