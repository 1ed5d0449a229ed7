// SPDX-License-Identifier: MIT
/*
 * A request server whose checks are plug-ins: modules in shared objects
 * that it loads, unloads and reloads while its threads serve requests
 * (docs/hook-framework.md, "Modules that come and go").
 *
 *	host [--threads N] [--order ORDER] [--dir DIR] LISTFILE
 *	host --selftest [--threads N] [--cycles N] [--dir DIR] [-v]
 *
 * LISTFILE names the plug-ins, one file per line ('#' starts a comment);
 * a name without '/' is looked up in DIR, by default the directory of this
 * program. The host dlopen()s them, starts N workers (4) that serve
 * made-up requests, and reloads the list (closes every plug-in, then opens
 * the file's list again) on SIGHUP or when standard input says "reload";
 * "list" shows the modules, "quit" (or SIGINT, SIGTERM) ends.
 *
 * The order decides which modules come up, and where: ORDER, else
 * $ULSM_LSM, else "deny_admin,ratelimit,audit". A listed module comes up
 * in its place whenever its plug-in arrives; one that the order leaves
 * out stays off, and the host prints why. The built-in module "core"
 * (LSM_ORDER_FIRST) is always on, first. A plug-in mod_<name>.so defines
 * the module <name>: that is how the host names a module that is off.
 *
 * --selftest writes list files of its own and reloads them a few hundred
 * times while the workers check every answer; it exits 0 only if all
 * held (make check runs it). make demo-plugins runs it too.
 *
 * Build (the Makefile does the same against the tree):
 *	cc -I. host.c -o host $(pkg-config --cflags --libs ulsm) -rdynamic
 *	cc -I. -fPIC -shared mod_audit.c -o mod_audit.so \
 *		$(pkg-config --cflags --libs ulsm)
 * The set is defined here and the plug-ins refer to it: -rdynamic exports
 * it to them (CMake: ENABLE_EXPORTS).
 */
/* getline(), strdup() and friends, also with -std=c11 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/ulsm.h>

#define ULSM_LSM_DEFINE		/* this file holds the set */
#define ULSM_LSM_BUILTIN_ORDER	"deny_admin,ratelimit,audit"
#include "req.h"

#define MAX_PLUGINS	16
#define MAX_WORKERS	64
#define SELFTEST_ORDER	"deny_admin,ratelimit"	/* audit left out */

/* ---- the built-in module ---------------------------------------------- */

/* Requests served that core heard of, per thread: a worker checks each. */
static __thread unsigned long core_logged;

static int core_check(int id, const char *path)
{
	(void)id;
	return path[0] == '/' ? 0 : -EINVAL;	/* absolute paths only */
}

static void core_log(int id, const char *path)
{
	(void)id;
	(void)path;
	core_logged++;
}

static const struct lsm_id core_id = { .name = "core", .id = 1 };
static struct req_hook_list core_hooks[] = {
	LSM_HOOK_INIT(request_check, core_check),
	LSM_HOOK_INIT(request_log, core_log),
};

static int core_init(void)
{
	return security_add_hooks(core_hooks, 2, &core_id);
}

/* First, and on whatever order the operator gives: the server's own rule. */
DEFINE_LSM(core) = {
	.name = "core",
	.order = LSM_ORDER_FIRST,
	.init = core_init,
	.id = &core_id,
};

/* ---- what the answers must be ----------------------------------------- */

/*
 * The modules up, as the workers' checks read them: one code per module
 * in its place, 4 bits each, the first in the low bits (core, always
 * first, is left out). The host knows what the plug-ins of this
 * directory answer; it does not check answers once another came.
 */
enum { M_DENY_ADMIN = 1, M_RATELIMIT, M_AUDIT };

static int expect(unsigned int up, int id, const char *path)
{
	if (path[0] != '/')
		return -EINVAL;				/* core */
	for (; up; up >>= 4) {
		if ((up & 15) == M_DENY_ADMIN && !strncmp(path, "/admin/", 7))
			return -EPERM;
		if ((up & 15) == M_RATELIMIT && id >= 9000)
			return -EAGAIN;
	}
	return 0;
}

/* While the modules change: whatever some module gives is right. */
static bool possible(int rc, int id, const char *path)
{
	if (path[0] != '/')
		return rc == -EINVAL;
	return !rc || (rc == -EPERM && !strncmp(path, "/admin/", 7)) ||
	       (rc == -EAGAIN && id >= 9000);
}

