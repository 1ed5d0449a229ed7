// SPDX-License-Identifier: MIT
/*
 * A set declares its own blob types (ULSM_LSM_BLOB_DEFS), here a server's
 * "request" and "connection" instead of the kernel's cred, file, inode
 * and task: each module asks for room per type in the set's struct
 * bt_blob_sizes, ulsm_lsm_init() turns the requests into offsets, and
 * the application allocates one blob per object of each type.
 *
 * A module that arrives after init may ask for no blob space (objects
 * allocated before it would be too small): its requests are read with
 * the set's types. The check used to read the kernel's four ints, past
 * the end of this set's two: a late module asking for nothing was
 * refused when the memory after its struct bt_blob_sizes was not zero.
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

/*
 * A late module's requests, all zero, followed by memory that is not:
 * what a struct of the kernel's four ints would have there.
 */
static struct {
	struct bt_blob_sizes sizes;
	int after[2];
} late_blobs = { { 0, 0 }, { 64, 64 } };
static struct lsm_info late = { .name = "late", .blobs = &late_blobs.sizes };
static struct bt_blob_sizes greedy_blobs = { .lbs_connection = 8 };
static struct lsm_info greedy = { .name = "greedy", .blobs = &greedy_blobs };

/* The library's messages (a refusal is reported), as TAP comments. */
static void log_to_tap(const char *msg, void *arg)
{
	(void)arg;
	diag("ulsm: %s", msg);
}

int main(void)
{
	void *blob = NULL;

	ulsm_set_log(log_to_tap, NULL);
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

	is_int(ulsm_lsm_register(&late, &bt_hook_set), 0,
	       "a module that asks for no blob space arrives after init");
	ok(ulsm_lsm_module_active(&bt_hook_set, "late") == 1,
	   "  and comes up, whatever follows its struct bt_blob_sizes (%s)",
	   ulsm_lsm_module_reason(&bt_hook_set, "late") ?: "no reason");
	is_int(ulsm_lsm_register(&greedy, &bt_hook_set), -ENOSPC,
	       "one that asks for connection space after init is refused");
	ok(ulsm_lsm_module_active(&bt_hook_set, "greedy") == 0 &&
	   strstr(ulsm_lsm_module_reason(&bt_hook_set, "greedy") ?: "",
		  "connection"),
	   "  and says for what: %s",
	   ulsm_lsm_module_reason(&bt_hook_set, "greedy") ?: "(none)");
	is_int(ulsm_lsm_blob_size(&bt_hook_set, bt_blob_connection), 16,
	       "  the connection blob is still 16 bytes");
	return done_testing();
}
