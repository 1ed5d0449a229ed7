// SPDX-License-Identifier: MIT
/*
 * A minimal host: two hooks, two modules (mod_deny.c, mod_log.c).
 * Build: cc -I. host.c mod_deny.c mod_log.c $(pkg-config --cflags --libs ulsm)
 *
 * Before it "opens" a file the host asks call_int_hook(file_open, path):
 * each module's callback in module order, until one returns other than 0.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <ulsm/ulsm.h>

#define ULSM_LSM_DEFINE			/* in exactly one file of the set */
#define ULSM_LSM_BUILTIN_ORDER	"deny,log"	/* unless $ULSM_LSM says */
#include "hooks.h"

static int open_file(const char *path)
{
	int err = call_int_hook(file_open, path);

	printf("open %-12s %s\n", path, err ? "refused" : "allowed");
	if (!err)
		call_void_hook(file_close, path);
	return err;
}

int main(void)
{
	int err = ulsm_lsm_init(&app_hook_set, NULL), log_first;

	if (err) {
		fprintf(stderr, "ulsm_lsm_init: %d %s\n", err,
			ulsm_last_error());
		return 1;
	}
	printf("modules, in order: %s\n", ulsm_lsm_list(&app_hook_set));
	if (open_file("/tmp/notes") != 0 ||
	    open_file("/secret/key") != -EACCES)
		return 1;
	/* log saw /secret/key only if it ran before deny (ULSM_LSM=log,deny) */
	log_first = !strncmp(ulsm_lsm_list(&app_hook_set), "log", 3);
	printf("log saw %d open(s), %d close(s)\n", log_opens, log_closes);
	return !(log_opens == 1 + log_first && log_closes == 1);
}
