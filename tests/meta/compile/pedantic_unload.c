// SPDX-License-Identifier: MIT
/*
 * Must compile with -std=c11 -Wall -Wextra -Wpedantic -Werror (and
 * -std=c99, and clang's): the defining unit of a set that allows
 * unloading (its guards and read-side sections), with blob types of its
 * own and a module.
 */
#include <stddef.h>

#define ULSM_LSM_SET		pun
#define ULSM_LSM_HOOK_DEFS	"compile/pedantic_unload_defs.h"
#define ULSM_LSM_BLOB_DEFS	"compile/pedantic_unload_blobs.h"
#define ULSM_LSM_UNLOADABLE
#define MAX_LSM_COUNT		2
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

static const struct lsm_id cap_id = { "cap", 3 };
static struct pun_blob_sizes cap_blobs = { 8, 0 };

static int cap_request(int fd, const char *what)
{
	return fd < 0 || what == NULL;
}

static void cap_done(int fd)
{
	(void)fd;
}

static struct pun_hook_list cap_hooks[] = {
	LSM_HOOK_INIT(request, cap_request),
	LSM_HOOK_INIT(done, cap_done),
};

static int cap_init(void)
{
	return security_add_hooks(cap_hooks, 2, &cap_id);
}

DEFINE_LSM(cap) = { .name = "cap", .init = cap_init, .blobs = &cap_blobs,
		    .id = &cap_id };

/* A function of its own: see pedantic_set.c's ped_each(). */
static void pun_each(int fd)
{
	struct lsm_static_call *scall;

	lsm_for_each_hook(scall, done)
		lsm_hook_fn(scall, done)(fd);
}

int pun_dispatch(int fd);
int pun_dispatch(int fd)
{
	void *blob = NULL;
	int rc = call_int_hook(request, fd, "read");

	call_void_hook(done, fd);
	pun_each(fd);
	rc |= lsm_alloc_blob_hooks(pun_blob_request, &blob, request_alloc,
				   request_free, blob);
	lsm_free_blob_hooks(&blob, request_free, blob);
	return rc;
}
