/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/local_tp.h - a tracepoint of the test's own, declared and
 * defined in one line, so that its prototype is written once:
 *
 *	LOCAL_TRACEPOINT(tp_x, TP_PROTO(int x), TP_ARGS(x));
 *
 * is DECLARE_TRACEPOINT() then DEFINE_TRACEPOINT() with the same words
 * (<ulsm/tracepoint.h>). A tracepoint that a plug-in shares is declared
 * in a header of the test's instead (tests/trace/tp_defs.h).
 */
#ifndef ULSM_TESTS_LOCAL_TP_H
#define ULSM_TESTS_LOCAL_TP_H

#include <ulsm/tracepoint.h>

/*
 * PROTO and ARGS arrive expanded (TP_PROTO() is its list of parameters,
 * commas and all): wrapped again, each is one argument of the two.
 */
#define LOCAL_TRACEPOINT(NAME, PROTO, ARGS)				\
	DECLARE_TRACEPOINT(NAME, TP_PROTO(PROTO), TP_ARGS(ARGS));	\
	DEFINE_TRACEPOINT(NAME, TP_PROTO(PROTO), TP_ARGS(ARGS))

#endif /* ULSM_TESTS_LOCAL_TP_H */
