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

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		exit(99);
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

/* The names in @dir, sorted, separated by spaces. */
static char *dir_names(const char *dir, char *buf, size_t size)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") &&
		    strcmp(list[i]->d_name, ".."))
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						len ? " " : "",
						list[i]->d_name);
		free(list[i]);
		if (len >= size)
			len = size - 1;
	}
	free(list);
	return buf;
}

/* A stale socket: bound at @path, nobody listening. */
static void stale_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)))
		exit(99);
	close(s);
}

/* No terminal control in @s: no C0 but \t and \n, no DEL, no C1. */
static bool terminal_safe(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			return false;
		if (c == 0xc2 && i + 1 < n &&
		    (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)
			return false;
		if (c >= 0x80 && c <= 0x9f &&
		    (i == 0 || (unsigned char)s[i - 1] < 0xc0))
			return false;
	}
	return true;
}

static char id_s[64][16];

/* A fake's id as an argument. */
static const char *ids(int id)
{
	static int next;
	char *s = id_s[next++ % 64];

	snprintf(s, 16, "%d", id);
	return s;
}

#define check_run(r, cond, ...)						\
	do {								\
		if (!ok(cond, __VA_ARGS__))				\
			ctl_show(r);					\
	} while (0)

/* --- defect 7: list removes only stale sockets -------------------------- */

static void list_stale(void)
{
	char p[300], names[1024], target[300];
	struct ctl_run r;

	use_dir("stale");
	put_file(path_in(p, sizeof(p), fake_dir, "ulsm.1.sock"), "a file\n");
	mkfifo(path_in(p, sizeof(p), fake_dir, "ulsm.2.sock"), 0600);
	stale_socket(path_in(p, sizeof(p), fake_dir, "ulsm.3.sock.bak"));
	stale_socket(path_in(target, sizeof(target), tmp, "elsewhere.sock"));
	symlink(target, path_in(p, sizeof(p), fake_dir, "ulsm.4.sock"));
	stale_socket(path_in(p, sizeof(p), fake_dir, "ulsm.-5.sock"));
	stale_socket(path_in(p, sizeof(p), fake_dir, "ulsm.6.sock"));
	if (!geteuid()) {
		/* Another user's stale socket (root can make one). */
		stale_socket(path_in(p, sizeof(p), fake_dir, "ulsm.8.sock"));
		if (chown(p, 65534, 65534))
			exit(99);
	}
	ctl_run(&r, 10, "list");
	check_run(&r, ctl_status(&r) == 0, "list among files that are not "
		  "stale sockets: status 0");
	dir_names(fake_dir, names, sizeof(names));
	ok(!strcmp(names, geteuid() ? "ulsm.-5.sock ulsm.1.sock ulsm.2.sock "
		   "ulsm.3.sock.bak ulsm.4.sock" : "ulsm.-5.sock ulsm.1.sock "
		   "ulsm.2.sock ulsm.3.sock.bak ulsm.4.sock ulsm.8.sock"),
	   "only the stale socket of this user named ulsm.<digits>.sock is "
	   "removed: a file, a FIFO, .bak, a link, a bad name, %s stay (%s)",
	   geteuid() ? "(not root: no other user's)" : "another user's",
	   names);
	ok(exists(target), "the link's target is untouched");
}

/* --- defect 8: one bad endpoint does not fail list ---------------------- */

static void list_bad(void)
{
	static const struct fake_conf good = { .command = "goodprog" };
	struct ctl_run r;

	int mark = fake_mark();

	use_dir("bad");
	fake_start(111, NULL, FK_MUTE, NULL);
	fake_start(112, NULL, FK_HANG, NULL);
	fake_start(113, NULL, FK_REFUSE, NULL);
	fake_start(114, NULL, FK_NORMAL, &good);
	ctl_run(&r, 20, "list");
	check_run(&r, ctl_status(&r) == 0 && strstr(r.out.keep, "114") &&
		  strstr(r.out.keep, "goodprog") &&
		  !strstr(r.out.keep, "111") && !strstr(r.out.keep, "112") &&
		  !strstr(r.out.keep, "113"),
		  "list: the good program listed, status 0, beside a mute "
		  "one, a hung one and one that refuses hello");
	check_run(&r, strstr(r.err.keep, "111") && strstr(r.err.keep, "112")
		  && strstr(r.err.keep, "113"),
		  "each bad one said on stderr");
	check_run(&r, r.secs < 4, "within a second each, at once (%.2f s)",
		  r.secs);
	ctl_run(&r, 20, "list", "--json");
	check_run(&r, ctl_status(&r) == 0 &&
		  strstr(r.out.keep, "\"pid\":114") &&
		  !strstr(r.out.keep, "\"pid\":113"),
		  "list --json: the good one only");
	fake_stop_since(mark);
}

