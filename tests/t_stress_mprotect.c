// SPDX-License-Identifier: MIT
/*
 * The same stress as t_stress, through the mprotect write window instead
 * of /proc/self/mem: the window makes a page writable *and* executable
 * while other threads execute code on it, so this checks that they do run
 * on undisturbed, and that every page gets its protection back.
 */
#include <stdio.h>
#include <string.h>

#include "stress.h"

static int rwx_mappings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char perms[5] = "";

		if (sscanf(line, "%*x-%*x %4s", perms) == 1 &&
		    perms[1] == 'w' && perms[2] == 'x')
			n++;
	}
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long flips = arg_long(argc, argv, "--flips", 1000);
	long threads = arg_long(argc, argv, "--threads", 3);
	int rwx_before = rwx_mappings();

	is_int(ulsm_set_write_mode(ULSM_WRITE_MPROTECT), 0,
	       "force the mprotect window");
	run_stress(flips, threads);
	is_int(rwx_mappings(), rwx_before,
	       "no writable and executable mapping left behind");
	return done_testing();
}
