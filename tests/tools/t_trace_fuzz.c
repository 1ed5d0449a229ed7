// SPDX-License-Identifier: MIT
/*
 * t_trace_fuzz - ulsm-trace reads files that may be truncated, corrupted or
 * hostile, and behaves (TAP).
 *
 *	t_trace_fuzz.t [--seed N] [--scale N]
 *
 * The files come from a real recording (this program's own tracepoints,
 * through the recorder, from three threads) and from nothing: names of
 * every length around the tool's old 256-byte buffer, names with any
 * bytes, a small file truncated at every length, every count and length
 * replaced by huge values, files that break one rule each, of versions
 * 1, 2 and 3 (each parameter's type: every type there is, and those
 * there are not), and files of 20,000 names, threads or open slices.
 * ulsm-trace runs on each with --text, --json and --ctf, under a time
 * limit, and must either print (exit 0, JSON that a strict parser
 * accepts, text with no control byte, a CTF directory of metadata and
 * whole packets only, which babeltrace2 reads where it is installed) or
 * refuse (exit 1, one line that starts with "ulsm-trace: ", and no
 * directory, not even a hidden one half written): a signal, a
 * sanitizer's report, a timeout, "out of memory" on a small file or any
 * other status fails the check. Files that are valid must be printed, and
 * some of them exactly as expected.
 *
 * What this checks is the program: its exit status, its one line, its
 * directory, its time, its golden outputs, babeltrace2's reading. Random
 * files are libFuzzer's job now (tests/fuzz/fuzz_recording.c, on the
 * tool's reader and outputs in one process, guided by coverage; make
 * check replays its seeds and findings), which replaced the bit flips,
 * random words and random files that were here.
 *
 * Deterministic: the seed (default 1) is printed, each failure names its
 * case and leaves its file in the current directory (trace_fuzz_fail.N.bin)
 * to replay with ulsm-trace by hand. --scale multiplies the large files
 * (make stress: --scale 3); under a sanitizer or an emulator (ULSM_EMU),
 * where a run of the tool costs 5 or 40 times more, the cases are thinned
 * out (every 3rd under ASan; every 16th under an emulator, and under TSan,
 * which finds nothing in a tool of one thread; from a phase the seed
 * chooses).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/tracepoint.h>

#include "ctf_check.h"
#include "local_tp.h"
#include "tap.h"
#include "trace_check.h"

#ifndef TF_TOOL
# define TF_TOOL	"../ulsm-trace"
#endif
#ifndef TF_COMPARE
# define TF_COMPARE	"../../../tests/tools/ctf_compare.sh"
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
# define TF_SANITIZED	1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#  define TF_SANITIZED	1
# endif
#endif
#ifndef TF_SANITIZED
# define TF_SANITIZED	0
#endif
#if defined(__SANITIZE_THREAD__)
# define TF_TSAN	1
#elif defined(__has_feature)
# if __has_feature(thread_sanitizer)
#  define TF_TSAN	1
# endif
#endif
#ifndef TF_TSAN
# define TF_TSAN	0
#endif

/* Seconds a run may take: a valid file of a few KiB takes milliseconds. */
#define TF_TIME_LIMIT	20
/* What the tool may map (without a sanitizer, which maps terabytes). */
#define TF_AS_LIMIT	(1024ul << 20)
/* More output than this from a file of a few KiB is a defect too. */
#define TF_OUT_LIMIT	(64ul << 20)

/* --- the real recording: tracepoints of this program --------------------- */

#define TF_CAT_(a, b)	a##b
#define TF_CAT(a, b)	TF_CAT_(a, b)
#define TF_C10		abcdefghij
#define TF_C40		TF_CAT(TF_CAT(TF_C10, TF_C10), TF_CAT(TF_C10, TF_C10))
#define TF_C160		TF_CAT(TF_CAT(TF_C40, TF_C40), TF_CAT(TF_C40, TF_C40))
#define TF_C320		TF_CAT(TF_C160, TF_C160)
/* 326 and 324 characters: past the converter's old 256-byte buffer. */
#define TF_LONG_START	TF_CAT(TF_C320, _start)
#define TF_LONG_END	TF_CAT(TF_C320, _end)
/*
 * The name expanded before it is made a string; LOCAL_TRACEPOINT() passes
 * it on expanded too, before DECLARE/DEFINE paste it.
 */
#define TF_STR_(x)	#x
#define TF_STR(x)	TF_STR_(x)

LOCAL_TRACEPOINT(tf_req_start, TP_PROTO(int fd, long len), TP_ARGS(fd, len));
LOCAL_TRACEPOINT(tf_req_end, TP_PROTO(int fd, int err), TP_ARGS(fd, err));
LOCAL_TRACEPOINT(tf_six, TP_PROTO(int a, int b, int c, int d, int e, int f),
		 TP_ARGS(a, b, c, d, e, f));
LOCAL_TRACEPOINT(TF_LONG_START, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(TF_LONG_END, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tf_str, TP_PROTO(int x, const char *s), TP_ARGS(x, s));

static void *worker(void *arg)
{
	int base = (int)(intptr_t)arg;

	for (int i = 0; i < 20; i++) {
		trace_tf_req_start(base + i, 100L * i);
		if (i % 5 == 0)
			trace_tf_six(i, -i, 1, 2, 3, 4);
		trace_tf_req_end(base + i, i % 7 ? 0 : -5);
	}
	return NULL;
}

/* --- files made by hand ------------------------------------------------- */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			diag("out of memory");
			exit(1);
		}
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

/*
 * The offsets of the file's counts and lengths, as they are written, for
 * the huge-count cases.
 */
struct field {
	size_t off;
	int width;		/* 4 or 8 */
};
static struct field fields[4096];
static size_t nfields;
static bool noting;

/* @build, with the offsets of the counts and lengths it writes noted. */
#define NOTED(build)							\
	do {								\
		nfields = 0;						\
		noting = true;						\
		build;							\
		noting = false;						\
	} while (0)

static void put_u32(struct buf *b, uint32_t v, bool count)
{
	if (count && noting && nfields < sizeof(fields) / sizeof(fields[0]))
		fields[nfields++] = (struct field){ b->len, 4 };
	put(b, &v, 4);
}

static void put_u64(struct buf *b, uint64_t v, bool count)
{
	if (count && noting && nfields < sizeof(fields) / sizeof(fields[0]))
		fields[nfields++] = (struct field){ b->len, 8 };
	put(b, &v, 8);
}

struct tname {
	uint32_t id, nargs;
	const char *name, *args;
	size_t nl, al;		/* lengths: the names may hold NULs */
};

struct tevent {
	uint64_t ns;
	uint32_t id, n;
	uint64_t w[6];
};

struct tring {
	uint32_t tid;
	size_t nev;
	const struct tevent *ev;
};

static void put_header(struct buf *b)
{
	put(b, "ULSMTRC1", 8);
	put_u32(b, 1, false);
}

/* A name as every version has it: id, nargs, the lengths, the bytes. */
static void put_name(struct buf *b, const struct tname *nm)
{
	put_u32(b, nm->id, true);
	put_u32(b, nm->nargs, true);
	put_u32(b, (uint32_t)nm->nl, true);
	put_u32(b, (uint32_t)nm->al, true);
	put(b, nm->name, nm->nl);
	put(b, nm->args, nm->al);
}

static void put_names(struct buf *b, const struct tname *nm, size_t n)
{
	put_u32(b, (uint32_t)n, true);
	for (size_t i = 0; i < n; i++)
		put_name(b, &nm[i]);
}

static void put_event(struct buf *b, const struct tevent *e)
{
	put_u64(b, e->ns, false);
	put_u32(b, e->id, true);
	put_u32(b, e->n, true);
	for (int i = 0; i < 6; i++)
		put_u64(b, e->w[i], false);
}

static void put_rings(struct buf *b, const struct tring *r, size_t n)
{
	put_u32(b, (uint32_t)n, true);
	for (size_t i = 0; i < n; i++) {
		put_u32(b, r[i].tid, false);
		put_u32(b, 0, false);
		put_u64(b, r[i].nev, true);
		for (size_t k = 0; k < r[i].nev; k++)
			put_event(b, &r[i].ev[k]);
	}
}

static void build(struct buf *b, const struct tname *nm, size_t nn,
		  const struct tring *r, size_t nr)
{
	b->len = 0;
	put_header(b);
	put_names(b, nm, nn);
	put_rings(b, r, nr);
}

/*
 * Version 2 (src/trace/trace.h): a header with the pid and the command,
 * then records of a type and a length: names, threads, events (strings
 * after their words), lost counts, the end.
 */
#define T2_STR_CUT	(1u << 12)
#define T2_STR_NULL	(1u << 13)
#define T2_STR_LOST	(1u << 14)

struct t2thread {
	uint32_t tid, pid;
	const char *name;
	size_t nl;
};

/* A string word's flags in @w (NULL or LOST: no bytes), its text in @s. */
struct t2event {
	uint64_t ns;
	uint32_t id, n, strs;
	uint64_t w[6];
	const char *s[6];
};

/* In order: a thread's events, or (@lost) a count of its lost ones. */
struct t2part {
	uint32_t tid;
	size_t nev;
	const struct t2event *ev;
	uint64_t lost;
	bool is_lost;
};

static void put_header_v(struct buf *b, uint32_t version, uint32_t pid,
			 const char *cmd, size_t cl)
{
	put(b, "ULSMTRC1", 8);
	put_u32(b, version, false);
	put_u32(b, pid, false);
	put_u32(b, (uint32_t)cl, true);
	put(b, cmd, cl);
}

static void put_header2(struct buf *b, uint32_t pid, const char *cmd,
			size_t cl)
{
	put_header_v(b, 2, pid, cmd, cl);
}

static void put_rec(struct buf *b, uint32_t type, size_t len)
{
	put_u32(b, type, true);
	put_u32(b, (uint32_t)len, true);
}

static size_t str_bytes(const struct t2event *e, int i)
{
	return e->strs >> i & 1 && !(e->w[i] & (T2_STR_NULL | T2_STR_LOST)) ?
	       strlen(e->s[i]) : 0;
}

