// SPDX-License-Identifier: MIT
/*
 * ulsmctl switch, toggle and clear: one change, answered in one line
 * ("verbose_log: on", "audit: off"; clear says nothing), or with --json
 * the program's reply, re-serialised compactly.
 */
#include <stdio.h>
#include <string.h>

#include "ulsmctl.h"
#include "json.h"

int cmd_change(pid_t pid, const char *req, const char *what,
	       const char *name)
{
	const struct json_node *root, *v;
	struct conn c;
	struct json j;
	size_t len;
	const char *s;
	int on;

	ctl_connect(&c, pid, now_ms() + opt.timeout_ms);
	ctl_ask(&c, req, what, &j);
	conn_close(&c);
	root = json_root(&j);
	if (opt.json) {
		if (root) {
			json_write(stdout, &j, root);
			putchar('\n');
		}
	} else if (root) {
		/* The switch or module as the change left it. */
		s = json_str(&j, json_get(&j, root, "name"), &len);
		if (!s)
			s = name, len = strlen(name);
		v = json_get(&j, root, "on");
		on = json_bool(v);
		esc_put(stdout, s, len);
		printf(": %s\n", on < 0 ? "-" : on ? "on" : "off");
	}
	json_free(&j);
	return 0;
}
