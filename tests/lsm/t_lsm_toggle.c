// SPDX-License-Identifier: MIT
/*
 * The run-time toggle under a stress of dispatching threads. beta denies
 * file_open with -EACCES, the others allow; a flipper turns beta off and on
 * (each toggle is one batch over all of beta's slots) while threads call
 * call_int_hook(file_open). Every result must be 0 or -EACCES, and a call
 * bracketed by the same even sequence number must match the state: a
 * thread that saw the toggle complete sees its effect.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "seqcheck.h"
#include "tap.h"
#include "test_lsm.h"

static int toggle(long i)
{
	return ulsm_lsm_toggle(&tl_hook_set, "beta", i & 1);
}

static void *worker_main(void *arg)
{
	struct seq_worker *w = arg;
	struct t_file f = { NULL, 0 };

	while (seq_running()) {
		unsigned long s1 = seq_begin(&seq_shared);
		int rc = call_int_hook(file_open, &f);
		unsigned long s2 = seq_end(&seq_shared);
		/* beta starts on; each completed toggle flips it. */
		int beta_on = !((s1 / 2) & 1);

		seq_record(w, s1, s2, rc == 0 || rc == -EACCES,
			   rc == (beta_on ? -EACCES : 0));
	}
	return NULL;
}

/* The callbacks file_open ran, in order, after toggling @name to @on. */
static const char *after_toggle(const char *name, bool on)
{
	struct t_file f = { NULL, 0 };

	if (ulsm_lsm_toggle(&tl_hook_set, name, on))
		return "(toggle failed)";
	tl_trace_reset();
	(void)call_int_hook(file_open, &f);
	return tl_trace;
}

/*
 * A disabled module between enabled ones: the walk must jump over its slot
 * and go on, and end at the first slot after which nothing is on.
 */
static void holes(void)
{
	static const struct {
		const char *name;
		bool on;
		const char *trace;
	} steps[] = {
		{ "alpha", false, "capa:file_open beta:file_open" },
		{ "capa", false, "beta:file_open" },
		{ "beta", false, "" },
		{ "alpha", true, "alpha:file_open" },
		{ "beta", true, "alpha:file_open beta:file_open" },
		{ "capa", true, "capa:file_open alpha:file_open beta:file_open" },
	};

	tl_ret[M_BETA][tl_hook_idx_file_open] = 0;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const char *t = after_toggle(steps[i].name, steps[i].on);

		ok(!strcmp(t, steps[i].trace), "%s %s: file_open runs \"%s\"",
		   steps[i].name, steps[i].on ? "on" : "off", t);
	}
	tl_ret[M_BETA][tl_hook_idx_file_open] = -EACCES;
}

int main(int argc, char **argv)
{
	long toggles = arg_count(argc, argv, "--toggles", 1000);
	long nthreads = seq_threads(argc, argv);
	struct seq_worker *w, sum;
	long failed;

	/*
	 * An even count, so that beta ends on, as it began: the list names
	 * only the modules toggled on (an emulator's eighth of 1000 is odd).
	 */
	toggles += toggles & 1;
	tl_defaults();
	tl_ret[M_BETA][tl_hook_idx_file_open] = -EACCES;
	is_int(ulsm_lsm_init(&tl_hook_set, "alpha,beta"), 0, "init");
	is_int(ulsm_lsm_allow_toggle(&tl_hook_set), 0, "opt in to toggling");
	is_int(ulsm_lsm_seal(&tl_hook_set), 0, "seal (slot keys stay writable)");
	is_int(ulsm_lsm_toggle(&tl_hook_set, "nosuch", false), -ENOENT,
	       "toggling an unknown module -> -ENOENT");
	is_int(ulsm_lsm_toggle(&tl_hook_set, "omega", false), -ENOENT,
	       "toggling a module that is not active -> -ENOENT");

	holes();

	w = seq_start(nthreads, worker_main);
	failed = seq_run_updates(toggles, seq_shared_of, toggle, "toggle");
	sum = seq_join(w, nthreads);
	diag("%ld toggles, %ld threads, %lu calls, %lu checked strictly (%s)",
	     toggles, nthreads, sum.runs, sum.strict, ulsm_backend());
	is_int(failed, 0, "every toggle succeeded");
	is_int(sum.invalid, 0, "every call returned 0 or -EACCES");
	is_int(sum.wrong, 0, "after a completed toggle every call saw it");
	ok(sum.strict > 0, "calls were checked strictly");
	ok(!strcmp(ulsm_lsm_list(&tl_hook_set), "capa,alpha,beta"),
	   "the module list is as before the toggles (beta on again)");
	return done_testing();
}
