// SPDX-License-Identifier: MIT
/*
 * A module of the test set "tl" in a plug-in, loaded after
 * ulsm_lsm_init() (t_fault_walk's "late arrival"): listed in the order as
 * "late", it comes up in its place and hooks file_open. Built without
 * -lulsm: the host exports the library and the set (-rdynamic).
 */
#include <stdio.h>
#include <string.h>

#include "test_lsm.h"

static int late_file_open(struct t_file *f)
{
	size_t n = strlen(tl_trace);

	(void)f;
	snprintf(tl_trace + n, sizeof(tl_trace) - n, "%slate:file_open",
		 n ? " " : "");
	return 0;
}

static const struct lsm_id late_id = { "late", 900 };
static struct tl_hook_list late_hooks[] = {
	LSM_HOOK_INIT(file_open, late_file_open),
};

static int late_init(void)
{
	return security_add_hooks(late_hooks, 1, &late_id);
}

DEFINE_LSM(late) = { .name = "late", .init = late_init, .id = &late_id };
