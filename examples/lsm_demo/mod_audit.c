// SPDX-License-Identifier: MIT
/*
 * mod_audit.c - records the requests it sees, and never refuses.
 *
 * LSM_ORDER_LAST: it runs after every other module, so a request it logs
 * is one that nobody before it refused. Refused requests never reach it:
 * call_int_hook() stops at the first refusal (and vm_enough_memory's loop
 * at the first module that withholds the reserve). To log refusals too,
 * a module would have to run first and guess the outcome; the kernel
 * leaves auditing denials to the module that denies.
 *
 * It also numbers login sessions, in a cred blob of its own: a second
 * module with an lbs_cred, to show that each gets its own offset.
 * Remove it with --lsm 'labels,!audit'.
 */
#include <stdarg.h>
#include <stdio.h>

#include "demo_lsm.h"

static const struct lsm_id audit_lsmid = {
	.name = "audit",
	.id = 1002,
};

struct audit_cred {
	unsigned int session;
};

static struct lsm_blob_sizes audit_blob_sizes = {
	.lbs_cred = sizeof(struct audit_cred),
};

static struct audit_cred *audit_cred(const struct demo_cred *cred)
{
	return (struct audit_cred *)((char *)cred->security +
				     audit_blob_sizes.lbs_cred);
}

#define LOG_ENTRIES	64
#define LOG_WIDTH	64

static char audit_log[LOG_ENTRIES][LOG_WIDTH];
static unsigned int audit_entries;
static unsigned int audit_sessions;

static void __attribute__((format(printf, 1, 2))) log_event(const char *fmt,
							     ...)
{
	va_list ap;

	if (audit_entries == LOG_ENTRIES)
		return;		/* full: a real audit log would rotate */
	va_start(ap, fmt);
	vsnprintf(audit_log[audit_entries++], LOG_WIDTH, fmt, ap);
	va_end(ap);
}

unsigned int audit_log_count(void)
{
	return audit_entries;
}

const char *audit_log_entry(unsigned int i)
{
	return i < audit_entries ? audit_log[i] : NULL;
}

static int audit_cred_alloc_blank(struct demo_cred *cred)
{
	audit_cred(cred)->session = ++audit_sessions;
	return 0;
}

static int audit_file_open(const struct demo_cred *cred,
			   struct demo_file *file)
{
	log_event("file_open        session %u uid %-4u %s",
		  audit_cred(cred)->session, cred->uid, file->path);
	return 0;
}

static int audit_file_permission(const struct demo_cred *cred,
				 struct demo_file *file, int mask)
{
	log_event("file_permission  session %u uid %-4u %s %s",
		  audit_cred(cred)->session, cred->uid, file->path,
		  mask & DEMO_MAY_WRITE ? "write" : "read");
	return 0;
}

static int audit_task_kill(const struct demo_cred *cred,
			   const struct demo_cred *target, int sig)
{
	log_event("task_kill        session %u uid %-4u signal %d to uid %u",
		  audit_cred(cred)->session, cred->uid, sig, target->uid);
	return 0;
}

/* No objection here is 1, not the hook's 0: 0 would withhold the reserve. */
static int audit_vm_enough_memory(const struct demo_cred *cred, long pages)
{
	log_event("vm_enough_memory session %u uid %-4u %ld pages",
		  audit_cred(cred)->session, cred->uid, pages);
	return 1;
}

static int audit_getselfattr(const struct demo_cred *cred, char *buf,
			     size_t len)
{
	if ((size_t)snprintf(buf, len, "audit=session:%u",
			     audit_cred(cred)->session) >= len)
		return -E2BIG;
	return 1;
}

static struct demo_hook_list audit_hooks[] = {
	LSM_HOOK_INIT(cred_alloc_blank, audit_cred_alloc_blank),
	LSM_HOOK_INIT(file_open, audit_file_open),
	LSM_HOOK_INIT(file_permission, audit_file_permission),
	LSM_HOOK_INIT(task_kill, audit_task_kill),
	LSM_HOOK_INIT(vm_enough_memory, audit_vm_enough_memory),
	LSM_HOOK_INIT(getselfattr, audit_getselfattr),
};

static int audit_init(void)
{
	return security_add_hooks(audit_hooks,
				  (int)(sizeof(audit_hooks) /
					sizeof(audit_hooks[0])),
				  &audit_lsmid);
}

DEFINE_LSM(audit) = {
	.name = "audit",
	.order = LSM_ORDER_LAST,
	.init = audit_init,
	.blobs = &audit_blob_sizes,
	.id = &audit_lsmid,
};
