// SPDX-License-Identifier: MIT
/*
 * ulsmctl - the client of the control endpoint (docs/control.md,
 * ulsmctl(1)): list the programs it can reach, show what their library
 * knows, record their tracepoints, flip their switches, toggle their
 * hook-set modules.
 *
 *	ulsmctl list [--json]
 *	ulsmctl show -p PID [--json]
 *	ulsmctl record -p PID GLOB [-d DURATION] -o FILE [--json]
 *	ulsmctl clear -p PID
 *	ulsmctl switch -p PID NAME on|off
 *	ulsmctl toggle -p PID SET MODULE on|off
 *
 * The socket directory is checked as the endpoint checks it (opened
 * without following a link, owned by this user, mode 0700); the program's
 * refusals are printed with its message, and the exit status is 1.
 * A recording's --json is ulsm-trace's: the one installed next to this
 * program (or on the PATH) converts the file, so there is one reader of
 * the format.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPLY_MAX	(1 << 20)
#define CHUNK_MAX	(64 << 20)

static const char *prog = "ulsmctl";

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: ulsmctl list [--json]\n"
		"       ulsmctl show -p PID [--json]\n"
		"       ulsmctl record -p PID GLOB [-d DURATION] -o FILE [--json]\n"
		"       ulsmctl clear -p PID\n"
		"       ulsmctl switch -p PID NAME on|off\n"
		"       ulsmctl toggle -p PID SET MODULE on|off\n");
	return 2;
}

/* --- the socket directory ---------------------------------------------- */

static char dir[PATH_MAX];

static int open_dir(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int fd;

	if (xdg && xdg[0] == '/')
		snprintf(dir, sizeof(dir), "%s/ulsm", xdg);
	else
		snprintf(dir, sizeof(dir), "/tmp/ulsm-%u",
			 (unsigned int)geteuid());
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -1;
	if (fd < 0)
		die("%s: %s%s", dir, strerror(errno),
		    errno == ELOOP ? " (a symbolic link: refused)" : "");
	if (fstat(fd, &st))
		die("%s: %s", dir, strerror(errno));
	if (st.st_uid != geteuid())
		die("%s belongs to uid %u, not to you: refused", dir,
		    (unsigned int)st.st_uid);
	if (st.st_mode & 077)
		die("%s has mode %04o (group or others have access): refused",
		    dir, (unsigned int)(st.st_mode & 07777));
	return fd;
}

/* --- a connection ------------------------------------------------------ */

struct conn {
	int fd;
	char buf[4096];
	size_t len, off;
};

/* Connect to @name in @dfd, waiting at most @ms; -errno on failure. */
static int conn_open(struct conn *c, int dfd, const char *name, int ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", dfd,
		 name);
	c->len = c->off = 0;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(c->fd);
		return -e;
	}
	return 0;
}

/* Fill the buffer: bytes read, 0 at the end, -errno. */
static ssize_t fill(struct conn *c)
{
	ssize_t n;

	if (c->off == c->len)
		c->off = c->len = 0;
	if (c->len == sizeof(c->buf)) {
		memmove(c->buf, c->buf + c->off, c->len - c->off);
		c->len -= c->off;
		c->off = 0;
	}
	do
		n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	c->len += (size_t)n;
	return n;
}

/* One line, without its newline, into @line (@size bytes): 0 or -errno. */
static int read_line(struct conn *c, char *line, size_t size)
{
	for (;;) {
		char *nl = memchr(c->buf + c->off, '\n', c->len - c->off);

		if (nl) {
			size_t n = (size_t)(nl - (c->buf + c->off));

			if (n >= size)
				return -EMSGSIZE;
			memcpy(line, c->buf + c->off, n);
			line[n] = '\0';
			c->off += n + 1;
			return 0;
		}
		if (c->len - c->off >= size)
			return -EMSGSIZE;
		ssize_t r = fill(c);

		if (r <= 0)
			return r ? (int)r : -ECONNRESET;
	}
}

/* Exactly @n bytes, to @out (a FILE) or into @mem: 0 or -errno. */
static int read_bytes(struct conn *c, size_t n, FILE *out, char *mem)
{
	while (n) {
		size_t have = c->len - c->off, take;

		if (!have) {
			ssize_t r = fill(c);

			if (r <= 0)
				return r ? (int)r : -ECONNRESET;
			continue;
		}
		take = have < n ? have : n;
		if (out && fwrite(c->buf + c->off, 1, take, out) != take)
			return -EIO;
		if (mem) {
			memcpy(mem, c->buf + c->off, take);
			mem += take;
		}
		c->off += take;
		n -= take;
	}
	return 0;
}

