// SPDX-License-Identifier: MIT
/*
 * security.c - the host's side of the hook framework: the one unit that
 * defines the hook set, and the security_*() functions the host calls
 * before it does something (the kernel's security/security.c).
 *
 * Each wrapper is a call_int_hook() or call_void_hook(). On x86-64 that
 * is a call of the hook's entry, whose code the library patches to call
 * the active modules' callbacks directly and tail-call the last one; on
 * the generic and aarch64 back ends it is an unrolled walk, per slot two
 * static keys and a direct call patched to the module's callback
 * (docs/hook-framework.md, "Dispatch"). Hooks whose result is not "the
 * first refusal" write their own loop with lsm_for_each_hook().
 */
#include <stdio.h>
#include <string.h>

/* This unit holds the tables, keys and trampolines of the set. */
#define ULSM_LSM_DEFINE
/*
 * The order when neither --lsm nor $ULSM_LSM gives one. capability and
 * audit are not listed: they place themselves (LSM_ORDER_FIRST / _LAST).
 */
#define ULSM_LSM_BUILTIN_ORDER	"labels"
#include "demo_lsm.h"

/* ---- who refused ------------------------------------------------------ */

static __thread struct demo_verdict verdict;

int demo_refuse(const struct lsm_id *lsmid, int rc, const char *why)
{
	/* The first refusal decides; later hooks of a request do not run. */
	if (!verdict.lsm) {
		verdict.lsm = lsmid->name;
		verdict.why = why;
	}
	return rc;
}

void demo_verdict_reset(void)
{
	verdict.lsm = NULL;
	verdict.why = NULL;
}

const struct demo_verdict *demo_verdict(void)
{
	return &verdict;
}

/* ---- credentials ------------------------------------------------------ */

/*
 * One blob per credential holds every module's part, each at the offset
 * the framework gave the module (its lbs_cred after ulsm_lsm_init()).
 */
int security_cred_alloc(struct demo_cred *cred)
{
	int rc = ulsm_lsm_blob_alloc(&demo_hook_set, ULSM_BLOB_CRED,
				     &cred->security);

	if (rc)
		return rc;
	rc = call_int_hook(cred_alloc_blank, cred);
	/*
	 * As in the kernel, a failure frees through every module, including
	 * those whose alloc never ran: cred_free must accept a zeroed blob.
	 */
	if (rc)
		security_cred_free(cred);
	return rc;
}

void security_cred_free(struct demo_cred *cred)
{
	call_void_hook(cred_free, cred);
	ulsm_lsm_blob_free(&cred->security);
}

/* Every module may write its secid; none: 0. */
void security_cred_getsecid(const struct demo_cred *cred, uint32_t *secid)
{
	*secid = 0;
	call_void_hook(cred_getsecid, cred, secid);
}

/* ---- files ------------------------------------------------------------ */

int security_file_alloc(struct demo_file *file)
{
	int rc = ulsm_lsm_blob_alloc(&demo_hook_set, ULSM_BLOB_FILE,
				     &file->security);

	if (rc)
		return rc;
	rc = call_int_hook(file_alloc_security, file);
	if (rc)
		security_file_free(file);
	return rc;
}

void security_file_free(struct demo_file *file)
{
	call_void_hook(file_free_security, file);
	ulsm_lsm_blob_free(&file->security);
}

int security_file_open(const struct demo_cred *cred, struct demo_file *file)
{
	return call_int_hook(file_open, cred, file);
}

int security_file_permission(const struct demo_cred *cred,
			     struct demo_file *file, int mask)
{
	return call_int_hook(file_permission, cred, file, mask);
}

/* ---- tasks and memory ------------------------------------------------- */

int security_task_kill(const struct demo_cred *cred,
		       const struct demo_cred *target, int sig)
{
	return call_int_hook(task_kill, cred, target, sig);
}

/*
 * Stands in for the kernel's __vm_enough_memory() (mm/util.c): the last
 * ADMIN_RESERVE pages of the pool are kept for administrators.
 */
#define POOL_PAGES	1000
#define ADMIN_RESERVE	128

static int host_vm_enough_memory(long pages, int cap_sys_admin)
{
	long allowed = POOL_PAGES - (cap_sys_admin ? 0 : ADMIN_RESERVE);

	return pages <= allowed ? 0 : -ENOMEM;
}

/*
 * The kernel's security_vm_enough_memory_mm(): not "first refusal wins"
 * but "all must agree": the caller may use the admin reserve only if
 * every module returns > 0, so this is a loop of its own, not
 * call_int_hook() (whose default, 0, would stop at the first module).
 */
int security_vm_enough_memory(const struct demo_cred *cred, long pages)
{
	const struct lsm_id *withheld = NULL;
	struct lsm_static_call *scall;
	int cap_sys_admin = 1;
	int rc;

	lsm_for_each_hook(scall, vm_enough_memory) {
		rc = lsm_hook_fn(scall, vm_enough_memory)(cred, pages);
		if (rc <= 0) {
			cap_sys_admin = 0;
			/* A slot knows its module: name it in the verdict */
			withheld = scall->hl->lsmid;
			break;
		}
	}
	rc = host_vm_enough_memory(pages, cap_sys_admin);
	if (rc && withheld)
		demo_refuse(withheld, rc, "no admin reserve");
	return rc;
}

/* ---- attributes ------------------------------------------------------- */

/* The first module that knows the secid answers (the kernel's rule). */
int security_secid_to_secctx(uint32_t secid, char *buf, size_t len)
{
	return call_int_hook(secid_to_secctx, secid, buf, len);
}

/*
 * Every module with an attribute contributes one "module=value" entry;
 * they are joined with spaces (the kernel's security_getselfattr()
 * collects struct lsm_ctx entries the same way). Return: how many, or
 * -EOPNOTSUPP if no module has any, or -E2BIG.
 */
int security_getselfattr(const struct demo_cred *cred, char *buf, size_t len)
{
	struct lsm_static_call *scall;
	char entry[64];
	size_t used = 0;
	int count = 0;
	int rc, n;

	if (!len)
		return -E2BIG;
	buf[0] = '\0';
	lsm_for_each_hook(scall, getselfattr) {
		rc = lsm_hook_fn(scall, getselfattr)(cred, entry,
						      sizeof(entry));
		if (rc == -EOPNOTSUPP)	/* the default: nothing to say */
			continue;
		if (rc < 0)
			return rc;
		n = snprintf(buf + used, len - used, "%s%s", used ? " " : "",
			     entry);
		if (n < 0 || (size_t)n >= len - used)
			return -E2BIG;
		used += (size_t)n;
		count += rc;
	}
	return count ? count : -EOPNOTSUPP;
}
