// SPDX-License-Identifier: MIT
/*
 * ulsmctl show, clear, switch and toggle: one request, one reply,
 * printed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ulsmctl.h"

int cmd_ask(const char *pid, const char *req, const char *what,
		  bool json)
{
	struct conn c;
	char *r;

	connect_pid(&c, pid, 5000);
	if (send_line(&c, req))
		die("%s: %s", what, strerror(errno));
	r = reply(&c, what);
	close(c.fd);
	if (json)
		fputs(r, stdout);
	else if (*r)
		print_indented(r);
	free(r);
	return 0;
}
