// SPDX-License-Identifier: MIT
/*
 * A set that does not allow unloading pins the objects of its modules
 * (RTLD_NODELETE) as they come up, and pinning calls the dynamic linker.
 * The dynamic linker runs a plug-in's constructors with its own lock
 * held, and a constructor's module registration takes the framework's.
 * So the framework must never call the dynamic linker with its lock held:
 * it did, from ulsm_lsm_init() and from a registration outside a
 * constructor, and each waited for a loader that waited for it.
 *
 * Each case in a child of its own, within a time limit: a lagging plug-in
 * (pb_lag.so) is being loaded by one thread, which the host keeps inside
 * the plug-in's first constructor for 300 ms, while the main thread
 *
 *   1. initialises the set, whose pending module (pb_rate.so, loaded
 *      before) is pinned as it comes up;
 *   2. registers a module of an object it loaded itself (pb_manual.so's
 *      exported lsm_info), after init.
 *
 * Then every module is active, and a dlclose() of each object leaves it
 * mapped, its module called (a crash otherwise).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ULSM_LSM_DEFINE
#include "pluginbuild/set.h"

#include <ulsm/ulsm.h>

#include "child.h"
#include "runtime.h"
#include "tap.h"

static char dir[PATH_MAX - 64];
static sem_t loading;
static void *load(const char *name)
{
	char path[PATH_MAX];
	void *h;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	check(h, "%s did not load: %s", name, dlerror());
	return h;
}

/* pb_lag.so's first constructor: the loader's lock is held meanwhile. */
void pb_loading(void);
void pb_loading(void)
{
	sem_post(&loading);
	nanosleep(&(struct timespec){ 0, 300 * 1000 * 1000 }, NULL);
}

static void *load_lag(void *arg)
{
	(void)arg;
	return load("pb_lag.so");
}

/* Start loading pb_lag.so in another thread; back once it is inside. */
static pthread_t start_loader(void)
{
	pthread_t t;

	if (sem_init(&loading, 0, 0) ||
	    pthread_create(&t, NULL, load_lag, NULL)) {
		printf("# no thread\n");
		_exit(2);
	}
	sem_wait(&loading);
	return t;
}

static void *end_loader(pthread_t t)
{
	void *h = NULL;

	check(!pthread_join(t, &h) && h, "pb_lag.so did not load");
	return h;
}

/*
 * Every object closed: both modules still active, and answering from
 * their objects (a crash if one was unmapped).
 */
static void close_all(void *const *h, const char *a, const char *b)
{
	for (int i = 0; i < 2; i++)
		if (h[i])
			dlclose(h[i]);
	check(ulsm_lsm_module_active(&pb_hook_set, a) == 1 &&
	      ulsm_lsm_module_active(&pb_hook_set, b) == 1,
	      "after dlclose: %s and %s not both active: %s", a, b,
	      ulsm_lsm_list(&pb_hook_set));
	check(call_int_hook(request_check, 7) == -EACCES &&
	      call_int_hook(request_check, 8) == 0,
	      "after dlclose: request 7 not denied (%s)",
	      ulsm_lsm_list(&pb_hook_set));
}

/*
 * The end of a case, after the main thread's step: pb_lag.so loaded, its
 * module and @name (of the object @h0) both active, and still active once
 * every object is closed.
 */
static void end_case(pthread_t t, void *h0, const char *name)
{
	void *h[2] = { h0, end_loader(t) };

	check(ulsm_lsm_module_active(&pb_hook_set, name) == 1 &&
	      ulsm_lsm_module_active(&pb_hook_set, "lag") == 1,
	      "not both active: %s", ulsm_lsm_list(&pb_hook_set));
	close_all(h, name, "lag");
}

static void case_init(void)
{
	void *h0 = load("pb_rate.so");	/* registers; comes up at init */
	pthread_t t = start_loader();
	int ret = ulsm_lsm_init(&pb_hook_set, NULL);

	check(ret == 0, "ulsm_lsm_init: %d", ret);
	end_case(t, h0, "rate");
}

static void case_register(void)
{
	struct lsm_info *info;
	void *h0;
	pthread_t t;
	int ret;

	check(ulsm_lsm_init(&pb_hook_set, NULL) == 0, "ulsm_lsm_init");
	h0 = load("pb_manual.so");
	info = h0 ? dlsym(h0, "pb_manual_info") : NULL;
	if (!info) {
		printf("# no pb_manual_info\n");
		_exit(2);
	}
	t = start_loader();
	ret = ulsm_lsm_register(info, &pb_hook_set);
	check(ret == 0, "ulsm_lsm_register: %d", ret);
	end_case(t, h0, "manual");
}

struct pin_case {
	void (*fn)(void);
	unsigned int secs;
};

static void pin_child(void *arg)
{
	const struct pin_case *c = arg;

	alarm(c->secs);
	c->fn();
	fflush(stdout);
	_exit(failures ? 1 : 0);
}

/* @fn in a child (tests/lib/child.h): a deadlock is a timeout. */
static void pin_case(void (*fn)(void), const char *what)
{
	struct pin_case c = { fn, under_emulator() ? 60 : 10 };

	if (in_child(what, pin_child, &c, NULL, 0) >= 0 &&
	    WIFSIGNALED(child_status) && WTERMSIG(child_status) == SIGALRM)
		diag("no answer within %u s: a deadlock", c.secs);
	ok(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0, "%s",
	   what);
}

int main(void)
{
	const char *d = getenv("ULSM_TEST_PLUGIN_DIR");

	snprintf(dir, sizeof(dir), "%s", d ? d : ".");
	pin_case(case_init, "ulsm_lsm_init() while a plug-in loads: its "
		 "pending module's object pinned, no deadlock");
	pin_case(case_register, "a registration outside a constructor while "
		 "a plug-in loads: its object pinned, no deadlock");
	return done_testing();
}
