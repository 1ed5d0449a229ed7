// SPDX-License-Identifier: MIT
/*
 * Modules that come and go (docs/hook-framework.md, "Modules that come and
 * go"): a host's set that allows unloading (ULSM_LSM_UNLOADABLE), with the
 * order "acl,tog,rate,audit,slow". acl and tog are the host's; rate,
 * audit, slow and spam are plug-ins (tests/lsm/plugins/module.c), loaded and
 * unloaded while the host runs.
 *
 *   - one thread: a listed module comes up in its place whatever the
 *     order of arrival; one not listed stays off and says why; dlclose()
 *     takes it out, and every query, the toggle of another module and the
 *     dump work afterwards; a thousand load/unload cycles do not use the
 *     slots up;
 *   - then 4 threads dispatch and check every answer while another loads
 *     and unloads rate, slow (whose callbacks sleep: threads are inside
 *     them when it goes) and spam (refused), and another toggles tog. A
 *     wrong answer is one that no state, old or new, gives: acl or audit
 *     missing (both are on throughout), a module called twice, or out of
 *     order. A thread in unmapped code crashes the test.
 *
 * --cycles N: the threaded part's load/unload cycles (make stress: more).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ULSM_LSM_DEFINE
#define ULSM_LSM_BUILTIN_ORDER "acl,tog,rate,audit,slow"
#include "plugins/set.h"

#include <ulsm/ulsm.h>

#include "plugin.h"
#include "runtime.h"
#include "tap.h"
#include "plugins/hold.h"	/* check(), pg_hold(), who_is_waited_for() */

static __thread char notes[256];

void pg_note(const char *who)
{
	size_t n = strlen(notes);

	snprintf(notes + n, sizeof(notes) - n, "%s%s", n ? " " : "", who);
}

static int acl_check(int r) { pg_hold("acl", r); return r == 13 ? -EPERM : 0; }
static void acl_log(int r) { pg_hold("acl", r); pg_note("acl"); }
static int tog_check(int r) { (void)r; return 0; }
static void tog_log(int r) { (void)r; pg_note("tog"); }

static const struct lsm_id acl_id = { "acl", 1 }, tog_id = { "tog", 2 };
static struct pg_hook_list acl_hooks[] = {
	LSM_HOOK_INIT(req_check, acl_check),
	LSM_HOOK_INIT(req_log, acl_log),
};
static struct pg_hook_list tog_hooks[] = {
	LSM_HOOK_INIT(req_check, tog_check),
	LSM_HOOK_INIT(req_log, tog_log),
};
static int acl_init(void) { return security_add_hooks(acl_hooks, 2, &acl_id); }
static int tog_init(void) { return security_add_hooks(tog_hooks, 2, &tog_id); }
DEFINE_LSM(acl) = { .name = "acl", .init = acl_init, .id = &acl_id };
DEFINE_LSM(tog) = { .name = "tog", .init = tog_init, .id = &tog_id };


static const char *log_trace(int request)
{
	notes[0] = '\0';
	call_void_hook(req_log, request);
	return notes;
}

/* This test's plug-ins (tests/lib/plugin.h). */
static void *load(const char *name)
{
	return plugin_load("pg_", name);
}

static bool unloads(const char *name)
{
	return plugin_unloads("pg_", name);
}

static bool owns_a_slot(const char *name)
{
	static const char *const hooks[] = { "req_check", "req_log" };

	for (int h = 0; h < 2; h++)
		for (unsigned int s = 0; s < MAX_LSM_COUNT; s++) {
			const struct lsm_id *id =
				ulsm_lsm_slot_owner(&pg_hook_set, hooks[h], s);

			if (id && !strcmp(id->name, name))
				return true;
		}
	return false;
}

