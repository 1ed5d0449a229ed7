/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/maps.h - count the writable views of this process's code: its
 * writable and executable mappings, and its /proc/self/mem descriptors.
 */
#ifndef ULSM_TESTS_MAPS_H
#define ULSM_TESTS_MAPS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

/* How many descriptors of this process name /proc/<pid>/mem, or -1. */
__attribute__((unused))
static int mem_fds(void)
{
	char link[64], want[64], path[300];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	snprintf(want, sizeof(want), "/proc/%d/mem", (int)getpid());
	while ((e = readdir(d))) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (!strcmp(link, want))
			n++;
	}
	closedir(d);
	return n;
}

#endif /* ULSM_TESTS_MAPS_H */
