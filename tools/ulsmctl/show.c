// SPDX-License-Identifier: MIT
/*
 * ulsmctl show: what a program's library knows, as tables (ulsmctl(1)):
 * the process, its switches, its tracepoints, its hook sets with their
 * modules in order and the modules the order expects but that are not
 * loaded; with --all, the keys and static calls too (read-only, and
 * mostly the library's own: tracepoint slots, hook slots). With --json,
 * the reply, re-serialised compactly.
 *
 * Everything is printed from the parsed reply (json.c), escaped
 * (escape.c), and a field that is not there is "-": an older endpoint
 * has no "usdt", "recording", "place" or "expected". The output is
 * linear in the reply: each value is measured once and printed once.
 */
#include <stdio.h>
#include <string.h>

#include "ulsmctl.h"
#include "json.h"

#define COL_MAX	48	/* a longer value overflows its column */

/* A string member, escaped; "-" when it is not a string. */
static void put_str(const struct json *j, const struct json_node *o,
		    const char *key, int width)
{
	size_t len;
	const char *s = json_str(j, json_get(j, o, key), &len);

	if (!s)
		s = "-", len = 1;
	esc_pad(stdout, s, len, width);
}

static int str_width(const struct json *j, const struct json_node *o,
		     const char *key)
{
	size_t len;
	const char *s = json_str(j, json_get(j, o, key), &len);

	return s ? esc_width(s, len) : 1;
}

static const char *yes_no(int b, const char *yes, const char *no)
{
	return b < 0 ? "-" : b ? yes : no;
}

/* A number member as an integer, or "-". */
static const char *num_text(const struct json *j, const struct json_node *o,
			    const char *key, char *buf, size_t size)
{
	const struct json_node *v = json_get(j, o, key);

	if (!v || v->type != JSON_NUMBER)
		return "-";
	snprintf(buf, size, "%.0f", json_num(j, v, 0));
	return buf;
}

static int widest(int w, int v)
{
	if (v > COL_MAX)
		v = COL_MAX;
	return v > w ? v : w;
}

static void process(const struct json *j, const struct json_node *p)
{
	char num[32];

	put_str(j, p, "command", 0);
	printf(" (pid %s", num_text(j, p, "pid", num, sizeof(num)));
	printf(", uid %s): ulsm ", num_text(j, p, "uid", num, sizeof(num)));
	put_str(j, p, "version", 0);
	fputs(", back end ", stdout);
	put_str(j, p, "backend", 0);
	fputs(", sync ", stdout);
	put_str(j, p, "sync", 0);
	putchar('\n');
}

static void switches(const struct json *j, const struct json_node *a)
{
	int w = 6;

	if (!json_first(j, a)) {
		printf("\nno switches\n");
		return;
	}
	for (const struct json_node *s = json_first(j, a); s;
	     s = json_next(j, s))
		w = widest(w, str_width(j, s, "name"));
	printf("\n%-*s  STATE  DESCRIPTION\n", w, "SWITCH");
	for (const struct json_node *s = json_first(j, a); s;
	     s = json_next(j, s)) {
		put_str(j, s, "name", w);
		printf("  %-5s  ", yes_no(json_bool(json_get(j, s, "on")), "on",
					  "off"));
		put_str(j, s, "description", 0);
		putchar('\n');
	}
}

static void tracepoints(const struct json *j, const struct json_node *a)
{
	char num[32];
	int w = 10;

	if (!json_first(j, a)) {
		printf("\nno tracepoints\n");
		return;
	}
	for (const struct json_node *t = json_first(j, a); t;
	     t = json_next(j, t))
		w = widest(w, str_width(j, t, "name"));
	printf("\n%-*s  STATE  PROBES  RECORDING  USDT  ARGS\n", w,
	       "TRACEPOINT");
	for (const struct json_node *t = json_first(j, a); t;
	     t = json_next(j, t)) {
		const struct json_node *rec = json_get(j, t, "recording");

		/* An older endpoint says whether the recorder is a probe. */
		if (!rec)
			rec = json_get(j, t, "recorder");
		put_str(j, t, "name", w);
		printf("  %-5s  %6s  %-9s  %-4s  ",
		       yes_no(json_bool(json_get(j, t, "on")), "on", "off"),
		       num_text(j, t, "probes", num, sizeof(num)),
		       yes_no(json_bool(rec), "yes", "no"),
		       yes_no(json_bool(json_get(j, t, "usdt")), "yes", "no"));
		put_str(j, t, "args", 0);
		putchar('\n');
	}
}

static void set_flags(const struct json *j, const struct json_node *s)
{
	static const char *const key[] = { "sealed", "toggle_allowed",
					   "unloadable" };
	static const char *const say[] = { "sealed", "toggle allowed",
					   "unloadable" };
	int n = 0;

	for (int i = 0; i < 3; i++)
		if (json_bool(json_get(j, s, key[i])) == 1)
			printf("%s%s", n++ ? ", " : " (", say[i]);
	if (n)
		putchar(')');
}