/* One thread: arrival in its place, refusal, departure, cycles. */
static void one_thread(void)
{
	void *rate, *audit, *spam;
	const char *why, *before;
	char *dump = NULL;
	size_t dump_len = 0;
	FILE *f;
	int bad = 0;

	is_int(ulsm_lsm_allow_toggle(&pg_hook_set), 0, "toggling allowed");
	is_int(ulsm_lsm_allow_plugins(&pg_hook_set), 0,
	       "plug-ins allowed, even once sealed");
	is_int(ulsm_lsm_init(&pg_hook_set, NULL), 0, "init (acl,tog,rate,"
	       "audit,slow: only acl and tog are there)");
	ok(!strcmp(ulsm_lsm_list(&pg_hook_set), "acl,tog"), "  %s",
	   ulsm_lsm_list(&pg_hook_set));

	before = ulsm_lsm_list(&pg_hook_set);
	audit = load("audit");
	rate = load("rate");
	ok(audit && rate, "audit, then rate, loaded (%s)", dlerror());
	ok(!strcmp(ulsm_lsm_list(&pg_hook_set), "acl,tog,rate,audit"),
	   "  each in its place, whatever the order of arrival: %s",
	   ulsm_lsm_list(&pg_hook_set));
	ok(!strcmp(before, "acl,tog"), "  the list given before is "
	   "unchanged: %s", before);
	before = ulsm_lsm_list(&pg_hook_set);
	ok(!strcmp(log_trace(1), "acl tog rate audit"),
	   "  and called in that order: %s", notes);
	is_int(check(7), -EACCES, "  rate answers");
	is_int(check(100), -EACCES, "  audit answers");
	is_int(check(13), -EPERM, "  acl answers first");
	if (PLUGINS_GUARDED)
		who_is_waited_for((const char *const[]){ "audit", NULL },
				  (const char *const[]){ "acl", NULL });
	else
		who_is_waited_for((const char *const[]){ NULL },
				  (const char *const[]){ "acl", "audit", NULL });

	spam = load("spam");
	ok(spam != NULL, "spam (not listed) loads");
	is_int(ulsm_lsm_module_active(&pg_hook_set, "spam"), 0, "  but stays off");
	why = ulsm_lsm_module_reason(&pg_hook_set, "spam");
	ok(why && strstr(why, "not listed"), "  and says why: %s",
	   why ? why : "(none)");
	is_int(check(5), 0, "  request 5 allowed");

	is_int(dlclose(rate), 0, "rate closed");
	if (!unloads("rate")) {
		/* musl: nothing leaves; what follows needs departures. */
		diag("dlclose() does not unload here (musl): modules stay");
		ok(!strcmp(ulsm_lsm_list(&pg_hook_set), "acl,tog,rate,audit"),
		   "  so rate stays, in its place: %s",
		   ulsm_lsm_list(&pg_hook_set));
		dlclose(spam);
		return;
	}
	ok(!strcmp(before, "acl,tog,rate,audit"), "  the list given "
	   "before is unchanged: %s", before);
	ok(!strcmp(ulsm_lsm_list(&pg_hook_set), "acl,tog,audit"), "  the list: %s",
	   ulsm_lsm_list(&pg_hook_set));
	ok(!strcmp(log_trace(1), "acl tog audit"), "  dispatch: %s", notes);
	is_int(check(7), 0, "  request 7 allowed again");
	is_int(ulsm_lsm_module_active(&pg_hook_set, "rate"), 0,
	       "  module_active(rate): 0");
	why = ulsm_lsm_module_reason(&pg_hook_set, "rate");
	ok(why && strstr(why, "unloaded"), "  its reason: %s", why ? why : "-");
	ok(!owns_a_slot("rate"), "  no slot names it");
	is_int(ulsm_lsm_toggle(&pg_hook_set, "tog", false), 0,
	       "  toggling another module off works");
	ok(!strcmp(log_trace(1), "acl audit"), "    %s", notes);
	is_int(ulsm_lsm_toggle(&pg_hook_set, "tog", true), 0, "    and on");
	f = open_memstream(&dump, &dump_len);
	if (f) {
		ulsm_dump(f);
		fclose(f);
	}
	ok(dump && strstr(dump, "hook set pg") && strstr(dump, "audit"),
	   "  the dump works (%zu bytes)", dump_len);
	free(dump);
	is_int(dlclose(spam), 0, "spam unloaded");
	ok(!strcmp(ulsm_lsm_list(&pg_hook_set), "acl,tog,audit"), "  %s",
	   ulsm_lsm_list(&pg_hook_set));

	/* A thousand cycles: the freed slots are used again. */
	for (int i = 0; i < 1000; i++) {
		void *h = load("rate");

		if (!h || strcmp(ulsm_lsm_list(&pg_hook_set),
				 "acl,tog,rate,audit") || check(7) != -EACCES ||
		    strcmp(log_trace(1), "acl tog rate audit"))
			bad++;
		if (!h || dlclose(h) || check(7) != 0 ||
		    strcmp(ulsm_lsm_list(&pg_hook_set), "acl,tog,audit"))
			bad++;
		if (bad == 1)
			diag("  cycle %d: %s / %s", i,
			     ulsm_lsm_list(&pg_hook_set), notes);
	}
	is_int(bad, 0, "1000 load/unload cycles of rate, each in its place");
	(void)audit;
}