static unsigned int module_code(const char *name)
{
	static const char *const known[] = {
		[M_DENY_ADMIN] = "deny_admin",
		[M_RATELIMIT] = "ratelimit",
		[M_AUDIT] = "audit",
	};

	for (unsigned int c = M_DENY_ADMIN; c <= M_AUDIT; c++)
		if (!strcmp(name, known[c]))
			return c;
	return 0;
}

/*
 * How the workers know which modules answered (a seqlock): reload_seq is
 * odd while the plug-ins change, and modules_up is valid while it is even.
 * Only the main thread writes them.
 */
static unsigned int reload_seq, modules_up;
static bool checks_off;			/* a module this host does not know */
static bool stopping;

/* ---- the workers ------------------------------------------------------ */

struct worker {
	pthread_t thread;
	unsigned int no;
	bool paced;
	/* the worker's counts, read by the main thread */
	unsigned long dispatches, refused, exact, wrong;
	unsigned int checked;	/* the reload_seq of its last exact check */
};

static struct worker workers[MAX_WORKERS];
static unsigned int nworkers = 4;

static const char *const paths[] = { "/index.html", "/admin/users",
				     "docs/notes" };

static void *serve(void *arg)
{
	struct worker *w = arg;
	unsigned long n = w->no * 1000003UL;

	while (!__atomic_load_n(&stopping, __ATOMIC_RELAXED)) {
		unsigned int seq = __atomic_load_n(&reload_seq,
						   __ATOMIC_ACQUIRE);
		unsigned int up = __atomic_load_n(&modules_up,
						  __ATOMIC_RELAXED);
		const char *path = paths[n % 3];
		int id = (int)(n * 7919 % 10000), rc, want;
		unsigned long logged = core_logged;
		bool unchecked, exact, ok;

		n++;
		rc = call_int_hook(request_check, id, path);
		if (!rc)
			call_void_hook(request_log, id, path);

		/*
		 * If no reload began or ended while the request ran, the
		 * modules of @up answered it, and exactly so; else any answer
		 * one of them gives is right. The fence orders the dispatch
		 * before the second look at reload_seq (and at checks_off).
		 */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		unchecked = __atomic_load_n(&checks_off, __ATOMIC_RELAXED);
		exact = !unchecked && !(seq & 1) &&
			__atomic_load_n(&reload_seq, __ATOMIC_RELAXED) == seq;
		want = expect(up, id, path);
		if (exact)
			ok = rc == want;
		else
			ok = unchecked || possible(rc, id, path);
		/* core is always on: it hears of each request served, once. */
		ok = ok && core_logged == logged + !rc;

		__atomic_store_n(&w->dispatches, w->dispatches + 1,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&w->refused, w->refused + !!rc,
				 __ATOMIC_RELAXED);
		if (exact) {
			__atomic_store_n(&w->exact, w->exact + 1,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&w->checked, seq, __ATOMIC_RELEASE);
		}
		if (!ok) {
			if (w->wrong < 5 && exact)
				printf("worker %u: WRONG: request %d %s: %d, "
				       "expected %d\n", w->no, id, path, rc,
				       want);
			else if (w->wrong < 5)
				printf("worker %u: WRONG: request %d %s: %d, "
				       "which no module gives\n", w->no, id,
				       path, rc);
			__atomic_store_n(&w->wrong, w->wrong + 1,
					 __ATOMIC_RELAXED);
		}
		if (w->paced)	/* a request a millisecond: a quiet server */
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return NULL;
}

/* The workers' counts, added up while they run. */
static struct worker totals(void)
{
	struct worker s = { 0 };

	for (unsigned int i = 0; i < nworkers; i++) {
		struct worker *w = &workers[i];

		s.dispatches += __atomic_load_n(&w->dispatches,
						__ATOMIC_RELAXED);
		s.refused += __atomic_load_n(&w->refused, __ATOMIC_RELAXED);
		s.exact += __atomic_load_n(&w->exact, __ATOMIC_RELAXED);
		s.wrong += __atomic_load_n(&w->wrong, __ATOMIC_RELAXED);
	}
	return s;
}

/* ---- plug-ins --------------------------------------------------------- */

struct plugin {
	char *file;		/* as the list names it */
	void *handle;		/* NULL: dlopen() failed, and said why */
};

static struct plugin plugins[MAX_PLUGINS];
static int nplugins;
static const char *list_file;
static char plugin_dir[PATH_MAX];
static unsigned int reloads;
static bool verbose;

/* mod_<name>.so defines the module <name>. */
static void module_of(const char *file, char *name, size_t size)
{
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	size_t len;

	if (!strncmp(base, "mod_", 4))
		base += 4;
	len = strlen(base);
	if (len > 3 && !strcmp(base + len - 3, ".so"))
		len -= 3;
	snprintf(name, size, "%.*s", (int)len, base);
}

/* The list file's names: one a line, '#' to the end of a line a comment. */
static int read_list(char **names)
{
	FILE *f = fopen(list_file, "r");
	char *line = NULL;
	size_t size = 0;
	int n = 0;

	if (!f) {
		int err = errno;

		printf("%s: %s: the plug-ins stay as they are\n", list_file,
		       strerror(err));
		return -err;
	}
	while (getline(&line, &size, f) >= 0) {
		char *s = line, *e;

		s[strcspn(s, "#\r\n")] = '\0';
		s += strspn(s, " \t");
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*s)
			continue;
		if (n == MAX_PLUGINS) {
			printf("%s: more than %d plug-ins: %s and those after "
			       "it ignored\n", list_file, MAX_PLUGINS, s);
			break;
		}
		names[n] = strdup(s);
		if (names[n])
			n++;
	}
	free(line);
	fclose(f);
	return n;
}