/* --- XDG_RUNTIME_DIR: used only when it is this user's, and private ----- */

static void xdg_rule(void)
{
	char xdg[256], loose[300], names[256];
	struct ctl_run r;
	int mark = fake_mark();

	use_dir("loose");
	snprintf(xdg, sizeof(xdg), "%s", getenv("XDG_RUNTIME_DIR"));
	fake_start(121, NULL, FK_NORMAL, NULL);
	chmod(xdg, 0777);
	ctl_run(&r, 10, "show", "-p", "121", "--json");
	check_run(&r, ctl_status(&r) == 1,
		  "XDG_RUNTIME_DIR writable by others: not used (status 1)");
	snprintf(loose, sizeof(loose), "/tmp/ulsm-%u",
		 (unsigned int)geteuid());
	check_run(&r, strstr(r.err.keep, loose), "the message names %s",
		  loose);
	chmod(xdg, 0700);
	fake_requests(121, names, sizeof(names));
	ok(!names[0], "the endpoint in it was not asked anything");
	ctl_run(&r, 10, "show", "-p", "121", "--json");
	check_run(&r, ctl_status(&r) == 0, "once private, it is used");
	setenv("XDG_RUNTIME_DIR", "relative/dir", 1);
	ctl_run(&r, 10, "show", "-p", "121");
	check_run(&r, ctl_status(&r) == 1 && strstr(r.err.keep, loose),
		  "a relative XDG_RUNTIME_DIR: not used");
	fake_stop_since(mark);
}

/* --- defect 10: show's deadline and its printer -------------------------- */

static const char show_3mods[] =
	"{\"process\":{\"pid\":7,\"command\":\"srv\",\"uid\":0,"
	"\"version\":\"0.1.0\",\"backend\":\"x86_64\",\"sync\":\"membarrier\"},"
	"\"tracepoints\":[{\"name\":\"req_end\",\"args\":\"id, status\","
	"\"on\":false,\"probes\":0,\"recorder\":false,\"usdt\":false,"
	"\"recording\":false},{\"name\":\"req_start\",\"args\":\"id, len\","
	"\"on\":true,\"probes\":1,\"recorder\":true,\"usdt\":true,"
	"\"recording\":true}],"
	"\"switches\":[{\"name\":\"verbose_log\",\"description\":"
	"\"log every request\",\"on\":false}],"
	"\"keys\":[{\"name\":\"__SCK____tracepoint_slot_req_start_0\","
	"\"on\":false,\"count\":0,\"sites\":1},{\"name\":\"verbose_log\","
	"\"switch\":true,\"on\":false,\"count\":0,\"sites\":1}],"
	"\"calls\":[{\"key\":\"__SCK____tracepoint_slot_req_end_0\","
	"\"target\":null,\"sites\":1,\"direct\":0}],"
	"\"sets\":[{\"name\":\"srv\",\"sealed\":false,\"toggle_allowed\":true,"
	"\"unloadable\":false,\"expected\":[\"block\"],\"modules\":["
	"{\"name\":\"allow\",\"state\":\"active\",\"position\":1,\"place\":1,"
	"\"on\":true,\"reason\":null},"
	"{\"name\":\"audit\",\"state\":\"active\",\"position\":2,\"place\":2,"
	"\"on\":false,\"reason\":null},"
	"{\"name\":\"rate\",\"state\":\"failed\",\"position\":3,\"place\":4,"
	"\"on\":false,\"reason\":\"init: -12\"}]}]}\n";

/* What a show of @conf's JSON prints, by lines. */
static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void show_brackets(void)
{
	struct ctl_run r;

	fake_start(102, NULL, FK_BRACKETS, NULL);
	ctl_run(&r, 30, "show", "-p", "102");
	check_run(&r, ctl_status(&r) == 1 && r.out.total < 4096 &&
		  r.secs < 5, "show of 1 MiB of \"[\": refused, bounded "
		  "(%lld bytes out, %.2f s)", r.out.total, r.secs);
	ctl_run(&r, 30, "show", "-p", "102", "--json");
	check_run(&r, ctl_status(&r) == 1 && r.out.total < 4096 &&
		  r.secs < 5, "show --json of it: refused, bounded");
}

