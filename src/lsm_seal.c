// SPDX-License-Identifier: MIT
/*
 * Sealing: once a set's modules are in, its hook tables and the slot
 * calls' keys become read-only (mprotect, and mseal where the kernel has
 * it), as the kernel's static_calls_table is __ro_after_init, so that a
 * stray or hostile write cannot redirect a hook. The slot keys are sealed
 * too unless the application opted in to toggling before sealing, which
 * needs them writable.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "lsm_internal.h"

static int protect(void *addr, size_t len, const char *what)
{
	int ret = ulsm_sys_mprotect(addr, len, PROT_READ);

	if (ret)
		return ulsm_error(ret, "cannot seal the %s", what);
	/* Linux 6.10+; older kernels say ENOSYS and mprotect must do. */
	ret = ulsm_sys_mseal(addr, len);
	if (ret && ret != -ENOSYS)
		ulsm_debug("mseal of the %s failed: %s", what, strerror(-ret));
	return 0;
}

ULSM_API int ulsm_lsm_seal(struct ulsm_hook_set *set)
{
	int ret;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_seal: NULL set");
	ulsm_lsm_lock();
	if (!ulsm_lsm_state_of(set)) {
		ret = -ENOMEM;
	} else if (set->state->sealed) {
		ret = ulsm_error(-EALREADY, "set %s is already sealed", set->name);
	} else {
		ret = protect(set->sealed, set->sealed_size, "hook tables");
		if (!ret && !set->state->toggle_allowed)
			ret = protect(set->keys, set->keys_size, "slot keys");
		if (!ret)
			set->state->sealed = true;
	}
	ulsm_lsm_unlock();
	return ret;
}

ULSM_API int ulsm_lsm_allow_toggle(struct ulsm_hook_set *set)
{
	int ret = 0;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_allow_toggle: NULL set");
	ulsm_lsm_lock();
	if (!ulsm_lsm_state_of(set))
		ret = -ENOMEM;
	else if (set->state->sealed)
		ret = ulsm_error(-EPERM, "set %s is sealed: opt in to toggling "
				 "before sealing", set->name);
	else
		set->state->toggle_allowed = true;
	ulsm_lsm_unlock();
	return ret;
}
