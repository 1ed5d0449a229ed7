// SPDX-License-Identifier: MIT
/*
 * Configuration and statistics, at the bottom of the library where every
 * layer may read them: the environment is read once (ULSM_DEBUG,
 * ULSM_SYNC, ULSM_WRITE, ULSM_SYNC_TIMEOUT_MS, ULSM_SYNC_SIGNAL), and the
 * counters every layer adds to are read by ulsm_get_stats().
 */
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/config.h>

#include "base/base.h"

struct ulsm_config ulsm_config;
struct ulsm_stats ulsm_stats;

static pthread_once_t config_once = PTHREAD_ONCE_INIT;

/* The words of ULSM_SYNC and ULSM_WRITE, by the value each names. */
static const char *const sync_names[3] = {
	[ULSM_SYNC_AUTO] = "auto",
	[ULSM_SYNC_MEMBARRIER] = "membarrier",
	[ULSM_SYNC_SIGNAL] = "signal",
};
static const char *const write_names[3] = {
	[ULSM_WRITE_AUTO] = "auto",
	[ULSM_WRITE_PROCMEM] = "procmem",
	[ULSM_WRITE_MPROTECT] = "mprotect",
};

/*
 * The mode the variable @var names among @names, or -1 to keep the
 * default (auto, 0): @var unset, empty, "auto", or a word not
 * understood (said when debugging).
 */
static int mode_named(ulsm_env_fn *env, const char *var,
		      const char *const names[3])
{
	const char *s = env(var);

	for (int i = 1; i < 3; i++)
		if (s && !strcmp(s, names[i]))
			return i;
	if (s && *s && strcmp(s, names[0]))
		ulsm_debug("%s=%s not understood, using auto", var, s);
	return -1;
}

void ulsm_config_parse(struct ulsm_config *c, bool *debugging,
		       ulsm_env_fn *env)
{
	const char *s;
	int m;

	s = env("ULSM_DEBUG");
	*debugging = s && *s && strcmp(s, "0") != 0;

	m = mode_named(env, "ULSM_SYNC", sync_names);
	if (m >= 0)
		c->sync_mode = (enum ulsm_sync_mode)m;
	m = mode_named(env, "ULSM_WRITE", write_names);
	if (m >= 0)
		c->write_mode = (enum ulsm_write_mode)m;

	c->sync_timeout_ms = ULSM_SYNC_TIMEOUT_MS_DEFAULT;
	s = env("ULSM_SYNC_TIMEOUT_MS");
	if (s && *s) {
		char *end;
		long n = strtol(s, &end, 10);

		if (!*end && n >= 1 && n <= 3600000)
			c->sync_timeout_ms = (unsigned int)n;
		else
			ulsm_debug("ULSM_SYNC_TIMEOUT_MS=%s is not a number of "
				   "milliseconds from 1 to 3600000", s);
	}

	c->sync_signal = SIGRTMAX - 3;
	s = env("ULSM_SYNC_SIGNAL");
	if (s && *s) {
		char *end;
		long n = strtol(s, &end, 10);

		if (!*end && n >= SIGRTMIN && n <= SIGRTMAX)
			c->sync_signal = (int)n;
		else
			ulsm_debug("ULSM_SYNC_SIGNAL=%s is not a real-time signal", s);
	}
}

static const char *from_environ(const char *name)
{
	return getenv(name);
}

static void parse_env(void)
{
	ulsm_config_parse(&ulsm_config, &ulsm_debugging, from_environ);
}

void ulsm_config_init(void)
{
	pthread_once(&config_once, parse_env);
}

ULSM_API void ulsm_get_stats_size(struct ulsm_stats *stats, size_t size)
{
	unsigned long *dst = (unsigned long *)stats;
	unsigned long *src = (unsigned long *)&ulsm_stats;
	size_t n = size / sizeof(unsigned long);

	for (size_t i = 0; i < n; i++)
		dst[i] = i < sizeof(ulsm_stats) / sizeof(unsigned long) ?
			 __atomic_load_n(&src[i], __ATOMIC_RELAXED) : 0;
}

ULSM_API const char *ulsm_version(void)
{
	return ULSM_VERSION;
}

int ulsm_env_flag(const char *v)
{
	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	return strcmp(v, "1") ? -EINVAL : 1;
}

bool ulsm_env_switch(const char *name)
{
	const char *v = getenv(name);
	int on = ulsm_env_flag(v);

	if (on < 0)
		ulsm_report("%s=\"%.32s\" is neither 0 nor 1: ignored", name, v);
	return on > 0;
}