static size_t event2_size(const struct t2event *e)
{
	size_t n = 16 + 8 * (size_t)(e->n < 6 ? e->n : 6);

	for (int i = 0; i < 6 && i < (int)e->n; i++)
		n += str_bytes(e, i);
	return n;
}

static void put_event2(struct buf *b, const struct t2event *e)
{
	int n = e->n < 6 ? (int)e->n : 6;

	put_u64(b, e->ns, false);
	put_u32(b, e->id, true);
	put_u32(b, e->n | e->strs << 8, true);
	for (int i = 0; i < n; i++) {
		if (e->strs >> i & 1)
			put_u64(b, e->w[i] | str_bytes(e, i), true);
		else
			put_u64(b, e->w[i], false);
	}
	for (int i = 0; i < n; i++)
		put(b, e->s[i], str_bytes(e, i));
}

/*
 * Versions 2 and 3: version 3 (@types not NULL) has each name's
 * parameters' types after its args, a byte each (enum ulsm_tp_type).
 */
static void build_v(struct buf *b, const struct tname *nm,
		    const uint8_t (*types)[6], size_t nn,
		    const struct t2thread *th, size_t nt,
		    const struct t2part *pt, size_t np)
{
	b->len = 0;
	put_header_v(b, types ? 3 : 2, 4242, "small", 5);
	for (size_t i = 0; i < nn; i++) {
		size_t nt3 = !types ? 0 : nm[i].nargs < 6 ? nm[i].nargs : 6;

		put_rec(b, 1, 16 + nm[i].nl + nm[i].al + nt3);
		put_name(b, &nm[i]);
		if (nt3)
			put(b, types[i], nt3);
	}
	for (size_t i = 0; i < nt; i++) {
		put_rec(b, 2, 12 + th[i].nl);
		put_u32(b, th[i].tid, true);
		put_u32(b, th[i].pid, false);
		put_u32(b, (uint32_t)th[i].nl, true);
		put(b, th[i].name, th[i].nl);
	}
	for (size_t i = 0; i < np; i++) {
		size_t len = 8;

		if (pt[i].is_lost) {
			put_rec(b, 4, 16);
			put_u32(b, pt[i].tid, true);
			put_u32(b, 0, false);
			put_u64(b, pt[i].lost, true);
			continue;
		}
		for (size_t k = 0; k < pt[i].nev; k++)
			len += event2_size(&pt[i].ev[k]);
		put_rec(b, 3, len);
		put_u32(b, pt[i].tid, true);
		put_u32(b, (uint32_t)pt[i].nev, true);
		for (size_t k = 0; k < pt[i].nev; k++)
			put_event2(b, &pt[i].ev[k]);
	}
	put_rec(b, 5, 0);
}

static void build2(struct buf *b, const struct tname *nm, size_t nn,
		   const struct t2thread *th, size_t nt,
		   const struct t2part *pt, size_t np)
{
	build_v(b, nm, NULL, nn, th, nt, pt, np);
}

static void build3(struct buf *b, const struct tname *nm,
		   const uint8_t (*types)[6], size_t nn,
		   const struct t2thread *th, size_t nt,
		   const struct t2part *pt, size_t np)
{
	build_v(b, nm, types, nn, th, nt, pt, np);
}

/* --- running the tool ------------------------------------------------- */

enum expect { ACCEPT, REFUSE, EITHER };

struct run {
	int status;
	bool timed_out;
	char *out, *err;
	size_t outlen, errlen;
};

static char *emu_argv[16];
static int emu_argc;
static const char *tool = TF_TOOL;
static char dir[PATH_MAX], in_path[PATH_MAX + 16];
static char out_path[PATH_MAX + 16], err_path[PATH_MAX + 16];
/* Where --ctf writes: made by a run, checked and removed after it. */
static char ctf_path[PATH_MAX + 16];
/*
 * babeltrace2 reads the CTF output of the first printed files, 100 per
 * --scale (30 under a sanitizer or an emulator: each run costs tens of
 * ms), where it is installed.
 */
static bool have_bt;
static long bt_runs, bt_budget = 100, ctf_printed;
static int nsaved, runs;
/*
 * Under a sanitizer a run of the tool is 5 times slower, under an
 * emulator 40 times: the loops over lengths and fields take every
 * stride-th case there, from a phase the seed chooses.
 */
static bool slow;
static size_t stride = 1, phase;

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return calloc(1, 1);
	for (;;) {
		size_t got;

		if (*len + 65536 + 1 > cap) {
			cap = (*len + 65536 + 1) * 2;
			s = realloc(s, cap);
			if (!s) {
				diag("out of memory");
				exit(1);
			}
		}
		got = fread(s + *len, 1, 65536, f);
		*len += got;
		if (!got || *len > TF_OUT_LIMIT)
			break;
	}
	fclose(f);
	s[*len] = 0;
	return s;
}

/*
 * posix_spawn, not fork: forking this program costs as much as a run of
 * the tool under ASan (its shadow mappings). SIGCHLD is blocked here, so
 * that the wait below can time out; the child gets an empty mask.
 */
static void run_tool_on(const char *path, const char *mode, struct run *r)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	struct timespec end, now;
	sigset_t none, chld;
	char *argv[24];
	int argc = 0;
	pid_t pid;

	for (int i = 0; i < emu_argc; i++)
		argv[argc++] = emu_argv[i];
	argv[argc++] = (char *)(uintptr_t)tool;
	argv[argc++] = (char *)(uintptr_t)mode;
	if (!strcmp(mode, "--ctf"))
		argv[argc++] = ctf_path;
	argv[argc++] = (char *)(uintptr_t)path;
	argv[argc] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	posix_spawn_file_actions_addopen(&fa, 2, err_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	sigemptyset(&none);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	r->status = -1;
	r->timed_out = false;
	fflush(stdout);
	if (!posix_spawnp(&pid, argv[0], &fa, &at, argv, environ)) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += TF_TIME_LIMIT;
		for (;;) {
			/* The signal wakes us; the poll is in case it is lost. */
			sigtimedwait(&chld, NULL,
				     &(struct timespec){ 0, 20 * 1000 * 1000 });
			if (waitpid(pid, &r->status, WNOHANG) == pid)
				break;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > end.tv_sec ||
			    (now.tv_sec == end.tv_sec &&
			     now.tv_nsec >= end.tv_nsec)) {
				kill(pid, SIGKILL);
				while (waitpid(pid, &r->status, 0) < 0 &&
				       errno == EINTR)
					;
				r->timed_out = true;
				break;
			}
		}
	}
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	r->out = slurp(out_path, &r->outlen);
	r->err = slurp(err_path, &r->errlen);
	runs++;
}

static void run_tool(const char *mode, struct run *r)
{
	run_tool_on(in_path, mode, r);
}

static char verdict[256];

__attribute__((format(printf, 1, 2)))
static const char *say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(verdict, sizeof(verdict), fmt, ap);
	va_end(ap);
	return verdict;
}

/* The file at @path, or NULL; *@len its size. */
static char *read_file(const char *path, size_t *len)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return NULL;
	return slurp(path, len);
}

/*
 * A leftover of a --ctf run beside the directory it was to write: the
 * hidden directory its files went into first.
 */
static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(path);
}

