// SPDX-License-Identifier: MIT
/*
 * The Makefile's test for LTTng-UST (HAVE_LTTNG): a program that includes
 * its tracepoint header and links with -llttng-ust -ldl. When it does not
 * build, bench_tracepoint is built without its LTTng-UST candidates.
 */
#include <lttng/tracepoint.h>

int main(void)
{
	return 0;
}
