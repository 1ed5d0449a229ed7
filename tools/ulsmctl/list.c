// SPDX-License-Identifier: MIT
/*
 * ulsmctl list: the programs whose endpoint this user can reach, each
 * asked hello; a socket nobody listens on is removed.
 *
 * Only an endpoint's socket is looked at: a file named exactly
 * ulsm.<pid>.sock that is a socket (lstat: not a link to one) of this
 * user. Connecting to anything else fails too (a FIFO, a regular file:
 * ECONNREFUSED), and that is no sign of a crashed program: such a file
 * is said and left alone. A socket is removed only when connect() says
 * that nobody listens on it (ECONNREFUSED).
 *
 * One bad endpoint must not hide the others: a program that is stopped,
 * that greets and says nothing more, or that refuses hello is said on
 * stderr and skipped. Each endpoint has its own deadline (LIST_EACH_MS),
 * and up to LIST_BATCH are asked at once, so that a directory of hung
 * endpoints costs a second per batch, not a second each; the command's
 * deadline (--timeout) bounds the whole. The sockets are asked in the
 * order of their pids, and listed in it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ulsmctl.h"
#include "json.h"

#define LIST_BATCH	32
#define LIST_EACH_MS	1000
#define HELLO_MAX	65536		/* hello's reply, for list */

enum { CONNECTING, GREETING, REPLY, BODY, DONE, FAILED };

struct probe {
	struct conn c;
	pid_t pid;
	char name[32];
	int state;
	struct reply r;
	size_t got;
	long long deadline;
	struct json hello;
	char why[300];
};

/*
 * A socket of ours on which nobody listens: a crashed program's, or the
 * image's before an exec. Removed only if it is still the same file: a
 * program may have replaced it since (the directory is ours alone, but
 * a program of ours may start between the look and the unlink).
 */
static void remove_stale(int dfd, const char *name, const struct stat *was)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    st.st_dev != was->st_dev || st.st_ino != was->st_ino)
		return;
	if (!unlinkat(dfd, name, 0))
		warn("removed the stale socket %s/%s", dir, name);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The pids of the endpoints' names in the directory, sorted. */
static pid_t *read_pids(int dfd, size_t *n)
{
	DIR *d = fdopendir(dup(dfd));
	size_t cap = 0;
	pid_t *v = NULL;
	struct dirent *e;

	*n = 0;
	if (!d)
		die("%s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		pid_t pid = sock_name_pid(e->d_name);

		if (!pid)
			continue;
		if (*n == cap) {
			pid_t *w = reallocarray(v, cap ? 2 * cap : 64,
						sizeof(*v));

			if (!w)
				die("out of memory");
			v = w;
			cap = cap ? 2 * cap : 64;
		}
		v[(*n)++] = pid;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_pid);
	return v;
}

/* @p is skipped, for the reason said: 1 (step() is over). */
__attribute__((format(printf, 2, 3)))
static int fail(struct probe *p, const char *fmt, ...)
{
	va_list ap;

	p->state = FAILED;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	conn_close(&p->c);
	return 1;
}

/* Start @p: its socket checked and connected to. */
static void begin(struct probe *p, int dfd, long long deadline)
{
	struct stat st;
	int ret;

	snprintf(p->name, sizeof(p->name), "ulsm.%d.sock", (int)p->pid);
	p->c.fd = -1;
	p->deadline = now_ms() + LIST_EACH_MS;
	if (p->deadline > deadline)
		p->deadline = deadline;
	p->state = FAILED;
	p->why[0] = '\0';		/* gone, or not an endpoint: quiet */
	if (fstatat(dfd, p->name, &st, AT_SYMLINK_NOFOLLOW))
		return;
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
		warn("%s/%s is not a socket of yours: left alone", dir,
		     p->name);
		return;
	}
	ret = conn_connect_once(&p->c, dfd, p->name, p->deadline);
	if (ret == -ECONNREFUSED) {
		remove_stale(dfd, p->name, &st);
		return;
	}
	if (ret == -ENOENT)
		return;
	if (ret == -EAGAIN) {
		p->state = CONNECTING;	/* a full backlog: again, later */
		return;
	}
	if (ret) {
		fail(p, "%s", strerror(-ret));
		return;
	}
	p->state = GREETING;
}

/*
 * One step of @p with what its buffer holds: 0 when it moved on and may
 * take another, 1 when it waits for more or is over.
 */
static int step(struct probe *p)
{
	char line[1100], why[300], err[128];
	int r;

	switch (p->state) {
	case GREETING:
		r = conn_take_line(&p->c, line, sizeof(line));
		if (!r)
			return 1;
		if (r < 0)
			return fail(p, "a greeting that does "
				    "not follow the protocol");
		if (greeting_check(line, why, sizeof(why)))
			return fail(p, "%s", why);
		/* Six bytes into an empty socket: never EAGAIN. */
		if (send(p->c.fd, "hello\n", 6, MSG_NOSIGNAL) != 6)
			return fail(p, "hello could not be sent");
		p->state = REPLY;
		return 0;
	case REPLY:
		r = conn_take_line(&p->c, line, sizeof(line));
		if (!r)
			return 1;
		if (r < 0 || reply_head(line, &p->r, HELLO_MAX))
			return fail(p, "a reply to hello that "
				    "does not follow the protocol");
		if (!p->r.ok)
			return fail(p, "hello refused: %s", p->r.msg);
		p->r.data = malloc(p->r.len + 1);
		if (!p->r.data)
			return fail(p, "out of memory");
		p->got = 0;
		p->state = BODY;
		return 0;
	case BODY: {
		const char *b;
		size_t n = conn_take(&p->c, p->r.len - p->got, &b);

		memcpy(p->r.data + p->got, b, n);
		p->got += n;
		if (p->got < p->r.len)
			return 1;
		if (json_parse(&p->hello, p->r.data, p->r.len, err,
			       sizeof(err))) {
			reply_free(&p->r);
			return fail(p, "hello: not JSON that ulsmctl "
				    "reads (%s)", err);
		}
		reply_free(&p->r);
		if (!json_root(&p->hello) ||
		    json_root(&p->hello)->type != JSON_OBJECT) {
			json_free(&p->hello);
			return fail(p, "hello: not a JSON "
				    "object");
		}
		p->state = DONE;
		conn_close(&p->c);
		return 1;
	}
	default:
		return 1;
	}
}

