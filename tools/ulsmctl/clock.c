// SPDX-License-Identifier: MIT
/*
 * Time for ulsmctl: the monotonic clock in milliseconds, and durations
 * as the command line writes them.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ulsmctl.h"

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "5s", "500ms", "2m", "3" (seconds): milliseconds, or -1. */
long duration_ms(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		v *= 1000;
	else if (!strcmp(end, "m"))
		v *= 60000;
	else if (strcmp(end, "ms"))
		return -1;
	return v > 86400000.0 ? -1 : (long)v;
}
