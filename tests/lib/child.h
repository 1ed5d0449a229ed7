/* SPDX-License-Identifier: MIT */
/*
 * tests/child.h - checks made inside a child process of a test (a case
 * that may crash, hang or change the process for good runs in a fork of
 * its own): a failed check prints one "#   FAIL:" line, with the
 * library's last error, and is counted in @failures, which the child's
 * exit status reports to the parent's TAP line.
 */
#ifndef ULSM_TESTS_CHILD_H
#define ULSM_TESTS_CHILD_H

#include <stdio.h>

#include <ulsm/ulsm.h>

static int failures __attribute__((unused));	/* unused where no case runs */

#define check(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			failures++;					\
			printf("#   FAIL: ");				\
			printf(__VA_ARGS__);				\
			printf(" (%s)\n", ulsm_last_error());		\
			fflush(stdout);					\
		}							\
	} while (0)

#endif /* ULSM_TESTS_CHILD_H */
