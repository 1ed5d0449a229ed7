// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_env.c - the library's reading of its environment
 * variables under libFuzzer (tests/fuzz/fuzz.mk; make check replays its
 * corpus).
 *
 * An input is an environment as the kernel hands it over (and as
 * /proc/PID/environ shows it): "NAME=value" strings, each ended by a NUL.
 * Each variable's parser is called with what the input gives it (the
 * first string of that name; none: unset), the same function start-up
 * calls with getenv()'s answer:
 *
 *   ULSM_DEBUG, ULSM_SYNC, ULSM_WRITE, ULSM_SYNC_TIMEOUT_MS,
 *   ULSM_SYNC_SIGNAL      ulsm_config_parse()          src/base/config.c
 *   ULSM_CONTROL, ULSM_USDT
 *                         ulsm_env_flag()              src/base/config.c
 *   ULSM_CONTROL_TIMEOUT_MS
 *                         ulsm_control_timeout_parse() src/control/server.c
 *   ULSM_DUMP             ulsm_dump_target()           src/dump.c
 *   ULSM_TRACE_BUF        ulsm_trace_buf_parse()       src/trace/recorder.c
 *   ULSM_TRACE_CLOCK      ulsm_trace_clock_parse()     src/trace/clock.c
 *
 * (ULSM_LSM and ULSM_TRACE have harnesses of their own, fuzz_order and
 * fuzz_trace_glob; ULSM_TRACE_FILE is a path, opened as it is.) These
 * functions read nothing else and change nothing (their complaints go
 * to the log, which is quiet here), so each input starts afresh.
 *
 * Every value must come out within its documented range, a number
 * written plainly (digits, no sign, no blank, no leading zero) within
 * its range must be taken as it is, and the words each variable knows
 * must mean what the manual says. A difference aborts.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/ulsm.h>

#include "base/base.h"
#include "control/control.h"
#include "dump.h"
#include "trace/clock.h"
#include "trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input's environment: its strings, in order. */
#define MAX_VARS	64
static const char *vars[MAX_VARS];
static int nvars;

static const char *lookup(const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < nvars; i++)
		if (!strncmp(vars[i], name, n) && vars[i][n] == '=')
			return vars[i] + n + 1;
	return NULL;
}

static void quiet(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

static void fail(const char *name, const char *v, const char *what)
{
	fprintf(stderr, "fuzz_env: %s=\"%.100s\": %s\n", name,
		v ? v : "(unset)", what);
	abort();
}

/* @v as a number written plainly (1 to 9 digits, no leading 0), or -1. */
static long plain(const char *v)
{
	long n = 0;
	size_t len = v ? strlen(v) : 0;

	if (!len || len > 9 || v[0] == '0' || strspn(v, "0123456789") != len)
		return -1;
	for (size_t i = 0; i < len; i++)
		n = n * 10 + (v[i] - '0');
	return n;
}

/* A number in [@lo, @hi] (@dflt for nothing); a plain one in range kept. */
static void check_number(const char *name, long got, long lo, long hi,
			 long dflt)
{
	const char *v = lookup(name);
	long p = plain(v);

	if (got < lo || got > hi)
		fail(name, v, "out of its range");
	if ((!v || !*v) && got != dflt)
		fail(name, v, "unset, but not the default");
	if (p >= lo && p <= hi && got != p)
		fail(name, v, "a plain number in range, not taken");
}

static bool is(const char *v, const char *word)
{
	return v && !strcmp(v, word);
}

static void check_config(void)
{
	struct ulsm_config c = { 0 };
	const char *v;
	bool debugging = false;

	ulsm_config_parse(&c, &debugging, lookup);
	v = lookup("ULSM_DEBUG");
	if (debugging != (v && *v && strcmp(v, "0")))
		fail("ULSM_DEBUG", v, "on is anything but unset, empty, 0");
	v = lookup("ULSM_SYNC");
	if (c.sync_mode != (is(v, "signal") ? ULSM_SYNC_SIGNAL :
			    is(v, "membarrier") ? ULSM_SYNC_MEMBARRIER :
			    ULSM_SYNC_AUTO))
		fail("ULSM_SYNC", v, "not the mode it names, nor auto");
	v = lookup("ULSM_WRITE");
	if (c.write_mode != (is(v, "procmem") ? ULSM_WRITE_PROCMEM :
			     is(v, "mprotect") ? ULSM_WRITE_MPROTECT :
			     ULSM_WRITE_AUTO))
		fail("ULSM_WRITE", v, "not the method it names, nor auto");
	check_number("ULSM_SYNC_TIMEOUT_MS", (long)c.sync_timeout_ms, 1,
		     3600000, ULSM_SYNC_TIMEOUT_MS_DEFAULT);
	check_number("ULSM_SYNC_SIGNAL", c.sync_signal, SIGRTMIN, SIGRTMAX,
		     SIGRTMAX - 3);
}

/* A switch: on for 1, off for unset, empty and 0, else refused. */
static void check_flag(const char *name)
{
	const char *v = lookup(name);
	int r = ulsm_env_flag(v);

	if (r != (!v || !*v || is(v, "0") ? 0 : is(v, "1") ? 1 : -EINVAL))
		fail(name, v, "not 0, 1 or refused");
}

static void check_others(void)
{
	const char *v;
	bool bad;
	uint32_t cap;
	long p;

	check_flag("ULSM_CONTROL");
	check_number("ULSM_CONTROL_TIMEOUT_MS",
		     ulsm_control_timeout_parse(lookup("ULSM_CONTROL_TIMEOUT_MS")),
		     1, 600000, 5000);

	v = lookup("ULSM_DUMP");
	if (ulsm_dump_target(v) != (!v || !*v || is(v, "0") ? ULSM_DUMP_NONE :
				    is(v, "1") ? ULSM_DUMP_STDERR :
				    ULSM_DUMP_FILE))
		fail("ULSM_DUMP", v, "not nowhere, standard error or a file");

	v = lookup("ULSM_TRACE_BUF");
	cap = ulsm_trace_buf_parse(v, &bad);
	p = plain(v);
	if (cap < 64 || cap > (1u << 24) || (cap & (cap - 1)))
		fail("ULSM_TRACE_BUF", v, "not a power of two in range");
	if (bad ? cap != 16384 : v && *v && cap / 2 >= strtoul(v, NULL, 0))
		fail("ULSM_TRACE_BUF", v, "not the default, nor rounded up");
	if (p >= 64 && p <= (1 << 24) && (bad || cap < p || cap / 2 >= p))
		fail("ULSM_TRACE_BUF", v, "a plain number in range, refused");
	if ((!v || !*v) && (bad || cap != 16384))
		fail("ULSM_TRACE_BUF", v, "unset, but not the default");

	v = lookup("ULSM_TRACE_CLOCK");
	if (ulsm_trace_clock_parse(v, &bad) != !is(v, "monotonic") ||
	    bad != (v && *v && !is(v, "counter") && !is(v, "monotonic")))
		fail("ULSM_TRACE_CLOCK", v, "not counter, monotonic or bad");

	check_flag("ULSM_USDT");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	char *env = malloc(size + 1);

	if (!env)
		abort();
	if (!ready) {
		ulsm_set_log(quiet, NULL);
		ready = true;
	}
	memcpy(env, data, size);
	env[size] = '\0';
	nvars = 0;
	for (char *s = env; s < env + size && nvars < MAX_VARS;
	     s += strlen(s) + 1)
		vars[nvars++] = s;
	check_config();
	check_others();
	free(env);
	return 0;
}