static void one_set(const struct json *j, const struct json_node *s)
{
	const struct json_node *mods = json_get(j, s, "modules");
	const struct json_node *exp = json_get(j, s, "expected");
	int wn = 6, ws = 5;
	char num[32];

	printf("\nHOOK SET ");
	put_str(j, s, "name", 0);
	set_flags(j, s);
	putchar('\n');
	for (const struct json_node *m = json_first(j, mods); m;
	     m = json_next(j, m)) {
		wn = widest(wn, str_width(j, m, "name"));
		ws = widest(ws, str_width(j, m, "state"));
	}
	if (!json_first(j, mods)) {
		printf("  no modules\n");
	} else {
		printf("  PLACE  %-*s  %-*s  ON   REASON\n", wn, "MODULE", ws,
		       "STATE");
	}
	for (const struct json_node *m = json_first(j, mods); m;
	     m = json_next(j, m)) {
		const struct json_node *place = json_get(j, m, "place");
		const struct json_node *reason;
		const char *pl;

		/* An older endpoint has "position": 0 is "not ordered". */
		pl = num_text(j, m, place ? "place" : "position", num,
			      sizeof(num));
		if (!place && !strcmp(pl, "0"))
			pl = "-";
		printf("  %5s  ", pl);
		put_str(j, m, "name", wn);
		fputs("  ", stdout);
		put_str(j, m, "state", ws);
		reason = json_get(j, m, "reason");
		printf("  %-*s", reason && reason->type == JSON_STRING ? 3 : 0,
		       yes_no(json_bool(json_get(j, m, "on")), "on", "off"));
		if (reason && reason->type == JSON_STRING) {
			fputs("  ", stdout);
			put_str(j, m, "reason", 0);
		}
		putchar('\n');
	}
	if (json_first(j, exp)) {
		int n = 0;

		printf("  expected by the order, not loaded:");
		for (const struct json_node *e = json_first(j, exp); e;
		     e = json_next(j, e)) {
			size_t len;
			const char *name = json_str(j, e, &len);

			printf("%s", n++ ? ", " : " ");
			if (name)
				esc_put(stdout, name, len);
			else
				putchar('-');
		}
		putchar('\n');
	}
}

static void sets(const struct json *j, const struct json_node *a)
{
	if (!json_first(j, a)) {
		printf("\nno hook sets\n");
		return;
	}
	for (const struct json_node *s = json_first(j, a); s;
	     s = json_next(j, s))
		one_set(j, s);
}

/* --all: the keys and calls the library knows, read-only. */
static void keys_calls(const struct json *j, const struct json_node *keys,
		       const struct json_node *calls)
{
	char n1[32], n2[32];
	int w = 3, wt = 6;

	for (const struct json_node *k = json_first(j, keys); k;
	     k = json_next(j, k))
		w = widest(w, str_width(j, k, "name") + 9 *
			   (json_bool(json_get(j, k, "switch")) == 1));
	printf("\n%-*s  STATE  COUNT  SITES\n", w, "KEY");
	for (const struct json_node *k = json_first(j, keys); k;
	     k = json_next(j, k)) {
		bool sw = json_bool(json_get(j, k, "switch")) == 1;

		put_str(j, k, "name", 0);
		if (sw)
			fputs(" (switch)", stdout);
		for (int c = str_width(j, k, "name") + 9 * sw; c < w; c++)
			putchar(' ');
		printf("  %-5s  %5s  %5s\n",
		       yes_no(json_bool(json_get(j, k, "on")), "on", "off"),
		       num_text(j, k, "count", n1, sizeof(n1)),
		       num_text(j, k, "sites", n2, sizeof(n2)));
	}
	w = 4;
	for (const struct json_node *c = json_first(j, calls); c;
	     c = json_next(j, c)) {
		w = widest(w, str_width(j, c, "key"));
		wt = widest(wt, str_width(j, c, "target"));
	}
	printf("\n%-*s  %-*s  SITES  DIRECT\n", w, "CALL", wt, "TARGET");
	for (const struct json_node *c = json_first(j, calls); c;
	     c = json_next(j, c)) {
		put_str(j, c, "key", w);
		fputs("  ", stdout);
		put_str(j, c, "target", wt);
		printf("  %5s  %6s\n", num_text(j, c, "sites", n1, sizeof(n1)),
		       num_text(j, c, "direct", n2, sizeof(n2)));
	}
}

int cmd_show(pid_t pid)
{
	const struct json_node *root;
	struct conn c;
	struct json j;

	ctl_connect(&c, pid, now_ms() + opt.timeout_ms);
	ctl_ask(&c, "show\n", "show", &j);
	conn_close(&c);
	root = json_root(&j);
	if (opt.json) {
		json_write(stdout, &j, root);
		putchar('\n');
	} else {
		if (!root || root->type != JSON_OBJECT)
			die("show: the reply is not a JSON object");
		process(&j, json_get(&j, root, "process"));
		switches(&j, json_get(&j, root, "switches"));
		tracepoints(&j, json_get(&j, root, "tracepoints"));
		sets(&j, json_get(&j, root, "sets"));
		if (opt.all)
			keys_calls(&j, json_get(&j, root, "keys"),
				   json_get(&j, root, "calls"));
	}
	json_free(&j);
	return 0;
}
