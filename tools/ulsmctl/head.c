// SPDX-License-Identifier: MIT
/*
 * The protocol's lines as an endpoint sends them (docs/control.md, "The
 * protocol"): the greeting, and the first line of a reply, "ok <n>" (n
 * bytes follow) or "error <errno> <message>". Parsing only, apart from
 * the reading (reply.c), so that tests/fuzz/fuzz_ulsmctl.c can give it
 * any bytes: they come from another process.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ulsmctl.h"

int greeting_check(const char *line, char *why, size_t size)
{
	char msg[200];

	if (!strncmp(line, "ulsm-control 1 ", 15))
		return 0;
	if (!strncmp(line, "error ", 6))
		snprintf(why, size, "refused: %s",
			 esc_str(msg, sizeof(msg), line + 6, strlen(line + 6)));
	else if (!strncmp(line, "ulsm-control ", 13))
		snprintf(why, size, "speaks protocol %s, this ulsmctl 1",
			 esc_str(msg, sizeof(msg), line + 13,
				 strcspn(line + 13, " ")));
	else
		snprintf(why, size, "not a ulsm control endpoint (\"%s\")",
			 esc_str(msg, sizeof(msg), line, strlen(line)));
	return -EPROTO;
}

int reply_head(const char *line, struct reply *r, size_t max)
{
	char *end;

	*r = (struct reply){ .ok = false };
	if (!strncmp(line, "ok ", 3)) {
		unsigned long n;

		if (line[3] < '0' || line[3] > '9')
			return -EPROTO;
		errno = 0;
		n = strtoul(line + 3, &end, 10);
		if (*end || errno || n > max)
			return -EPROTO;
		r->ok = true;
		r->len = n;
		return 0;
	}
	if (!strncmp(line, "error ", 6)) {
		long e = strtol(line + 6, &end, 10);

		if (end == line + 6 || e >= 0 || e < -4095)
			e = -EPROTO;
		r->err = (int)e;
		esc_str(r->msg, sizeof(r->msg), *end == ' ' ? end + 1 : line,
			strlen(*end == ' ' ? end + 1 : line));
		return 0;
	}
	return -EPROTO;
}
