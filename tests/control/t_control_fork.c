// SPDX-License-Identifier: MIT
/*
 * What a forked child keeps of its parent's endpoint (docs/control.md,
 * "A forked child"): nothing that costs it. While an operator counts
 * (ulsmctl top) and records (ulsmctl record --hooks), the program forks
 * (a pre-forking server's workers): the child has no endpoint thread to
 * read or end them, so the counting probes, the recorder and the traced
 * dispatch are detached in it, and its own endpoint counts from nothing
 * and detaches when its last client goes. The parent's stay attached.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <ulsm/control.h>
#include <ulsm/lsm.h>
#include <ulsm/tracepoint.h>

#include "runtime.h"
#include "tap.h"
#include "child.h"
#include "control_client.h"
#include "control_tl.h"
#include "trace/trace.h"

DECLARE_TRACEPOINT(tf_event, TP_PROTO(int i), TP_ARGS(i));
DEFINE_TRACEPOINT(tf_event, TP_PROTO(int i), TP_ARGS(i));

struct tp_state {
	const char *name;
	bool found, counted, recorded;
};

static void look(void *arg, const struct ulsm_trace_info *i)
{
	struct tp_state *s = arg;

	if (strcmp(i->name, s->name))
		return;
	s->found = true;
	s->counted = i->counted;
	s->recorded = i->recorder;
}

static struct tp_state tp_state(const char *name)
{
	struct tp_state s = { .name = name };

	ulsm_trace_each(look, &s, -1);
	return s;
}

static bool set_traced(void)
{
	return static_key_enabled(&tl_hook_set.trace_keys[0]);
}

/* Counted again within 2 s of a client's close: false. */
static bool counted_within(bool want, int ms)
{
	for (int t = 0; t <= ms; t += 20) {
		if (tp_state("tf_event").counted == want)
			return true;
		usleep(20000);
	}
	return false;
}

/*
 * The child's own endpoint: one client counts, then goes; the counting
 * goes with it. Exit status: 0, or the first check that failed.
 */
static int own_endpoint(void)
{
	char *p = NULL;
	int fd;

	if (ulsm_control_start())
		return 10;
	fd = cc_connect(getpid());
	if (fd < 0 || cc_request(fd, "counts\n", &p, NULL, 0))
		return 11;
	free(p);
	if (!tp_state("tf_event").counted || !set_traced())
		return 12;	/* the child's own counting attached */
	close(fd);
	if (!counted_within(false, 2000))
		return 13;	/* and detached when its client went */
	if (set_traced())
		return 14;
	ulsm_control_stop();
	return 0;
}

static int child(bool threads)
{
	struct tp_state ev = tp_state("tf_event");
	struct tp_state hooks = tp_state("lsm_hook_tl");

	if (!ev.found || !hooks.found)
		return 2;
	if (ev.counted)
		return 3;	/* the parent's counting */
	if (ev.recorded || hooks.recorded)
		return 4;	/* the parent's recording */
	if (set_traced())
		return 5;	/* the parent's traced dispatch */
	for (int i = 0; i < 1000; i++) {
		trace_tf_event(i);
		(void)call_int_hook(file_open, &(struct t_file){ 0 });
		tl_trace_reset();
	}
	return threads ? own_endpoint() : 0;
}

static int fork_while_attached(void)
{
	pid_t me = getpid(), pid;
	char *p = NULL, msg[600];
	int counting, recording, status;
	bool threads = true;

#ifdef UNDER_TSAN
	threads = false;	/* no thread after a multi-threaded fork */
#endif
	if (getenv("ULSM_EMU") && *getenv("ULSM_EMU"))
		threads = false;	/* qemu-user cannot either */
	check(ulsm_control_start() == 0, "start");
	counting = cc_connect(me);
	check(cc_request(counting, "counts\n", &p, msg, sizeof(msg)) == 0,
	      "counts (%s)", msg);
	free(p);
	recording = cc_connect(me);
	check(cc_request(recording, "record tf_* tl\n", &p, msg,
			 sizeof(msg)) == 0, "record tf_* tl (%s)", msg);
	free(p);
	check(tp_state("tf_event").counted && tp_state("tf_event").recorded &&
	      tp_state("lsm_hook_tl").recorded && set_traced(),
	      "the parent counts, records and traces the set");

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(child(threads));
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status),
	      "the child exits (status %#x)", status);
	check(WEXITSTATUS(status) == 0,
	      "the child keeps none of its parent's counting, recording or "
	      "tracing%s (failed check %d)",
	      threads ? ", and its own endpoint counts and lets go" : "",
	      WEXITSTATUS(status));

	check(tp_state("tf_event").counted && tp_state("tf_event").recorded &&
	      tp_state("lsm_hook_tl").recorded && set_traced(),
	      "the parent's stay attached");
	check(!cc_send(recording, "stop\n"), "stop the recording");
	close(recording);
	close(counting);
	check(counted_within(false, 2000), "the parent's counting ends with "
	      "its client");
	ulsm_control_stop();
	return failures;
}

int main(void)
{
	tl_endpoint_init("2000");
	cc_case("a child of fork keeps none of its parent's counting, "
		"recording or tracing", fork_while_attached);
	return done_testing();
}
