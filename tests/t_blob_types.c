// SPDX-License-Identifier: MIT
/*
 * A set declares its own blob types (ULSM_LSM_BLOB_DEFS), here a server's
 * "request" and "connection" instead of the kernel's cred, file, inode
 * and task: each module asks for room per type in the set's struct
 * bt_blob_sizes, ulsm_lsm_init() turns the requests into offsets, and
 * the application allocates one blob per object of each type.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#define ULSM_LSM_SET		bt
#define ULSM_LSM_HOOK_DEFS	"blobtypes/hook_defs.h"
#define ULSM_LSM_BLOB_DEFS	"blobtypes/blob_defs.h"
#define MAX_LSM_COUNT		2
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>
#include <ulsm/ulsm.h>

#include "tap.h"

static struct bt_blob_sizes a_sizes = {
	.lbs_request = 8,
}, b_sizes = {
	.lbs_request = 4, .lbs_connection = 16,
};

static int a_alloc(void *blob)
{
	*(uint64_t *)((char *)blob + a_sizes.lbs_request) = 0xaaaa;
	return 0;
}

static int b_alloc(void *blob)
{
	*(uint32_t *)((char *)blob + b_sizes.lbs_request) = 0xbbbb;
	return 0;
}

static const struct lsm_id a_id = { "a", 1 }, b_id = { "b", 2 };
static struct bt_hook_list a_hooks[] = {
	LSM_HOOK_INIT(request_alloc, a_alloc),
};
static struct bt_hook_list b_hooks[] = {
	LSM_HOOK_INIT(request_alloc, b_alloc),
};
static int a_init(void) { return security_add_hooks(a_hooks, 1, &a_id); }
static int b_init(void) { return security_add_hooks(b_hooks, 1, &b_id); }
DEFINE_LSM(a) = { .name = "a", .init = a_init, .blobs = &a_sizes, .id = &a_id };
DEFINE_LSM(b) = { .name = "b", .init = b_init, .blobs = &b_sizes, .id = &b_id };

int main(void)
{
	void *blob = NULL;

	is_int(bt_blob_types, 2, "two blob types, in the order of the file");
	is_int(bt_hook_set.nblobs, 2, "  the set says so");
	is_int(ulsm_lsm_init(&bt_hook_set, NULL), 0, "init");
	is_int(a_sizes.lbs_request, 0, "a's request part at offset 0");
	is_int(b_sizes.lbs_request, 8, "b's request part at offset 8");
	is_int(b_sizes.lbs_connection, 0, "b's connection part at offset 0");
	is_int(ulsm_lsm_blob_size(&bt_hook_set, bt_blob_request), 12,
	       "a request blob: 12 bytes");
	is_int(ulsm_lsm_blob_size(&bt_hook_set, bt_blob_connection), 16,
	       "a connection blob: 16 bytes");
	is_int(ulsm_lsm_blob_size(&bt_hook_set, bt_blob_types), -EINVAL,
	       "a type past the set's: -EINVAL");
	ok(strstr(ulsm_last_error(), "set bt has no blob type 2") != NULL,
	   "  %s", ulsm_last_error());
	is_int(lsm_alloc_blob_hooks(bt_blob_request, &blob, request_alloc,
				    request_free, blob), 0,
	       "a request blob allocated, every module's alloc hook run");
	ok(blob && *(uint64_t *)blob == 0xaaaa &&
	   *(uint32_t *)((char *)blob + 8) == 0xbbbb,
	   "  each module wrote its own part");
	lsm_free_blob_hooks(&blob, request_free, blob);
	ok(blob == NULL, "  and it is freed");
	return done_testing();
}
