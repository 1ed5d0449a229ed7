// SPDX-License-Identifier: MIT
/*
 * A recording converted by ulsm-trace (--json, --ctf): the one next to
 * this program (as installed, or as built), else the one on the PATH, so
 * that there is one reader of the recorder's format.
 *
 * The conversion is local work on a file of ulsmctl's, not a wait on the
 * program: it has no deadline, but a stop signal ends it (the child is
 * sent SIGTERM), and ulsmctl waits for it in ppoll(), where those
 * signals are let in.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ulsmctl.h"

static const char *tool(char *buf, size_t size)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		if (strrchr(self, '/'))
			*strrchr(self, '/') = '\0';
		snprintf(buf, size, "%s/ulsm-trace", self);
		if (!access(buf, X_OK))
			return buf;
	}
	return "ulsm-trace";
}

int convert(const char *const *args, int out_fd)
{
	char path[PATH_MAX + 16];
	const char *argv[8] = { "ulsm-trace" };
	const char *t = tool(path, sizeof(path));
	int status, n = 1, acked = sig_stops();
	pid_t child;

	while (*args && n < 7)
		argv[n++] = *args++;
	argv[n] = NULL;
	fflush(NULL);
	child = fork();
	if (child < 0) {
		warn("fork: %s", strerror(errno));
		return -1;
	}
	if (!child) {
		char *v[8] = { NULL };

		/* execvp() takes char *: copies, in the child only. */
		for (int i = 0; i < n; i++)
			v[i] = strdup(argv[i]);
		sig_child_mask();
		signal(SIGPIPE, SIG_DFL);
		if (out_fd >= 0 && out_fd != 1)
			dup2(out_fd, 1);
		execvp(t, v);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, t,
			strerror(errno));
		_exit(127);
	}
	for (;;) {
		struct timespec ts = { 0, 50 * 1000000L };
		pid_t w = waitpid(child, &status, WNOHANG);

		if (w == child)
			break;
		if (w < 0 && errno != EINTR) {
			warn("waitpid: %s", strerror(errno));
			return -1;
		}
		if (sig_stops() > acked) {
			kill(child, SIGTERM);
			while (waitpid(child, &status, 0) < 0 && errno == EINTR)
				;
			warn("interrupted: the conversion by %s was "
			     "stopped", t);
			return -1;
		}
		ppoll(NULL, 0, &ts, sig_wait_mask());
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	warn("%s %s could not convert the recording (%s %d)", t, argv[1],
	     WIFEXITED(status) ? "status" : "signal",
	     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return -1;
}