static void show_json(void)
{
	static const struct fake_conf spaced = {
		.show = "{ \"process\" : { \"pid\" : 9 , \"command\" : "
			"\"a\\u001b[2Jb\\u009bc\" } ,\n \"tracepoints\" : [ ],"
			" \"n\" : -1.5e3, \"t\": [true, false, null] }\n",
	};
	static const struct fake_conf rawesc = {
		.show = "{\"process\":{\"pid\":9,\"command\":\"a\x1b[2J\"}}\n",
		.command = "x\\u001b]0;pwned\\u0007y",
	};
	static const struct fake_conf table = { .show = show_3mods };
	struct ctl_run r;

	fake_start(103, NULL, FK_NORMAL, &spaced);
	ctl_run(&r, 10, "show", "-p", "103", "--json");
	check_run(&r, ctl_status(&r) == 0 && !strcmp(r.out.keep,
		  "{\"process\":{\"pid\":9,\"command\":\"a\\u001b[2Jb\\u009bc"
		  "\"},\"tracepoints\":[],\"n\":-1.5e3,\"t\":[true,false,"
		  "null]}\n"), "show --json: the reply re-serialised, "
		  "compact, escapes kept escaped");
	ctl_run(&r, 10, "show", "-p", "103");
	check_run(&r, ctl_status(&r) == 0 &&
		  terminal_safe(r.out.keep, r.out.kept) &&
		  strstr(r.out.keep, "a\\x1b[2Jb\\x9bc"),
		  "show: a name's ESC and C1 CSI printed as \\xNN");
	fake_start(104, NULL, FK_NORMAL, &rawesc);
	ctl_run(&r, 10, "show", "-p", "104");
	check_run(&r, ctl_status(&r) == 1 &&
		  terminal_safe(r.out.keep, r.out.kept) &&
		  terminal_safe(r.err.keep, r.err.kept),
		  "show of JSON with a raw ESC in a string: refused, nothing "
		  "raw printed");
	ctl_run(&r, 10, "show", "-p", "104", "--json");
	check_run(&r, ctl_status(&r) == 1 &&
		  terminal_safe(r.out.keep, r.out.kept),
		  "show --json of it: refused");
	fake_start(105, NULL, FK_REFUSE, &(struct fake_conf){
		.error = "nope \x1b[2J\x9b" "31m" });
	ctl_run(&r, 10, "show", "-p", "105");
	check_run(&r, ctl_status(&r) == 1 &&
		  terminal_safe(r.err.keep, r.err.kept) &&
		  strstr(r.err.keep, "\\x1b[2J"),
		  "the program's error message: escaped too");

	use_dir("names");
	fake_start(106, NULL, FK_NORMAL, &rawesc);
	ctl_run(&r, 10, "list");
	check_run(&r, ctl_status(&r) == 0 &&
		  terminal_safe(r.out.keep, r.out.kept) &&
		  terminal_safe(r.err.keep, r.err.kept) &&
		  strstr(r.out.keep, "x\\x1b]0;pwned\\x07y"),
		  "list: a command with ESC and BEL printed escaped");
	fake_stop(106);

	fake_start(107, NULL, FK_NORMAL, &table);
	ctl_run(&r, 10, "show", "-p", "107");
	check_run(&r, ctl_status(&r) == 0 && count_lines(r.out.keep) < 40 &&
		  !strstr(r.out.keep, "__SCK__") &&
		  strstr(r.out.keep, "verbose_log") &&
		  strstr(r.out.keep, "req_start") &&
		  strstr(r.out.keep, "audit") && strstr(r.out.keep, "block") &&
		  strstr(r.out.keep, "init: -12"),
		  "show: a table of switches, tracepoints, the set's three "
		  "modules and the absent one, under 40 lines (%d), no "
		  "internal symbol", count_lines(r.out.keep));
	ctl_run(&r, 10, "show", "-p", "107", "--all");
	check_run(&r, ctl_status(&r) == 0 &&
		  strstr(r.out.keep, "__SCK____tracepoint_slot_req_start_0"),
		  "show --all: the keys and calls too");
}

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

