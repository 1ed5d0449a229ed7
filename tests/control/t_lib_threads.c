// SPDX-License-Identifier: MIT
/*
 * The library's own threads (src/base/thread.c): the control endpoint's
 * and the USDT watcher's (the departures' retrier is started by the same
 * function). Each blocks every asynchronous signal, the program's to
 * take (SIGINT, SIGCHLD, SIGPROF, SIGIO, its real-time signals), and
 * leaves open the engine's sync signal and the synchronous ones: a
 * blocked SIGTRAP, SIGSEGV, SIGBUS, SIGILL, SIGFPE or SIGSYS becomes the
 * default action, which kills the process, the day that thread meets an
 * int3 at a patch site or a seccomp trap. The masks are read from
 * /proc/self/task/TID/status (SigBlk), as the engine reads them.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/control.h>

#include "base/base.h"
#include <fcntl.h>
#include "tap.h"

static bool blocks(unsigned long long mask, int sig)
{
	return (mask >> (sig - 1)) & 1;
}

/* The blocked mask of the thread named @name: 0, or -1 if none is. */
static int thread_mask(const char *name, unsigned long long *mask)
{
	for (int tries = 0; tries < 200; tries++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;
		int found = -1;

		while (d && (e = readdir(d))) {
			char path[300], line[256];
			FILE *f;

			snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
				 e->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(line, sizeof(line), f) &&
			    !strncmp(line, name, strlen(name)) &&
			    line[strlen(name)] == '\n')
				found = 0;
			fclose(f);
			if (found)
				continue;
			snprintf(path, sizeof(path), "/proc/self/task/%s/status",
				 e->d_name);
			f = fopen(path, "r");
			found = -1;
			while (f && fgets(line, sizeof(line), f))
				if (sscanf(line, "SigBlk: %llx", mask) == 1)
					found = 0;
			if (f)
				fclose(f);
			break;
		}
		if (d)
			closedir(d);
		/*
		 * The C library starts a thread with (nearly) every signal
		 * blocked and sets the mask it was given a moment later
		 * (glibc: all; musl: all but its own three). Ours never
		 * blocks the sync signal: a mask that does is that moment,
		 * or, if it lasts 2 s, a failure that the checks report.
		 */
		if (!found && (!blocks(*mask, ulsm_config.sync_signal) ||
			       tries == 199))
			return 0;
		usleep(10000);	/* not started, named or masked yet */
	}
	return -1;
}

/* Each check of @name's mask; how many failed. */
static int check_mask(const char *name)
{
	static const int async[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPROF,
				     SIGIO, SIGUSR1, SIGALRM, SIGWINCH };
	static const int sync_[] = { SIGTRAP, SIGSEGV, SIGBUS, SIGILL, SIGFPE,
				     SIGSYS };
	unsigned long long mask = 0;
	int bad = 0;

	if (thread_mask(name, &mask)) {
		ok(0, "%s: a thread of that name", name);
		return 1;
	}
	for (size_t i = 0; i < sizeof(async) / sizeof(async[0]); i++)
		bad += !blocks(mask, async[i]);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		bad += s != ulsm_config.sync_signal && !blocks(mask, s);
	ok(!bad, "%s blocks every asynchronous signal, the program's "
	   "(SigBlk %#llx, %d open)", name, mask, bad);
	bad = 0;
	for (size_t i = 0; i < sizeof(sync_) / sizeof(sync_[0]); i++)
		bad += blocks(mask, sync_[i]);
	ok(!bad, "%s leaves the synchronous signals open (%d blocked)", name,
	   bad);
	ok(!blocks(mask, ulsm_config.sync_signal),
	   "%s leaves the sync signal %d open", name, ulsm_config.sync_signal);
	return 0;
}

int main(int argc, char **argv)
{
	char self[64];
	int status;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "--no-control")) {
		unsigned long long mask;

		/* ULSM_CONTROL=yes: reported, and no endpoint thread. */
		return thread_mask("ulsm-control", &mask) ? 0 : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--usdt")) {
		int failed;

		check_mask("ulsm-usdt");
		failed = done_testing();
		return failed;
	}
	if (getenv("ULSM_EMU") && *getenv("ULSM_EMU"))
		skip_all("qemu-user keeps the guest's signal masks to itself");
	unsetenv("ULSM_CONTROL");
	/* The program's thread blocks SIGTRAP: the library's does not. */
	sigset_t trap;
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	pthread_sigmask(SIG_BLOCK, &trap, NULL);
	ok(ulsm_control_start() == 0, "the endpoint starts");
	check_mask("ulsm-control");
	ulsm_control_stop();

	/* ULSM_USDT=1: the watcher starts with the library, in a new image. */
	snprintf(self, sizeof(self), "/proc/%d/exe", (int)getpid());
	fflush(stdout);
	pid = fork();
	if (!pid) {
		dup2(2, 1);	/* its TAP lines, shown; its status says */
		setenv("ULSM_USDT", "1", 1);
		execl(self, self, "--usdt", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && !WEXITSTATUS(status),
	   "ULSM_USDT=1: the watcher's mask is the same (status %#x)", status);

	/* A value that is neither 0 nor 1 is said, as ULSM_USDT's is. */
	int err[2];
	char said[512] = "";
	ssize_t n;

	if (pipe(err))
		return done_testing();
	fflush(stdout);
	pid = fork();
	if (!pid) {
		dup2(err[1], 2);
		setenv("ULSM_CONTROL", "yes", 1);
		execl(self, self, "--no-control", (char *)NULL);
		_exit(127);
	}
	close(err[1]);
	n = read(err[0], said, sizeof(said) - 1);
	said[n > 0 ? n : 0] = '\0';
	said[strcspn(said, "\n")] = '\0';
	close(err[0]);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && !WEXITSTATUS(status) &&
	   strstr(said, "ULSM_CONTROL=\"yes\" is neither 0 nor 1: ignored"),
	   "ULSM_CONTROL=yes: reported, no endpoint (status %#x, said: %s)",
	   status, said);
	return done_testing();
}
