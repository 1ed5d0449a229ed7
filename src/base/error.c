// SPDX-License-Identifier: MIT
/*
 * Errors and diagnostics. The API reports a negative errno; the message
 * that explains it is kept per thread for ulsm_last_error() and printed on
 * stderr when ULSM_DEBUG is set.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

bool ulsm_debugging;
static __thread char last_error[256];

__attribute__((format(printf, 1, 0)))
static void vreport(const char *fmt, va_list ap, bool print)
{
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	if (print)
		fprintf(stderr, "ulsm: %s\n", last_error);
}

int ulsm_error(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap, ulsm_debugging);
	va_end(ap);
	return err;
}

void ulsm_debug(const char *fmt, ...)
{
	va_list ap;

	if (!ulsm_debugging)
		return;
	va_start(ap, fmt);
	fputs("ulsm: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

_Noreturn void ulsm_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ulsm: internal error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

void ulsm_clear_error(void)
{
	last_error[0] = '\0';
}

ULSM_API const char *ulsm_last_error(void)
{
	return last_error;
}