static void out_refused(void)
{
	char keep[300], json[300], names[1024], text[64], o9[256];
	static const struct fake_conf refused = { .rec = REC_REFUSED };
	struct ctl_run r;

	snprintf(o9, sizeof(o9), "%s/o9", tmp);
	mkdir(o9, 0755);
	path_in(keep, sizeof(keep), o9, "keep.bin");
	path_in(json, sizeof(json), o9, "t.json");
	put_file(keep, "precious\n");
	ctl_run(&r, 10, "record", "-p", "999999", "x", "-d", "1s", "-o", keep);
	check_run(&r, ctl_status(&r) == 1 &&
		  !strcmp(file_text(keep, text, sizeof(text)), "precious\n"),
		  "record of no such process: status 1, -o untouched");
	fake_start(141, NULL, FK_NORMAL, &refused);
	ctl_run(&r, 10, "record", "-p", "141", "x", "-d", "1s", "-o", keep);
	check_run(&r, ctl_status(&r) == 1 &&
		  !strcmp(file_text(keep, text, sizeof(text)), "precious\n"),
		  "record refused (EBUSY): -o untouched");
	ctl_run(&r, 10, "record", "-p", "141", "x", "-d", "1s", "--json",
		"-o", json);
	check_run(&r, ctl_status(&r) == 1, "record --json refused: status 1");
	ok(!strcmp(dir_names(o9, names, sizeof(names)), "keep.bin"),
	   "no file left behind (%s)", names);
}

/* A signal that ends ulsmctl while it records: no temporary left. */
static void out_signal(void)
{
	static const struct fake_conf silent = { .rec = REC_SILENT };
	char dir[256], f[300], names[1024], text[64];
	static const int sigs[] = { SIGUSR1, SIGQUIT, SIGALRM };
	struct ctl_run r;

	snprintf(dir, sizeof(dir), "%s/o9sig", tmp);
	mkdir(dir, 0755);
	path_in(f, sizeof(f), dir, "f.bin");
	put_file(f, "old\n");
	fake_start(142, NULL, FK_NORMAL, &silent);
	for (int i = 0; i < 3; i++) {
		ctl_start(&r, 10, "record", "-p", "142", "x", "-o", f,
			  (char *)NULL);
		ctl_sleep_ms(400);
		ctl_signal(&r, sigs[i]);
		ctl_wait(&r);
		ok(ctl_status(&r) != 0 &&
		   !strcmp(dir_names(dir, names, sizeof(names)), "f.bin") &&
		   !strcmp(file_text(f, text, sizeof(text)), "old\n"),
		   "record ended by %s: -o as it was, no temporary (%s)",
		   strsignal(sigs[i]), names);
	}
}

/* -o a link, a FIFO, a device, a directory; a conversion that fails. */
static void out_modes(void)
{
	static const struct fake_conf st = { .rec = REC_STREAM };
	char d[256], link[300], target[300], fifo[300], json[300];
	char text[64], names[1024];
	struct ctl_run r;
	struct stat sb;
	int mark = fake_mark();

	snprintf(d, sizeof(d), "%s/o9modes", tmp);
	mkdir(d, 0755);
	put_file(path_in(target, sizeof(target), d, "target.bin"), "target\n");
	symlink(target, path_in(link, sizeof(link), d, "link.bin"));
	mkfifo(path_in(fifo, sizeof(fifo), d, "fifo"), 0600);
	put_file(path_in(json, sizeof(json), d, "old.json"), "old\n");
	fake_start(153, NULL, FK_NORMAL, &st);
	ctl_run(&r, 10, "record", "-p", "153", "x", "-d", "300ms", "-o", link);
	check_run(&r, ctl_status(&r) == 0 && !lstat(link, &sb) &&
		  S_ISREG(sb.st_mode) &&
		  !strcmp(file_text(target, text, sizeof(text)), "target\n"),
		  "-o a symbolic link: the link replaced, its target "
		  "untouched");
	ctl_run(&r, 10, "record", "-p", "153", "x", "-d", "300ms", "-o", fifo);
	check_run(&r, ctl_status(&r) == 0 && !lstat(fifo, &sb) &&
		  S_ISREG(sb.st_mode), "-o a FIFO: replaced by a file");
	ctl_run(&r, 10, "record", "-p", "153", "x", "-d", "300ms", "-o",
		"/dev/null");
	check_run(&r, ctl_status(&r) == 0 && !lstat("/dev/null", &sb) &&
		  S_ISCHR(sb.st_mode), "-o /dev/null: written in place");
	ctl_run(&r, 10, "record", "-p", "153", "x", "-d", "300ms", "-o", d);
	check_run(&r, ctl_status(&r) == 1, "-o a directory: refused");
	/* The fake's bytes are no recording: ulsm-trace refuses them. */
	ctl_run(&r, 10, "record", "-p", "153", "x", "-d", "300ms", "--json",
		"-o", json);
	check_run(&r, ctl_status(&r) == 1 &&
		  !strcmp(file_text(json, text, sizeof(text)), "old\n"),
		  "a conversion that fails: status 1, -o as it was");
	ok(!strcmp(dir_names(d, names, sizeof(names)), "fifo link.bin "
		   "old.json target.bin"), "no temporary left (%s)", names);
	fake_stop_since(mark);
}