/* A name without '/' is in plugin_dir. */
static void *open_plugin(const char *name, int flags)
{
	char path[PATH_MAX];
	int len = strchr(name, '/') ?
		  snprintf(path, sizeof(path), "%s", name) :
		  snprintf(path, sizeof(path), "%s/%s", plugin_dir, name);

	if (len < 0 || (size_t)len >= sizeof(path)) {
		printf("%s: path too long\n", name);
		return NULL;
	}
	return dlopen(path, flags);
}

/* Each module comes up in its place from its object's constructor. */
static void load_all(char **names, int n)
{
	for (int i = 0; i < n; i++) {
		struct plugin *p = &plugins[nplugins++];
		const char *err;

		p->file = names[i];
		/*
		 * RTLD_NOW: a plug-in built with other settings than the set's
		 * (or a host linked without -rdynamic) fails here, dlerror()
		 * naming the setting. And no symbol is bound lazily in a
		 * callback later: that may take the dynamic linker's lock,
		 * which dlclose() of another plug-in holds while it waits
		 * for the threads in its callbacks.
		 */
		p->handle = open_plugin(names[i], RTLD_NOW);
		if (!p->handle && (err = dlerror()))
			printf("%s\n", err);
	}
}

/*
 * Newest first. Each module leaves from its object's destructor: its
 * slots go off, then dlclose() waits until no thread is inside it.
 */
static void unload_all(void)
{
	while (nplugins > 0) {
		struct plugin *p = &plugins[--nplugins];

		if (p->handle && dlclose(p->handle))
			printf("%s: %s\n", p->file, dlerror());
		free(p->file);
	}
}

/* What the workers' checks read: see expect(). */
static unsigned int modules_up_now(void)
{
	char *list = strdup(ulsm_lsm_list(&req_hook_set)), *tok, *save;
	unsigned int up = 0, shift = 0, code;

	for (tok = list ? strtok_r(list, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "core"))
			continue;
		code = module_code(tok);
		if (!code || shift == 32) {
			__atomic_store_n(&checks_off, true, __ATOMIC_RELAXED);
			break;
		}
		up |= code << shift;
		shift += 4;
	}
	free(list);
	return up;
}

/* The modules in their order, and why each plug-in's module that is off is. */
static void report(void)
{
	printf("modules: %s\n", ulsm_lsm_list(&req_hook_set));
	for (int i = 0; i < nplugins; i++) {
		const char *file = plugins[i].file, *why;
		char name[NAME_MAX + 1];

		if (!plugins[i].handle)
			continue;
		module_of(file, name, sizeof(name));
		switch (ulsm_lsm_module_active(&req_hook_set, name)) {
		case 1:
			break;
		case 0:
			why = ulsm_lsm_module_reason(&req_hook_set, name);
			printf("  %s: module %s is off: %s\n", file, name,
			       why ? why : "(no reason kept)");
			break;
		default:
			printf("  %s: defines no module %s\n", file, name);
		}
	}
}