/* --- threads ------------------------------------------------------------ */

static volatile int stop;
static unsigned long dispatches, wrong;

/* A log trace some state gives: a subsequence of the order, acl and audit in. */
static bool valid_trace(const char *t)
{
	static const char *const order[] = { "acl", "tog", "rate", "audit",
					     "slow" };
	char buf[256], *save, *tok;
	size_t at = 0;
	bool acl = false, audit = false;

	snprintf(buf, sizeof(buf), "%s", t);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		while (at < 5 && strcmp(order[at], tok))
			at++;
		if (at == 5)
			return false;	/* unknown, twice, or out of order */
		acl |= at == 0;
		audit |= at == 3;
		at++;
	}
	return acl && audit;
}

static void *dispatcher(void *arg)
{
	unsigned long n = 0, w = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int r7 = check(7);

		w += check(13) != -EPERM;
		w += check(100) != -EACCES;
		w += check(5) != 0;
		w += r7 != 0 && r7 != -EACCES;
		if (!valid_trace(log_trace(1))) {
			if (!w)
				printf("# wrong trace: %s\n", notes);
			w++;
		}
		n += 5;
	}
	__atomic_fetch_add(&dispatches, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&wrong, w, __ATOMIC_RELAXED);
	return NULL;
}

static void *toggler(void *arg)
{
	unsigned long *toggles = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (ulsm_lsm_toggle(&pg_hook_set, "tog", false) ||
		    ulsm_lsm_toggle(&pg_hook_set, "tog", true))
			__atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
		(*toggles)++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long cycles = arg_count(argc, argv, "--cycles",
				under_emulator() ? 30 : 200);
	unsigned long toggles = 0, failed_loads = 0;
	pthread_t t[4], tt;

	hold_init();
	one_thread();

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, dispatcher, NULL);
	pthread_create(&tt, NULL, toggler, &toggles);
	for (long i = 0; i < cycles; i++) {
		void *rate = load("rate"), *slow = load("slow"),
		     *spam = load("spam");

		failed_loads += !rate + !slow + !spam;
		if (slow)
			dlclose(slow);
		if (spam)
			dlclose(spam);
		if (rate)
			dlclose(rate);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_join(tt, NULL);
	ok(wrong == 0 && failed_loads == 0 && dispatches > 0,
	   "4 threads dispatching while %ld cycles load and unload rate, slow "
	   "and spam and another thread toggles tog: %lu dispatches checked, "
	   "%lu toggles, %lu wrong, %lu failed loads", cycles, dispatches,
	   toggles, wrong, failed_loads);
	if (unloads("rate"))
		ok(!strcmp(ulsm_lsm_list(&pg_hook_set), "acl,tog,audit"),
		   "  the set is back as it was: %s",
		   ulsm_lsm_list(&pg_hook_set));

	/* Sealed, but opened to plug-ins before: they still come and go. */
	is_int(ulsm_lsm_seal(&pg_hook_set), 0, "sealed");
	is_int(ulsm_lsm_allow_toggle(&pg_hook_set), -EPERM,
	       "  the opt-ins are closed");
	{
		void *rate = load("rate");

		ok(rate && ulsm_lsm_module_active(&pg_hook_set, "rate") == 1 &&
		   check(7) == -EACCES, "  a plug-in arrives in the sealed "
		   "set: %s", ulsm_lsm_list(&pg_hook_set));
		if (rate)
			dlclose(rate);
		if (unloads("rate"))
			ok(check(7) == 0 && !strcmp(ulsm_lsm_list(&pg_hook_set),
						    "acl,tog,audit"),
			   "  and leaves it: %s", ulsm_lsm_list(&pg_hook_set));
	}
	return done_testing();
}
