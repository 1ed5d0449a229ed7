/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/tap.h - a minimal TAP producer (the kernel's kselftest convention).
 *
 * Every check is one "ok N - name" or "not ok N - name" line; the plan comes
 * last (done_testing) so tests need not count ahead. Exit status is nonzero
 * when a check failed, so a test also fails outside prove.
 */
#ifndef ULSM_TESTS_TAP_H
#define ULSM_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_crash.h"

static int tap_count, tap_failed;

__attribute__((format(printf, 2, 3), unused))
static int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

#define ok(cond, ...)	tap_ok(!!(cond), __VA_ARGS__)

#define is_int(got, want, ...)						\
	({								\
		long long tap_g = (got), tap_w = (want);		\
		int tap_r = tap_ok(tap_g == tap_w, __VA_ARGS__);	\
		if (!tap_r)						\
			diag("  got %lld, want %lld", tap_g, tap_w);	\
		tap_r;							\
	})

#define is_string(got, want, ...)					\
	({								\
		const char *tap_gs = (got), *tap_ws = (want);		\
		int tap_r = tap_ok(!strcmp(tap_gs, tap_ws), __VA_ARGS__); \
		if (!tap_r)						\
			diag("  got \"%s\", want \"%s\"", tap_gs, tap_ws); \
		tap_r;							\
	})

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

__attribute__((unused, noreturn))
static void skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	exit(0);
}

__attribute__((unused))
static int done_testing(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		diag("%d of %d checks failed", tap_failed, tap_count);
	return tap_failed ? 1 : 0;
}

/* "--name N" from argv, else @def. */
__attribute__((unused))
static long arg_long(int argc, char **argv, const char *name, long def)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtol(argv[i + 1], NULL, 0);
	return def;
}

/*
 * An iteration count: "--name N" from argv, else @def, divided by 8 when
 * the test runs under an emulator (ULSM_EMU, set by make check's EMU=):
 * qemu-user runs the code 20-50 times slower, and its signal rounds cost
 * milliseconds.
 */
__attribute__((unused))
static long arg_count(int argc, char **argv, const char *name, long def)
{
	const char *emu = getenv("ULSM_EMU");

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtol(argv[i + 1], NULL, 0);
	if (emu && *emu)
		return def / 8 > 0 ? def / 8 : 1;
	return def;
}

#endif /* ULSM_TESTS_TAP_H */