/* Found, and removed (so that one failure is not reported again). */
static bool ctf_leftover(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d))) {
		char path[2 * PATH_MAX];

		if (strncmp(e->d_name, ".ctf.", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		remove_dir(path);
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

static void ctf_remove(void)
{
	remove_dir(ctf_path);
}

/*
 * What --ctf wrote, or NULL when it is a trace: only "metadata" and
 * "stream_<tid>" files, the metadata text with the signature, each
 * stream whole packets of the one UUID (ctf_check.h), at most
 * TF_OUT_LIMIT bytes in all; and, where babeltrace2 is installed, a
 * trace it reads without an error.
 */
static const char *ctf_judge(void)
{
	unsigned char uuid[16] = { 0 };
	DIR *d = opendir(ctf_path);
	struct dirent *e;
	const char *why = NULL;
	size_t total = 0, files = 0;
	bool meta = false;

	if (!d)
		return "exit 0, and no trace directory";
	while (!why && (e = readdir(d))) {
		char path[2 * PATH_MAX];
		size_t len, k;
		char *p;
		long at;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		k = strspn(e->d_name + (strncmp(e->d_name, "stream_", 7) ?
					0 : 7), "0123456789");
		if (strcmp(e->d_name, "metadata") &&
		    (strncmp(e->d_name, "stream_", 7) || !k ||
		     e->d_name[7 + k])) {
			why = say("a file named %.40s in the trace", e->d_name);
			break;
		}
		snprintf(path, sizeof(path), "%s/%s", ctf_path, e->d_name);
		p = read_file(path, &len);
		if (!p) {
			why = say("%.40s is not a file", e->d_name);
			break;
		}
		files++;
		total += len;
		if (!strcmp(e->d_name, "metadata")) {
			meta = true;
			at = tc_ctf_metadata_check(p, len);
			if (at >= 0)
				why = say("metadata that is not CTF 1.8 text, "
					  "at byte %ld of %zu", at, len);
		} else {
			at = tc_ctf_stream_check((unsigned char *)p, len, uuid);
			if (at >= 0)
				why = say("%.40s: not whole packets, at byte "
					  "%ld of %zu", e->d_name, at, len);
		}
		free(p);
		if (!why && total > TF_OUT_LIMIT)
			why = "more than 64 MiB of trace";
	}
	closedir(d);
	if (!why && !meta)
		why = "a trace without its metadata";
	/* Every third trace: spread over the checks, random files too. */
	if (!why && have_bt && bt_runs < bt_budget && files < 2000 &&
	    ctf_printed++ % 3 == 0) {
		char cmd[3 * PATH_MAX + 128];
		size_t len;
		char *err;
		int st;

		bt_runs++;
		/* (Our address space limit is the tool's, not babeltrace2's.) */
		snprintf(cmd, sizeof(cmd), "ulimit -v unlimited 2>/dev/null; "
			 "babeltrace2 '%s' >/dev/null 2>'%s.bt'", ctf_path,
			 err_path);
		st = system(cmd);
		snprintf(cmd, sizeof(cmd), "%s.bt", err_path);
		err = slurp(cmd, &len);
		if (st || strstr(err, "ERROR"))
			why = say("babeltrace2 cannot read the trace: %.120s",
				  err);
		free(err);
		unlink(cmd);
	}
	return why;
}

/* NULL if the tool behaved on this file, else what it did wrong. */
static const char *judge(const struct run *r, int form, enum expect want)
{
	bool json = form == 1;
	const char *why;
	int code;
	long at;

	if (form == 2) {
		bool there = !access(ctf_path, F_OK);

		why = judge(r, 3, want);
		if (!why && r->status == 0)
			why = r->outlen ? "--ctf printed on standard output" :
			      ctf_judge();
		else if (!why && there)
			why = "refused, and left a trace directory";
		if (!why && ctf_leftover())
			why = "left its hidden directory behind";
		ctf_remove();
		return why;
	}

	if (r->status == -1)
		return "could not run the tool";
	if (r->timed_out)
		return say("a hang: killed after %d s", TF_TIME_LIMIT);
	if (WIFSIGNALED(r->status))
		return say("killed by signal %d (%s)", WTERMSIG(r->status),
			   strsignal(WTERMSIG(r->status)));
	code = WEXITSTATUS(r->status);
	if (strstr(r->err, "Sanitizer") || strstr(r->err, "runtime error"))
		return "a sanitizer's report";
	if (strstr(r->err, "out of memory"))
		return "out of memory, on a file of a few KiB";
	if (r->outlen > TF_OUT_LIMIT)
		return "more than 64 MiB of output";
	if (code == 0) {
		if (want == REFUSE)
			return "a bad file accepted (exit 0)";
		if (form == 3)		/* --ctf: its own checks, above */
			return NULL;
		at = json ? tc_json_check(r->out, r->outlen) :
			    tc_text_check(r->out, r->outlen);
		if (at >= 0)
			return say("%s at byte %ld of %zu", json ?
				   "JSON that does not parse" :
				   "text with a control byte or invalid UTF-8",
				   at, r->outlen);
		at = json ? tc_json_slices_check(r->out, r->outlen) : -1;
		if (at != -1)
			return say("JSON with a slice that does not pair (an E "
				   "not its B's, or a B left open) at byte %ld "
				   "of %zu", at, r->outlen);
		return NULL;
	}
	if (code == 1) {
		const char *nl = memchr(r->err, '\n', r->errlen);

		if (want == ACCEPT)
			return "a valid file refused";
		if (strncmp(r->err, "ulsm-trace: ", 12) || !nl ||
		    (size_t)(nl - r->err) + 1 != r->errlen ||
		    tc_text_check(r->err, r->errlen) >= 0)
			return "refused without one clear line on stderr";
		return NULL;
	}
	return say("exit status %d", code);
}

static void show(const char *what, const char *s, size_t len)
{
	char line[161];
	size_t n = len < 160 ? len : 160;

	for (size_t i = 0; i < n; i++)
		line[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '.';
	line[n] = 0;
	if (n)
		diag("    %s: %s%s", what, line, len > n ? "..." : "");
}

struct tally {
	int files, failed, printed;
};

/*
 * Which modes try_file runs: all, or one. The tool reads a file the same
 * way whatever the mode, and prints only once it has read it all: so a
 * file refused as text is refused as JSON and as CTF, and only a file
 * that is printed needs the other modes too (try_file). --ctf refuses
 * more: a time past 2^63 ns, which CTF readers cannot take.
 */
enum { TEXT = 1, JSON = 2, CTF = 4, ALL = 7 };

static bool run_and_judge(struct tally *t, const char *label, int m,
			  enum expect want, bool *printed)
{
	static const char *const modes[] = { "--text", "--json", "--ctf" };
	struct run r;
	const char *why;

	run_tool(modes[m], &r);
	why = judge(&r, m, want);
	if (why && t->failed < 5) {
		diag("  %s, %s: %s", label, modes[m], why);
		show("stderr", r.err, r.errlen);
		if (r.status != -1 && WIFEXITED(r.status) &&
		    !WEXITSTATUS(r.status))
			show("stdout", r.out, r.outlen);
	}
	*printed = r.status == 0;
	free(r.out);
	free(r.err);
	return why == NULL;
}

/*
 * The modes of @mask on one file (0: the first in turn, then the others
 * if it printed). A failure is reported (the first few of each check)
 * and its file kept for replay.
 */
static void try_modes(struct tally *t, const char *label, const void *p,
		      size_t len, enum expect want, int mask)
{
	static int turn;
	bool bad = false, printed;
	FILE *f = fopen(in_path, "wb");
	int first = turn++ % 3;

	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		diag("cannot write %s", in_path);
		exit(1);
	}
	t->files++;
	if (mask) {
		for (int m = 0; m < 3; m++)
			if (mask & (1 << m))
				bad |= !run_and_judge(t, label, m, want,
						      &printed);
	} else {
		bad = !run_and_judge(t, label, first, want, &printed);
		for (int m = 1, last = first; m < 3 && !bad &&
		     (printed || last == 2); m++) {
			last = (first + m) % 3;
			bad = !run_and_judge(t, label, last, want, &printed);
		}
		t->printed += printed;
	}
	if (bad) {
		char keep[64];
		FILE *k;

		snprintf(keep, sizeof(keep), "trace_fuzz_fail.%d.bin", nsaved++);
		k = fopen(keep, "wb");
		if (k) {
			fwrite(p, 1, len, k);
			fclose(k);
			if (t->failed < 5)
				diag("    kept as %s", keep);
		}
		t->failed++;
	}
}

static void try_file(struct tally *t, const char *label, const void *p,
		     size_t len, enum expect want)
{
	try_modes(t, label, p, len, want, 0);
}

__attribute__((format(printf, 2, 3)))
static void tally_ok(const struct tally *t, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ok(!t->failed, "%s: %d file%s (%d printed), %d misbehaved", what,
	   t->files, t->files == 1 ? "" : "s", t->printed, t->failed);
}

/* One run in one mode, for the checks of exact output. */
static bool output_of(const void *p, size_t len, const char *mode,
		      struct run *r)
{
	FILE *f = fopen(in_path, "wb");

	if (!f || fwrite(p, 1, len, f) != len || fclose(f))
		return false;
	run_tool(mode, r);
	return r->status == 0;
}

/* --- the checks ------------------------------------------------------- */

/* A checker that accepts everything would make every other check pass. */
static void check_the_checker(void)
{
	static const char *const good[] = {
		"{}", "[]", (" {\"a\": [1, -2.5e3, 0, 0.125, \"x\\u00e9\\n\", "
			     "true, false, null, {\"\": \"\\ud83d\\ude00\"}]}\n"),
		"\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", "-0", "1E+2",
	};
	static const char *const bad[] = {
		"", "{", "{\"a\": 1,}", "[1,]", "{\"a\" 1}", "{a: 1}", "01",
		"1.", ".5", "-", "[1] x", "\"\x01\"", "\"\xff\"",
		"\"\xc0\x80\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
		"\"\\ud800\"", "\"\\udc00\"", "\"\\x41\"", "\"abc", "nul",
		"[\"\xe2\x82\"]", "\"\\u12g4\"", "{\"a\":1}}",
	};
	int wrong = 0;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (tc_json_check(good[i], strlen(good[i])) >= 0) {
			diag("  refused: %s", good[i]);
			wrong++;
		}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (tc_json_check(bad[i], strlen(bad[i])) < 0) {
			diag("  accepted: %s", bad[i]);
			wrong++;
		}
#define TEXT(s)	tc_text_check(s, sizeof(s) - 1)
	if (TEXT("a b\n\xc3\xa9\n") >= 0 || TEXT("") >= 0 ||
	    TEXT("a\x1b[31m\n") < 0 || TEXT("a\xc2\x85\n") < 0 ||
	    TEXT("a\x7f\n") < 0 || TEXT("a\xff\n") < 0 || TEXT("a") < 0 ||
	    TEXT("a\0b\n") < 0 || TEXT("a\r\n") < 0) {
		diag("  the text checker is wrong");
		wrong++;
	}
#undef TEXT
	{
		static const char *const slices_good[] = {
			"[\n {\"name\": \"a\", \"ph\": \"B\", \"ts\": 1, \"pid\": 1, "
			"\"tid\": 2, \"args\": {\"x\": 1}},\n {\"name\": \"a\", \"ph\": "
			"\"B\", \"ts\": 1, \"pid\": 1, \"tid\": 3, \"args\": {}},\n "
			"{\"name\": \"a\", \"ph\": \"E\", \"ts\": 2, \"pid\": 1, \"tid\": "
			"2, \"args\": {\"x\": 1}},\n {\"name\": \"a\", \"ph\": \"E\", "
			"\"ts\": 1, \"pid\": 1, \"tid\": 3, \"args\": {}}\n]\n",
		};
		static const char *const slices_bad[] = {
			/* another arg on the E */
			"[\n {\"name\": \"a\", \"ph\": \"B\", \"ts\": 1, \"pid\": 1, "
			"\"tid\": 2, \"args\": {\"x\": 1}},\n {\"name\": \"a\", \"ph\": "
			"\"E\", \"ts\": 2, \"pid\": 1, \"tid\": 2, \"args\": {\"x\": 2}}\n]",
			/* on another thread */
			"[\n {\"name\": \"a\", \"ph\": \"B\", \"ts\": 1, \"pid\": 1, "
			"\"tid\": 2, \"args\": {}},\n {\"name\": \"a\", \"ph\": \"E\", "
			"\"ts\": 2, \"pid\": 1, \"tid\": 3, \"args\": {}}\n]",
			/* before its B */
			"[\n {\"name\": \"a\", \"ph\": \"B\", \"ts\": 3, \"pid\": 1, "
			"\"tid\": 2, \"args\": {}},\n {\"name\": \"a\", \"ph\": \"E\", "
			"\"ts\": 2, \"pid\": 1, \"tid\": 2, \"args\": {}}\n]",
			/* left open */
			("[\n {\"name\": \"a\", \"ph\": \"B\", \"ts\": 3, \"pid\": 1, "
			 "\"tid\": 2, \"args\": {}}\n]"),
		};

		for (size_t i = 0; i < sizeof(slices_good) / sizeof(slices_good[0]); i++)
			if (tc_json_slices_check(slices_good[i],
						 strlen(slices_good[i])) != -1) {
				diag("  slices refused: %s", slices_good[i]);
				wrong++;
			}
		for (size_t i = 0; i < sizeof(slices_bad) / sizeof(slices_bad[0]); i++)
			if (tc_json_slices_check(slices_bad[i],
						 strlen(slices_bad[i])) < 0) {
				diag("  slices accepted: %s", slices_bad[i]);
				wrong++;
			}
	}
	ok(!wrong, "the JSON, slice and text checkers accept %zu good and "
	   "refuse %zu bad examples", sizeof(good) / sizeof(good[0]) + 1,
	   sizeof(bad) / sizeof(bad[0]) + 4);
}

static struct buf real;

/* Three threads hit this program's tracepoints; the recorder writes. */
static void real_recording(void)
{
	char path[PATH_MAX + 16];
	pthread_t t[2];
	struct tally tl = { 0 };
	struct run r;
	long n;
	FILE *f;

	char text[400];

	memset(text, 'z', sizeof(text) - 1);
	text[sizeof(text) - 1] = 0;
	is_int(ulsm_trace_enable("*"), 6, "the recorder on the 6 tracepoints");
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i * 1000));
	for (int i = 0; i < 3; i++) {
		TF_CAT(trace_, TF_LONG_START)(i);
		TF_CAT(trace_, TF_LONG_END)(i);
	}
	/* Strings: one, NULL, one cut; a quote, a backslash, a control. */
	trace_tf_str(0, "a \"q\" \\ \x1b[1m");
	trace_tf_str(1, NULL);
	trace_tf_str(2, text);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ulsm_trace_disable("*");
	snprintf(path, sizeof(path), "%s/real.bin", dir);
	n = ulsm_trace_write(path);
	is_int(n, 2 * (40 + 4) + 6 + 3, "the recording holds its 97 events");
	f = fopen(path, "rb");
	if (f) {
		char chunk[4096];
		size_t got;

		while ((got = fread(chunk, 1, sizeof(chunk), f)))
			put(&real, chunk, got);
		fclose(f);
	}
	try_file(&tl, "the real recording", real.p, real.len, ACCEPT);
	tally_ok(&tl, "a real recording, with names of 324 and 326 bytes, "
		 "and strings");
	if (output_of(real.p, real.len, "--json", &r)) {
		char want[400];

		snprintf(want, sizeof(want), "{\"name\": \"%s\", \"cat\": "
			 "\"ulsm\", \"ph\": \"B\"", TF_STR(TF_C320));
		ok(strstr(r.out, want) != NULL,
		   "its 326-byte name ending in _start opens a slice named "
		   "without the suffix");
		snprintf(want, sizeof(want), "\"s\": \"%.256s\xe2\x80\xa6\"",
			 text);
		ok(strstr(r.out, "\"s\": \"a \\\"q\\\" \\\\ \\u001b[1m\"") &&
		   strstr(r.out, "\"s\": null") && strstr(r.out, want),
		   "its strings: escaped, NULL as null, 400 bytes cut at 256 "
		   "with an ellipsis");
	} else {
		ok(0, "its 326-byte name ending in _start opens a slice named "
		   "without the suffix");
		ok(0, "its strings");
	}
	free(r.out);
	free(r.err);
}

/*
 * Names of every length around the old buffer (256 bytes) and up to the
 * format's limit, each with each suffix that makes a slice: one file per
 * suffix, one event per name.
 */
static void name_lengths(void)
{
	static const char *const suffixes[] = {
		"", "_start", "_begin", "_end", "_done",
	};
	static const size_t lens[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 63, 64, 65, 127, 128, 129,
		250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 261,
		262, 263, 264, 270, 300, 310, 318, 319, 320, 321, 322, 323,
		324, 325, 326, 327, 328, 329, 330, 331, 332, 335, 338, 340,
		341, 350, 400, 500, 511, 512, 513, 1000, 1024, 2048, 4000,
		4095, 4096,
	};
	enum { N = sizeof(lens) / sizeof(lens[0]) };
	struct tname nm[N];
	struct tevent ev[N];
	struct tring ring = { 77, N, ev };
	struct tally tl = { 0 };
	struct buf b = { 0 };

	for (size_t s = 0; s < sizeof(suffixes) / sizeof(suffixes[0]); s++) {
		size_t sl = strlen(suffixes[s]);
		char label[64];

		for (size_t i = 0; i < N; i++) {
			size_t len = lens[i] > sl ? lens[i] : sl;
			char *p = malloc(len + 1);

			for (size_t k = 0; k < len - sl; k++)
				p[k] = (char)('a' + (k + i) % 26);
			memcpy(p + len - sl, suffixes[s], sl);
			nm[i] = (struct tname){ (uint32_t)i + 1, 1, p, "x",
						len, 1 };
			ev[i] = (struct tevent){ 1000 + i, (uint32_t)i + 1, 1,
						 { i } };
		}
		build(&b, nm, N, &ring, 1);
		snprintf(label, sizeof(label), "names of 0-4096 bytes + \"%s\"",
			 suffixes[s]);
		try_file(&tl, label, b.p, b.len, ACCEPT);
		for (size_t i = 0; i < N; i++)
			free((void *)(uintptr_t)nm[i].name);
	}
	tally_ok(&tl, "names of 0 to 4096 bytes, with and without each "
		 "slice suffix");
	free(b.p);
}

/*
 * A small valid file: a slice's two ends on two threads (so not a slice:
 * two instants), an event of six words of an id with no name; its counts
 * and lengths noted. The same text as the tool always printed
 * (t_trace_tool checks the format on real recordings).
 */
static const char small_text[] =
	"0.000000000 10 a_start x=3 y=-1\n"
	"0.000000020 11 unknown arg=1 arg=2 arg=3 arg=4 arg=5 arg=6\n"
	"0.000000050 11 a_end x=3\n";
static const char small_json[] =
	"{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"
	" {\"name\": \"a_start\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": "
	"0.000, \"pid\": 1, \"tid\": 10, \"s\": \"t\", \"args\": {\"x\": 3, "
	"\"y\": -1}},\n"
	" {\"name\": \"unknown\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": "
	"0.020, \"pid\": 1, \"tid\": 11, \"s\": \"t\", \"args\": {\"arg0\": 1, "
	"\"arg1\": 2, \"arg2\": 3, \"arg3\": 4, \"arg4\": 5, \"arg5\": 6}},\n"
	" {\"name\": \"a_end\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": "
	"0.050, \"pid\": 1, \"tid\": 11, \"s\": \"t\", \"args\": {\"x\": 3}}\n"
	"]}\n";

static void small_file(struct buf *b)
{
	static const struct tname nm[] = {
		{ 1, 2, "a_start", "x, y", 7, 4 },
		{ 2, 1, "a_end", "x", 5, 1 },
	};
	static const struct tevent ev1[] = {
		{ 1000, 1, 2, { 3, (uint64_t)-1 } },
	};
	static const struct tevent ev2[] = {
		{ 1050, 2, 1, { 3 } },
		{ 1020, 9, 6, { 1, 2, 3, 4, 5, 6 } },
	};
	static const struct tring r[] = { { 10, 1, ev1 }, { 11, 2, ev2 } };

	NOTED(build(b, nm, 2, r, 2));
}

/* The tool's output of @b with @opt: @len bytes, exactly @want. */
static bool golden_output(const struct buf *b, const char *opt,
			  const char *want, size_t len, const char *what)
{
	struct run r;
	bool same;

	same = output_of(b->p, b->len, opt, &r) && r.outlen == len &&
	       !memcmp(r.out, want, len);
	if (!same)
		show("got", r.out, r.outlen);
	free(r.out);
	free(r.err);
	return ok(same, "%s: the %s, exactly", what,
		  strcmp(opt, "--json") ? "text" : "JSON");
}

/* The file @make builds, read as text and as JSON: the golden outputs. */
#define golden(make, what, text, json)					\
	golden_check(make, what, text, sizeof(text) - 1, json,		\
		     sizeof(json) - 1)

static void golden_check(void (*make)(struct buf *b), const char *what,
			 const char *text, size_t text_len, const char *json,
			 size_t json_len)
{
	struct buf b = { 0 };

	make(&b);
	golden_output(&b, "--text", text, text_len, what);
	golden_output(&b, "--json", json, json_len, what);
	free(b.p);
}

/*
 * The file in @b cut at every length below @upto (every stride-th), then
 * whole.
 */
static void cut_upto(struct tally *tl, const char *pfx, const struct buf *b,
		     size_t upto)
{
	char label[64];

	for (size_t len = phase; len < b->len && len < upto; len += stride) {
		snprintf(label, sizeof(label), "%scut at %zu of %zu", pfx, len,
			 b->len);
		try_file(tl, label, b->p, len, REFUSE);
	}
	snprintf(label, sizeof(label), "%suncut", pfx);
	try_modes(tl, label, b->p, b->len, ACCEPT, ALL);
}

static void cut_each(struct tally *tl, const char *pfx, const struct buf *b)
{
	cut_upto(tl, pfx, b, b->len);
}

/*
 * Each field of the file in @b that build() noted, set in turn to each
 * value of @v32 or @v64 (by its width; every stride-th), then restored:
 * the tool may refuse the file or read it, never misbehave.
 */
#define ARRAY_N(a)	(sizeof(a) / sizeof((a)[0]))

static void huge_fields(struct tally *tl, const char *pfx, struct buf *b,
			const uint32_t *v32, size_t n32, const uint64_t *v64,
			size_t n64)
{
	char label[64];

	for (size_t f = 0; f < nfields; f++) {
		struct field fl = fields[f];
		unsigned char save[8];
		size_t nv = fl.width == 4 ? n32 : n64;

		memcpy(save, b->p + fl.off, (size_t)fl.width);
		for (size_t v = 0; v < nv; v++) {
			if ((f * nv + v) % stride != phase)
				continue;
			if (fl.width == 4)
				memcpy(b->p + fl.off, &v32[v], 4);
			else
				memcpy(b->p + fl.off, &v64[v], 8);
			snprintf(label, sizeof(label), "%s%d-byte field at %zu = %"
				 PRIu64, pfx, fl.width, fl.off, fl.width == 4 ?
				 (uint64_t)v32[v] : v64[v]);
			try_file(tl, label, b->p, b->len, EITHER);
		}
		memcpy(b->p + fl.off, save, (size_t)fl.width);
	}
}

/* Cut at every length (every stride-th): each shorter file is refused. */
static void truncated(void)
{
	struct buf b = { 0 };
	struct tally tl = { 0 };

	small_file(&b);
	cut_each(&tl, "", &b);
	tally_ok(&tl, "a small file cut at each of its lengths");
	free(b.p);
}

/* Each count and length of the small file, as huge (or off by one). */
static void huge_counts(void)
{
	static const uint32_t v32[] = {
		0xffffffff, 0x80000000, 0x7fffffff, 0x10000, 4097, 7,
	};
	static const uint64_t v64[] = {
		UINT64_MAX, 1ull << 63, 1ull << 58, (1ull << 58) + 1,
		1ull << 32, 1ull << 26, (1ull << 26) + 1, 3,
	};
	struct buf b = { 0 };
	struct tally tl = { 0 };

	small_file(&b);
	huge_fields(&tl, "", &b, v32, ARRAY_N(v32), v64, ARRAY_N(v64));
	tally_ok(&tl, "each of the %zu counts, lengths and ids of a small file "
		 "made huge", nfields);
	free(b.p);
}

/* Files that break one rule of the format each, and what must happen. */
static void rules(void)
{
	static char big[70000];
	struct tname nm[3];
	struct tevent ev[2] = {
		{ 5, 1, 1, { 1 } }, { 6, 2, 1, { 2 } },
	};
	struct tring ring = { 1, 2, ev };
	struct tally tl = { 0 };
	struct buf b = { 0 };
	uint32_t u;

	memset(big, 'n', sizeof(big));
	nm[0] = (struct tname){ 1, 1, "one", "x", 3, 1 };
	nm[1] = (struct tname){ 2, 1, "two", "x", 3, 1 };

	/* Lengths over the format's limit of 4096, with their bytes there. */
	{
		static const size_t lens[] = { 4097, 5000, 65536 };

		for (size_t i = 0; i < 3; i++) {
			nm[1].name = big;
			nm[1].nl = lens[i];
			build(&b, nm, 2, &ring, 1);
			try_file(&tl, "a name over 4096 bytes", b.p, b.len, REFUSE);
			nm[1] = (struct tname){ 2, 1, "two", big, 3, lens[i] };
			build(&b, nm, 2, &ring, 1);
			try_file(&tl, "arguments over 4096 bytes", b.p, b.len,
				 REFUSE);
		}
		nm[1] = (struct tname){ 2, 1, "two", "x", 3, 1 };
	}
	nm[1].id = 1;
	build(&b, nm, 2, &ring, 1);
	try_file(&tl, "an id named twice", b.p, b.len, REFUSE);
	nm[1].id = 2;
	nm[1].nargs = 7;
	build(&b, nm, 2, &ring, 1);
	try_file(&tl, "a tracepoint of 7 parameters", b.p, b.len, REFUSE);
	nm[1].nargs = 1;
	ev[1].n = 7;
	build(&b, nm, 2, &ring, 1);
	try_file(&tl, "an event of 7 words", b.p, b.len, REFUSE);
	ev[1].n = 1;
	build(&b, nm, 2, &ring, 1);
	put(&b, "x", 1);
	try_file(&tl, "a byte after the last ring", b.p, b.len, REFUSE);
	build(&b, nm, 2, &ring, 1);
	try_file(&tl, "the file without it", b.p, b.len, ACCEPT);
	b.p[0] = 'X';
	try_file(&tl, "another magic", b.p, b.len, REFUSE);
	b.p[0] = 'U';
	for (u = 0; u < 3; u += 2) {
		memcpy(b.p + 8, &u, 4);
		try_file(&tl, "version 0 or 2", b.p, b.len, REFUSE);
	}
	try_file(&tl, "an empty file", "", 0, REFUSE);
	try_file(&tl, "7 bytes of magic", "ULSMTRC", 7, REFUSE);

	/*
	 * A hundred rings that each announce 2^26 events and hold none: the
	 * tool once allocated for what they announced.
	 */
	b.len = 0;
	put_header(&b);
	put_names(&b, nm, 2);
	put_u32(&b, 100, false);
	for (int i = 0; i < 100; i++) {
		put_u32(&b, (uint32_t)i, false);
		put_u32(&b, 0, false);
		put_u64(&b, 1ull << 26, false);
	}
	try_file(&tl, "100 rings of 2^26 events, empty", b.p, b.len, REFUSE);
	/* A million names announced, none there. */
	b.len = 0;
	put_header(&b);
	put_u32(&b, 1000000, false);
	try_file(&tl, "a million names announced", b.p, b.len, REFUSE);
	tally_ok(&tl, "files that break a rule of the format");
	{
		struct run r;
		bool good;

		run_tool_on(dir, "--text", &r);
		good = !judge(&r, 0, REFUSE);
		free(r.out);
		free(r.err);
		snprintf(big, sizeof(big), "%s/nonexistent", dir);
		run_tool_on(big, "--json", &r);
		good &= !judge(&r, 1, REFUSE);
		free(r.out);
		free(r.err);
		run_tool_on(big, "--ctf", &r);
		good &= !judge(&r, 2, REFUSE);
		free(r.out);
		free(r.err);
		ok(good, "a directory and a missing file: refused, saying so");
	}
	free(b.p);
}

/*
 * Many names and many events, most of ids with no name: the tool once
 * looked each event's name up in a list (quadratic, a hang at 400,000 of
 * each, --scale 20 and more).
 */
static void many(long scale)
{
	size_t n = 20000 * (size_t)(scale < 1 ? 1 : scale > 20 ? 20 : scale);
	struct buf b = { 0 };
	struct tally tl = { 0 };
	char name[16];

	if (slow)
		n /= emu_argc ? 10 : 4;
	put_header(&b);
	put_u32(&b, (uint32_t)n, false);
	for (size_t i = 0; i < n; i++) {
		int len = snprintf(name, sizeof(name), "t%zu", i);

		put_u32(&b, (uint32_t)(2 * i + 1), false);
		put_u32(&b, 1, false);
		put_u32(&b, (uint32_t)len, false);
		put_u32(&b, 1, false);
		put(&b, name, (size_t)len);
		put(&b, "v", 1);
	}
	put_u32(&b, 1, false);
	put_u32(&b, 42, false);
	put_u32(&b, 0, false);
	put_u64(&b, n, false);
	for (size_t i = 0; i < n; i++) {
		/* Even ids have no name: a lookup walks the whole list. */
		struct tevent e = { n - i, (uint32_t)(2 * i), 1, { i } };

		put_event(&b, &e);
	}
	try_file(&tl, "many names and events", b.p, b.len, ACCEPT);
	tally_ok(&tl, "%zu names and %zu events (%zu KiB)", n, n, b.len >> 10);
	free(b.p);
}

/*
 * Names and argument names may hold any byte: the JSON escapes them (and
 * replaces bytes that are not UTF-8 with U+FFFD), the text shows them
 * with \xNN escapes.
 */
static struct buf any;

static void any_bytes(void)
{
	/* A string and its length, which may count NULs. */
#define S(s)	s, sizeof(s) - 1
	static const struct {
		const char *name;
		size_t nl;
		const char *args;
		size_t al;
		const char *json, *text;	/* in the output */
	} cases[] = {
		{ S("q\"b\\s_start"), S("a\"1, b\\2"),
		  "\"name\": \"q\\\"b\\\\s\", \"cat\": \"ulsm\", \"ph\": \"B\"",
		  " q\"b\\\\s_start a\"1=" },
		{ S("c\x01\x1b[1m\n\t\x7f_end"), S("\x01, \n"),
		  "\"name\": \"c\\u0001\\u001b[1m\\u000a\\u0009\x7f_end\", "
		  "\"cat\": \"ulsm\", \"ph\": \"i\"",
		  " c\\x01\\x1b[1m\\x0a\\x09\\x7f_end \\x01=" },
		{ S("u\xff\xc0\x80\xed\xa0\x80\xe2\x82"), S("\xfe"),
		  "\"name\": \"u\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
		  "\\ufffd\\ufffd\", \"cat\"",
		  " u\\xff\\xc0\\x80\\xed\\xa0\\x80\\xe2\\x82 \\xfe=" },
		{ S("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
		  S("\xc3\xa9"),
		  "\"name\": \"\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"",
		  " \xc3\xa9t\xc3\xa9\\x20\xe2\x82\xac\\x20\xf0\x9f\x98\x80 "
		  "\xc3\xa9=" },
		{ S("nu\0l"), S("a\0b"),
		  "\"name\": \"nu\\u0000l\"", " nu\\x00l a\\x00b=" },
		{ S(""), S(""), "\"name\": \"\", \"cat\"", " \"\" arg=" },
		/* It closes the first one's slice: the stem, escaped. */
		{ S("q\"b\\s_end"), S("z"),
		  "\"name\": \"q\\\"b\\\\s\", \"cat\": \"ulsm\", \"ph\": \"E\"",
		  " q\"b\\\\s_end z=0" },
		{ S("e_begin"), S(",, z"),
		  "\"name\": \"e_begin\", \"cat\": \"ulsm\", \"ph\": \"i\"",
		  " e_begin arg=0 arg=1 z=2" },
	};
#undef S
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	struct tname nm[N];
	struct tevent ev[N];
	struct tring ring = { 5, N, ev };
	struct tally tl = { 0 };
	struct buf b = { 0 };
	struct run r;
	int missing = 0;

	for (size_t i = 0; i < N; i++) {
		nm[i] = (struct tname){ (uint32_t)i + 1, 1, cases[i].name,
					cases[i].args, cases[i].nl,
					cases[i].al };
		ev[i] = (struct tevent){ 10 + i, (uint32_t)i + 1,
					 i == N - 1 ? 3 : 1, { 0, 1, 2 } };
	}
	build(&b, nm, N, &ring, 1);
	try_file(&tl, "names with any bytes", b.p, b.len, ACCEPT);
	tally_ok(&tl, "names with quotes, backslashes, controls, NULs, "
		 "invalid and valid UTF-8, empty");
	for (int m = 0; m < 2; m++) {
		bool json = m == 1;

		if (!output_of(b.p, b.len, json ? "--json" : "--text", &r)) {
			missing += N;
		} else {
			for (size_t i = 0; i < N; i++) {
				const char *want = json ? cases[i].json :
							  cases[i].text;

				if (memmem(r.out, r.outlen, want, strlen(want)))
					continue;
				diag("  %s: no %s", json ? "JSON" : "text", want);
				missing++;
			}
			if (missing)
				show("got", r.out, r.outlen);
		}
		free(r.out);
		free(r.err);
	}
	ok(!missing, "each escaped as it should be, in the JSON and the text");
	any = b;
}

/* --- version 2 --------------------------------------------------------- */

/*
 * A small valid version 2 file: two threads (one of another pid, one
 * renamed), a slice on one thread, an end with no start on the other, an
 * event of an unknown id with a lost string and a cut one, a NULL string,
 * a lost count; its counts and lengths noted.
 */
static const char small2_text[] =
	"# pid 4242 small\n"
	"# thread 10 main-2: 3 events, 0 lost\n"
	"# thread 11 worker\\x201: 2 events, 5 lost (pid 4243)\n"
	"0.000000000 10 a_start x=3 s=\"hi \\\"q\\\"\\\\\"\n"
	"0.000000010 10 b m=NULL\n"
	"0.000000020 11 unknown arg=1 arg=2 arg=(lost) arg=4 arg=\"cut\"... "
	"arg=6\n"
	"0.000000050 11 (lost) events=5\n"
	"0.000000050 11 a_end x=3\n"
	"0.000000060 10 a_end x=3\n";
static const char small2_json[] =
	"{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"
	" {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 4242, \"tid\": "
	"4242, \"args\": {\"name\": \"small\"}},\n"
	" {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 4243, \"tid\": "
	"4243, \"args\": {\"name\": \"small\"}},\n"
	" {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 4242, \"tid\": 10, "
	"\"args\": {\"name\": \"main-2\"}},\n"
	" {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 4243, \"tid\": 11, "
	"\"args\": {\"name\": \"worker 1\"}},\n"
	" {\"name\": \"a\", \"cat\": \"ulsm\", \"ph\": \"B\", \"ts\": 0.000, "
	"\"pid\": 4242, \"tid\": 10, \"args\": {\"x\": 3, \"s\": \"hi \\\"q\\\"\\\\\"}},\n"
	" {\"name\": \"b\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.010, "
	"\"pid\": 4242, \"tid\": 10, \"s\": \"t\", \"args\": {\"m\": null}},\n"
	" {\"name\": \"unknown\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.020, "
	"\"pid\": 4243, \"tid\": 11, \"s\": \"t\", \"args\": {\"arg0\": 1, "
	"\"arg1\": 2, \"arg2\": \"(lost)\", \"arg3\": 4, \"arg4\": "
	"\"cut\xe2\x80\xa6\", \"arg5\": 6}},\n"
	" {\"name\": \"lost events\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": "
	"0.050, \"pid\": 4243, \"tid\": 11, \"s\": \"t\", \"args\": {\"count\": "
	"5}},\n"
	" {\"name\": \"a_end\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.050, "
	"\"pid\": 4243, \"tid\": 11, \"s\": \"t\", \"args\": {\"x\": 3}},\n"
	" {\"name\": \"a\", \"cat\": \"ulsm\", \"ph\": \"E\", \"ts\": 0.060, "
	"\"pid\": 4242, \"tid\": 10, \"args\": {\"x\": 3, \"s\": \"hi \\\"q\\\"\\\\\"}}\n"
	"]}\n";

static void small2_file(struct buf *b)
{
	static const struct tname nm[] = {
		{ 1, 2, "a_start", "x, s", 7, 4 },
		{ 2, 1, "a_end", "x", 5, 1 },
		{ 3, 1, "b", "m", 1, 1 },
	};
	static const struct t2thread th[] = {
		{ 10, 4242, "main", 4 }, { 11, 4243, "worker 1", 8 },
		{ 10, 4242, "main-2", 6 },
	};
	static const struct t2event e10[] = {
		{ 1000, 1, 2, 2, { 3 }, { NULL, "hi \"q\"\\" } },
		{ 1010, 3, 1, 1, { T2_STR_NULL } },
	};
	static const struct t2event e11[] = {
		{ 1050, 2, 1, 0, { 3 } },
		{ 1020, 9, 6, 0x14, { 1, 2, T2_STR_LOST, 4, T2_STR_CUT, 6 },
		  { NULL, NULL, "", NULL, "cut" } },
	};
	static const struct t2event e10b[] = { { 1060, 2, 1, 0, { 3 } } };
	static const struct t2part pt[] = {
		{ 10, 2, e10, 0, false }, { 11, 0, NULL, 5, true },
		{ 11, 2, e11, 0, false }, { 10, 1, e10b, 0, false },
	};

	NOTED(build2(b, nm, 3, th, 3, pt, 4));
}

/* Version 2: cut at each length, and each field made huge. */
static void truncated2(void)
{
	/* Huge, one past a limit (a record, a name, a string, words), 0. */
	static const uint32_t v32[] = { 0xffffffff, 65529, 4097, 7, 0 };
	static const uint64_t v64[] = {
		UINT64_MAX, (1ull << 32) | 3, 0x7000 | 3, 257, 0,
	};
	struct buf b = { 0 };
	struct tally cut = { 0 }, huge = { 0 };

	small2_file(&b);
	cut_each(&cut, "v2 ", &b);
	tally_ok(&cut, "a small version 2 file cut at each of its lengths");
	huge_fields(&huge, "v2: ", &b, v32, ARRAY_N(v32), v64, ARRAY_N(v64));
	tally_ok(&huge, "each of the %zu types, lengths, counts, ids and "
		 "string words of a small version 2 file made huge or odd",
		 nfields);
	free(b.p);
}

/*
 * Version 2 files that break one rule each. Where the one they break
 * starts: the header (20 bytes and "small"); then a name record of 8, 16,
 * "one" and "x, s", a thread record of 8, 12 and "t", the events record.
 */
#define HEADER2		(20 + 5)
#define EV_AT		(HEADER2 + 8 + 16 + 3 + 4 + 8 + 12 + 1)

static void rules2(void)
{
	static char big[70000];
	static const struct tname nm[] = { { 1, 2, "one", "x, s", 3, 4 } };
	struct t2thread th = { 7, 1, "t", 1 };
	struct t2event ev[2] = {
		{ 5, 1, 2, 2, { 1 }, { NULL, "str" } }, { 6, 1, 1, 0, { 2 } },
	};
	struct t2part pt = { 7, 2, ev, 0, false };
	struct t2part lost = { 7, 0, NULL, 3, true };
	struct tally tl = { 0 };
	struct buf b = { 0 };
	char s257[258];
	uint32_t u;

	memset(big, 'n', sizeof(big));
	memset(s257, 's', 257);
	s257[257] = 0;
	build2(&b, nm, 1, &th, 1, &pt, 1);
	try_file(&tl, "v2: the file the others break", b.p, b.len, ACCEPT);
	/* The end: missing, twice, with a body, something after it. */
	b.len -= 8;
	try_file(&tl, "v2: no end record", b.p, b.len, REFUSE);
	put_rec(&b, 5, 0);
	put_rec(&b, 5, 0);
	try_file(&tl, "v2: two end records", b.p, b.len, REFUSE);
	b.len -= 8;
	put(&b, "x", 1);
	try_file(&tl, "v2: a byte after the end", b.p, b.len, REFUSE);
	b.len -= 9;
	put_rec(&b, 5, 4);
	put_u32(&b, 0, false);
	try_file(&tl, "v2: an end record with a body", b.p, b.len, REFUSE);
	/* Records of no type, and too long. */
	for (u = 0; u < 8; u += 6) {
		build2(&b, nm, 1, &th, 1, &pt, 1);
		b.len -= 8;
		put_rec(&b, u, 0);
		put_rec(&b, 5, 0);
		try_file(&tl, "v2: a record of type 0 or 6", b.p, b.len, REFUSE);
	}
	build2(&b, nm, 1, &th, 1, &pt, 1);
	b.len -= 8;
	put_rec(&b, 1, 65536 - 8 + 1);
	put(&b, big, 65529);
	put_rec(&b, 5, 0);
	try_file(&tl, "v2: a record over 64 KiB, its bytes there", b.p, b.len,
		 REFUSE);
	/* Events and lost counts of a thread no record named. */
	build2(&b, nm, 1, NULL, 0, &pt, 1);
	try_file(&tl, "v2: events before their thread's record", b.p, b.len,
		 REFUSE);
	build2(&b, nm, 1, NULL, 0, &lost, 1);
	try_file(&tl, "v2: a lost count before its thread's record", b.p,
		 b.len, REFUSE);
	build2(&b, nm, 1, &th, 1, &lost, 1);
	try_file(&tl, "v2: a lost count after it", b.p, b.len, ACCEPT);
	/* Strings: too long, a flag that is none, a NULL with bytes. */
	ev[0].s[1] = s257;
	build2(&b, nm, 1, &th, 1, &pt, 1);
	try_file(&tl, "v2: a string of 257 bytes", b.p, b.len, REFUSE);
	ev[0].s[1] = "str";
	{
		static const uint64_t bad_words[] = {
			1u << 15, T2_STR_NULL | T2_STR_LOST,
			T2_STR_NULL | T2_STR_CUT, 1ull << 40,
		};

		for (size_t i = 0; i < 4; i++) {
			ev[0].w[1] = bad_words[i];
			build2(&b, nm, 1, &th, 1, &pt, 1);
			try_file(&tl, "v2: a string word of unknown flags", b.p,
				 b.len, REFUSE);
		}
		ev[0].w[1] = 0;
	}
	/* A NULL's word that claims bytes (they are there). */
	build2(&b, nm, 1, &th, 1, &pt, 1);
	{
		uint64_t w = T2_STR_NULL | 3;

		/* The string's word: after the event's ns, id, info, word 0. */
		memcpy(b.p + EV_AT + 16 + 16 + 8, &w, 8);
		try_file(&tl, "v2: a NULL string with 3 bytes", b.p, b.len,
			 REFUSE);
	}
	/* Strings among words that are not there; more words than six. */
	ev[0].strs = 4;
	build2(&b, nm, 1, &th, 1, &pt, 1);
	try_file(&tl, "v2: string word 2 of an event of 2 words", b.p, b.len,
		 REFUSE);
	ev[0].strs = 2;
	ev[1].n = 7;
	build2(&b, nm, 1, &th, 1, &pt, 1);
	try_file(&tl, "v2: an event of 7 words", b.p, b.len, REFUSE);
	ev[1].n = 1;
	/* Counts that disagree with the bytes: 2 announced, 1 there; 1, 2. */
	for (uint32_t there = 1; there <= 2; there++) {
		uint32_t announced = 3 - there;
		char what[64];

		pt.nev = there;
		build2(&b, nm, 1, &th, 1, &pt, 1);
		memcpy(b.p + EV_AT + 12, &announced, 4);
		snprintf(what, sizeof(what), "v2: %u event%s announced, %u "
			 "there", announced, announced > 1 ? "s" : "", there);
		try_file(&tl, what, b.p, b.len, REFUSE);
	}
	/* Names: too long, twice, a record of the wrong size. */
	{
		struct tname two[2] = { nm[0], { 2, 1, big, "x", 4097, 1 } };
		struct t2thread long_name = { 7, 1, big, 4097 };

		build2(&b, two, 2, &th, 1, &pt, 1);
		try_file(&tl, "v2: a name over 4096 bytes", b.p, b.len, REFUSE);
		two[1] = (struct tname){ 1, 1, "again", "x", 5, 1 };
		build2(&b, two, 2, &th, 1, &pt, 1);
		try_file(&tl, "v2: an id named twice", b.p, b.len, REFUSE);
		build2(&b, nm, 1, &long_name, 1, &pt, 1);
		try_file(&tl, "v2: a thread name over 4096 bytes", b.p, b.len,
			 REFUSE);
		build2(&b, nm, 1, &th, 1, &pt, 1);
		u = 16 + 3 + 4 + 1;
		memcpy(b.p + HEADER2 + 4, &u, 4);
		try_file(&tl, "v2: a name record a byte too long", b.p, b.len,
			 REFUSE);
	}
	b.len = 0;
	put(&b, "ULSMTRC1", 8);
	put_u32(&b, 2, false);
	put_u32(&b, 1, false);
	put_u32(&b, 5000, false);
	put(&b, big, 5000);
	put_rec(&b, 5, 0);
	try_file(&tl, "v2: a command name over 4096 bytes", b.p, b.len, REFUSE);
	build2(&b, nm, 1, &th, 1, &pt, 1);
	u = 3;
	memcpy(b.p + 8, &u, 4);
	try_file(&tl, "version 3", b.p, b.len, REFUSE);
	tally_ok(&tl, "version 2 files that break a rule of the format");
	free(b.p);
}

/*
 * Many threads (the tool once would look each one up in a list), and
 * starts that never end, nested deep, then ends of another stem (each
 * would look down the whole stack).
 */
static void many2(long scale)
{
	/* At most 60,000: four JSON events each stay under TF_OUT_LIMIT. */
	size_t n = 20000 * (size_t)(scale < 1 ? 1 : scale > 3 ? 3 : scale);
	static const struct tname nm[] = {
		{ 1, 1, "a_start", "x", 7, 1 }, { 2, 1, "b_end", "x", 5, 1 },
	};
	struct t2event *ev;
	struct buf b = { 0 };
	struct tally tl = { 0 };

	if (slow)
		n /= emu_argc ? 10 : 4;
	ev = calloc(2 * n, sizeof(*ev));
	put_header2(&b, 1, "many", 4);
	for (size_t i = 0; i < 2; i++) {
		put_rec(&b, 1, 16 + nm[i].nl + nm[i].al);
		put_u32(&b, nm[i].id, false);
		put_u32(&b, 1, false);
		put_u32(&b, (uint32_t)nm[i].nl, false);
		put_u32(&b, 1, false);
		put(&b, nm[i].name, nm[i].nl);
		put(&b, "x", 1);
	}
	for (size_t i = 0; i < n; i++) {
		char name[16];
		int len = snprintf(name, sizeof(name), "t%zu", i);

		put_rec(&b, 2, 12 + (size_t)len);
		put_u32(&b, (uint32_t)i + 1, false);
		put_u32(&b, 1, false);
		put_u32(&b, (uint32_t)len, false);
		put(&b, name, (size_t)len);
	}
	/* One event on each thread. */
	for (size_t i = 0; i < n; i++) {
		ev[i] = (struct t2event){ n - i, 1, 1, 0, { i } };
		put_rec(&b, 3, 8 + event2_size(&ev[i]));
		put_u32(&b, (uint32_t)i + 1, false);
		put_u32(&b, 1, false);
		put_event2(&b, &ev[i]);
	}
	/* On thread 1: n starts, then n ends of another stem. */
	for (size_t i = 0; i < 2 * n; i += 2000) {
		size_t k = 2 * n - i < 2000 ? 2 * n - i : 2000;

		put_rec(&b, 3, 8 + k * (16 + 8));
		put_u32(&b, 1, false);
		put_u32(&b, (uint32_t)k, false);
		for (size_t j = i; j < i + k; j++) {
			ev[j] = (struct t2event){ n + j, j < n ? 1 : 2, 1, 0,
						  { j } };
			put_event2(&b, &ev[j]);
		}
	}
	put_rec(&b, 5, 0);
	try_file(&tl, "many threads, deep starts", b.p, b.len, ACCEPT);
	tally_ok(&tl, "%zu threads, %zu nested starts and %zu unmatched ends "
		 "(%zu KiB)", n, n, n, b.len >> 10);
	free(ev);
	free(b.p);
}

/* --- version 3: each parameter's type ----------------------------------- */

/*
 * Whether the reader takes @type (enum ulsm_tp_type): what the recorder
 * writes (include/ulsm/tracepoint.h), said here apart from the reader's
 * own check.
 */
static bool good_type(unsigned int type)
{
	unsigned int kind = type >> 4, size = type & 15;
	bool pow2 = size == 1 || size == 2 || size == 4 || size == 8;

	return (kind >= 1 && kind <= 6 && pow2) ||
	       (kind == 7 && (size == 4 || size == 8)) ||
	       (kind == 8 && !size) || (kind == 9 && size);
}

/*
 * A small valid version 3 file: a value of each kind, at the edge of its
 * width (-13 and 4294967283 from the same 32 bits), a float and a double,
 * a type of no kind of 3 bytes; an event of fewer words than its name's
 * parameters, one whose word is a string where its type says unsigned,
 * one of an unknown id; a lost count.
 */
static const char small3_text[] =
	"# pid 4242 small\n"
	"# thread 10 main: 3 events, 0 lost\n"
	"# thread 11 w: 3 events, 2 lost\n"
	"0.000000000 10 t_ints i=-13 u=4294967283 c=-1 b=true\n"
	"0.000000010 10 t_misc p=0xdeadbeef f=-1.5 d=0.25 s=\"x\" e=-7\n"
	"0.000000020 10 t_ints i=-2 u=7\n"
	"0.000000030 11 (lost) events=2\n"
	"0.000000030 11 t_other o=0xbbccdd\n"
	"0.000000040 11 t_ints i=5 u=\"s\" c=0 b=false\n"
	"0.000000050 11 unknown arg=-1\n";
static const char small3_json[] =
	"{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"
	" {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 4242, \"tid\": "
	"4242, \"args\": {\"name\": \"small\"}},\n"
	" {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 4242, \"tid\": 10, "
	"\"args\": {\"name\": \"main\"}},\n"
	" {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 4242, \"tid\": 11, "
	"\"args\": {\"name\": \"w\"}},\n"
	" {\"name\": \"t_ints\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.000, "
	"\"pid\": 4242, \"tid\": 10, \"s\": \"t\", \"args\": {\"i\": -13, \"u\": "
	"4294967283, \"c\": -1, \"b\": true}},\n"
	" {\"name\": \"t_misc\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.010, "
	"\"pid\": 4242, \"tid\": 10, \"s\": \"t\", \"args\": {\"p\": "
	"\"0xdeadbeef\", \"f\": -1.5, \"d\": 0.25, \"s\": \"x\", \"e\": -7}},\n"
	" {\"name\": \"t_ints\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.020, "
	"\"pid\": 4242, \"tid\": 10, \"s\": \"t\", \"args\": {\"i\": -2, \"u\": "
	"7}},\n"
	" {\"name\": \"lost events\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": "
	"0.030, \"pid\": 4242, \"tid\": 11, \"s\": \"t\", \"args\": {\"count\": "
	"2}},\n"
	" {\"name\": \"t_other\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.030, "
	"\"pid\": 4242, \"tid\": 11, \"s\": \"t\", \"args\": {\"o\": "
	"\"0xbbccdd\"}},\n"
	" {\"name\": \"t_ints\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.040, "
	"\"pid\": 4242, \"tid\": 11, \"s\": \"t\", \"args\": {\"i\": 5, \"u\": "
	"\"s\", \"c\": 0, \"b\": false}},\n"
	" {\"name\": \"unknown\", \"cat\": \"ulsm\", \"ph\": \"i\", \"ts\": 0.050, "
	"\"pid\": 4242, \"tid\": 11, \"s\": \"t\", \"args\": {\"arg0\": -1}}\n"
	"]}\n";

static void small3_file(struct buf *b)
{
	static const struct tname nm[] = {
		{ 1, 4, "t_ints", "i, u, c, b", 6, 10 },
		{ 2, 5, "t_misc", "p, f, d, s, e", 6, 13 },
		{ 3, 1, "t_other", "o", 7, 1 },
	};
	static const uint8_t types[][6] = {
		{ 0x14, 0x24, 0x11, 0x31 },
		{ 0x68, 0x74, 0x78, 0x80, 0x44 },
		{ 0x93 },
	};
	static const struct t2thread th[] = {
		{ 10, 4242, "main", 4 }, { 11, 4242, "w", 1 },
	};
	static const struct t2event e10[] = {
		{ 1000, 1, 4, 0, { 0xfffffff3, 0xfffffff3, 0xff, 1 } },
		{ 1010, 2, 5, 0x8, { 0xdeadbeef, 0xbfc00000,
				     0x3fd0000000000000ull, 0, 0xfffffff9 },
		  { NULL, NULL, NULL, "x" } },
		{ 1020, 1, 2, 0, { 0xfffffffe, 7 } },
	};
	static const struct t2event e11[] = {
		{ 1030, 3, 1, 0, { 0xaabbccdd } },
		{ 1040, 1, 4, 0x2, { 5, 0, 0, 0 }, { NULL, "s" } },
		{ 1050, 7, 1, 0, { UINT64_MAX } },
	};
	static const struct t2part pt[] = {
		{ 10, 3, e10, 0, false }, { 11, 0, NULL, 2, true },
		{ 11, 3, e11, 0, false },
	};

	NOTED(build3(b, nm, types, 3, th, 2, pt, 3));
}

/*
 * Version 3: cut at each length within its header and name records
 * (what version 3 adds: each parameter's type; its events are version
 * 2's, cut at each length above), and type bytes: every one the reader
 * takes, six to a tracepoint, and those it must refuse: each kind with
 * sizes 0, 3, 5, 9 and 15 and those of no kind, one file each (every
 * stride-th).
 */
static void types3(void)
{
	static const char names[] = "a, b, c, d, e, f";
	uint8_t types[64][6];
	struct tname nm[64];
	struct t2thread th = { 7, 1, "t", 1 };
	struct t2event ev[64];
	struct t2part pt = { 7, 0, ev, 0, false };
	struct buf b = { 0 };
	struct tally cut = { 0 }, good = { 0 }, bad = { 0 };
	size_t nn = 0, ngood = 0, nbad = 0;

	small3_file(&b);
	/* The header and the three name records: 150 bytes. */
	cut_upto(&cut, "v3 ", &b, 160);
	tally_ok(&cut, "a small version 3 file cut at each length within "
		 "its names and their types");
	for (unsigned int type = 0; type < 256; type++) {
		struct t2event *e;

		if (!good_type(type))
			continue;
		if (!nn || nm[nn - 1].nargs == 6) {
			nm[nn] = (struct tname){ (uint32_t)nn + 1, 0, "tp", names,
						 2, sizeof(names) - 1 };
			ev[nn] = (struct t2event){ 10 + nn, (uint32_t)nn + 1 };
			nn++;
		}
		e = &ev[nn - 1];
		types[nn - 1][e->n] = (uint8_t)type;
		/* A string's word: its length and flags, and its bytes. */
		if (type == 0x80) {
			e->strs |= 1u << e->n;
			e->s[e->n] = "str";
		} else {
			e->w[e->n] = 0x8000000000000080ull;
		}
		e->n++;
		nm[nn - 1].nargs++;
		ngood++;
	}
	pt.nev = nn;
	build3(&b, nm, (const uint8_t (*)[6])types, nn, &th, 1, &pt, 1);
	try_file(&good, "v3: every type", b.p, b.len, ACCEPT);
	tally_ok(&good, "the %zu types the recorder writes, in %zu "
		 "tracepoints", ngood, nn);
	for (unsigned int type = 0; type < 256; type++) {
		unsigned int size = type & 15;
		char label[64];

		if (good_type(type) || (type >> 4 && type >> 4 < 10 &&
					size != 0 && size != 3 && size != 5 &&
					size != 9 && size != 15) ||
		    type % stride != phase)
			continue;
		types[0][0] = (uint8_t)type;
		nm[0] = (struct tname){ 1, 1, "one", "x", 3, 1 };
		ev[0] = (struct t2event){ 5, 1, 1, 0, { 1 } };
		pt.nev = 1;
		build3(&b, nm, (const uint8_t (*)[6])types, 1, &th, 1, &pt, 1);
		snprintf(label, sizeof(label), "v3: a parameter of type 0x%02x",
			 type);
		nbad++;
		try_file(&bad, label, b.p, b.len, REFUSE);
	}
	tally_ok(&bad, "%zu type bytes that are no type, refused", nbad);
	free(b.p);
}

/*
 * babeltrace2 reads the CTF trace of each file of known content as
 * ulsm-trace --text reads the file, field by field
 * (tests/tools/ctf_compare.sh): the real recording, the small files of
 * each version (lost events, NULL, cut and lost strings, every kind of
 * type, events that disagree with their names), names of any bytes.
 */
static void ctf_agree(void)
{
	struct buf b[4] = { 0 };
	const struct buf *files[] = { &real, &b[0], &b[1], &b[2], &any };
	static const char *const what[] = {
		"the real recording", "the small file", "the small v2 file",
		"the small v3 file", "names of any bytes",
	};
	char cmd[3 * PATH_MAX];
	int bad = 0;

	if (!have_bt) {
		printf("ok %d # skip babeltrace2 is not installed\n",
		       ++tap_count);
		return;
	}
	small_file(&b[0]);
	small2_file(&b[1]);
	small3_file(&b[2]);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f = fopen(in_path, "wb");

		if (!f || fwrite(files[i]->p, 1, files[i]->len, f) !=
			  files[i]->len || fclose(f)) {
			diag("cannot write %s", in_path);
			exit(1);
		}
		snprintf(cmd, sizeof(cmd), "ulimit -v unlimited 2>/dev/null; "
			 "sh '%s' -q -t '%s' '%s' >'%s' 2>&1", TF_COMPARE, tool,
			 in_path, out_path);
		if (!system(cmd))
			continue;
		diag("  %s:", what[i]);
		{
			size_t len;
			char *out = slurp(out_path, &len);

			show("ctf_compare", out, len);
			free(out);
		}
		bad++;
	}
	ok(!bad, "babeltrace2 reads the CTF trace of the real recording, a "
	   "small file of each version and names of any bytes as the text "
	   "reads them, field by field");
	for (int i = 0; i < 3; i++)
		free(b[i].p);
}

/* After the caller's options: the last of each name wins. */
static void add_options(const char *var, const char *ours)
{
	const char *theirs = getenv(var);
	char v[1024];

	snprintf(v, sizeof(v), "%s%s%s", theirs ? theirs : "",
		 theirs && *theirs ? ":" : "", ours);
	setenv(var, v, 1);
}

static void setup(void)
{
	const char *emu = getenv("ULSM_EMU"), *t = getenv("ULSM_TRACE_TOOL");
	const char *tmp = getenv("TMPDIR");
	static char emu_copy[1024];
	char *save = NULL;

	if (t && *t)
		tool = t;
	if (access(tool, X_OK))
		skip_all("no ulsm-trace to test");
	if (emu && *emu) {
		snprintf(emu_copy, sizeof(emu_copy), "%s", emu);
		for (char *w = strtok_r(emu_copy, " ", &save); w && emu_argc < 15;
		     w = strtok_r(NULL, " ", &save))
			emu_argv[emu_argc++] = w;
	}
	slow = emu_argc || TF_SANITIZED;
	/*
	 * ulsm-trace has one thread: ThreadSanitizer has nothing to look
	 * at in it, and the native and ASan runs read the cases this skips.
	 */
	stride = emu_argc || TF_TSAN ? 16 : TF_SANITIZED ? 3 : 1;
	snprintf(dir, sizeof(dir), "%s/t_trace_fuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		diag("mkdtemp: %s", strerror(errno));
		exit(1);
	}
	snprintf(in_path, sizeof(in_path), "%s/in.bin", dir);
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	snprintf(err_path, sizeof(err_path), "%s/err", dir);
	snprintf(ctf_path, sizeof(ctf_path), "%s/ctf", dir);
	have_bt = !system("command -v babeltrace2 >/dev/null 2>&1");
	if (slow)
		bt_budget = 30;
	/*
	 * Without a sanitizer (which maps terabytes) or an emulator, what
	 * the tool may map: this program's limit, which it inherits; a
	 * file of a few KiB that makes it allocate more fails with "out of
	 * memory". SIGCHLD waits for run_tool_on.
	 */
	if (!TF_SANITIZED && !emu_argc) {
		struct rlimit rl;

		/* The soft limit: babeltrace2's runs lift it (ctf_judge). */
		if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_max > TF_AS_LIMIT) {
			rl.rlim_cur = TF_AS_LIMIT;
			setrlimit(RLIMIT_AS, &rl);
		}
	}
	{
		sigset_t chld;

		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, NULL);
	}
	/*
	 * The tool's sanitizers, if it has them: a report must not look like
	 * a refusal (ASan exits 1 by default); a huge allocation fails as
	 * malloc's NULL would, and says "out of memory".
	 */
	add_options("ASAN_OPTIONS", "exitcode=86:allocator_may_return_null=1:"
		    "max_allocation_size_mb=1024:detect_leaks=1");
	add_options("UBSAN_OPTIONS", "exitcode=86:print_stacktrace=1");
	add_options("TSAN_OPTIONS", "exitcode=86");
}

