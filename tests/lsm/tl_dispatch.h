/* SPDX-License-Identifier: MIT */
/*
 * file_open of the test set (test_lsm.h) dispatched once and checked: what
 * call_int_hook returns, then which modules ran, in order (tl_trace). For
 * the tests that include tap.h; each check keeps its own description.
 */
#ifndef ULSM_TL_DISPATCH_H
#define ULSM_TL_DISPATCH_H

#include <string.h>

#include "tap.h"
#include "test_lsm.h"

/*
 * @want: what dispatch returns, checked as @what; @ran: the trace, checked
 * as "@ran_what: <the trace>". The test modules' file_open callbacks
 * ignore their file, so one of our own serves.
 */
__attribute__((unused))
static void file_open_is(int want, const char *what, const char *ran,
			 const char *ran_what)
{
	struct t_file f = { NULL, 0 };

	tl_trace_reset();
	is_int(call_int_hook(file_open, &f), want, "%s", what);
	ok(!strcmp(tl_trace, ran), "%s: %s", ran_what, tl_trace);
}

#endif
