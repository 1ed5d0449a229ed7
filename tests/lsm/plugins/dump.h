/* SPDX-License-Identifier: MIT */
/*
 * dump_shows(): a check that ulsm_dump() mentions @want, printing the
 * dump from set "pg"'s first hook on (t_guard, t_guard_preload: which
 * slots are guarded). After tap.h.
 */
#ifndef PG_DUMP_H
#define PG_DUMP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/ulsm.h>

static void dump_shows(const char *want, const char *what)
{
	char *dump = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&dump, &len);

	if (f) {
		ulsm_dump(f);
		fclose(f);
	}
	ok(dump && strstr(dump, want), "%s: %s", what, dump &&
	   strstr(dump, "req_check ") ? strstr(dump, "req_check ") : "(none)");
	free(dump);
}

#endif