static int send_line(struct conn *c, const char *line)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t n = send(c->fd, line + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

/*
 * The reply to a request: its payload (malloc'd, NUL-terminated) or, for
 * an error line, the program's message on stderr and exit status 1.
 */
static char *reply(struct conn *c, const char *what)
{
	char line[1024], *p, *end;
	unsigned long n;
	int ret = read_line(c, line, sizeof(line));

	if (ret)
		die("%s: no reply: %s", what, strerror(-ret));
	if (!strncmp(line, "error ", 6)) {
		long e = strtol(line + 6, &end, 10);

		die("%s: %s (%s)", what, *end == ' ' ? end + 1 : line,
		    strerror((int)-e));
	}
	if (strncmp(line, "ok ", 3))
		die("%s: unexpected reply \"%.80s\"", what, line);
	n = strtoul(line + 3, &end, 10);
	if (*end || n > REPLY_MAX)
		die("%s: bad reply \"%.80s\"", what, line);
	p = malloc(n + 1);
	if (!p)
		die("out of memory");
	ret = read_bytes(c, n, NULL, p);
	if (ret)
		die("%s: reply cut: %s", what, strerror(-ret));
	p[n] = '\0';
	return p;
}

/* Connect to the program @pid and read its greeting. */
static void connect_pid(struct conn *c, const char *pid, int ms)
{
	char name[64], line[256];
	int dfd = open_dir(), ret;
	char *end;

	if (strtol(pid, &end, 10) <= 0 || *end)
		die("-p %s: not a process id", pid);
	if (dfd < 0)
		die("%s does not exist: no program runs its control endpoint",
		    dir);
	snprintf(name, sizeof(name), "ulsm.%s.sock", pid);
	ret = conn_open(c, dfd, name, ms);
	close(dfd);
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		die("process %s: no control endpoint (%s/%s: %s; is it "
		    "running with ULSM_CONTROL=1?)", pid, dir, name,
		    strerror(-ret));
	if (ret)
		die("process %s: %s/%s: %s", pid, dir, name, strerror(-ret));
	ret = read_line(c, line, sizeof(line));
	if (ret)
		die("process %s: no greeting: %s", pid, strerror(-ret));
	if (!strncmp(line, "error ", 6))
		die("process %s refused: %s", pid, line + 6);
	if (strncmp(line, "ulsm-control 1 ", 15))
		die("process %s: not a ulsm control endpoint (\"%.80s\")", pid,
		    line);
}

/* --- a JSON value, readable ---------------------------------------------- */

/* Indent @s: a line per member and element, two spaces per level. */
static void print_indented(const char *s)
{
	int depth = 0;
	bool str = false;

	for (; *s; s++) {
		char ch = *s;

		if (str) {
			putchar(ch);
			if (ch == '\\' && s[1])
				putchar(*++s);
			else if (ch == '"')
				str = false;
			continue;
		}
		switch (ch) {
		case '"':
			str = true;
			putchar(ch);
			break;
		case '{': case '[':
			putchar(ch);
			if (s[1] == '}' || s[1] == ']') {
				putchar(*++s);
				break;
			}
			printf("\n%*s", 2 * ++depth, "");
			break;
		case '}': case ']':
			printf("\n%*s%c", 2 * --depth > 0 ? 2 * depth : 0, "",
			       ch);
			break;
		case ',':
			printf(",\n%*s", 2 * depth, "");
			break;
		case ':':
			printf(": ");
			break;
		case '\n':
			break;
		default:
			putchar(ch);
		}
	}
	putchar('\n');
}

/* --- the commands ------------------------------------------------------ */

static int cmd_list(bool json)
{
	int dfd = open_dir(), n = 0;
	DIR *d;
	struct dirent *e;

	if (dfd < 0) {
		if (json)
			printf("[]\n");
		return 0;
	}
	d = fdopendir(dup(dfd));
	if (!d)
		die("%s: %s", dir, strerror(errno));
	if (json)
		printf("[");
	while ((e = readdir(d))) {
		struct conn c;
		char line[256], *hello;
		int pid, ret;

		if (sscanf(e->d_name, "ulsm.%d.sock", &pid) != 1)
			continue;
		ret = conn_open(&c, dfd, e->d_name, 1000);
		if (ret == -ECONNREFUSED) {
			/* Nobody listens: a crashed program's, or the image
			 * before an exec's. */
			if (!unlinkat(dfd, e->d_name, 0))
				fprintf(stderr, "%s: removed the stale socket "
					"%s/%s\n", prog, dir, e->d_name);
			continue;
		}
		if (ret)
			continue;
		if (read_line(&c, line, sizeof(line)) ||
		    strncmp(line, "ulsm-control ", 13) ||
		    send_line(&c, "hello\n")) {
			close(c.fd);
			continue;
		}
		hello = reply(&c, "hello");
		close(c.fd);
		hello[strcspn(hello, "\n")] = '\0';
		if (json) {
			printf("%s%s", n ? "," : "", hello);
		} else {
			const char *cmd = strstr(hello, "\"command\":\"");
			int len = 0;

			if (cmd) {
				cmd += 11;
				len = (int)strcspn(cmd, "\"");
			}
			if (!n)
				printf("%-8s %s\n", "PID", "COMMAND");
			printf("%-8d %.*s\n", pid, len, cmd ? cmd : "");
		}
		free(hello);
		n++;
	}
	closedir(d);
	close(dfd);
	if (json)
		printf("]\n");
	return 0;
}

static int simple(const char *pid, const char *req, const char *what,
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

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* "5s", "500ms", "2m", "3" (seconds): milliseconds, or -1. */
static long duration_ms(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		v *= 1000;
	else if (!strcmp(end, "m"))
		v *= 60000;
	else if (strcmp(end, "ms"))
		return -1;
	return v > 86400000.0 ? -1 : (long)v;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ulsm-trace: next to this program, else on the PATH. */
static int convert(const char *from, const char *to)
{
	char self[PATH_MAX], tool[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *t = "ulsm-trace";
	int fd, status;
	pid_t child;

	if (n > 0) {
		self[n] = '\0';
		if (strrchr(self, '/'))
			*strrchr(self, '/') = '\0';
		snprintf(tool, sizeof(tool), "%s/ulsm-trace", self);
		if (!access(tool, X_OK))
			t = tool;
	}
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("%s: %s", to, strerror(errno));
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		dup2(fd, 1);
		execlp(t, "ulsm-trace", "--json", from, (char *)NULL);
		fprintf(stderr, "%s: cannot run %s: %s\n", prog, t,
			strerror(errno));
		_exit(127);
	}
	close(fd);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static int cmd_record(const char *pid, const char *glob, long ms,
		      const char *out, bool json)
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

int main(int argc, char **argv)
{
	const char *pid = NULL, *out = NULL, *dur = NULL, *pos[4];
	bool json = false;
	int npos = 0;

	if (argc < 2)
		return usage();
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			pid = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			dur = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1])
			return usage();
		else if (npos < 4)
			pos[npos++] = argv[i];
		else
			return usage();
	}
	if (!strcmp(argv[1], "list") && !npos && !pid)
		return cmd_list(json);
	if (!pid)
		return usage();
	if (!strcmp(argv[1], "show") && !npos)
		return simple(pid, "show\n", "show", json);
	if (!strcmp(argv[1], "clear") && !npos)
		return simple(pid, "clear\n", "clear", json);
	if (!strcmp(argv[1], "switch") && npos == 2) {
		char req[1100];

		snprintf(req, sizeof(req), "switch %s %s\n", pos[0], pos[1]);
		return simple(pid, req, "switch", json);
	}
	if (!strcmp(argv[1], "toggle") && npos == 3) {
		char req[1100];

		snprintf(req, sizeof(req), "toggle %s %s %s\n", pos[0], pos[1],
			 pos[2]);
		return simple(pid, req, "toggle", json);
	}
	if (!strcmp(argv[1], "record") && npos == 1 && out) {
		long ms = dur ? duration_ms(dur) : -1;

		if (dur && ms < 0)
			die("-d %s: not a duration (5s, 500ms, 2m)", dur);
		return cmd_record(pid, pos[0], ms, out, json);
	}
	return usage();
}
