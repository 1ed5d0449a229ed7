// SPDX-License-Identifier: MIT
/*
 * A program of release 0.2.0 (docs/abi.md, "How it is checked"): built by
 * t_abi_compat against the baseline's headers, abi/0.2.0/include, and run
 * with the library being tested. What it uses is compiled into it by
 * those headers: a tracepoint's record and site, a switch's record, a
 * static call's key and trampoline, a key's sites, the read-side
 * sections' inline code, the statistics' size. Each line it prints is a
 * check; it exits 1 at the first that fails.
 *
 * Kept as 0.2.0 wrote it: a later release's API does not belong here, but
 * in the next baseline's program.
 */
#include <stdio.h>
#include <string.h>

#include <ulsm/control.h>
#include <ulsm/grace.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

DECLARE_TRACEPOINT(compat_tp, TP_PROTO(int id, const char *what), TP_ARGS(id, what));
DEFINE_TRACEPOINT(compat_tp, TP_PROTO(int id, const char *what), TP_ARGS(id, what));
DEFINE_STATIC_SWITCH(compat_switch, "a 0.2.0 program's switch");
DEFINE_STATIC_KEY_FALSE(compat_key);

static int seen_id;
static char seen_what[16];

static void probe(void *data, int id, const char *what)
{
	*(int *)data += 1;
	seen_id = id;
	snprintf(seen_what, sizeof(seen_what), "%s", what);
}

static int one(int x) { return x + 1; }
static int two(int x) { return x + 2; }
DEFINE_STATIC_CALL(compat_call, one);

static int failed;

static void check(int cond, const char *what)
{
	printf("%s: %s\n", cond ? "ok" : "FAILED", what);
	if (!cond)
		failed = 1;
}

static __attribute__((noinline)) int branch(void)
{
	if (static_branch_unlikely(&compat_key))
		return 1;
	return 0;
}

static __attribute__((noinline)) int switched(void)
{
	return static_branch_unlikely(&compat_switch) ? 1 : 0;
}

int main(void)
{
	struct ulsm_stats st;
	int hits = 0;

	printf("headers %s, library %s\n", ULSM_VERSION, ulsm_version());
	check(branch() == 0, "a key's site is off");
	check(static_branch_enable(&compat_key) == 0 && branch() == 1,
	      "enabled, its site jumps");
	check(static_branch_disable(&compat_key) == 0 && branch() == 0,
	      "disabled again");

	check(static_call(compat_call)(1) == 2, "a static call calls its target");
	check(static_call_update(compat_call, two) == 0 &&
	      static_call(compat_call)(1) == 3, "and its new one");

	trace_compat_tp(1, "off");
	check(register_trace_compat_tp(probe, &hits) == 0,
	      "a probe attached to a tracepoint");
	trace_compat_tp(7, "seven");
	check(hits == 1 && seen_id == 7 && !strcmp(seen_what, "seven"),
	      "the probe got the event and its arguments");
	check(unregister_trace_compat_tp(probe, &hits) == 0,
	      "and was detached");
	trace_compat_tp(8, "eight");
	check(hits == 1, "no event after");

	check(switched() == 0 && static_branch_enable(&compat_switch) == 0 &&
	      switched() == 1, "a switch's key flips");

	ulsm_read_lock();
	ulsm_read_unlock();
	check(ulsm_synchronize() == 0, "a grace period after a read-side section");

	memset(&st, 0xff, sizeof(st));
	ulsm_get_stats(&st);
	check(st.batches >= 6 && st.batches != (unsigned long)-1 &&
	      st.grace_periods != (unsigned long)-1,
	      "the statistics, by 0.2.0's size");
	return failed;
}