/*
 * Close every plug-in, then open the list's, while the workers dispatch.
 * The list is read first: a file that cannot be read changes nothing.
 * In between, the plug-ins' checks are absent: a server that must not
 * serve one request without them would open the new list before closing
 * the old (a plug-in in both then stays, not reloaded from its file), or
 * hold its requests during the reload.
 */
static int reload(bool print)
{
	char *names[MAX_PLUGINS], name[NAME_MAX + 1];
	int n = read_list(names);

	if (n < 0)
		return n;
	/* Checks stop before a module the host does not know can answer. */
	for (int i = 0; i < n; i++) {
		module_of(names[i], name, sizeof(name));
		if (!module_code(name) && !checks_off) {
			printf("%s: not one of this directory's plug-ins: "
			       "answers are not checked from now on\n",
			       names[i]);
			__atomic_store_n(&checks_off, true, __ATOMIC_RELAXED);
		}
	}
	/*
	 * reload_seq odd: until it is even again, the workers check answers
	 * loosely. The fence orders it before the first change of a slot.
	 */
	__atomic_store_n(&reload_seq, reload_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	unload_all();
	load_all(names, n);
	__atomic_store_n(&modules_up, modules_up_now(), __ATOMIC_RELAXED);
	__atomic_store_n(&reload_seq, reload_seq + 1, __ATOMIC_RELEASE);
	reloads++;
	if (print)
		report();
	return 0;
}

/* ---- commands --------------------------------------------------------- */

enum command { CMD_NONE, CMD_RELOAD, CMD_LIST, CMD_QUIT };

static int sigfd = -1;
static bool stdin_open;
static char inbuf[256];
static size_t inlen;

static enum command parse(const char *line)
{
	if (!strcmp(line, "reload"))
		return CMD_RELOAD;
	if (!strcmp(line, "list"))
		return CMD_LIST;
	if (!strcmp(line, "quit"))
		return CMD_QUIT;
	if (*line)
		printf("commands: reload, list, quit\n");
	return CMD_NONE;
}

/* One complete line of what standard input gave so far, if any. */
static bool take_line(char *line, size_t size)
{
	char *nl = memchr(inbuf, '\n', inlen);
	size_t len = nl ? (size_t)(nl - inbuf) : 0;

	if (!nl)
		return false;
	snprintf(line, size, "%.*s", (int)len, inbuf);
	inlen -= len + 1;
	memmove(inbuf, nl + 1, inlen);
	return true;
}

/*
 * The next command: a line on standard input, or a signal, both through
 * poll(). The signals are blocked in every thread and read from a
 * signalfd, so none interrupts a thread, and the library is called here,
 * never from a signal handler. Standard input is read with read(): stdio
 * would keep lines in its buffer, where poll() does not see them.
 */
static enum command next_command(void)
{
	char line[sizeof(inbuf)];

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = sigfd, .events = POLLIN },
			{ .fd = stdin_open ? 0 : -1, .events = POLLIN },
		};
		struct signalfd_siginfo si;
		enum command cmd;
		ssize_t n;

		while (take_line(line, sizeof(line)))
			if ((cmd = parse(line)) != CMD_NONE)
				return cmd;
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			return CMD_QUIT;
		}
		if ((pfd[0].revents & POLLIN) &&
		    read(sigfd, &si, sizeof(si)) == sizeof(si))
			return si.ssi_signo == SIGHUP ? CMD_RELOAD : CMD_QUIT;
		if (!(pfd[1].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(STDIN_FILENO, inbuf + inlen, sizeof(inbuf) - inlen);
		if (n <= 0) {
			stdin_open = false;
			printf("standard input closed: SIGHUP reloads, SIGTERM "
			       "quits\n");
			continue;
		}
		inlen += (size_t)n;
		if (inlen == sizeof(inbuf) && !memchr(inbuf, '\n', inlen)) {
			printf("line too long: dropped\n");
			inlen = 0;
		}
	}
}

static void show(void)
{
	struct worker s = totals();

	report();
	for (int i = 0; i < nplugins; i++)
		printf("  listed: %s%s\n", plugins[i].file,
		       plugins[i].handle ? "" : " (did not load)");
	printf("  %lu requests, %lu refused, %lu wrong answers\n",
	       s.dispatches, s.refused, s.wrong);
}

static void serve_commands(void)
{
	printf("%u workers serve requests; commands: reload, list, quit "
	       "(SIGHUP reloads %s, SIGTERM quits)\n", nworkers, list_file);
	for (;;) {
		switch (next_command()) {
		case CMD_RELOAD:
			reload(true);
			break;
		case CMD_LIST:
			show();
			break;
		case CMD_QUIT:
			return;
		case CMD_NONE:
			break;
		}
	}
}

