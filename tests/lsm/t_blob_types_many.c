// SPDX-License-Identifier: MIT
/*
 * A set with six blob types of its own, more than the kernel's four: a
 * module that arrives after ulsm_lsm_init() may ask for none of them
 * (objects allocated before it would be too small), whichever it asks
 * for. Its requests used to be read as the kernel's four ints, so one
 * asking only for the fifth type ("upload") or the sixth was accepted,
 * and its request was never turned into an offset: it would have written
 * past every blob of that type.
 */
#include <errno.h>
#include <string.h>

#define ULSM_LSM_SET		bm
#define ULSM_LSM_HOOK_DEFS	"blobtypes/hook_defs.h"
#define ULSM_LSM_BLOB_DEFS	"blobtypes/many_blob_defs.h"
#define MAX_LSM_COUNT		2
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>
#include <ulsm/ulsm.h>

#include "tap.h"

static struct bm_blob_sizes early_sizes = { .lbs_cache = 8 };
DEFINE_LSM(early) = { .name = "early", .blobs = &early_sizes };

static struct bm_blob_sizes upload_sizes = { .lbs_upload = 32 };
static struct lsm_info upload = { .name = "upload", .blobs = &upload_sizes };
static struct bm_blob_sizes cache_sizes = { .lbs_cache = 4 };
static struct lsm_info cache = { .name = "cache", .blobs = &cache_sizes };
static struct bm_blob_sizes none_sizes;
static struct lsm_info none = { .name = "none", .blobs = &none_sizes };

static void late(struct lsm_info *m, int want_ret, int want_active,
		 const char *what)
{
	const char *why;

	is_int(ulsm_lsm_register(m, &bm_hook_set), want_ret, "%s", what);
	why = ulsm_lsm_module_reason(&bm_hook_set, m->name);
	is_int(ulsm_lsm_module_active(&bm_hook_set, m->name), want_active,
	       "  %s (%s)", want_active ? "up" : "off", why ? why : "no reason");
}

/* The library's messages (a refusal is reported), as TAP comments. */
static void log_to_tap(const char *msg, void *arg)
{
	(void)arg;
	diag("ulsm: %s", msg);
}

int main(void)
{
	ulsm_set_log(log_to_tap, NULL);
	is_int(bm_blob_types, 6, "six blob types");
	is_int(ulsm_lsm_init(&bm_hook_set, NULL), 0, "init");
	is_int(early_sizes.lbs_cache, 0, "  early's cache part at offset 0");
	is_int(ulsm_lsm_blob_size(&bm_hook_set, bm_blob_upload), 0,
	       "  no upload blob");
	is_int(ulsm_lsm_blob_size(&bm_hook_set, bm_blob_cache), 8,
	       "  a cache blob: 8 bytes");

	late(&upload, -ENOSPC, 0, "a late module asking for the fifth type "
	     "(upload) is refused");
	ok(strstr(ulsm_lsm_module_reason(&bm_hook_set, "upload") ?: "", "upload"),
	   "  its reason names the type");
	is_int(upload_sizes.lbs_upload, 32, "  its request is untouched");
	late(&cache, -ENOSPC, 0, "one asking for the sixth (cache) too");
	late(&none, 0, 1, "one asking for nothing comes up");
	is_int(ulsm_lsm_blob_size(&bm_hook_set, bm_blob_upload), 0,
	       "the sizes are as init left them: no upload blob");
	is_int(ulsm_lsm_blob_size(&bm_hook_set, bm_blob_cache), 8,
	       "  a cache blob of 8 bytes");
	return done_testing();
}
