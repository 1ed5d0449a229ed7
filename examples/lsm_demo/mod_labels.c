// SPDX-License-Identifier: MIT
/*
 * mod_labels.c - label-based access control, the demo's "SELinux".
 *
 * Processes are labelled "user" or "admin" (from their login), files
 * "secret" or "public" (from a path table). The policy:
 *
 *   - only admin may open a secret file;
 *   - admin may not write public files: it can read secrets, and could
 *     leak them there ("no write-down"). This binds root too: a module
 *     can refuse what the Unix rules allow, never allow what they refuse;
 *   - a user process may not signal an admin one.
 *
 * The labels live in the modules' shared blobs: the module asks for its
 * size in struct lsm_blob_sizes, and after ulsm_lsm_init() the same
 * fields hold its offset into each blob (as in the kernel, where
 * selinux_cred() is cred->security + selinux_blob_sizes.lbs_cred).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "demo_lsm.h"

static const struct lsm_id labels_lsmid = {
	.name = "labels",
	.id = 1001,
};

/* Labels are secids: small numbers, 0 meaning unlabelled. */
enum { LBL_NONE, LBL_USER, LBL_ADMIN, LBL_PUBLIC, LBL_SECRET, LBL_N };

static const char *const label_names[LBL_N] = {
	"unlabelled", "user", "admin", "public", "secret",
};

/* Files are secret by path; everything else is public. */
static const char *const secret_paths[] = { "/etc/secret", "/srv/vault/" };

struct labels_cred {
	uint32_t secid;
};

struct labels_file {
	uint32_t secid;
};

static struct lsm_blob_sizes labels_blob_sizes = {
	.lbs_cred = sizeof(struct labels_cred),
	.lbs_file = sizeof(struct labels_file),
};

static struct labels_cred *labels_cred(const struct demo_cred *cred)
{
	return (struct labels_cred *)((char *)cred->security +
				      labels_blob_sizes.lbs_cred);
}

static struct labels_file *labels_file(const struct demo_file *file)
{
	return (struct labels_file *)((char *)file->security +
				      labels_blob_sizes.lbs_file);
}

static int labels_cred_alloc_blank(struct demo_cred *cred)
{
	bool admin = cred->label && !strcmp(cred->label, "admin");

	labels_cred(cred)->secid = admin ? LBL_ADMIN : LBL_USER;
	return 0;
}

static void labels_cred_getsecid(const struct demo_cred *cred,
				 uint32_t *secid)
{
	*secid = labels_cred(cred)->secid;
}

static int labels_file_alloc_security(struct demo_file *file)
{
	uint32_t secid = LBL_PUBLIC;

	for (size_t i = 0; i < sizeof(secret_paths) / sizeof(*secret_paths);
	     i++)
		if (!strncmp(file->path, secret_paths[i],
			     strlen(secret_paths[i])))
			secid = LBL_SECRET;
	labels_file(file)->secid = secid;
	return 0;
}

static int labels_file_open(const struct demo_cred *cred,
			    struct demo_file *file)
{
	if (labels_file(file)->secid == LBL_SECRET &&
	    labels_cred(cred)->secid != LBL_ADMIN)
		return demo_refuse(&labels_lsmid, -EACCES, "secret file");
	return 0;
}

static int labels_file_permission(const struct demo_cred *cred,
				  struct demo_file *file, int mask)
{
	if ((mask & DEMO_MAY_WRITE) &&
	    labels_cred(cred)->secid == LBL_ADMIN &&
	    labels_file(file)->secid == LBL_PUBLIC)
		return demo_refuse(&labels_lsmid, -EACCES, "no write-down");
	return 0;
}

static int labels_task_kill(const struct demo_cred *cred,
			    const struct demo_cred *target, int sig)
{
	(void)sig;
	if (labels_cred(cred)->secid == LBL_USER &&
	    labels_cred(target)->secid == LBL_ADMIN)
		return demo_refuse(&labels_lsmid, -EACCES,
				   "target is admin");
	return 0;
}

static int labels_secid_to_secctx(uint32_t secid, char *buf, size_t len)
{
	if (secid == LBL_NONE || secid >= LBL_N)
		return -EOPNOTSUPP;	/* not ours: let the next module say */
	if ((size_t)snprintf(buf, len, "%s", label_names[secid]) >= len)
		return -ERANGE;
	return 0;
}

static int labels_getselfattr(const struct demo_cred *cred, char *buf,
			      size_t len)
{
	uint32_t secid = labels_cred(cred)->secid;

	if ((size_t)snprintf(buf, len, "labels=%s", label_names[secid]) >= len)
		return -E2BIG;
	return 1;
}

static struct demo_hook_list labels_hooks[] = {
	LSM_HOOK_INIT(cred_alloc_blank, labels_cred_alloc_blank),
	LSM_HOOK_INIT(cred_getsecid, labels_cred_getsecid),
	LSM_HOOK_INIT(file_alloc_security, labels_file_alloc_security),
	LSM_HOOK_INIT(file_open, labels_file_open),
	LSM_HOOK_INIT(file_permission, labels_file_permission),
	LSM_HOOK_INIT(task_kill, labels_task_kill),
	LSM_HOOK_INIT(secid_to_secctx, labels_secid_to_secctx),
	LSM_HOOK_INIT(getselfattr, labels_getselfattr),
};

static int labels_init(void)
{
	return security_add_hooks(labels_hooks,
				  (int)(sizeof(labels_hooks) /
					sizeof(labels_hooks[0])),
				  &labels_lsmid);
}

DEFINE_LSM(labels) = {
	.name = "labels",
	.init = labels_init,
	.blobs = &labels_blob_sizes,
	.id = &labels_lsmid,
};
