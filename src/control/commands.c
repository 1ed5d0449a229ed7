// SPDX-License-Identifier: MIT
/*
 * The control endpoint's requests (docs/control.md, "The protocol"): one
 * line, a verb and its arguments of printable characters separated by
 * single spaces; each verb replies once, "ok <n>" and its JSON or an
 * error line with the library's message.
 */
#include <errno.h>
#include <string.h>

#include <ulsm/lsm.h>

#include "control/endpoint.h"
#include "base/hook_sets.h"
#include "trace/trace.h"

static int on_off(const char *w)
{
	return !strcmp(w, "on") ? 1 : !strcmp(w, "off") ? 0 : -1;
}

static void reply(struct conn *c, int ret, struct buf *j)
{
	if (ret) {
		conn_reply_error(c, ret, ulsm_last_error());
	} else {
		if (j->len)
			buf_add(j, "\n", 1);
		conn_reply_ok(c, j);
	}
	buf_free(j);
}

static void do_hello(struct conn *c)
{
	struct buf j = { .max = CTL_REPLY_MAX };

	render_hello(&j);
	reply(c, 0, &j);
}

static void do_show(struct conn *c)
{
	struct buf j = { .max = CTL_REPLY_MAX };

	if (render_show(&j)) {
		buf_free(&j);
		conn_reply_error(c, -EBUSY, "the tracepoints are busy (a "
				 "probe is being attached or detached)");
		return;
	}
	reply(c, 0, &j);
}

static void switch_done(void *arg, const struct ulsm_switch *sw)
{
	render_switch(arg, sw);
}

static void do_switch(struct conn *c, const char *name, const char *state)
{
	struct buf j = { .max = CTL_REPLY_MAX };
	int on = on_off(state);

	if (on < 0) {
		conn_reply_error(c, -EINVAL, "switch NAME on|off");
		return;
	}
	ulsm_clear_error();
	reply(c, ulsm_switch_set(name, on, switch_done, &j), &j);
}

static void toggle_done(void *arg, const struct ulsm_lsm_module_info *m)
{
	render_module(arg, m);
}

/*
 * The reply is the module as the toggle left it, rendered by the
 * framework under its lock right after the change: a second look after
 * the toggle (and its grace period) could find it changed again, or
 * gone.
 */
static void do_toggle(struct conn *c, const char *set, const char *module,
		      const char *state)
{
	struct buf j = { .max = CTL_REPLY_MAX };
	struct ulsm_hook_set *hs;
	int on = on_off(state), ret;

	if (on < 0) {
		conn_reply_error(c, -EINVAL, "toggle SET MODULE on|off");
		return;
	}
	hs = ulsm_lsm_set_named(set);
	if (!hs) {
		conn_reply_error(c, -ENOENT, "no initialised hook set of that "
				 "name");
		return;
	}
	ulsm_clear_error();
	ret = ulsm_lsm_ops()->toggle(hs, module, on, toggle_done, &j);
	ulsm_control_test(ULSM_CTL_TOGGLED);
	reply(c, ret, &j);
}

/* The first on a connection attaches the counting; its close detaches. */
static void do_counts(struct conn *c)
{
	struct buf j = { .max = CTL_REPLY_MAX };
	int ret = 0;

	if (!c->counting) {
		ret = counts_hold();
		c->counting = !ret;
	}
	if (!ret && render_counts(&j)) {
		buf_free(&j);
		conn_reply_error(c, -EBUSY, "the tracepoints are busy (a "
				 "probe is being attached or detached)");
		return;
	}
	reply(c, ret, &j);
}

static void do_clear(struct conn *c)
{
	struct buf j = { .max = CTL_REPLY_MAX };

	reply(c, ulsm_trace_clear(), &j);
}

/* Split @line into at most @max words: how many, or -1 (bad input). */
static int words(char *line, char **arg, int max)
{
	int n = 0;

	for (char *p = line; *p; p++)
		if ((unsigned char)*p < ' ' || (unsigned char)*p >= 0x7f)
			return -1;
	for (char *p = line;;) {
		char *sp = strchr(p, ' ');

		if (sp == p || !*p || n == max)
			return -1;	/* an empty word, or too many */
		arg[n++] = p;
		if (!sp)
			return n;
		*sp = '\0';
		p = sp + 1;
	}
}

void ctl_request(struct conn *c, char *line)
{
	char *arg[4];
	int n = words(line, arg, 4);

	if (n > 0 && c->recording) {
		if (n == 1 && !strcmp(arg[0], "stop"))
			rec_stop(c);
		else
			conn_reply_error(c, -EINVAL, "inside a recording, "
					 "only stop");
		return;
	}
	if (n == 1 && !strcmp(arg[0], "hello"))
		do_hello(c);
	else if (n == 1 && !strcmp(arg[0], "show"))
		do_show(c);
	else if (n == 3 && !strcmp(arg[0], "switch"))
		do_switch(c, arg[1], arg[2]);
	else if (n == 4 && !strcmp(arg[0], "toggle"))
		do_toggle(c, arg[1], arg[2], arg[3]);
	else if (n == 1 && !strcmp(arg[0], "clear"))
		do_clear(c);
	else if (n == 1 && !strcmp(arg[0], "counts"))
		do_counts(c);
	else if ((n == 2 || n == 3) && !strcmp(arg[0], "record"))
		rec_start(c, arg[1], n == 3 ? arg[2] : NULL);
	else
		conn_reply_error(c, -EINVAL, "bad request (verbs: hello, "
				 "show, switch NAME on|off, toggle SET MODULE "
				 "on|off, clear, record GLOB [SET], counts, stop)");
}
