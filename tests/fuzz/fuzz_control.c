// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_control.c - the control endpoint's requests under
 * libFuzzer (tests/fuzz/fuzz.mk; make check replays its corpus).
 *
 * An input is what one client sends on one connection: request lines,
 * many pipelined in one buffer, any bytes. They go through the code a
 * connection of the endpoint runs (src/control/conn.c's conn_read() and
 * conn_progress(), which hand each line to commands.c's ctl_request(),
 * and from there stream.c, counts.c, render.c and the library), on one
 * end of a socketpair, this harness being the client on the other end:
 * only the endpoint's thread, its socket file and accept() are left out,
 * and the loop below moves the connection on as the thread's does
 * (server.c: read, rec_pump(), progress; a client that closed its side
 * mid-recording is stopped; a connection done is dropped).
 *
 * The program has something for each verb to act on: a switch, a
 * tracepoint, and a hook set "fz" of two modules that may be toggled;
 * at each step the tracepoint fires and the hook is called, so that a
 * recording has events of both.
 *
 * An input fails the harness (abort) if the replies are not whole and
 * well formed or do not answer each line once (reply_check.h), if the
 * endpoint does not finish a connection whose client has closed, or if
 * the connection leaves something behind once it is gone: a probe on the
 * tracepoint, its set traced, a recording open. What the requests may
 * change for good (the switch, the toggles, the recorder's rings) is put
 * back after each input, so that inputs do not depend on each other.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ulsm/control.h>
#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#include "control/endpoint.h"
#include "reply_check.h"

#define ULSM_LSM_SET		fz
#define ULSM_LSM_HOOK_DEFS	"fuzz_hook_defs.h"
#define MAX_LSM_COUNT		2
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

DEFINE_STATIC_SWITCH(fz_switch, "a switch for the fuzzer to flip");
DECLARE_TRACEPOINT(fz_event, TP_PROTO(int step, const char *what),
		   TP_ARGS(step, what));
DEFINE_TRACEPOINT(fz_event, TP_PROTO(int step, const char *what),
		  TP_ARGS(step, what));

#include "req_modules.h"	/* allow and deny */

/* Steps a connection may take once its client closed, before a hang. */
#define DRAIN_STEPS	10000
/* Replies kept for the check; more is drained, and left unchecked. */
#define KEEP_MAX	(16u << 20)

static void quiet(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

static void fail(const char *what, const uint8_t *data, size_t size)
{
	fprintf(stderr, "fuzz_control: %s (input of %zu bytes: \"%.*s\")\n",
		what, size, (int)(size > 200 ? 200 : size), (const char *)data);
	abort();
}

static void setup(void)
{
	ulsm_set_log(quiet, NULL);
	if (ulsm_lsm_allow_toggle(&fz_hook_set) ||
	    ulsm_lsm_init(&fz_hook_set, "allow,deny")) {
		fprintf(stderr, "fuzz_control: %s\n", ulsm_last_error());
		abort();
	}
	ctl.timeout_ms = CTL_TIMEOUT_MS;
}

/* The client's side: what the endpoint sent, kept up to KEEP_MAX. */
struct client {
	int fd;
	char *got;
	size_t len, cap;
	bool over;
};

static void take_replies(struct client *cl)
{
	char buf[65536];
	ssize_t n;

	while ((n = recv(cl->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (cl->len + (size_t)n > KEEP_MAX) {
			cl->over = true;
			continue;
		}
		if (cl->len + (size_t)n > cl->cap) {
			cl->cap = cl->cap * 2 > cl->len + (size_t)n ?
				  cl->cap * 2 : cl->len + (size_t)n + 65536;
			cl->got = realloc(cl->got, cl->cap);
			if (!cl->got)
				abort();
		}
		memcpy(cl->got + cl->len, buf, (size_t)n);
		cl->len += (size_t)n;
	}
}

/* What the requests may have changed for good, put back. */
static void put_back(void)
{
	static_branch_disable(&fz_switch);
	ulsm_lsm_toggle(&fz_hook_set, "allow", true);
	ulsm_lsm_toggle(&fz_hook_set, "deny", true);
	ulsm_trace_clear();
	ulsm_clear_error();
}

/* Once the connection is gone: no probe, no traced set, no recording. */
static void check_left_nothing(const uint8_t *data, size_t size)
{
	static const char *const tps[] = { "fz_event", "lsm_hook_fz" };

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		struct ulsm_tracepoint *tp = ulsm_tracepoint_find(tps[i]);

		if (!tp || static_key_enabled(tp->key))
			fail("a probe left on a tracepoint", data, size);
	}
	if (static_key_enabled(&fz_hook_set.trace_keys[0]))
		fail("the hook set left traced", data, size);
	if (rec_wait_ms() >= 0)
		fail("a recording left open", data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	static struct conn conn;
	struct conn *c = &conn;
	struct client cl = { .fd = -1 };
	size_t sent = 0, answers, want;
	int sv[2], step = 0, after_eof = 0;
	bool open = true, last_end;
	const char *bad;

	if (!ready) {
		setup();
		ready = true;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	cl.fd = sv[1];
	*c = (struct conn){ .fd = sv[0], .out.max = ulsm_control_out_max,
			    .since = ulsm_now_ms() };
	while (open) {
		if (sent < size) {
			ssize_t n = send(cl.fd, data + sent, size - sent,
					 MSG_DONTWAIT | MSG_NOSIGNAL);

			if (n > 0)
				sent += (size_t)n;
		}
		if (sent == size) {
			if (!after_eof)
				shutdown(cl.fd, SHUT_WR);
			if (++after_eof > DRAIN_STEPS)
				fail("the connection is not done long after "
				     "its client closed", data, size);
		}
		open = ctl_follow(c, conn_read(c, ctl_request));
		trace_fz_event(step, "step");
		(void)call_int_hook(req_check, step++);
		rec_pump();
		if (open)
			open = ctl_follow(c, conn_progress(c, ctl_request));
		take_replies(&cl);
	}
	take_replies(&cl);
	close(cl.fd);
	check_left_nothing(data, size);
	put_back();
	if (!cl.over) {
		bad = check_replies(cl.got, cl.len, &answers, &last_end);
		if (bad)
			fail(bad, data, size);
		want = expected_answers(data, size);
		if (answers != want && !(answers == want + 1 && last_end))
			fail("not one answer per request line", data, size);
	}
	free(cl.got);
	return 0;
}