/* --- operators: one-line answers, -n, list's columns, -o -, --hooks ----- */

static void one_line(void)
{
	struct ctl_run r;
	int mark = fake_mark();

	fake_start(161, NULL, FK_NORMAL, NULL);
	ctl_run(&r, 10, "switch", "-p", "161", "verbose_log", "on");
	check_run(&r, ctl_status(&r) == 0 &&
		  !strcmp(r.out.keep, "verbose_log: on\n"),
		  "switch answers in one line");
	ctl_run(&r, 10, "toggle", "-p", "161", "srv", "audit", "off");
	check_run(&r, ctl_status(&r) == 0 && !strcmp(r.out.keep, "audit: off\n"),
		  "toggle answers in one line");
	ctl_run(&r, 10, "toggle", "-p", "161", "srv", "audit", "off",
		"--json");
	check_run(&r, ctl_status(&r) == 0 && !strcmp(r.out.keep,
		  "{\"name\":\"audit\",\"state\":\"active\",\"position\":2,"
		  "\"on\":false,\"reason\":null}\n"), "toggle --json: the JSON");
	ctl_run(&r, 10, "clear", "-p", "161");
	check_run(&r, ctl_status(&r) == 0 && !r.out.total, "clear: quiet");
	fake_stop_since(mark);
}

static void version(void)
{
	struct ctl_run r;

	ctl_run(&r, 10, "--version");
	check_run(&r, ctl_status(&r) == 0 && !strncmp(r.out.keep, "ulsmctl ",
		  8), "--version");
}

static void pick_name(void)
{
	static const struct fake_conf a = { .command = "uniqprog" };
	static const struct fake_conf b = { .command = "twinprog" };
	struct ctl_run r;
	int t1, t2, mark = fake_mark();

	use_dir("names2");
	fake_start(0, "uniqprog", FK_NORMAL, &a);
	t1 = fake_start(0, "twinprog", FK_NORMAL, &b);
	t2 = fake_start(0, "twinprog", FK_NORMAL, &b);
	ctl_run(&r, 10, "show", "-n", "uniqprog", "--json");
	check_run(&r, ctl_status(&r) == 0 && strstr(r.out.keep, "\"fake\""),
		  "show -n NAME: the one program of that command");
	ctl_run(&r, 10, "show", "-n", "twinprog");
	check_run(&r, ctl_status(&r) == 1 && strstr(r.err.keep, ids(t1)) &&
		  strstr(r.err.keep, ids(t2)),
		  "-n with two programs of that name: refused, both listed");
	ctl_run(&r, 10, "show", "-n", "nosuchprog");
	check_run(&r, ctl_status(&r) == 1 && strstr(r.err.keep, "nosuchprog"),
		  "-n with none: refused");
	ctl_run(&r, 10, "show", "-n", "twinprog", "-p", ids(t1));
	check_run(&r, ctl_status(&r) == 2, "-n and -p: a bad command line");
	fake_stop_since(mark);
}

