// SPDX-License-Identifier: MIT
/*
 * ulsmctl against endpoints that misbehave (issue 38) and for what
 * operators asked (issue 40): fake endpoints (fake_endpoint.h), each a
 * process of its own at ulsm.<id>.sock in a socket directory of this
 * test's, and the built ulsmctl run against them with a time limit
 * (ctl_run.h): its exit status, the time it took, the size of what it
 * printed, the files it left.
 *
 * The cases that wait for a deadline run side by side: they are started
 * first, the quick ones run while they wait, and they are judged last.
 *
 *	t_ulsmctl_door.t [--ctl PATH]	(another ulsmctl: an older one, to
 *					see these checks fail)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "runtime.h"
#include "fake_endpoint.h"
#include "ctl_run.h"

static char tmp[40];		/* everything of this test's */
static char out[60];		/* where recordings go */

/* A fresh socket directory, tmp/<name>/ulsm: it is $XDG_RUNTIME_DIR's. */
static void use_dir(const char *name)
{
	char xdg[80];

	snprintf(xdg, sizeof(xdg), "%s/%s", tmp, name);
	mkdir(xdg, 0700);
	setenv("XDG_RUNTIME_DIR", xdg, 1);
	snprintf(fake_dir, sizeof(fake_dir), "%s/ulsm", xdg);
	mkdir(fake_dir, 0700);
}

static char *path_in(char *buf, size_t size, const char *dir,
		     const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}



/* A file's first bytes (NUL-terminated), or "" when it is not there. */
static char *file_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}






#define check_run(r, cond, ...)						\
	do {								\
		if (!ok(cond, __VA_ARGS__))				\
			ctl_show(r);					\
	} while (0)

/* --- defect 7: list removes only stale sockets -------------------------- */


/* --- defect 8: one bad endpoint does not fail list ---------------------- */


/* --- XDG_RUNTIME_DIR: used only when it is this user's, and private ----- */


/* --- defect 10: show's deadline and its printer -------------------------- */





/* A program that never greets, or drips its reply: --timeout holds. */
static void show_deadline(void)
{
	struct ctl_run r;

	fake_start(108, NULL, FK_MUTE, NULL);
	ctl_run(&r, 30, "show", "-p", "108", "--timeout", "1s");
	check_run(&r, ctl_status(&r) == 1 && r.secs < 2.5 &&
		  strstr(r.err.keep, "greeting"), "show --timeout 1s of a "
		  "program that never greets: status 1 (%.2f s)", r.secs);
	fake_start(109, NULL, FK_DRIP, NULL);
	ctl_run(&r, 30, "show", "-p", "109", "--timeout", "2s");
	check_run(&r, ctl_status(&r) == 1 && r.secs < 3.5 && r.secs > 1.5,
		  "show --timeout 2s of a reply sent a byte a second: "
		  "status 1 (%.2f s)", r.secs);
}

/* --- defect 9: a failed record leaves -o as it was ----------------------- */



/* --- operators: -n, one-line answers, --version, -o -, list's columns ---- */


/* --- top ------------------------------------------------------------------ */



/* --- defect 6: record ends ----------------------------------------------- */

static struct ctl_run slow_drip, slow_silent, slow_flood, slow_stopped,
		      int_once, int_twice, term_once;
static int stopped_fake;

static void start_slow(void)
{
	static const struct fake_conf silent = { .rec = REC_SILENT };
	static const struct fake_conf flood = { .rec = REC_FLOOD };
	static const struct fake_conf stream = { .rec = REC_STREAM };
	char p[6][300];

	use_dir("slow");
	fake_start(101, NULL, FK_DRIP, NULL);
	fake_start(131, NULL, FK_NORMAL, &silent);
	fake_start(132, NULL, FK_NORMAL, &flood);
	stopped_fake = fake_start(133, NULL, FK_NORMAL, &stream);
	fake_start(134, NULL, FK_NORMAL, &stream);
	fake_start(135, NULL, FK_NORMAL, &silent);
	fake_start(136, NULL, FK_NORMAL, &stream);

	ctl_start(&slow_drip, 30, "show", "-p", "101", (char *)NULL);
	ctl_start(&slow_silent, 30, "record", "-p", "131", "x", "-d", "1s",
		  "-o", path_in(p[0], sizeof(p[0]), out, "silent.bin"),
		  (char *)NULL);
	ctl_start(&slow_flood, 30, "record", "-p", "132", "x", "-d", "1s",
		  "-o", path_in(p[1], sizeof(p[1]), out, "flood.bin"),
		  (char *)NULL);
	ctl_start(&slow_stopped, 30, "record", "-p", "133", "x", "-d", "1s",
		  "-o", path_in(p[2], sizeof(p[2]), out, "stopped.bin"),
		  (char *)NULL);
	ctl_start(&int_once, 30, "record", "-p", "134", "x", "-o",
		  path_in(p[3], sizeof(p[3]), out, "int.bin"), (char *)NULL);
	ctl_start(&int_twice, 30, "record", "-p", "135", "x", "-o",
		  path_in(p[4], sizeof(p[4]), out, "int2.bin"), (char *)NULL);
	ctl_start(&term_once, 30, "record", "-p", "136", "x", "-o",
		  path_in(p[5], sizeof(p[5]), out, "term.bin"), (char *)NULL);
	ctl_sleep_ms(600);
	kill(fake_pid(stopped_fake), SIGSTOP);
	ctl_signal(&int_once, SIGINT);
	ctl_signal(&int_twice, SIGINT);
	ctl_signal(&term_once, SIGTERM);
	ctl_sleep_ms(500);
	ctl_signal(&int_twice, SIGINT);
}