/* ---- the selftest ----------------------------------------------------- */

/*
 * The lists it writes in turn, with the order "deny_admin,ratelimit":
 * ratelimit alone; then ratelimit dropped, deny_admin added, and audit,
 * which the order leaves out, refused; then both, arriving in the other
 * order than their places.
 */
static const char *const test_lists[][2] = {
	{ "mod_ratelimit.so" },
	{ "mod_deny_admin.so", "mod_audit.so" },
	{ "mod_ratelimit.so", "mod_deny_admin.so" },
};

static unsigned int failed;
static bool quiet, unloads = true;

static void __attribute__((format(printf, 2, 3)))
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	failed += !ok;
	if (ok && quiet)
		return;
	printf("%s: ", ok ? "ok" : "FAILED");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static bool write_list(const char *const *names, unsigned int cycle)
{
	FILE *f = fopen(list_file, "w");

	if (!f)
		return false;
	fprintf(f, "# host --selftest, cycle %u\n\n", cycle);
	for (int i = 0; i < 2 && names[i]; i++)
		fprintf(f, "%s\t# plug-in %d\n", names[i], i + 1);
	return !fclose(f);
}

static bool names_module(const char *const *names, const char *module)
{
	char name[NAME_MAX + 1];

	for (int i = 0; i < 2 && names[i]; i++) {
		module_of(names[i], name, sizeof(name));
		if (!strcmp(name, module))
			return true;
	}
	return false;
}

/*
 * Whether dlclose() unloads: glibc's does; musl's never does, so there a
 * plug-in once loaded stays, and its module with it.
 */
static bool dlclose_unloads(const char *file)
{
	void *h = open_plugin(file, RTLD_NOW);

	if (h)
		dlclose(h);
	h = open_plugin(file, RTLD_NOW | RTLD_NOLOAD);
	if (h)
		dlclose(h);
	return !h;
}

/* Until each worker has had an answer checked against the modules now up. */
static bool wait_checked(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0; i < nworkers; i++)
		while (__atomic_load_n(&workers[i].checked,
				       __ATOMIC_ACQUIRE) != reload_seq) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 20)
				return false;
			nanosleep(&(struct timespec){ 0, 50000 }, NULL);
		}
	return true;
}

static void selftest(unsigned int cycles)
{
	static const char *const order[] = { "deny_admin", "ratelimit" };
	bool ever[2] = { false, false };
	const char *tmp = getenv("TMPDIR");
	static char file[PATH_MAX];
	int fd;

	snprintf(file, sizeof(file), "%s/ulsm-host-XXXXXX", tmp ? tmp : "/tmp");
	fd = mkstemp(file);
	check(fd >= 0, "list file %s", file);
	if (fd < 0)
		return;
	close(fd);
	list_file = file;
	unloads = dlclose_unloads("mod_audit.so");
	if (!unloads)
		printf("dlclose() does not unload here (musl): a plug-in "
		       "once loaded stays, and its module with it\n");

	for (unsigned int c = 0; c < cycles; c++) {
		const char *const *names = test_lists[c % 3];
		char want[64] = "core";
		const char *why;

		quiet = c >= 3 && !verbose;
		if (c == 3 && quiet)
			printf("-- %u more reloads while the workers dispatch "
			       "(-v shows each)\n", cycles - 3);
		if (!write_list(names, c)) {
			check(false, "writing %s", list_file);
			break;
		}
		if (c == 1) {	/* the reload a signal asks for */
			kill(getpid(), SIGHUP);
			check(next_command() == CMD_RELOAD, "SIGHUP: reload");
		}
		if (!quiet)
			printf("-- reload %u: %s%s%s\n", c + 1, names[0],
			       names[1] ? ", " : "", names[1] ? names[1] : "");
		if (reload(!quiet)) {
			check(false, "reading %s", list_file);
			break;
		}

		/* What each list brings up: the listed, in their places. */
		for (int i = 0; i < 2; i++) {
			bool listed = names_module(names, order[i]);

			ever[i] |= listed;
			if (listed || (!unloads && ever[i]))
				snprintf(want + strlen(want),
					 sizeof(want) - strlen(want), ",%s",
					 order[i]);
		}
		check(!strcmp(ulsm_lsm_list(&req_hook_set), want),
		      "modules %s, each in its place", want);
		if (names_module(names, "audit")) {
			why = ulsm_lsm_module_reason(&req_hook_set, "audit");
			check(why && strstr(why, "not listed"),
			      "audit is off and says why: %s", why ? why : "-");
		}
		check(wait_checked(), "every worker checked an answer "
		      "against these modules");
		if (failed || totals().wrong)
			break;
	}
	quiet = false;
	unlink(list_file);
}

