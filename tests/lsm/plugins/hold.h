/* SPDX-License-Identifier: MIT */
/*
 * Holding a thread inside a module's callback of set "pg", for the tests
 * of who a grace period waits for (t_lsm_plugins, t_guard). The host
 * includes it once, after plugins/set.h and tap.h, and calls hold_init()
 * first: every module (tests/lsm/plugins/module.c, and the host's own) calls
 * pg_hold() at the top of its callbacks.
 */
#ifndef PG_HOLD_H
#define PG_HOLD_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include <ulsm/grace.h>

/* The callback named @hold_who, for this request, waits to be released. */
#define HOLD_REQUEST	4242
static const char *volatile hold_who;
static sem_t inside, release;
static int released;

static void hold_init(void)
{
	sem_init(&inside, 0, 0);
	sem_init(&release, 0, 0);
}

void pg_hold(const char *who, int request)
{
	const char *h = hold_who;

	if (request == HOLD_REQUEST && h && !strcmp(who, h)) {
		sem_post(&inside);
		while (sem_wait(&release))
			;
	}
}

static int check(int request)
{
	return call_int_hook(req_check, request);
}

static void *hold_int(void *arg)
{
	(void)arg;
	check(HOLD_REQUEST);
	return NULL;
}

static void *hold_void(void *arg)
{
	(void)arg;
	call_void_hook(req_log, HOLD_REQUEST);
	return NULL;
}

static void *releaser(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ 0, 500000000 }, NULL);
	__atomic_store_n(&released, 1, __ATOMIC_SEQ_CST);
	sem_post(&release);
	return NULL;
}

/*
 * Whether a grace period waits for a thread held inside @who's callback
 * of req_check (@int_hook) or req_log: a thread releases it after half a
 * second; the grace period waited if it returned after that.
 */
static bool grace_waits_for(const char *who, bool int_hook)
{
	pthread_t t, r;
	bool waited;

	__atomic_store_n(&released, 0, __ATOMIC_SEQ_CST);
	hold_who = who;
	if (pthread_create(&t, NULL, int_hook ? hold_int : hold_void, NULL))
		abort();
	while (sem_wait(&inside))
		;
	if (pthread_create(&r, NULL, releaser, NULL))
		abort();
	if (ulsm_synchronize())
		diag("ulsm_synchronize: %s", ulsm_last_error());
	waited = __atomic_load_n(&released, __ATOMIC_SEQ_CST);
	pthread_join(r, NULL);
	pthread_join(t, NULL);
	hold_who = NULL;
	return waited;
}

/*
 * Only what can be unloaded is waited for: for req_check (int) and
 * req_log (void), a grace period waits for a thread inside each module of
 * @gone (NULL-terminated: plug-ins), and, on a back end whose hooks have
 * entries, for none inside a module of @kept (the program's, a start-up
 * library's: their slots have no guard, nothing is paid for them).
 * Without entries (generic), each dispatch of the set is one read-side
 * section, and every module is waited for.
 */
/*
 * Whether a plug-in (an object opened with dlopen) is called through its
 * slots' guards: not under musl, whose dlclose() unmaps nothing.
 */
#ifdef __GLIBC__
# define PLUGINS_GUARDED	1
#else
# define PLUGINS_GUARDED	0
#endif

static void who_is_waited_for(const char *const *gone,
			      const char *const *kept)
{
	static const char *const shape[2] = { "req_log (void)",
					      "req_check (int)" };

	for (int i = 1; i >= 0; i--) {
		for (const char *const *m = gone; *m; m++)
			ok(grace_waits_for(*m, i), "a grace period waits for "
			   "a thread inside plug-in %s's %s", *m, shape[i]);
		for (const char *const *m = kept; *m; m++)
#ifdef ULSM_LSM_HAS_ENTRIES
			ok(!grace_waits_for(*m, i), "  not for one inside %s, "
			   "which cannot be unloaded (%s)", *m, shape[i]);
#else
			ok(grace_waits_for(*m, i), "  and, without entries, "
			   "for one inside %s (%s)", *m, shape[i]);
#endif
	}
}

#endif