/* Ask @n probes at once, until each is answered or its deadline. */
static void serve(struct probe *p, int n, int dfd)
{
	struct pollfd pf[LIST_BATCH];
	int idx[LIST_BATCH];

	for (;;) {
		long long now = now_ms(), wait = -1;
		int np = 0;

		for (int i = 0; i < n; i++) {
			if (p[i].state >= DONE)
				continue;
			if (now >= p[i].deadline) {
				fail(&p[i], "no answer within %s", p[i].state ==
				     CONNECTING ? "1 s (its backlog is full)" :
				     "1 s");
				continue;
			}
			if (p[i].state == CONNECTING) {
				int ret = conn_connect_once(&p[i].c, dfd,
							    p[i].name,
							    p[i].deadline);

				if (!ret) {
					p[i].state = GREETING;
				} else if (ret != -EAGAIN) {
					fail(&p[i], "%s", strerror(-ret));
					continue;
				} else {
					wait = wait < 0 || wait > 20 ? 20 :
					       wait;
					continue;
				}
			}
			if (wait < 0 || p[i].deadline - now < wait)
				wait = p[i].deadline - now;
			pf[np] = (struct pollfd){ p[i].c.fd, POLLIN, 0 };
			idx[np++] = i;
		}
		if (wait < 0)
			return;		/* all answered, or failed */
		if (poll(pf, (nfds_t)np, (int)wait) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		for (int k = 0; k < np; k++) {
			struct probe *q = &p[idx[k]];
			int r;

			if (!pf[k].revents)
				continue;
			r = conn_fill(&q->c);
			if (r == 0)
				fail(q, "it closed the connection");
			else if (r < 0 && r != -EAGAIN)
				fail(q, "%s", strerror(-r));
			else
				while (!step(q))
					;
		}
	}
}

static int listed;

static void print(struct probe *p)
{
	const struct json_node *root = json_root(&p->hello);
	size_t len = 0;
	const char *cmd = json_str(&p->hello, json_get(&p->hello, root,
						      "command"), &len);

	if (opt.json) {
		/* hello's members, and where its socket is. */
		printf("%s{\"socket\":", listed ? "," : "");
		{
			char path[PATH_MAX + 40];
			int m = snprintf(path, sizeof(path), "%s/%s", dir,
					 p->name);

			json_write_str(stdout, path, (size_t)m < sizeof(path) ?
				       (size_t)m : sizeof(path) - 1);
		}
		for (const struct json_node *v = json_first(&p->hello, root);
		     v; v = json_next(&p->hello, v)) {
			size_t klen;
			const char *key = json_key(&p->hello, v, &klen);

			if (klen == 6 && !memcmp(key, "socket", 6))
				continue;
			putchar(',');
			json_write_str(stdout, key, klen);
			putchar(':');
			json_write(stdout, &p->hello, v);
		}
		putchar('}');
	} else {
		if (!listed)
			printf("%-8s %-16s %s\n", "PID", "COMMAND", "SOCKET");
		printf("%-8d ", (int)p->pid);
		if (cmd)
			esc_pad(stdout, cmd, len, 16);
		else
			printf("%-16s", "-");
		printf(" %s/%s\n", dir, p->name);
	}
	listed++;
}

int cmd_list(void)
{
	long long deadline = now_ms() + opt.timeout_ms;
	int dfd = open_dir();
	struct probe *p;
	pid_t *pids = NULL;
	size_t n = 0, at = 0;

	if (dfd >= 0)
		pids = read_pids(dfd, &n);
	p = calloc(LIST_BATCH, sizeof(*p));
	if (!p)
		die("out of memory");
	if (opt.json)
		putchar('[');
	while (at < n && now_ms() < deadline) {
		int b = n - at < LIST_BATCH ? (int)(n - at) : LIST_BATCH;

		for (int i = 0; i < b; i++) {
			p[i] = (struct probe){ .pid = pids[at + i] };
			begin(&p[i], dfd, deadline);
		}
		serve(p, b, dfd);
		for (int i = 0; i < b; i++) {
			if (p[i].state == DONE) {
				print(&p[i]);
				json_free(&p[i].hello);
			} else if (p[i].why[0]) {
				warn("%s/%s: %s: skipped", dir, p[i].name,
				     p[i].why);
			}
			conn_close(&p[i].c);
			reply_free(&p[i].r);
		}
		at += (size_t)b;
	}
	if (at < n)
		warn("the deadline passed: %zu socket%s not asked", n - at,
		     n - at > 1 ? "s" : "");
	if (opt.json)
		printf("]\n");
	else if (!listed)
		printf("no program runs its control endpoint in %s%s\n", dir,
		       dir_note);
	free(p);
	free(pids);
	if (dfd >= 0)
		close(dfd);
	return 0;
}
