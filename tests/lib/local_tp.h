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
 *
 * log_probe() is how the tests' probes say that they ran.
 */
#ifndef ULSM_TESTS_LOCAL_TP_H
#define ULSM_TESTS_LOCAL_TP_H

#include <stddef.h>
#include <string.h>

#include <ulsm/tracepoint.h>

/*
 * PROTO and ARGS arrive expanded (TP_PROTO() is its list of parameters,
 * commas and all): wrapped again, each is one argument of the two.
 */
#define LOCAL_TRACEPOINT(NAME, PROTO, ARGS)				\
	DECLARE_TRACEPOINT(NAME, TP_PROTO(PROTO), TP_ARGS(ARGS));	\
	DEFINE_TRACEPOINT(NAME, TP_PROTO(PROTO), TP_ARGS(ARGS))

/*
 * A probe's mark: @c added to the string in @log (@size bytes) while it
 * fits, so that the string says which probes ran, in their order.
 */
__attribute__((unused))
static void log_probe(char *log, size_t size, char c)
{
	size_t n = strlen(log);

	if (n + 1 < size) {
		log[n] = c;
		log[n + 1] = 0;
	}
}

#endif /* ULSM_TESTS_LOCAL_TP_H */
