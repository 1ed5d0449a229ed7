// SPDX-License-Identifier: MIT
/*
 * The run-time toggle, beyond the kernel: turn every slot of one active
 * module off or on in one batch, through the slot plan
 * (src/lsm/slots.c), so that the tail keys follow. The callbacks stay in
 * their slots, so a dispatcher that passed a slot key just before it went
 * off still calls a valid function.
 */
#include <errno.h>
#include <string.h>

#include "lsm_internal.h"

int ulsm_lsm_toggle_report(struct ulsm_hook_set *set, const char *name,
			   bool enable,
			   void (*fn)(void *arg,
				      const struct ulsm_lsm_module_info *),
			   void *arg)
{
	struct lsm_info *m;
	int ret;

	if (!set || !name)
		return ulsm_error(-EINVAL, "ulsm_lsm_toggle: bad arguments");
	ulsm_lsm_lock();
	if (!ulsm_lsm_state_of(set) || !set->state->toggle_allowed) {
		ret = ulsm_error(-EPERM, "set %s: toggling was not allowed "
				 "(ulsm_lsm_allow_toggle)", set->name);
		goto out;
	}
	m = ulsm_lsm_find_module(set->state, name, strlen(name));
	if (!m || m->ulsm_state != MOD_ACTIVE) {
		ret = ulsm_error(-ENOENT, "set %s: no active module %s",
				 set->name, name);
		goto out;
	}
	ret = ulsm_lsm_switch_module(set, name, enable);
	if (!ret)
		ulsm_lsm_list_refresh(set);
	if (!ret && fn) {
		struct ulsm_lsm_module_info info;

		ulsm_lsm_module_info(set, m, &info);
		fn(arg, &info);
	}
out:
	ulsm_lsm_unlock();
	/*
	 * Off, in a set that allows unloading: return only when no thread
	 * is still in a guarded module's code (the kernel's
	 * synchronize_rcu() after unpublishing), so that its object may go.
	 * Without the framework's lock: a thread inside the module may call
	 * the framework.
	 */
	if (!ret && !enable && set->unloadable)
		ret = ulsm_synchronize();
	return ret;
}

ULSM_API int ulsm_lsm_toggle(struct ulsm_hook_set *set, const char *name,
			     bool enable)
{
	return ulsm_lsm_toggle_report(set, name, enable, NULL, NULL);
}
