// SPDX-License-Identifier: MIT
/*
 * The same stress as t_stress, through the mprotect write window instead
 * of /proc/self/mem: the window makes a page writable *and* executable
 * while other threads execute code on it, so this checks that they do run
 * on undisturbed, and that every page gets its protection back.
 */
#include <stdio.h>
#include <string.h>

#include "maps.h"
#include "stress.h"

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
