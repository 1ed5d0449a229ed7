// SPDX-License-Identifier: MIT
/*
 * Tracing a set's dispatch (ulsm_lsm_trace, docs/hook-framework.md
 * "Tracing the dispatch"), in every shape the set dispatches: an int
 * hook's entry, a void hook's entry, the C walk (seven parameters, a
 * double), and lsm_for_each_hook. A probe on the set's tracepoint
 * (lsm_hook_tl) collects the steps: each module that ran, its result,
 * whether it decided, its time. Then the race: threads dispatch every
 * shape while tracing goes on and off and a module is toggled, and
 * every result must be one the modules can give (the same with tracing
 * as without).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/tracepoint.h>

#include "seqcheck.h"
#include "tap.h"
#include "test_lsm.h"

#define MAXEV	64

static struct ev {
	char hook[32], module[16];
	long ret;
	unsigned long ns;
	bool decided;
} evs[MAXEV];
static int nev;
static __thread bool collect;

static void on_step(void *data, const char *hook, const char *module,
		    long ret, unsigned long ns, bool decided)
{
	(void)data;
	if (!collect || nev == MAXEV)
		return;
	snprintf(evs[nev].hook, sizeof(evs[nev].hook), "%s", hook);
	snprintf(evs[nev].module, sizeof(evs[nev].module), "%s", module);
	evs[nev].ret = ret;
	evs[nev].ns = ns;
	evs[nev].decided = decided;
	nev++;
}

/* The steps as "module=ret(d)" words. */
static const char *steps(void)
{
	static char s[512];
	size_t n = 0;

	s[0] = '\0';
	for (int i = 0; i < nev && n < sizeof(s) - 40; i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s:%s=%ld%s",
				      i ? " " : "", evs[i].hook, evs[i].module,
				      evs[i].ret, evs[i].decided ? "!" : "");
	return s;
}

static void start(void)
{
	nev = 0;
	collect = true;
	tl_trace_reset();
}

static int for_each_getselfattr(char *buf, size_t len)
{
	struct lsm_static_call *scall;
	int rc = -EOPNOTSUPP;

	lsm_for_each_hook(scall, getselfattr) {
		int r = lsm_hook_fn(scall, getselfattr)(buf, len);

		if (r != -EOPNOTSUPP) {
			rc = r;
			break;
		}
	}
	return rc;
}

static void shapes(void)
{
	struct t_file f = { NULL, 0 };
	char buf[16];
	int rc;

	start();
	rc = call_int_hook(file_open, &f);
	is_int(rc, -EACCES, "off: file_open denied by beta");
	ok(nev == 0, "off: no step reported (%s)", steps());

	ok(ulsm_lsm_trace(&tl_hook_set, true) == 0, "tracing on (%s)",
	   ulsm_last_error());
	start();
	rc = call_int_hook(file_open, &f);
	collect = false;
	is_int(rc, -EACCES, "traced: file_open still denied by beta");
	is_string(tl_trace, "capa:file_open alpha:file_open beta:file_open",
		  "traced: the same modules, in order");
	is_string(steps(), "file_open:capa=0 file_open:alpha=0 "
		  "file_open:beta=-13!", "an int entry: each module, its "
		  "result, beta decided");
	ok(nev == 3 && evs[0].ns > 0 && evs[2].ns > 0, "each with its time "
	   "(%lu, %lu ns)", nev ? evs[0].ns : 0, nev > 2 ? evs[2].ns : 0);

	start();
	call_void_hook(file_free_security, &f);
	collect = false;
	is_string(steps(), "file_free_security:capa=0 "
		  "file_free_security:alpha=0 file_free_security:beta=0",
		  "a void entry: every module, none deciding");

	start();
	rc = call_int_hook(seven_args, 1, 2, 3, 4, 5, 6, 7);
	collect = false;
	is_int(rc, 0, "seven_args: allowed");
	ok(nev >= 1 && !strcmp(evs[0].hook, "seven_args"),
	   "the C walk with seven parameters: its modules (%s)", steps());

	tl_ret[M_ALPHA][tl_hook_idx_scaled] = -EPERM;
	start();
	rc = call_int_hook(scaled, 2.5);
	collect = false;
	tl_ret[M_ALPHA][tl_hook_idx_scaled] = 0;
	is_int(rc, -EPERM, "scaled (a double): alpha's -EPERM");
	ok(strstr(steps(), "scaled:alpha=-1!") != NULL,
	   "the C walk with a double: alpha decided (%s)", steps());

	start();
	rc = for_each_getselfattr(buf, sizeof(buf));
	collect = false;
	ok(nev >= 1 && !strcmp(evs[0].hook, "getselfattr") &&
	   !evs[0].decided, "lsm_for_each_hook: each module reached, timed "
	   "(%s; rc %d)", steps(), rc);

	ok(ulsm_lsm_trace(&tl_hook_set, false) == 0, "tracing off");
	start();
	rc = call_int_hook(file_open, &f);
	call_void_hook(file_free_security, &f);
	(void)call_int_hook(seven_args, 1, 2, 3, 4, 5, 6, 7);
	(void)for_each_getselfattr(buf, sizeof(buf));
	collect = false;
	ok(rc == -EACCES && nev == 0, "off again: no step, the same result");
	ok(ulsm_lsm_trace(&tl_hook_set, false) == -EINVAL,
	   "off without a holder: -EINVAL");
}

