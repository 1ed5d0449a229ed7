/* SPDX-License-Identifier: MIT */
/*
 * tests/control/control_client.h - a client of the control endpoint for the
 * tests (t_control, t_control_fuzz): each test case runs in a child with
 * a socket directory of its own ($XDG_RUNTIME_DIR, a fresh temporary
 * directory), talks the protocol of docs/control.md through a blocking
 * socket with a receive timeout, and reads replies whole. Where the test
 * is given TC_TRACE_TOOL (tests.mk), cc_trace_text() reads a recording
 * with ulsm-trace.
 */
#ifndef ULSM_TESTS_CONTROL_CLIENT_H
#define ULSM_TESTS_CONTROL_CLIENT_H

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static char cc_xdg[64];

/* How many entries @path has, but "." and its like; -1: not opened. */
__attribute__((unused))
static int cc_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A fresh $XDG_RUNTIME_DIR for this process; its ulsm/ is the endpoint's. */
static void cc_fresh_dir(void)
{
	snprintf(cc_xdg, sizeof(cc_xdg), "/tmp/t_control.XXXXXX");
	if (!mkdtemp(cc_xdg)) {
		perror("mkdtemp");
		exit(1);
	}
	chmod(cc_xdg, 0700);
	setenv("XDG_RUNTIME_DIR", cc_xdg, 1);
}

static void cc_sock_path(char *out, size_t size, pid_t pid)
{
	snprintf(out, size, "%s/ulsm/ulsm.%d.sock", cc_xdg, (int)pid);
}

/* Connect to @pid's endpoint: the descriptor, or -errno. */
static int cc_connect_raw(pid_t pid, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cc_sock_path(sa.sun_path, sizeof(sa.sun_path), pid);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* One line (without its newline) into @line: its length, or -errno / -1 at EOF. */
static int cc_line(int fd, char *line, size_t size)
{
	size_t n = 0;

	while (n + 1 < size) {
		char ch;
		ssize_t r = recv(fd, &ch, 1, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -1;
		if (ch == '\n') {
			line[n] = '\0';
			return (int)n;
		}
		line[n++] = ch;
	}
	line[n] = '\0';
	return -EMSGSIZE;
}

static int cc_bytes(int fd, char *buf, size_t n)
{
	while (n) {
		ssize_t r = recv(fd, buf, n, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r ? -errno : -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Connect and read the greeting: the descriptor, or a negative number. */
static int cc_connect(pid_t pid)
{
	char line[256];
	int fd = cc_connect_raw(pid, 5000);

	if (fd < 0)
		return fd;
	if (cc_line(fd, line, sizeof(line)) < 0 ||
	    strncmp(line, "ulsm-control 1 ", 15)) {
		close(fd);
		return -EPROTO;
	}
	return fd;
}

static int cc_send(int fd, const char *s)
{
	size_t len = strlen(s);

	return send(fd, s, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
}

/*
 * A request and its reply: 0 with the payload in *@payload (malloc'd,
 * NUL-terminated), or the error line's errno with its message in @msg.
 * -1000 for a reply that is neither.
 */
__attribute__((noinline, unused))
static int cc_request(int fd, const char *req, char **payload, char *msg,
		      size_t msgsize)
{
	char line[1024];
	unsigned long n;
	char *p;

	if (payload)
		*payload = NULL;
	if (msg && msgsize)
		msg[0] = '\0';
	if (cc_send(fd, req) || cc_line(fd, line, sizeof(line)) < 0)
		return -1000;
	if (!strncmp(line, "error ", 6)) {
		char *end;
		long e = strtol(line + 6, &end, 10);

		if (msg)
			snprintf(msg, msgsize, "%s", *end ? end + 1 : "");
		return (int)e;
	}
	if (sscanf(line, "ok %lu", &n) != 1 || n > (1 << 20))
		return -1000;
	p = malloc(n + 1);
	if (!p || cc_bytes(fd, p, n)) {
		free(p);
		return -1000;
	}
	p[n] = '\0';
	if (payload)
		*payload = p;
	else
		free(p);
	return 0;
}

/*
 * cc_stream - a recording's chunks (docs/control.md) into @f, to its end
 * @ended: whether its end chunk came
 * Return: the bytes written, when the connection ends or fails before the
 * end too; -1 on a line that is not a chunk, or bytes that do not come
 */
__attribute__((unused))
static long cc_stream(int fd, FILE *f, bool *ended)
{
	char line[256], *buf;
	long total = 0;

	*ended = false;
	for (;;) {
		unsigned long n;
		bool end;

		if (cc_line(fd, line, sizeof(line)) < 0)
			return total;
		end = !strncmp(line, "end ", 4);
		if (!end && strncmp(line, "data ", 5)) {
			printf("#   not a chunk: \"%.100s\"\n", line);
			return -1;
		}
		n = strtoul(strchr(line, ' ') + 1, NULL, 10);
		buf = malloc(n + 1);
		if (!buf || cc_bytes(fd, buf, n) || fwrite(buf, 1, n, f) != n) {
			free(buf);
			return -1;
		}
		free(buf);
		total += (long)n;
		if (end) {
			*ended = true;
			return total;
		}
	}
}

/* One request on a connection of its own. */
__attribute__((unused))
static int cc_once(pid_t pid, const char *req, char **payload, char *msg,
		   size_t msgsize)
{
	int fd = cc_connect(pid), ret;

	if (payload)
		*payload = NULL;
	if (fd < 0)
		return -1001;
	ret = cc_request(fd, req, payload, msg, msgsize);
	close(fd);
	return ret;
}

/* Run @fn in a child of its own (a fresh socket directory): one TAP line. */
static void cc_case(const char *name, int (*fn)(void))
{
	pid_t pid;
	int status;

	char rm[300];

	cc_fresh_dir();
	fflush(stdout);
	pid = fork();
	if (!pid)
		exit(fn() ? 1 : 0);
	waitpid(pid, &status, 0);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", cc_xdg);
	if (system(rm))
		diag("  could not remove %s", cc_xdg);
	ok(WIFEXITED(status) && !WEXITSTATUS(status), "%s", name);
	if (!WIFEXITED(status))
		diag("  killed by signal %d", WTERMSIG(status));
}

#ifdef TC_TRACE_TOOL
/*
 * ulsm-trace --text @file, to be read through the pipe and pclose()d; a
 * cross-built tool runs under the emulator too ($ULSM_EMU). NULL: no pipe.
 */
__attribute__((unused))
static FILE *cc_trace_text(const char *file)
{
	const char *emu = getenv("ULSM_EMU");
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "%s %s --text %s", emu ? emu : "",
		 TC_TRACE_TOOL, file);
	return popen(cmd, "r");
}
#endif

/* Sockets open in this process (the endpoint's are too: it runs here). */
static __attribute__((unused)) int count_sockets(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], to[300];
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, to, sizeof(to) - 1);
		if (len > 0) {
			to[len] = '\0';
			n += !strncmp(to, "socket:", 7);
		}
	}
	if (d)
		closedir(d);
	return n;
}

#endif /* ULSM_TESTS_CONTROL_CLIENT_H */
