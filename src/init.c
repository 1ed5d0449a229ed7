// SPDX-License-Identifier: MIT
/*
 * Start-up: read the environment once, register the fork handlers, and the
 * small public functions that only read or set configuration.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ulsm_config ulsm_config;
struct ulsm_stats ulsm_stats;

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void parse_env(void)
{
	const char *s;

	s = getenv("ULSM_DEBUG");
	ulsm_config.debug = s && *s && strcmp(s, "0") != 0;

	s = getenv("ULSM_SYNC");
	if (s && !strcmp(s, "signal"))
		ulsm_config.sync_mode = ULSM_SYNC_SIGNAL;
	else if (s && !strcmp(s, "membarrier"))
		ulsm_config.sync_mode = ULSM_SYNC_MEMBARRIER;
	else if (s && *s && strcmp(s, "auto"))
		ulsm_debug("ULSM_SYNC=%s not understood, using auto", s);

	s = getenv("ULSM_WRITE");
	if (s && !strcmp(s, "procmem"))
		ulsm_config.write_mode = ULSM_WRITE_PROCMEM;
	else if (s && !strcmp(s, "mprotect"))
		ulsm_config.write_mode = ULSM_WRITE_MPROTECT;
	else if (s && *s && strcmp(s, "auto"))
		ulsm_debug("ULSM_WRITE=%s not understood, using auto", s);

	ulsm_config.sync_timeout_ms = ULSM_SYNC_TIMEOUT_MS_DEFAULT;
	s = getenv("ULSM_SYNC_TIMEOUT_MS");
	if (s && *s) {
		char *end;
		long n = strtol(s, &end, 10);

		if (!*end && n >= 1 && n <= 3600000)
			ulsm_config.sync_timeout_ms = (unsigned int)n;
		else
			ulsm_debug("ULSM_SYNC_TIMEOUT_MS=%s is not a number of "
				   "milliseconds from 1 to 3600000", s);
	}

	ulsm_config.sync_signal = SIGRTMAX - 3;
	s = getenv("ULSM_SYNC_SIGNAL");
	if (s && *s) {
		char *end;
		long n = strtol(s, &end, 10);

		if (!*end && n >= SIGRTMIN && n <= SIGRTMAX)
			ulsm_config.sync_signal = (int)n;
		else
			ulsm_debug("ULSM_SYNC_SIGNAL=%s is not a real-time signal", s);
	}
}

static void init(void)
{
	parse_env();
	ulsm_lock_atfork_init();
	ulsm_dump_init();
}

void ulsm_init(void)
{
	pthread_once(&init_once, init);
}

/*
 * Also before main(), while the process has one thread: a fork() racing
 * with a first-time initialisation in another thread would leave the child
 * waiting on a once-control copied mid-way (glibc's pthread_once copes;
 * ThreadSanitizer's replacement does not, and t_fork hung under it).
 */
__attribute__((constructor)) static void init_early(void)
{
	ulsm_init();
}

ULSM_API int ulsm_set_sync_mode(enum ulsm_sync_mode mode)
{
	int ret;

	if (mode != ULSM_SYNC_AUTO && mode != ULSM_SYNC_MEMBARRIER &&
	    mode != ULSM_SYNC_SIGNAL)
		return ulsm_error(-EINVAL, "unknown sync mode %d", (int)mode);
	ulsm_init();
	ret = ulsm_lock();
	if (ret)
		return ret;
	enum ulsm_sync_mode old = ulsm_config.sync_mode;

	ulsm_config.sync_mode = mode;
	ret = arch_protocol == ULSM_PROTO_NONE ? 0 : ulsm_sync_prepare();
	if (ret)
		ulsm_config.sync_mode = old;
	ulsm_unlock();
	return ret;
}

ULSM_API int ulsm_set_sync_timeout(unsigned int ms)
{
	if (!ms || ms > 3600000)
		return ulsm_error(-EINVAL, "sync timeout %u ms: from 1 to "
				  "3600000", ms);
	ulsm_init();
	__atomic_store_n(&ulsm_config.sync_timeout_ms, ms, __ATOMIC_RELAXED);
	return 0;
}

ULSM_API int ulsm_set_write_mode(enum ulsm_write_mode mode)
{
	int ret;

	if (mode != ULSM_WRITE_AUTO && mode != ULSM_WRITE_PROCMEM &&
	    mode != ULSM_WRITE_MPROTECT)
		return ulsm_error(-EINVAL, "unknown write mode %d", (int)mode);
	ulsm_init();
	ret = ulsm_lock();
	if (ret)
		return ret;
	ulsm_config.write_mode = mode;
	ulsm_unlock();
	return 0;
}

ULSM_API void ulsm_get_stats(struct ulsm_stats *stats)
{
	unsigned long *dst = (unsigned long *)stats;
	unsigned long *src = (unsigned long *)&ulsm_stats;

	for (size_t i = 0; i < sizeof(*stats) / sizeof(unsigned long); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

ULSM_API const char *ulsm_backend(void)
{
	return ULSM_ARCH_NAME;
}

ULSM_API const char *ulsm_sync_method(void)
{
	return ulsm_sync_name();
}
