// SPDX-License-Identifier: MIT
/*
 * The engine's public settings (<ulsm/ulsm.h>): the core-sync and write
 * methods, the sync timeout, and the names of the back end and of the
 * sync method in use. The environment gives their defaults
 * (src/base/config.c).
 */
#include <errno.h>

#include <ulsm/arch.h>

#include "engine/engine.h"

/*
 * A setter's start: @mode (@what: "sync" or "write") is 0 (auto) to
 * @last, and then the patch lock, which the caller drops.
 */
static int mode_begin(const char *what, int mode, int last)
{
	if (mode < 0 || mode > last)
		return ulsm_error(-EINVAL, "unknown %s mode %d", what, mode);
	ulsm_config_init();
	return ulsm_lock();
}

ULSM_API int ulsm_set_sync_mode(enum ulsm_sync_mode mode)
{
	int ret = mode_begin("sync", (int)mode, ULSM_SYNC_SIGNAL);

	if (ret)
		return ret;
	enum ulsm_sync_mode old = ulsm_config.sync_mode;

	ulsm_config.sync_mode = mode;
	ret = ulsm_caps()->patches_code ? ulsm_sync_prepare() : 0;
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
	ulsm_config_init();
	__atomic_store_n(&ulsm_config.sync_timeout_ms, ms, __ATOMIC_RELAXED);
	return 0;
}

ULSM_API int ulsm_set_write_mode(enum ulsm_write_mode mode)
{
	int ret = mode_begin("write", (int)mode, ULSM_WRITE_MPROTECT);

	if (ret)
		return ret;
	ulsm_config.write_mode = mode;
	ulsm_unlock();
	return 0;
}

ULSM_API const char *ulsm_backend(void)
{
	return ULSM_ARCH_NAME;
}

ULSM_API const char *ulsm_sync_method(void)
{
	return ulsm_sync_name();
}