static void judge_slow(void)
{
	char p[300], text[256];
	struct stat st;

	ctl_wait(&int_once);
	check_run(&int_once, ctl_status(&int_once) == 0 &&
		  int_once.secs < 2.6, "record, SIGINT: stop sent, the end "
		  "received, status 0 (%.2f s)", int_once.secs);
	file_text(path_in(p, sizeof(p), out, "int.bin"), text, sizeof(text));
	ok(strlen(text) >= 5 && !strcmp(text + strlen(text) - 5, "final"),
	   "and the file holds the recording to its end");
	ctl_wait(&term_once);
	check_run(&term_once, ctl_status(&term_once) == 0 &&
		  term_once.secs < 2.6, "record, SIGTERM: the same");
	ctl_wait(&int_twice);
	check_run(&int_twice, ctl_status(&int_twice) == 3 &&
		  int_twice.secs < 2.6, "record, SIGINT twice to a program "
		  "that does not end it: stops waiting, status 3 (%.2f s)",
		  int_twice.secs);
	ctl_wait(&slow_silent);
	check_run(&slow_silent, ctl_status(&slow_silent) == 3 &&
		  slow_silent.secs < 9, "record -d 1s of a program silent "
		  "after ok: ends, status 3 (%.2f s)", slow_silent.secs);
	ctl_wait(&slow_flood);
	check_run(&slow_flood, ctl_status(&slow_flood) == 3 &&
		  slow_flood.secs < 9, "record -d 1s of a stream without end "
		  "after stop: ends, status 3 (%.2f s)", slow_flood.secs);
	if (stat(path_in(p, sizeof(p), out, "flood.bin"), &st))
		st.st_size = -1;
	ok(st.st_size > 0, "what was received is kept (%lld bytes)",
	   (long long)st.st_size);
	ctl_wait(&slow_stopped);
	check_run(&slow_stopped, ctl_status(&slow_stopped) == 3 &&
		  slow_stopped.secs < 9, "record -d 1s of a program "
		  "SIGSTOPped while it streams: ends, status 3 (%.2f s)",
		  slow_stopped.secs);
	kill(fake_pid(stopped_fake), SIGCONT);
	ctl_wait(&slow_drip);
	check_run(&slow_drip, ctl_status(&slow_drip) == 1 &&
		  slow_drip.secs < 12.5, "show of a reply sent a byte a "
		  "second: ends at the 10 s deadline (%.2f s)",
		  slow_drip.secs);
	fake_stop_all();
}

int main(int argc, char **argv)
{
	int mark;

	ctl_path = TC_ULSMCTL;
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--ctl"))
			ctl_path = argv[i + 1];
	if (under_emulator())
		skip_all("ulsmctl and its fakes run on the host");
	signal(SIGPIPE, SIG_IGN);
	snprintf(tmp, sizeof(tmp), "/tmp/t_ulsmctl_door.XXXXXX");
	if (!mkdtemp(tmp))
		exit(99);
	chmod(tmp, 0700);
	snprintf(out, sizeof(out), "%s/out", tmp);
	mkdir(out, 0755);

	start_slow();
	use_dir("show");
	mark = fake_mark();
	show_deadline();
	fake_stop_since(mark);
	mark = fake_mark();
	fake_stop_since(mark);
	use_dir("slow");
	judge_slow();

	fake_stop_all();
	if (!tap_failed) {
		char cmd[200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd))
			diag("could not remove %s", tmp);
	} else {
		diag("kept %s", tmp);
	}
	return done_testing();
}
