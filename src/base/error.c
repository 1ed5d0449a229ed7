// SPDX-License-Identifier: MIT
/*
 * Errors and diagnostics. The API reports a negative errno; the message
 * that explains it is kept per thread for ulsm_last_error() and printed on
 * stderr when ULSM_DEBUG is set.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

bool ulsm_debugging;
static __thread char last_error[256];

/* Where the library's messages go: the program's handler, or stderr. */
static struct {
	void (*fn)(const char *msg, void *arg);
	void *arg;
} log_to;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void put(const char *msg)
{
	pthread_mutex_lock(&log_lock);
	if (log_to.fn)
		log_to.fn(msg, log_to.arg);
	else
		fprintf(stderr, "ulsm: %s\n", msg);
	pthread_mutex_unlock(&log_lock);
}

ULSM_API void ulsm_set_log(void (*fn)(const char *msg, void *arg), void *arg)
{
	pthread_mutex_lock(&log_lock);
	log_to.fn = fn;
	log_to.arg = arg;
	pthread_mutex_unlock(&log_lock);
}

void ulsm_report(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	put(msg);
}

__attribute__((format(printf, 1, 0)))
static void vreport(const char *fmt, va_list ap, bool print)
{
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	if (print)
		put(last_error);
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
	char msg[512];
	va_list ap;

	if (!ulsm_debugging)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	put(msg);
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
