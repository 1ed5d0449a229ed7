// SPDX-License-Identifier: MIT
/*
 * ulsmctl record: the program's recorder attached to a glob, and the
 * stream of its chunks written into a file until the duration has passed
 * or a signal came, then stop and the end chunk.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ulsmctl.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

int cmd_record(const char *pid, const char *glob, long ms, const char *out,
	       bool json)
{
	char req[1100], line[256], tmp[PATH_MAX], *r;
	long long deadline = ms >= 0 ? now_ms() + ms : -1;
	bool stopped = false, ended = false;
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long long bytes = 0;
	struct conn c;
	FILE *f;

	if (json)
		snprintf(tmp, sizeof(tmp), "%s.bin.XXXXXX", out);
	else
		snprintf(tmp, sizeof(tmp), "%s", out);
	if (json) {
		int fd = mkstemp(tmp);

		if (fd < 0)
			die("%s: %s", tmp, strerror(errno));
		f = fdopen(fd, "w");
	} else {
		f = fopen(out, "w");
	}
	if (!f)
		die("%s: %s", tmp, strerror(errno));
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	connect_pid(&c, pid, 5000);
	snprintf(req, sizeof(req), "record %s\n", glob);
	if (send_line(&c, req))
		die("record: %s", strerror(errno));
	r = reply(&c, "record");
	if (strstr(r, "\"matched\":0,"))
		fprintf(stderr, "%s: no tracepoint matches %s now (it records "
			"those loaded later)\n", prog, glob);
	free(r);
	while (!ended) {
		struct pollfd p = { .fd = c.fd, .events = POLLIN };
		int wait = 200;

		if (!stopped && (interrupted ||
				 (deadline >= 0 && now_ms() >= deadline))) {
			if (send_line(&c, "stop\n"))
				die("record: %s", strerror(errno));
			stopped = true;
		}
		if (c.off == c.len && poll(&p, 1, wait) <= 0)
			continue;
		if (read_line(&c, line, sizeof(line)))
			die("record: the connection ended before the recording");
		if (!strncmp(line, "data ", 5) || !strncmp(line, "end ", 4)) {
			char *end;
			unsigned long n = strtoul(strchr(line, ' ') + 1, &end, 10);
			int ret;

			if (*end || n > CHUNK_MAX)
				die("record: bad chunk \"%.80s\"", line);
			ret = read_bytes(&c, n, f, NULL);
			if (ret)
				die("record: %s", strerror(-ret));
			bytes += n;
			ended = line[0] == 'e';
		} else if (!strncmp(line, "error ", 6)) {
			die("record: %s", line + 6);
		} else {
			die("record: unexpected \"%.80s\"", line);
		}
	}
	close(c.fd);
	if (fclose(f))
		die("%s: %s", tmp, strerror(errno));
	if (json) {
		int ret = convert(tmp, out);

		unlink(tmp);
		if (ret)
			die("ulsm-trace could not convert the recording");
	}
	fprintf(stderr, "%s: %llu bytes recorded into %s\n", prog, bytes, out);
	return 0;
}
