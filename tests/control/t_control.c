// SPDX-License-Identifier: MIT
/*
 * The control endpoint (docs/control.md): its start and stop, the three
 * guards (directory, socket, peer), every verb, a switch flip that
 * patches the program's code and one that fails and changes nothing, a
 * toggle a sealed set refuses, a recording streamed and detached, fork
 * and exit. Each case runs in a child of its own, with a socket
 * directory of its own. Cases that need root (another owner, another
 * peer, a setuid-like process) skip without it.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/fsuid.h>
#include <sys/types.h>
#include <time.h>

#include <ulsm/control.h>
#include <ulsm/lsm.h>
#include <ulsm/tracepoint.h>

#include "base/sys.h"
#include "runtime.h"
#include "tap.h"
#include "child.h"
#include "control_client.h"
#include "control_tl.h"
#include "test_lsm.h"

DEFINE_STATIC_SWITCH(tc_verbose, "a test switch");
DEFINE_STATIC_SWITCH(tc_other, "another");

DECLARE_TRACEPOINT(tc_event, TP_PROTO(int i, long v), TP_ARGS(i, v));
DEFINE_TRACEPOINT(tc_event, TP_PROTO(int i, long v), TP_ARGS(i, v));

static __attribute__((noinline)) int verbose_now(void)
{
	return static_branch_unlikely(&tc_verbose) ? 1 : 0;
}

static char logged[4096];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_log(const char *msg, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&log_lock);
	strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
	strcat(logged, "\n");
	pthread_mutex_unlock(&log_lock);
}

static bool log_has(const char *what, int wait_ms)
{
	for (int t = 0; t <= wait_ms; t += 10) {
		bool has;

		pthread_mutex_lock(&log_lock);
		has = strstr(logged, what) != NULL;
		pthread_mutex_unlock(&log_lock);
		if (has)
			return true;
		usleep(10000);
	}
	return false;
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static int start_stop(void)
{
	char path[300], dir[300];
	struct stat st;

	check(ulsm_control_start() == 0, "start");
	check(ulsm_control_start() == 0, "start again: it runs already");
	cc_sock_path(path, sizeof(path), getpid());
	snprintf(dir, sizeof(dir), "%s/ulsm", cc_xdg);
	check(!lstat(path, &st) && S_ISSOCK(st.st_mode) &&
	      (st.st_mode & 07777) == 0600, "a socket of mode 0600 (%o)",
	      (unsigned int)(st.st_mode & 07777));
	check(!lstat(dir, &st) && S_ISDIR(st.st_mode) &&
	      (st.st_mode & 07777) == 0700, "its directory 0700 (%o)",
	      (unsigned int)(st.st_mode & 07777));
	ulsm_control_stop();
	check(!exists(path), "stop removes the socket");
	check(cc_connect_raw(getpid(), 500) < 0, "nobody answers once stopped");
	check(ulsm_control_start() == 0, "it starts again");
	check(exists(path), "with its socket");
	ulsm_control_stop();
	ulsm_control_stop();	/* nothing */
	return failures;
}

static int refuse_symlink(void)
{
	char real[300], link[300];

	snprintf(real, sizeof(real), "%s/real", cc_xdg);
	snprintf(link, sizeof(link), "%s/ulsm", cc_xdg);
	check(!mkdir(real, 0700) && !symlink(real, link), "set up");
	check(ulsm_control_start() == -ELOOP, "a symbolic link: -ELOOP");
	check(strstr(ulsm_last_error(), "symbolic link") != NULL,
	      "the message says why");
	check(cc_entries(real) == 0, "nothing made in the link's target");
	return failures;
}

static int refuse_loose(void)
{
	char dir[300];

	snprintf(dir, sizeof(dir), "%s/ulsm", cc_xdg);
	check(!mkdir(dir, 0700) && !chmod(dir, 0750), "set up");
	check(ulsm_control_start() == -EPERM, "mode 0750: -EPERM");
	check(strstr(ulsm_last_error(), "mode 0750") != NULL,
	      "the message names the mode");
	chmod(dir, 0700);
	check(ulsm_control_start() == 0, "0700: it starts");
	ulsm_control_stop();
	return failures;
}

