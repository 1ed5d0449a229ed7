// SPDX-License-Identifier: MIT
/*
 * ulsmctl's messages: each on standard error, after the program's name.
 * What a program said is escaped by the caller (escape.c) before it gets
 * here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ulsmctl.h"

const char *prog = "ulsmctl";

__attribute__((format(printf, 1, 0)))
static void say(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	exit(EXIT_FAIL);
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}