/* ---- main ------------------------------------------------------------- */

/* The library's messages go where the server's go: standard output. */
static void host_log(const char *msg, void *arg)
{
	(void)arg;
	printf("[ulsm] %s\n", msg);
}

static int usage(void)
{
	fprintf(stderr, "usage: host [--threads N] [--order ORDER] [--dir DIR] "
		"LISTFILE\n       host --selftest [--threads N] [--cycles N] "
		"[--dir DIR] [-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *order = NULL, *dir = NULL;
	unsigned long cycles = 300;
	bool test = false;
	struct worker s;
	sigset_t sigs;
	int err;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--selftest"))
			test = true;
		else if (!strcmp(a, "-v"))
			verbose = true;
		else if (!strcmp(a, "--threads") && v && i++)
			nworkers = (unsigned int)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--cycles") && v && i++)
			cycles = strtoul(v, NULL, 10);
		else if (!strcmp(a, "--order") && v && i++)
			order = v;
		else if (!strcmp(a, "--dir") && v && i++)
			dir = v;
		else if (a[0] != '-' && !list_file)
			list_file = a;
		else
			return usage();
	}
	if (test == !!list_file || !nworkers || nworkers > MAX_WORKERS)
		return usage();
	if (dir)
		snprintf(plugin_dir, sizeof(plugin_dir), "%s", dir);
	else if (strrchr(argv[0], '/'))
		snprintf(plugin_dir, sizeof(plugin_dir), "%.*s",
			 (int)(strrchr(argv[0], '/') - argv[0]), argv[0]);
	else
		snprintf(plugin_dir, sizeof(plugin_dir), ".");
	setvbuf(stdout, NULL, _IOLBF, 0);
	ulsm_set_log(host_log, NULL);

	/* Not sealed: a sealed set refuses modules that arrive later. */
	err = ulsm_lsm_init(&req_hook_set, test ? SELFTEST_ORDER : order);
	if (err) {
		printf("ulsm_lsm_init: %s (%s)\n", strerror(-err),
		       ulsm_last_error());
		return 1;
	}
	if (ulsm_lsm_module_active(&req_hook_set, "core") != 1) {
		const char *why = ulsm_lsm_module_reason(&req_hook_set, "core");

		printf("core is off (%s): the server does not run without it\n",
		       why ? why : "?");
		return 1;
	}

	/* Blocked before the workers start, so that they inherit the mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sigfd < 0) {
		perror("signalfd");
		return 1;
	}
	stdin_open = !test;

	for (unsigned int i = 0; i < nworkers; i++) {
		workers[i].no = i;
		workers[i].paced = !test;
		err = pthread_create(&workers[i].thread, NULL, serve,
				     &workers[i]);
		if (err) {
			printf("pthread_create: %s\n", strerror(err));
			nworkers = i;
			failed++;
			break;
		}
	}

	if (!failed) {
		if (test)
			selftest((unsigned int)cycles);
		else if (reload(true))
			failed++;	/* no list to start with */
		else
			serve_commands();
	}

	__atomic_store_n(&stopping, true, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < nworkers; i++)
		pthread_join(workers[i].thread, NULL);
	unload_all();
	s = totals();
	if (test) {
		for (unsigned int i = 0; i < nworkers; i++)
			check(workers[i].exact > 0, "worker %u: %lu requests, "
			      "%lu answers checked exactly", i,
			      workers[i].dispatches, workers[i].exact);
		if (unloads)
			check(!strcmp(ulsm_lsm_list(&req_hook_set), "core"),
			      "every plug-in unloaded: %s",
			      ulsm_lsm_list(&req_hook_set));
	}
	printf("%s%lu requests dispatched by %u threads (%lu refused, %lu "
	       "checked against the modules then up), %u reloads, %lu wrong "
	       "answers%s\n", test ? "selftest: " : "", s.dispatches,
	       nworkers, s.refused, s.exact, reloads, s.wrong,
	       !test ? "" : failed || s.wrong ? ": FAILED" : ": passed");
	return failed || s.wrong ? 1 : 0;
}