static void list_columns(void)
{
	static const struct fake_conf a = { .command = "colprog" };
	char want[256], sock[300];
	struct ctl_run r;
	int u, mark = fake_mark();

	use_dir("columns");
	ctl_run(&r, 10, "list");
	snprintf(want, sizeof(want), "no program runs its control endpoint "
		 "in %s", fake_dir);
	check_run(&r, ctl_status(&r) == 0 && strstr(r.out.keep, want),
		  "list with nothing reachable says so");
	u = fake_start(0, "colprog", FK_NORMAL, &a);
	ctl_run(&r, 10, "list");
	snprintf(sock, sizeof(sock), "%s/ulsm.%d.sock", fake_dir, u);
	check_run(&r, ctl_status(&r) == 0 &&
		  !strncmp(r.out.keep, "PID", 3) &&
		  strstr(r.out.keep, "COMMAND") &&
		  strstr(r.out.keep, "SOCKET") && strstr(r.out.keep, sock),
		  "list: PID, COMMAND and SOCKET columns");
	fake_stop_since(mark);
}

static void out_stdout(void)
{
	static const struct fake_conf st = { .rec = REC_STREAM };
	struct ctl_run r;
	int s, mark = fake_mark();

	s = fake_start(151, NULL, FK_NORMAL, &st);
	ctl_run(&r, 10, "record", "-p", ids(s), "x", "-d", "300ms", "-o", "-");
	check_run(&r, ctl_status(&r) == 0 && r.out.total >= 15 &&
		  strstr(r.out.keep, "0123456789") &&
		  !strcmp(r.out.keep + r.out.total - 5, "final"),
		  "record -o -: the recording on standard output");
	fake_stop_since(mark);
}

static void hooks(void)
{
	static const struct fake_conf st = { .rec = REC_STREAM };
	char log[1024], f[300];
	struct ctl_run r;
	int s, mark = fake_mark();

	s = fake_start(152, NULL, FK_NORMAL, &st);
	path_in(f, sizeof(f), out, "hooks.bin");
	ctl_run(&r, 10, "record", "-p", ids(s), "--hooks", "srv", "-d",
		"300ms", "-o", f);
	check_run(&r, ctl_status(&r) == 0, "record --hooks SET");
	ctl_run(&r, 10, "record", "-p", ids(s), "req_*", "--hooks", "srv",
		"-d", "300ms", "-o", f);
	check_run(&r, ctl_status(&r) == 0, "record GLOB --hooks SET");
	fake_requests(s, log, sizeof(log));
	ok(strstr(log, "record - srv\n") && strstr(log, "record req_* srv\n"),
	   "record --hooks SET [GLOB]: record <glob|-> <set>");
	ctl_run(&r, 10, "record", "-p", ids(s), "-d", "300ms", "-o", f);
	check_run(&r, ctl_status(&r) == 2, "record without a glob nor "
		  "--hooks: a bad command line");
	fake_stop_since(mark);
}

/* A copy of the file @from at @to, mode @mode. */
static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY), o;
	ssize_t n;

	o = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (in < 0 || o < 0)
		exit(99);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(o, buf, (size_t)n) != n)
			exit(99);
	close(in);
	close(o);
}

/*
 * --ctf: ulsm-trace --ctf OUTDIR FILE, the one next to ulsmctl; here a
 * copy of ulsmctl beside a script that says what it was asked.
 */
