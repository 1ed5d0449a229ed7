// SPDX-License-Identifier: MIT
/*
 * ulsm_dump() says what the library knows, and ULSM_DUMP=path writes the
 * same at exit: objects, keys with their state and sites, static calls
 * with their target and form, hook sets with modules and slots.
 *
 * Linked with -rdynamic, so that names are in the dynamic symbol table.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "sites.h"
#include "tap.h"
#include "test_lsm.h"

DEFINE_STATIC_KEY_FALSE(dump_key_off);
DEFINE_STATIC_KEY_TRUE(dump_key_on);

int dump_target(int x);
int dump_target(int x)
{
	return x + 1;
}

DEFINE_STATIC_CALL(dump_call, dump_target);

__attribute__((noinline)) int dump_sites(void);
__attribute__((noinline)) int dump_sites(void)
{
	return static_branch_unlikely(&dump_key_off) +
	       static_branch_likely(&dump_key_on) +
	       static_branch_unlikely(&dump_key_on) +
	       static_call(dump_call)(1);
}

static char *dump_to_string(void)
{
	static char buf[65536];
	FILE *f = tmpfile();
	size_t n;

	if (!f)
		return NULL;
	ulsm_dump(f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The line of @out that mentions @what, or "". */
static const char *line_of(const char *out, const char *what)
{
	static char line[512];
	const char *p = strstr(out, what), *start, *end;

	if (!p)
		return "";
	for (start = p; start > out && start[-1] != '\n'; start--)
		;
	end = strchr(p, '\n');
	snprintf(line, sizeof(line), "%.*s",
		 (int)(end ? end - start : (long)strlen(start)), start);
	return line;
}

static int at_exit(const char *self)
{
	char path[] = "/tmp/ulsm-dump-XXXXXX", cmd[4096], buf[65536];
	const char *emu = getenv("ULSM_EMU");
	int fd = mkstemp(path), status;
	ssize_t n;

	if (fd < 0)
		return 0;
	snprintf(cmd, sizeof(cmd), "ULSM_DUMP=%s %s %s --child >/dev/null",
		 path, emu && *emu ? emu : "", self);
	status = system(cmd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	unlink(path);
	buf[n > 0 ? n : 0] = '\0';
	ok(WIFEXITED(status) && !WEXITSTATUS(status), "the child ran");
	return strstr(buf, "hook set tl") &&
	       (!strcmp(ulsm_backend(), "generic") || strstr(buf, "dump_key_off"));
}

/*
 * ulsm_dump() while a plug-in's destructor, under dlclose()'s lock, waits
 * for the patch lock (its key flip): the dump names addresses with
 * dladdr(), which takes that lock, so it must not do it while it holds
 * the patch lock. A child, with 10 s to finish: a deadlock is a timeout.
 */
DEFINE_STATIC_KEY_FALSE(slowfini_host_key);
void slowfini_entered(void);
static volatile int fini_entered, closed;

void slowfini_entered(void)
{
	__atomic_store_n(&fini_entered, 1, __ATOMIC_SEQ_CST);
}

static void *closer(void *h)
{
	dlclose(h);
	__atomic_store_n(&closed, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void dump_during_dlclose(void)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	char path[512];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/plugin_slowfini.so", dir ? dir : ".");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		FILE *devnull = fopen("/dev/null", "w");
		pthread_t t;

		alarm(10);
		if (!h || !devnull)
			_exit(2);
		pthread_create(&t, NULL, closer, h);
		while (!__atomic_load_n(&fini_entered, __ATOMIC_SEQ_CST))
			if (__atomic_load_n(&closed, __ATOMIC_SEQ_CST))
				_exit(4);	/* dlclose did not unload */
			else
				nanosleep(&(struct timespec){ 0, 1000000 },
					  NULL);
		ulsm_dump(devnull);	/* the destructor sleeps 300 ms */
		pthread_join(t, NULL);
		_exit(static_key_enabled(&slowfini_host_key) ? 0 : 3);
	}
	waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 4) {
		ok(1, "# SKIP dlclose did not unload the plug-in (musl): no "
		   "destructor to race with");
		return;
	}
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "ulsm_dump() while a plug-in's destructor waits for the patch lock "
	   "under dlclose(): no deadlock (status 0x%x%s)", status,
	   WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ?
	   ": timed out" : "");
}

int main(int argc, char **argv)
{
	const char *out, *l;

	tl_defaults();
	if (ulsm_lsm_init(&tl_hook_set, "alpha,beta"))
		return 1;
	if (argc > 1 && !strcmp(argv[1], "--child"))
		return 0;	/* the dump is the atexit handler's */
	dump_sites();
	if (static_call_update(dump_call, (void *)__static_call_return0))
		diag("update failed: %s", ulsm_last_error());

	out = dump_to_string();
	ok(out && *out, "ulsm_dump() writes something");
	if (!out)
		return done_testing();
	diag("%s", line_of(out, "back end"));
	ok(strstr(out, ulsm_backend()) != NULL, "it names the back end");
	if (strcmp(ulsm_backend(), "generic")) {
		/* The generic back end registers no object: nothing to patch. */
		l = line_of(out, "object 1");
		ok(*l, "it lists the objects: %s", l);
		l = line_of(out, "dump_key_off");
		ok(strstr(l, "disabled") && strstr(l, "1 site"),
		   "a disabled key and its site: %s", l);
		/* Two in the source; the compiler may duplicate one. */
		uintptr_t sites[8];
		char want[32];

		snprintf(want, sizeof(want), " %zu site",
			 find_sites(&dump_key_on, sites, NULL, 8));
		l = line_of(out, "dump_key_on");
		ok(strstr(l, "enabled") && strstr(l, want),
		   "an enabled key and its sites (%s): %s", want + 1, l);
		l = line_of(out, "-> ulsm_static_call_return0");
		ok(*l, "a static call's target, by name: %s", l);
	}
	l = line_of(out, "hook set tl");
	ok(*l, "the hook set: %s", l);
	l = line_of(out, "active, in order");
	ok(strstr(l, "capa,alpha,beta") != NULL, "its modules in order: %s",
	   l);
	l = line_of(out, "file_open ");
	ok(strstr(l, "capa") && strstr(l, "alpha") && strstr(l, "beta"),
	   "the slots of file_open: %s", l);
	ok(at_exit(argv[0]), "ULSM_DUMP=path writes the same at exit");
	dump_during_dlclose();
	return done_testing();
}
