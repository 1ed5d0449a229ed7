// SPDX-License-Identifier: MIT
/*
 * bench_hooks: instruction counts (bench/hk_driver.h). This program runs a
 * copy of itself under valgrind --tool=callgrind, in --callgrind-child
 * mode, which counts the instructions of each case's loop exactly; the
 * parent reads the counts back. Instruction counts do not show what
 * retpolines and return thunks cost (mispredictions, not instructions),
 * but they show what each dispatcher executes, with no noise.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hk_driver.h"

/* Instruction counts need callgrind's client requests, and no sanitizer. */
#if defined(__has_include)
# if __has_include(<valgrind/callgrind.h>)
#  include <valgrind/callgrind.h>
#  define HK_HAVE_CALLGRIND 1
# endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
# undef HK_HAVE_CALLGRIND
#endif
#if defined(__has_feature)
# if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#  undef HK_HAVE_CALLGRIND
# endif
#endif

/* --- instruction counts (callgrind) -------------------------------------- */

/* Dispatches per callgrind run: exact counts need no more. */
#define HK_CG_ITERS	1000UL

#ifdef HK_HAVE_CALLGRIND
/* The "totals:" of callgrind's dump @seq, checked to be the one for @what. */
static int read_dump(const char *prefix, unsigned int seq, const char *what,
		     unsigned long *ir)
{
	char path[4096], line[512], trigger[256];
	bool found = false, ours = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%u", prefix, seq);
	snprintf(trigger, sizeof(trigger),
		 "desc: Trigger: Client Request: %s\n", what);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "bench_hooks: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, trigger))
			ours = true;
		else if (!strncmp(line, "totals:", 7))
			found = sscanf(line + 7, "%lu", ir) == 1;
	}
	fclose(f);
	if (!found || !ours) {
		fprintf(stderr, "bench_hooks: %s is not the dump of %s\n", path,
			what);
		return -EPROTO;
	}
	return 0;
}
#endif

/*
 * Under callgrind (the child run_callgrind() starts): each case twice,
 * HK_CG_ITERS and twice as many dispatches, counters zeroed before each
 * and dumped after; the difference over HK_CG_ITERS is the instructions of
 * one iteration, without the run's fixed costs. Writes "name\tcount" lines.
 */
int callgrind_child(const char *prefix, const char *tsv)
{
#ifdef HK_HAVE_CALLGRIND
	unsigned int seq = 0;
	FILE *out;
	int ret = 0;

	if (!RUNNING_ON_VALGRIND) {
		fprintf(stderr, "bench_hooks: --callgrind-child runs under "
			"valgrind --tool=callgrind only\n");
		return -EINVAL;
	}
	out = fopen(tsv, "w");
	if (!out)
		return -errno;
	for (size_t i = 0; i < ncases && !ret; i++) {
		unsigned long ir[2] = { 0, 0 };

		for (unsigned long pass = 1; pass <= 2 && !ret; pass++) {
			unsigned long n = HK_CG_ITERS * pass;

			ret = prepare_case((int)i);
			if (ret)
				break;
			CALLGRIND_ZERO_STATS;
			cases[i].loop(n);
			CALLGRIND_DUMP_STATS_AT(cases[i].name);
			seq++;
			ret = check_run((int)i, n);
			if (!ret)
				ret = read_dump(prefix, seq, cases[i].name,
						&ir[pass - 1]);
		}
		if (!ret)
			fprintf(out, "%s\t%.3f\n", cases[i].name,
				(double)(ir[1] - ir[0]) / (double)HK_CG_ITERS);
	}
	if (fclose(out) && !ret)
		ret = -errno;
	return ret;
#else
	(void)prefix;
	(void)tsv;
	fprintf(stderr, "bench_hooks: built without <valgrind/callgrind.h>\n");
	return -ENOSYS;
#endif
}

/* Is @prog an executable somewhere on $PATH? */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (n && !access(buf, X_OK))
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* What instruction counts were measured (a message for the output). */
char instr_note[160] = "not measured";

/*
 * Run this program again under callgrind, in --callgrind-child mode, and
 * read the counts it wrote. @exe: the program to run, a copy of this one
 * (the Makefile's has no debug information, which valgrind may not read);
 * NULL: this very file. Return: 0 (also when skipped), or nonzero if the
 * child failed, which includes any of its checks.
 */
int run_callgrind(const char *exe)
{
	char self[4096], dir[] = "/tmp/bench_hooks.XXXXXX";
	char prefix[4200], tsv[4200], out_arg[4300], line[256];
	ssize_t len;
	int status, ret = 0;
	FILE *f;
	pid_t pid;

#ifndef HK_HAVE_CALLGRIND
	snprintf(instr_note, sizeof(instr_note), "skipped: built without "
		 "valgrind's headers, or with a sanitizer");
	return 0;
#endif
	if (!on_path("valgrind")) {
		snprintf(instr_note, sizeof(instr_note), "skipped: valgrind is "
			 "not installed");
		return 0;
	}
	if (exe) {
		snprintf(self, sizeof(self), "%s", exe);
	} else {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len < 0)
			return -errno;
		self[len] = '\0';
	}
	if (!mkdtemp(dir))
		return -errno;
	snprintf(prefix, sizeof(prefix), "%s/callgrind.out", dir);
	snprintf(tsv, sizeof(tsv), "%s/instr.tsv", dir);
	snprintf(out_arg, sizeof(out_arg), "--callgrind-out-file=%s", prefix);
	printf("callgrind: %zu cases, %lu and %lu dispatches each ...\n",
	       ncases, HK_CG_ITERS, 2 * HK_CG_ITERS);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (!pid) {
		/* --smc-check=all: the library rewrites code as it goes. */
		execlp("valgrind", "valgrind", "--tool=callgrind", "-q",
		       "--smc-check=all", out_arg, self, "--callgrind-child",
		       prefix, tsv, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		ret = -errno;
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_hooks: the callgrind run failed (status "
			"%#x)\n", status);
		ret = -EPROTO;
		goto out;
	}
	f = fopen(tsv, "r");
	if (!f) {
		ret = -errno;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		double instr;

		if (sscanf(line, "%63[^\t]\t%lf", name, &instr) != 2)
			continue;
		for (size_t i = 0; i < ncases; i++)
			if (!strcmp(cases[i].name, name))
				cases[i].instr = instr;
	}
	fclose(f);
	for (size_t i = 0; i < ncases; i++)
		if (cases[i].instr < 0) {
			fprintf(stderr, "bench_hooks: no instruction count for "
				"%s\n", cases[i].name);
			ret = -EPROTO;
		}
	snprintf(instr_note, sizeof(instr_note), "callgrind, %lu dispatches "
		 "per case; loop included", HK_CG_ITERS);
out:
	remove_dir(dir);
	return ret;
}
