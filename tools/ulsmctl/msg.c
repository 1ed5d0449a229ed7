// SPDX-License-Identifier: MIT
/*
 * ulsmctl's messages: each on standard error, after the program's name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ulsmctl.h"

const char *prog = "ulsmctl";

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
