// SPDX-License-Identifier: MIT
/*
 * The program a command is for: -p PID, or -n NAME, the program whose
 * command name is NAME, as pgrep -x matches it (/proc/PID/comm, which
 * the kernel cuts to 15 bytes: a longer NAME is compared by its first
 * 15), among the pids that have an endpoint's socket in the directory.
 * Several of that name are refused, and listed: ulsmctl does not guess
 * which one was meant.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ulsmctl.h"

#define COMM_MAX	15	/* TASK_COMM_LEN - 1 */

/* /proc/PID/comm into @comm (16 bytes), without its newline: 0 or -1. */
static int read_comm(pid_t pid, char *comm)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, comm, COMM_MAX + 1);
	close(fd);
	if (n <= 0)
		return -1;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return 0;
}

static bool same_name(const char *comm, const char *name)
{
	size_t n = strlen(name);

	return n > COMM_MAX ? !strncmp(comm, name, COMM_MAX) &&
			      strlen(comm) == COMM_MAX : !strcmp(comm, name);
}

static pid_t by_name(const char *name)
{
	char found[8][COMM_MAX + 1], esc[200];
	pid_t pids[8];
	int dfd = open_dir(), n = 0;
	struct dirent *e;
	DIR *d;

	if (dfd < 0)
		die("no program named %s runs its control endpoint: %s does "
		    "not exist%s", esc_str(esc, sizeof(esc), name,
					   strlen(name)), dir, dir_note);
	d = fdopendir(dfd);
	if (!d)
		die("%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		pid_t pid = sock_name_pid(e->d_name);
		char comm[COMM_MAX + 2];
		struct stat st;

		if (!pid || fstatat(dirfd(d), e->d_name, &st,
				    AT_SYMLINK_NOFOLLOW) ||
		    !S_ISSOCK(st.st_mode) || st.st_uid != geteuid() ||
		    read_comm(pid, comm) || !same_name(comm, name))
			continue;
		if (n < 8) {
			pids[n] = pid;
			memcpy(found[n], comm, sizeof(found[n]));
		}
		n++;
	}
	closedir(d);
	esc_str(esc, sizeof(esc), name, strlen(name));
	if (!n)
		die("no program named %s runs its control endpoint in %s%s",
		    esc, dir, dir_note);
	if (n > 1) {
		warn("%d programs named %s run their control endpoint: choose "
		     "one with -p", n, esc);
		fprintf(stderr, "%-8s %s\n", "PID", "COMMAND");
		for (int i = 0; i < n && i < 8; i++) {
			fprintf(stderr, "%-8d ", (int)pids[i]);
			esc_put(stderr, found[i], strlen(found[i]));
			fputc('\n', stderr);
		}
		if (n > 8)
			fprintf(stderr, "(and %d more)\n", n - 8);
		exit(EXIT_FAIL);
	}
	return pids[0];
}

pid_t pick(const char *pid_arg, const char *name)
{
	char *end;
	long v;

	if (name)
		return by_name(name);
	v = strtol(pid_arg, &end, 10);
	if (*pid_arg < '0' || *pid_arg > '9' || *end || v <= 0 ||
	    v > 0x7fffffff)
		die("-p %s: not a process id", pid_arg);
	return (pid_t)v;
}