static void cleanup(void)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/real.bin", dir);
	unlink(p);
	unlink(in_path);
	unlink(out_path);
	unlink(err_path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	long scale = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			scale = strtol(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: t_trace_fuzz.t [--seed N] "
				"[--scale N]\n");
			return 2;
		}
	}
	setup();
	bt_budget *= scale < 1 ? 1 : scale;
	phase = seed % stride;
	if (scale > 1)
		stride = 1, phase = 0;
	diag("seed %" PRIu64 ", scale %ld (replay: t_trace_fuzz.t --seed %"
	     PRIu64 " --scale %ld); tool %s", seed, scale, seed, scale, tool);
	check_the_checker();
	real_recording();
	name_lengths();
	golden(small_file, "a small file", small_text, small_json);
	truncated();
	huge_counts();
	rules();
	many(scale);
	any_bytes();
	golden(small2_file, "a small version 2 file", small2_text,
	       small2_json);
	truncated2();
	rules2();
	many2(scale);
	golden(small3_file, "a small version 3 file", small3_text,
	       small3_json);
	types3();
	ctf_agree();
	cleanup();
	diag("%d runs of ulsm-trace, %ld of babeltrace2%s", runs, bt_runs,
	     have_bt ? "" : " (not installed)");
	return done_testing();
}
