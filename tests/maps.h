/* SPDX-License-Identifier: MIT */
/* tests/maps.h - count writable and executable mappings of this process. */
#ifndef ULSM_TESTS_MAPS_H
#define ULSM_TESTS_MAPS_H

#include <stdio.h>

__attribute__((unused))
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

#endif /* ULSM_TESTS_MAPS_H */