static int refuse_owner(void)
{
	char dir[300];

	snprintf(dir, sizeof(dir), "%s/ulsm", cc_xdg);
	check(!mkdir(dir, 0700) && !chown(dir, 65534, 65534), "set up");
	check(ulsm_control_start() == -EPERM, "another owner: -EPERM");
	check(strstr(ulsm_last_error(), "belongs to uid 65534") != NULL,
	      "the message names the owner");
	return failures;
}

/* A socket file at our path: bound, listening or not. */
static int place_socket(bool listening)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[300];
	int fd;

	snprintf(dir, sizeof(dir), "%s/ulsm", cc_xdg);
	mkdir(dir, 0700);
	cc_sock_path(sa.sun_path, sizeof(sa.sun_path), getpid());
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	if (listening && listen(fd, 1))
		return -1;
	return fd;
}

static int stale_and_live(void)
{
	char path[300];
	int fd = place_socket(false), live;

	cc_sock_path(path, sizeof(path), getpid());
	check(fd >= 0, "a stale socket placed");
	close(fd);
	check(ulsm_control_start() == 0, "a stale socket is replaced");
	fd = cc_connect(getpid());
	check(fd >= 0, "and the endpoint answers on it");
	close(fd);
	ulsm_control_stop();
	live = place_socket(true);
	check(live >= 0, "a live socket placed");
	check(ulsm_control_start() == -EADDRINUSE, "a live one: -EADDRINUSE");
	check(exists(path), "and it stays");
	close(live);
	unlink(path);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	check(ulsm_control_start() == -EEXIST, "a plain file: -EEXIST");
	check(exists(path), "and it stays");
	return failures;
}

