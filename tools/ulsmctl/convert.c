// SPDX-License-Identifier: MIT
/*
 * A recording converted by ulsm-trace: the one next to this program (as
 * installed, or as built), else the one on the PATH, so that there is
 * one reader of the recorder's format.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ulsmctl.h"

/* ulsm-trace: next to this program, else on the PATH. */
int convert(const char *from, const char *to)
{
	char self[PATH_MAX], tool[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *t = "ulsm-trace";
	int fd, status;
	pid_t child;

	if (n > 0) {
		self[n] = '\0';
		if (strrchr(self, '/'))
			*strrchr(self, '/') = '\0';
		snprintf(tool, sizeof(tool), "%s/ulsm-trace", self);
		if (!access(tool, X_OK))
			t = tool;
	}
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("%s: %s", to, strerror(errno));
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		sig_child_mask();
		dup2(fd, 1);
		execlp(t, "ulsm-trace", "--json", from, (char *)NULL);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, t,
			strerror(errno));
		_exit(127);
	}
	close(fd);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}
