// SPDX-License-Identifier: MIT
/*
 * Flip keys while threads execute their sites (see stress.h). Short in
 * `make check`; `make stress` passes --flips 100000 --threads 3.
 */
#include "stress.h"

int main(int argc, char **argv)
{
	long flips = arg_count(argc, argv, "--flips", 4000);
	long threads = arg_long(argc, argv, "--threads", 3);

	run_stress(flips, threads);
	return done_testing();
}
