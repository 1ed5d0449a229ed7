// SPDX-License-Identifier: MIT
/*
 * mod_capability.c - the classic Unix rules, as the first module.
 *
 * The kernel's capability module is always on and always first
 * (LSM_ORDER_FIRST): the other modules add restrictions to it. This one
 * gives uid 0 every privilege and holds everybody else to the owner's and
 * others' mode bits, to signalling their own tasks, and out of the
 * memory kept for administrators. It keeps no state, so it asks for no
 * blob. Remove it with --lsm '!capability,labels'.
 */
#include <errno.h>

#include "demo_lsm.h"

static const struct lsm_id capability_lsmid = {
	.name = "capability",
	.id = 100,	/* the kernel's LSM_ID_CAPABILITY */
};

static int cap_file_permission(const struct demo_cred *cred,
			       struct demo_file *file, int mask)
{
	unsigned int bits;

	if (cred->uid == 0)
		return 0;
	/* rwx of the owner, or of others (the demo has no groups) */
	bits = cred->uid == file->owner ? file->mode >> 6 : file->mode;
	if ((unsigned int)mask & ~bits & 07)
		return demo_refuse(&capability_lsmid, -EACCES,
				   "mode bits");
	return 0;
}

static int cap_task_kill(const struct demo_cred *cred,
			 const struct demo_cred *target, int sig)
{
	(void)sig;
	if (cred->uid == 0 || cred->uid == target->uid)
		return 0;
	return demo_refuse(&capability_lsmid, -EPERM, "other user's task");
}

/* The kernel's cap_vm_enough_memory(): 1 grants the admin reserve. */
static int cap_vm_enough_memory(const struct demo_cred *cred, long pages)
{
	(void)pages;
	return cred->uid == 0;
}

static struct demo_hook_list capability_hooks[] = {
	LSM_HOOK_INIT(file_permission, cap_file_permission),
	LSM_HOOK_INIT(task_kill, cap_task_kill),
	LSM_HOOK_INIT(vm_enough_memory, cap_vm_enough_memory),
};

static int capability_init(void)
{
	return security_add_hooks(capability_hooks,
				  (int)(sizeof(capability_hooks) /
					sizeof(capability_hooks[0])),
				  &capability_lsmid);
}

DEFINE_LSM(capability) = {
	.name = "capability",
	.order = LSM_ORDER_FIRST,
	.init = capability_init,
	.id = &capability_lsmid,
};