/* --- the race ------------------------------------------------------------ */

static void *worker_main(void *arg)
{
	struct seq_worker *w = arg;
	struct t_file f = { NULL, 0 };
	char buf[16];

	while (seq_running()) {
		int a = call_int_hook(file_open, &f);
		int b = call_int_hook(seven_args, 1, 2, 3, 4, 5, 6, 7);
		int c = call_int_hook(scaled, 1.0);
		int d = for_each_getselfattr(buf, sizeof(buf));

		call_void_hook(file_free_security, &f);
		tl_trace_reset();
		seq_record(w, 0, 1, (a == 0 || a == -EACCES) && b == 0 &&
			   c == 0 && d == -EOPNOTSUPP, true);
	}
	return NULL;
}

/* Wait until the workers made @n more calls. */
static void progress(unsigned long n)
{
	unsigned long from = __atomic_load_n(&seq_progress, __ATOMIC_RELAXED);

	while (__atomic_load_n(&seq_progress, __ATOMIC_RELAXED) - from < n)
		sched_yield();
}

static void race(long rounds, long nthreads)
{
	struct seq_worker *w, sum;
	int fails = 0;

	w = seq_start(nthreads, worker_main);
	for (long i = 0; i < rounds; i++) {
		fails += ulsm_lsm_trace(&tl_hook_set, true) != 0;
		fails += ulsm_lsm_toggle(&tl_hook_set, "beta", i & 1) != 0;
		progress(20);
		fails += ulsm_lsm_trace(&tl_hook_set, false) != 0;
		progress(20);
	}
	sum = seq_join(w, nthreads);
	ok(!fails, "%ld rounds of tracing on and off, beta toggled between: "
	   "every change made (%d failed: %s)", rounds, fails,
	   ulsm_last_error());
	ok(!sum.invalid, "%lu calls of every shape while it changed: every "
	   "result one the modules give (%lu not)", sum.runs, sum.invalid);
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, "--rounds", 200);
	long nthreads = arg_long(argc, argv, "--threads", 3);

	tl_defaults();
	tl_ret[M_BETA][tl_hook_idx_file_open] = -EACCES;
	if (ulsm_lsm_init(&tl_hook_set, "capa,alpha,beta"))
		skip_all("the test set does not initialise");
	ok(ulsm_lsm_trace(&tl_hook_set, true) == 0 &&
	   ulsm_lsm_trace(&tl_hook_set, false) == 0, "a set traced and not");
	ok(register_trace_lsm_hook_tl(on_step, NULL) == 0,
	   "a probe on the set's tracepoint");
	shapes();
	ok(ulsm_lsm_allow_toggle(&tl_hook_set) == 0, "the toggle allowed");
	race(rounds, nthreads);
	ok(ulsm_lsm_seal(&tl_hook_set) == 0, "sealed");
	shapes();
	return done_testing();
}