static int setid_refused(void)
{
	pid_t pid = fork();
	int status;

	if (!pid) {
		/* real uid 65534, effective root: as a setuid-root program */
		if (setresuid(65534, 0, 0))
			_exit(2);
		_exit(ulsm_control_start() == -EPERM &&
		      strstr(ulsm_last_error(), "setuid") ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "ruid != euid: -EPERM (status %d)", status);
	pid = fork();
	if (!pid) {
		if (setresgid(65534, 0, 0))
			_exit(2);
		_exit(ulsm_control_start() == -EPERM ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "rgid != egid: -EPERM (status %d)", status);
	return failures;
}

/*
 * A peer of another user: effective uid 65534 (what SO_PEERCRED gives),
 * file-system uid root (so that the 0700 directory and the 0600 socket
 * let it connect: the peer check is the guard under test).
 */
static int peer_refused(void)
{
	pid_t pid;
	int status;

	ulsm_set_log(on_log, NULL);
	check(ulsm_control_start() == 0, "start");
	pid = fork();
	if (!pid) {
		char line[256];
		int fd;

		if (setresuid(0, 65534, 0))
			_exit(2);
		setfsuid(0);
		if (setfsuid((uid_t)-1) != 0)
			_exit(3);
		fd = cc_connect_raw(getppid(), 3000);
		if (fd < 0)
			_exit(4);
		if (cc_line(fd, line, sizeof(line)) < 0 ||
		    strncmp(line, "error -13 ", 10))
			_exit(5);
		_exit(cc_line(fd, line, sizeof(line)) == -1 ? 0 : 6);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "uid 65534 gets one error -13 line, then the end (status %d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	check(log_has("control: refused a connection from uid 65534", 2000),
	      "the program's log says so");
	ulsm_control_stop();
	ulsm_set_log(NULL, NULL);
	return failures;
}

static int verbs(void)
{
	pid_t me = getpid();
	char *p, msg[600], want[64];

	check(ulsm_control_start() == 0, "start");
	check(cc_once(me, "hello\n", &p, msg, sizeof(msg)) == 0, "hello");
	snprintf(want, sizeof(want), "\"pid\":%d,", (int)me);
	check(p && strstr(p, want) && strstr(p, "\"switches\":2"),
	      "hello: pid and switches (%s)", p ? p : "");
	free(p);
	check(cc_once(me, "show\n", &p, msg, sizeof(msg)) == 0, "show");
	check(p && strstr(p, "{\"name\":\"tc_verbose\",\"description\":"
			  "\"a test switch\",\"on\":false}"),
	      "show: the switch");
	check(p && strstr(p, "{\"name\":\"tc_event\",\"args\":\"i, v\","
			  "\"on\":false"), "show: the tracepoint");
	check(p && strstr(p, "\"name\":\"tl\",\"sealed\":true") &&
	      strstr(p, "{\"name\":\"alpha\",\"state\":\"active\""),
	      "show: the hook set and its modules");
	check(p && strstr(p, "\"keys\":[") && strstr(p, "\"calls\":["),
	      "show: keys and calls");
	/* The generic back end has no branch sites: no keys listed. */
	check(ULSM_CONFIG_GENERIC ||
	      (p && strstr(p, "{\"name\":\"tc_verbose\",\"switch\":true,")),
	      "show: a switch's key is named by the switch");
	free(p);

	check(verbose_now() == 0, "the switch is off");
	check(cc_once(me, "switch tc_verbose on\n", &p, msg, sizeof(msg)) == 0,
	      "switch on (%s)", msg);
	check(p && strstr(p, "\"on\":true"), "the reply says on");
	free(p);
	check(verbose_now() == 1, "the program's branch now runs (code patched)");
	check(static_key_enabled(&tc_verbose) && !static_key_enabled(&tc_other),
	      "that switch only");
	check(cc_once(me, "switch tc_verbose off\n", NULL, msg, sizeof(msg)) == 0,
	      "switch off");
	check(verbose_now() == 0, "and off again");
	check(cc_once(me, "switch tc_verbose maybe\n", NULL, msg, sizeof(msg)) ==
	      -EINVAL, "a bad state: -EINVAL");
	check(cc_once(me, "switch nosuch on\n", NULL, msg, sizeof(msg)) ==
	      -ENOENT && strstr(msg, "no switch nosuch"),
	      "an unknown switch: -ENOENT with a message (%s)", msg);
	{
		/* A switch's record from older headers: not listed. */
		static struct ulsm_switch older = {
			.size = 4, .name = "tc_older", .key = &tc_other,
		};

		ulsm__switch_add(&older);
		check(cc_once(me, "switch tc_older on\n", NULL, msg,
			      sizeof(msg)) == -ENOENT &&
		      !static_key_enabled(&tc_other),
		      "a switch's record shorter than the library's is not "
		      "listed (%s)", msg);
		ulsm__switch_remove(&older);
	}
	check(cc_once(me, "frobnicate\n", NULL, msg, sizeof(msg)) == -EINVAL,
	      "an unknown verb: -EINVAL");
	check(cc_once(me, "hello  \n", NULL, msg, sizeof(msg)) == -EINVAL,
	      "two spaces: -EINVAL");
	check(cc_once(me, "stop\n", NULL, msg, sizeof(msg)) == -EINVAL,
	      "stop outside a recording: -EINVAL");
	check(cc_once(me, "clear\n", &p, msg, sizeof(msg)) == 0 && p && !*p,
	      "clear: ok 0");
	free(p);
	check(cc_once(me, "toggle tl alpha off\n", NULL, msg, sizeof(msg)) ==
	      -EPERM && strstr(msg, "toggling was not allowed"),
	      "toggle on a sealed set without the toggle: -EPERM (%s)", msg);
	check(ulsm_lsm_module_active(&tl_hook_set, "alpha") == 1,
	      "  alpha unchanged");
	check(cc_once(me, "toggle nosuch alpha off\n", NULL, msg, sizeof(msg)) ==
	      -ENOENT, "toggle of an unknown set: -ENOENT");
	check(!verbose_now(), "nothing changed");
	ulsm_control_stop();
	return failures;
}

static int toggle_allowed(void)
{
	pid_t me = getpid();
	char *p, msg[600];

	tl_seal_toggleable();
	check(ulsm_control_start() == 0, "start");
	tl_beta_off("the reply: beta off");
	check(cc_once(me, "toggle tl beta on\n", &p, msg, sizeof(msg)) == 0 &&
	      p && strstr(p, "\"on\":true"), "and on again");
	free(p);
	check(cc_once(me, "toggle tl omega on\n", NULL, msg, sizeof(msg)) ==
	      -ENOENT, "a module not active: -ENOENT");
	ulsm_control_stop();
	return failures;
}

/*
 * Every text write fails from now on (or, @on false, none). Atomic: the
 * endpoint's thread reads the fault state at each of its system calls.
 */
static void writes_fail(bool on)
{
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.kinds, on ? (1u << ULSM_SYS_PWRITE) |
			 (1u << ULSM_SYS_STORE) | (1u << ULSM_SYS_MPROTECT) : 0,
			 __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.calls, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.err, on ? EIO : 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.fail_to, on ? ~0ul : 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.fail_from, on ? 1 : 0, __ATOMIC_SEQ_CST);
}

static int switch_fails(void)
{
	pid_t me = getpid();
	char msg[600];
	int ret;

	check(ulsm_control_start() == 0, "start");
	writes_fail(true);
	ret = cc_once(me, "switch tc_verbose on\n", NULL, msg, sizeof(msg));
	writes_fail(false);
	check(ret < 0 && ret != -1000 && *msg,
	      "a flip whose writes fail: error %d with the library's "
	      "message (%s)", ret, msg);
	check(!static_key_enabled(&tc_verbose) && verbose_now() == 0,
	      "and nothing changed");
	check(cc_once(me, "switch tc_verbose on\n", NULL, msg, sizeof(msg)) == 0 &&
	      verbose_now() == 1, "the next flip works");
	ulsm_control_stop();
	return failures;
}

static long count_lines(const char *file, const char *what)
{
	FILE *p = cc_trace_text(file);
	char line[512];
	long n = 0;

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		n += strstr(line, what) != NULL;
	return pclose(p) ? -1 : n;
}

static int record(void)
{
	pid_t me = getpid();
	char *p, msg[600], file[300];
	struct ulsm_tracepoint *tp = ulsm_tracepoint_find("tc_event");
	int fd, fd2;
	long bytes;
	bool ended;
	FILE *f;

	check(tp && !static_key_enabled(tp->key), "the tracepoint is off");
	check(ulsm_control_start() == 0, "start");
	fd = cc_connect(me);
	check(cc_request(fd, "record tc_*\n", &p, msg, sizeof(msg)) == 0,
	      "record (%s)", msg);
	check(p && strstr(p, "\"matched\":1,\"attached\":true"),
	      "one tracepoint matched, attached (%s)", p ? p : "");
	free(p);
	check(tp && static_key_enabled(tp->key), "the tracepoint is on");
	check(cc_once(me, "record tc_*\n", NULL, msg, sizeof(msg)) == -EBUSY,
	      "a second recording: -EBUSY (%s)", msg);
	for (int i = 0; i < 300; i++) {
		trace_tc_event(i, 1000 + i);
		if (i % 100 == 99)
			usleep(100000);	/* some go in data chunks */
	}
	snprintf(file, sizeof(file), "%s/rec.bin", cc_xdg);
	f = fopen(file, "w");
	check(!cc_send(fd, "stop\n"), "stop");
	bytes = cc_stream(fd, f, &ended);
	fclose(f);
	check(ended && bytes > 0, "the stream ends (%ld bytes)", bytes);
	check(count_lines(file, "tc_event i=") == 300,
	      "300 events in the recording (%ld)", count_lines(file, "tc_event i="));
	check(tp && !static_key_enabled(tp->key),
	      "stop detached the recorder: the tracepoint is off");
	check(cc_request(fd, "hello\n", NULL, msg, sizeof(msg)) == 0,
	      "the connection serves requests again");
	close(fd);

	/* A glob the program enabled itself stays enabled after a recording. */
	check(ulsm_trace_enable("tc_*") >= 0, "the program enables tc_*");
	fd = cc_connect(me);
	check(cc_request(fd, "record tc_*\n", &p, msg, sizeof(msg)) == 0 &&
	      p && strstr(p, "\"attached\":false"), "record: already attached");
	free(p);
	fd2 = cc_connect(me);
	check(fd2 >= 0, "another client meanwhile");
	close(fd2);
	close(fd);	/* a client that goes away mid-stream */
	usleep(200000);
	check(static_key_enabled(tp->key), "the program's own probe stays");
	check(cc_once(me, "record nomatch_*\n", &p, msg, sizeof(msg)) == 0 &&
	      p && strstr(p, "\"matched\":0"),
	      "a glob matching nothing: not refused, matched 0 (%d, %s)",
	      0, p ? p : msg);
	free(p);
	ulsm_control_stop();
	return failures;
}

#ifndef UNDER_TSAN
static int fork_exit(void)
{
	char path[300], cpath[300];
	int status, held = cc_connect(getpid());
	pid_t pid;

	check(held < 0, "not started yet: no endpoint");
	check(ulsm_control_start() == 0, "start");
	held = cc_connect(getpid());
	check(held >= 0, "a connection held open");
	pid = fork();
	if (!pid) {
		int fd, ok_ = count_sockets() == 1;	/* held, inherited */

		cc_sock_path(cpath, sizeof(cpath), getpid());
		if (ulsm_control_start())
			_exit(2);
		fd = cc_connect(getpid());
		if (fd < 0)
			_exit(3);
		close(fd);
		exit(ok_ ? 0 : 4);	/* exit(): the socket goes */
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "a child has no descriptor of its parent's endpoint, starts its "
	      "own and answers on it (status %d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	cc_sock_path(cpath, sizeof(cpath), pid);
	check(!exists(cpath), "the child's exit removed its socket");
	close(held);
	check(cc_once(getpid(), "hello\n", NULL, NULL, 0) == 0,
	      "the parent still answers");
	cc_sock_path(path, sizeof(path), getpid());
	pid = fork();
	if (!pid) {
		pid_t me = getpid();

		/* a child of its own that starts, then exits */
		unsetenv("ULSM_CONTROL");
		if (ulsm_control_start())
			_exit(2);
		cc_sock_path(cpath, sizeof(cpath), me);
		exit(exists(cpath) ? 0 : 3);
	}
	waitpid(pid, &status, 0);
	cc_sock_path(cpath, sizeof(cpath), pid);
	check(WIFEXITED(status) && !WEXITSTATUS(status) && !exists(cpath),
	      "exit removes the socket");
	check(exists(path), "the parent's stays");
	ulsm_control_stop();
	return failures;
}
#endif

/* ULSM_CONTROL=1: the constructor starts it (a new image). */
static int from_env(void)
{
	char self[300];
	pid_t pid;
	int status;

	snprintf(self, sizeof(self), "/proc/%d/exe", (int)getpid());
	pid = fork();
	if (!pid) {
		setenv("ULSM_CONTROL", "1", 1);
		execl(self, self, "--child-env", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "ULSM_CONTROL=1 started it before main (status %d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	/*
	 * An image that runs the endpoint execs another: the descriptor is
	 * closed at exec (else the socket would still listen, and the new
	 * image's start would get -EADDRINUSE), the file stays, stale, and
	 * the new image's endpoint replaces it.
	 */
	pid = fork();
	if (!pid) {
		if (ulsm_control_start())
			_exit(126);
		setenv("ULSM_CONTROL", "1", 1);
		execl(self, self, "--child-env", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status),
	      "after exec the new image replaces the old one's socket "
	      "(status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return failures;
}

static int child_env(void)
{
	char path[300];

	cc_sock_path(path, sizeof(path), getpid());
	if (!exists(path))
		return 1;
	return cc_once(getpid(), "hello\n", NULL, NULL, 0) ? 2 : 0;
}

#ifdef TC_PLUGIN
/* A plug-in's switch: listed while loaded, flipped in its code, gone at dlclose. */
static int plugin_switch(void)
{
	pid_t me = getpid();
	char *p, msg[600];
	int (*on)(void);
	void *h;

	check(ulsm_control_start() == 0, "start");
	h = dlopen(TC_PLUGIN, RTLD_NOW);
	check(h != NULL, "dlopen %s (%s)", TC_PLUGIN, h ? "" : dlerror());
	if (!h)
		return failures;
	on = (int (*)(void))dlsym(h, "plug_switch_on");
	check(cc_once(me, "show\n", &p, msg, sizeof(msg)) == 0 && p &&
	      strstr(p, "\"name\":\"plug_switch\""), "show lists the plug-in's switch");
	free(p);
	check(on && on() == 0, "off");
	check(cc_once(me, "switch plug_switch on\n", NULL, msg, sizeof(msg)) == 0,
	      "switch plug_switch on (%s)", msg);
	check(on && on() == 1, "the plug-in's branch runs (its code patched)");
	dlclose(h);
	h = dlopen(TC_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		/* musl's dlclose never unloads: the switch stays, rightly. */
		printf("# the plug-in stays loaded after dlclose (musl): its "
		       "switch stays\n");
		dlclose(h);
		ulsm_control_stop();
		return failures;
	}
	check(cc_once(me, "show\n", &p, msg, sizeof(msg)) == 0 && p &&
	      !strstr(p, "plug_switch"), "after dlclose the switch is gone");
	free(p);
	check(cc_once(me, "switch plug_switch off\n", NULL, msg, sizeof(msg)) ==
	      -ENOENT, "and cannot be flipped: -ENOENT");
	ulsm_control_stop();
	return failures;
}
#endif

int main(int argc, char **argv)
{
	bool root = geteuid() == 0;

	if (argc > 1 && !strcmp(argv[1], "--child-env")) {
		const char *x = getenv("XDG_RUNTIME_DIR");

		snprintf(cc_xdg, sizeof(cc_xdg), "%s", x ? x : "");
		return child_env();
	}
	tl_endpoint_init("2000");

	cc_case("start, stop: a 0600 socket in a 0700 directory", start_stop);
	cc_case("a symbolic link for the directory is refused", refuse_symlink);
	cc_case("a directory with access for others is refused", refuse_loose);
	if (root) {
		cc_case("a directory of another owner is refused", refuse_owner);
		cc_case("a setuid-like process is refused", setid_refused);
		cc_case("a peer of another user is refused and logged",
			peer_refused);
	} else {
		ok(1, "# SKIP another owner: needs root");
		ok(1, "# SKIP setuid-like: needs root");
		ok(1, "# SKIP a peer of another user: needs root");
	}
	cc_case("a stale socket is replaced, a live one refused", stale_and_live);
	/* Under qemu-user /proc/self/exe is the emulator: no re-exec. */
	if (getenv("ULSM_EMU") && *getenv("ULSM_EMU"))
		ok(1, "# SKIP ULSM_CONTROL=1 in a new image: under an emulator");
	else
		cc_case("the endpoint starts from ULSM_CONTROL=1", from_env);
	/*
	 * Its child starts the endpoint's thread after a multi-threaded
	 * fork, which neither ThreadSanitizer nor qemu-user 7.2 can (qemu
	 * asserts in qemu_plugin_vcpu_init_hook).
	 */
#ifdef UNDER_TSAN
	ok(1, "# SKIP a child of fork, and exit: ThreadSanitizer cannot start "
	   "threads after a multi-threaded fork");
#else
	if (getenv("ULSM_EMU") && *getenv("ULSM_EMU"))
		ok(1, "# SKIP a child of fork, and exit: qemu-user cannot start "
		   "threads after a multi-threaded fork");
	else
		cc_case("a child of fork, and exit", fork_exit);
#endif
	if (ULSM_CONFIG_GENERIC)
		ok(1, "# SKIP a flip that fails: the generic back end writes "
		   "no text");
	else
		cc_case("a switch flip that fails changes nothing",
			switch_fails);
#ifdef TC_PLUGIN
	cc_case("a plug-in's switch, registered and removed at dlclose",
		plugin_switch);
#endif
	cc_case("record: a stream of the events, detached at stop", record);
	cc_case("toggle where the set allows it", toggle_allowed);
	/* Sealed without the toggle: refused. */
	check(ulsm_lsm_seal(&tl_hook_set) == 0, "seal the test set");
	cc_case("every verb; a sealed set refuses the toggle", verbs);
	ok(!failures, "the set sealed");
	return done_testing();
}
