/* SPDX-License-Identifier: MIT */
/*
 * demo_lsm.h - the demo's hook set, the host's objects, and the host's
 * security_*() interface. Every file of the demo includes it; security.c
 * defines ULSM_LSM_DEFINE first, so that the tables, keys and trampolines
 * are emitted there and only there.
 *
 * What a host has to provide, and where it is here:
 *
 *   demo_hook_defs.h	the hook list (one line per hook)
 *   this header	the set's name and size, the objects modules see
 *   security.c		the set's definition and the security_*() wrappers
 *   mod_*.c		the modules: callbacks, LSM_HOOK_INIT, DEFINE_LSM
 *   main.c		ulsm_lsm_init(), ulsm_lsm_seal(), then the requests
 */
#ifndef DEMO_LSM_H
#define DEMO_LSM_H

#include <errno.h>	/* the hooks' defaults, such as -EOPNOTSUPP */
#include <stddef.h>
#include <stdint.h>

/* A process's credentials: who is asking. */
struct demo_cred {
	unsigned int uid;
	const char *label;	/* the label its login gave it */
	void *security;		/* the modules' shared cred blob */
};

/* An open file. */
struct demo_file {
	const char *path;
	unsigned int owner;	/* uid */
	unsigned int mode;	/* permission bits, such as 0644 */
	void *security;		/* the modules' shared file blob */
};

/* file_permission masks (the kernel's MAY_*) */
#define DEMO_MAY_WRITE	0x2
#define DEMO_MAY_READ	0x4

/*
 * The set: "demo" makes demo_hook_set, demo_hook_list, and the trampolines
 * __SCT__demo_<hook>_<slot>. Four slots per hook: room for the three
 * modules and one more; a fifth module with a hook in every slot would be
 * refused whole (-ENOSPC).
 */
#define ULSM_LSM_SET		demo
#define ULSM_LSM_HOOK_DEFS	"demo_hook_defs.h"
#define MAX_LSM_COUNT		4
#include <ulsm/lsm_hooks.h>

/* The host's interface, security.c: 0 or a negative errno, as the kernel. */
int security_cred_alloc(struct demo_cred *cred);
void security_cred_free(struct demo_cred *cred);
void security_cred_getsecid(const struct demo_cred *cred, uint32_t *secid);
int security_file_alloc(struct demo_file *file);
void security_file_free(struct demo_file *file);
int security_file_open(const struct demo_cred *cred, struct demo_file *file);
int security_file_permission(const struct demo_cred *cred,
			     struct demo_file *file, int mask);
int security_task_kill(const struct demo_cred *cred,
		       const struct demo_cred *target, int sig);
int security_vm_enough_memory(const struct demo_cred *cred, long pages);
int security_secid_to_secctx(uint32_t secid, char *buf, size_t len);
int security_getselfattr(const struct demo_cred *cred, char *buf, size_t len);

/*
 * Who refused, and why. call_int_hook() returns the first refusal but not
 * whose it was, so the demo's modules report each refusal here on the way
 * out (return demo_refuse(&my_lsmid, -EACCES, "reason");). A host could
 * use the same record to audit denials. One request at a time per thread.
 */
struct demo_verdict {
	const char *lsm;	/* the module that refused; NULL: nobody */
	const char *why;
};

int demo_refuse(const struct lsm_id *lsmid, int rc, const char *why);
void demo_verdict_reset(void);
const struct demo_verdict *demo_verdict(void);

/* The audit module's log, for the host to show (mod_audit.c). */
unsigned int audit_log_count(void);
const char *audit_log_entry(unsigned int i);

#endif /* DEMO_LSM_H */