static void ctf(void)
{
	static const struct fake_conf st = { .rec = REC_STREAM };
	char bin[256], copy[300], tool[300], args[300], outdir[300], raw[400];
	char tmpd[256], text[800], want[800], names[256];
	const char *saved = ctl_path;
	struct ctl_run r;
	int mark = fake_mark();

	snprintf(bin, sizeof(bin), "%s/bin", tmp);
	mkdir(bin, 0755);
	copy_file(ctl_path, path_in(copy, sizeof(copy), bin, "ulsmctl"), 0755);
	path_in(tool, sizeof(tool), bin, "ulsm-trace");
	path_in(args, sizeof(args), bin, "args");
	put_file(tool, "#!/bin/sh\n"
		 "echo \"$@\" > \"$(dirname \"$0\")/args\"\n"
		 "[ \"$1\" = --ctf ] || exit 9\n"
		 "mkdir -p \"$2\" && cat \"$3\" > \"$2/stream\"\n");
	chmod(tool, 0755);
	snprintf(tmpd, sizeof(tmpd), "%s/tmpd", tmp);
	mkdir(tmpd, 0700);
	setenv("TMPDIR", tmpd, 1);
	fake_start(154, NULL, FK_NORMAL, &st);
	path_in(outdir, sizeof(outdir), out, "ctf");
	ctl_path = copy;
	ctl_run(&r, 10, "record", "-p", "154", "x", "-d", "300ms", "--ctf",
		outdir);
	snprintf(want, sizeof(want), "--ctf %s %s/.recording.ulsmctl-", outdir,
		 tmpd);
	check_run(&r, ctl_status(&r) == 0 &&
		  !strncmp(file_text(args, text, sizeof(text)), want,
			   strlen(want)), "record --ctf OUTDIR: ulsm-trace "
		  "--ctf OUTDIR FILE, the one next to ulsmctl");
	path_in(raw, sizeof(raw), outdir, "stream");
	file_text(raw, text, sizeof(text));
	ok(strlen(text) > 5 && !strcmp(text + strlen(text) - 5, "final"),
	   "FILE is the recording, whole");
	ok(!dir_names(tmpd, names, sizeof(names))[0],
	   "its temporary is gone (%s)", names);
	path_in(raw, sizeof(raw), out, "ctf.bin");
	ctl_run(&r, 10, "record", "-p", "154", "x", "-d", "300ms", "-o", raw,
		"--ctf", outdir);
	snprintf(want, sizeof(want), "--ctf %s %s\n", outdir, raw);
	check_run(&r, ctl_status(&r) == 0 &&
		  !strcmp(file_text(args, text, sizeof(text)), want),
		  "record -o FILE --ctf OUTDIR: FILE kept, and converted");
	ctl_run(&r, 10, "record", "-p", "154", "x", "-d", "300ms", "-o", "-",
		"--ctf", outdir);
	check_run(&r, ctl_status(&r) == 2, "--ctf with -o -: refused");
	put_file(tool, "#!/bin/sh\nexit 1\n");
	ctl_run(&r, 10, "record", "-p", "154", "x", "-d", "300ms", "--ctf",
		outdir);
	check_run(&r, ctl_status(&r) == 1 && !dir_names(tmpd, names,
		  sizeof(names))[0], "a conversion that fails: status 1, "
		  "no temporary left");
	ctl_path = saved;
	unsetenv("TMPDIR");
	fake_stop_since(mark);
}

/* --- top ------------------------------------------------------------------ */

/* The number after @key in @s, or -1. */
static double num_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? atof(p + strlen(key)) : -1;
}

static void top(void)
{
	static const struct fake_conf c = { .command = "srv" };
	struct ctl_run r;
	double hits, calls, refusals;
	int id, mark = fake_mark();

	use_dir("top");
	id = fake_start(0, "srv", FK_NORMAL, &c);
	ctl_run(&r, 10, "top", "-p", ids(id), "--once", "--json", "-i",
		"500ms");
	hits = num_after(strstr(r.out.keep, "\"req_start\"") ?: "",
			 "\"per_s\":");
	calls = num_after(r.out.keep, "\"calls_per_s\":");
	refusals = num_after(r.out.keep, "\"refusals_per_s\":");
	check_run(&r, ctl_status(&r) == 0 && r.secs < 3,
		  "top --once --json -i 500ms: one sample (%.2f s)", r.secs);
	check_run(&r, hits > 450 && hits < 550 && calls > 180 && calls < 220 &&
		  refusals > 18 && refusals < 22, "the rates of two counts: "
		  "%.1f hits/s, %.1f calls/s, %.1f refusals/s (500, 200, 20)",
		  hits, calls, refusals);
	ctl_run(&r, 10, "top", "-n", "srv", "--once");
	check_run(&r, ctl_status(&r) == 0 && strstr(r.out.keep, "req_start")
		  && strstr(r.out.keep, "allow") &&
		  !strstr(r.out.keep, "\x1b"),
		  "top -n NAME --once: a table, no screen clearing into a "
		  "pipe");
	fake_stop_since(mark);
}

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
	list_stale();
	list_bad();
	xdg_rule();
	use_dir("show");
	mark = fake_mark();
	show_deadline();
	show_brackets();
	show_json();
	fake_stop_since(mark);
	mark = fake_mark();
	out_refused();
	out_signal();
	out_modes();
	one_line();
	out_stdout();
	hooks();
	ctf();
	fake_stop_since(mark);
	version();
	pick_name();
	list_columns();
	top();
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
