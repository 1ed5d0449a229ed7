/* SPDX-License-Identifier: MIT */
/*
 * tests/apr/no_apr.h - the main of an APR test built where APR is not
 * installed for this compiler: the test says it skipped, and why. It
 * stands in for the test's body:
 *
 *	#ifdef HAVE_APR
 *	...the test...
 *	#else
 *	#include "no_apr.h"
 *	#endif
 */
#ifndef ULSM_TESTS_NO_APR_H
#define ULSM_TESTS_NO_APR_H

#include "tap.h"

int main(void)
{
	skip_all("APR is not installed for this compiler "
		 "(libapr1-dev libaprutil1-dev)");
}

#endif /* ULSM_TESTS_NO_APR_H */
