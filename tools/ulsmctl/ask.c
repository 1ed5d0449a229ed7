// SPDX-License-Identifier: MIT
/*
 * ulsmctl show, clear, switch and toggle: one request, one reply,
 * printed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ulsmctl.h"

int cmd_ask(pid_t pid, const char *req, const char *what)
{
	struct conn c;
	struct reply r;

	ctl_connect(&c, pid, now_ms() + opt.timeout_ms);
	ctl_request(&c, req, what, &r);
	conn_close(&c);
	if (opt.json)
		fwrite(r.data, 1, r.len, stdout);
	else if (r.len)
		print_indented(r.data);
	reply_free(&r);
	return 0;
}
