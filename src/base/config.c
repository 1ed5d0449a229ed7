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

void ulsm_config_parse(struct ulsm_config *c, bool *debugging,
		       ulsm_env_fn *env)
{
	const char *s;

	s = env("ULSM_DEBUG");
	*debugging = s && *s && strcmp(s, "0") != 0;

	s = env("ULSM_SYNC");
	if (s && !strcmp(s, "signal"))
		c->sync_mode = ULSM_SYNC_SIGNAL;
	else if (s && !strcmp(s, "membarrier"))
		c->sync_mode = ULSM_SYNC_MEMBARRIER;
	else if (s && *s && strcmp(s, "auto"))
		ulsm_debug("ULSM_SYNC=%s not understood, using auto", s);

	s = env("ULSM_WRITE");
	if (s && !strcmp(s, "procmem"))
		c->write_mode = ULSM_WRITE_PROCMEM;
	else if (s && !strcmp(s, "mprotect"))
		c->write_mode = ULSM_WRITE_MPROTECT;
	else if (s && *s && strcmp(s, "auto"))
		ulsm_debug("ULSM_WRITE=%s not understood, using auto", s);

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
