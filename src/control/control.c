// SPDX-License-Identifier: MIT
/*
 * The control endpoint (docs/control.md): one unix socket per process,
 * reachable by its owner only, served by one thread ("ulsm-control")
 * that waits in poll() holding no lock. Requests are lines; replies are
 * "ok <n>" and n bytes of JSON, or "error <errno> <message>"; a recording
 * is a stream of "data <n>" chunks in the recorder's file format, ended
 * by "end <n>".
 *
 * Three guards (docs/control.md, "The security model"): the directory,
 * opened without following links and checked through its descriptor; the
 * socket, bound through that descriptor (/proc/self/fd/N/name, so that
 * the path checked is the path bound) and made 0600; and the peer's
 * SO_PEERCRED, read before any of its bytes.
 *
 * Every socket is non-blocking and every buffer bounded: a client can
 * make the thread do nothing but close it. Requests run in the thread,
 * taking the library's locks as any update does, and release them
 * before it waits again.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/config.h>
#include <ulsm/lsm.h>

#include "control/control.h"
#include "base/hook_sets.h"
#include "static/static.h"
#include "trace/trace.h"

#define PROTO_VERSION	1
#define LINE_BYTES	1024		/* a request, its newline included */
#define REPLY_MAX	(1 << 20)	/* a reply's JSON */
#define ERROR_MAX	512		/* an error line's message */
#define MAX_CONNS	64
#define TIMEOUT_MS	5000		/* ULSM_CONTROL_TIMEOUT_MS */
#define REC_CHUNK	65536		/* one read of the stream */
#define REC_HIGH	(256 * 1024)	/* unsent bytes before it stops reading */
#define REC_POLL_MS	50		/* how often the rings are read */
#define OUT_MAX		(64 << 20)	/* a connection's unsent bytes */
#define GLOB_MAX	256

/* A growing buffer, bounded by @max: @over once something did not fit. */
struct buf {
	char *p;
	size_t len, cap, max;
	bool over;
};

static void buf_add(struct buf *b, const void *s, size_t n)
{
	if (b->over || !n)
		return;
	if (b->len + n > b->max) {
		b->over = true;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = ulsm_reallocarray(b->p, cap, 1);
		if (!p) {
			b->over = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

__attribute__((format(printf, 2, 3)))
static void buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void buf_free(struct buf *b)
{
	ulsm_free(b->p);
	*b = (struct buf){ .max = b->max };
}

/* A JSON string: @s escaped, in quotes; NULL is null. */
static void buf_json(struct buf *b, const char *s)
{
	if (!s) {
		buf_add(b, "null", 4);
		return;
	}
	buf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			buf_add(b, e, 2);
		} else if (c < 0x20 || c == 0x7f) {
			buf_printf(b, "\\u%04x", c);
		} else {
			buf_add(b, s, 1);
		}
	}
	buf_add(b, "\"", 1);
}

/* --- the endpoint's state ---------------------------------------------- */

struct conn {
	int fd;			/* -1: a free slot */
	char in[LINE_BYTES];
	size_t inlen;
	struct buf out;
	size_t off;		/* of out, sent */
	long long since;	/* last input, or output sent */
	bool close_after;	/* once out is sent */
	bool recording;
};

static struct {
	pthread_mutex_t lock;	/* start and stop */
	bool running;
	pid_t pid;		/* whose endpoint it is */
	int dirfd, lfd, wake[2];
	char name[64];		/* the socket's, in dirfd */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	pthread_t thread;
	int timeout_ms;
	struct conn conns[MAX_CONNS];
	/* The recording, at most one. */
	struct conn *rec;
	struct ulsm_trace_stream *stream;
	char glob[GLOB_MAX + 1];
	bool attached;		/* this recording enabled the glob */
} ctl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.dirfd = -1, .lfd = -1, .wake = { -1, -1 },
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- the directory and the socket -------------------------------------- */

/*
 * The socket directory, opened without following a link and checked
 * through its descriptor: 0 with *@fd, or a negative errno and a message.
 */
static int open_dir(char *dir, size_t size, int *fd)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	uid_t euid = geteuid();
	struct stat st;
	int n, d, ret;

	if (xdg && xdg[0] == '/')
		n = snprintf(dir, size, "%s/ulsm", xdg);
	else
		n = snprintf(dir, size, "/tmp/ulsm-%u", (unsigned int)euid);
	if (n < 0 || (size_t)n >= size)
		return ulsm_error(-ENAMETOOLONG, "control: the socket "
				  "directory's path is too long");
	if (mkdir(dir, 0700) && errno != EEXIST)
		return ulsm_error(-errno, "control: cannot create %s: %s",
				  dir, strerror(errno));
	d = ulsm_sys_open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (d == -ELOOP || d == -ENOTDIR) {
		/* O_DIRECTORY on a link gives either: tell them apart. */
		bool link = !lstat(dir, &st) && S_ISLNK(st.st_mode);

		return ulsm_error(link ? -ELOOP : -ENOTDIR,
				  "control: %s is %s: refused", dir,
				  link ? "a symbolic link" : "not a directory");
	}
	if (d < 0)
		return ulsm_error(d, "control: cannot open %s: %s", dir,
				  strerror(-d));
	ret = ulsm_sys_fstat(d, &st);
	if (ret)
		ret = ulsm_error(ret, "control: cannot stat %s: %s", dir,
				 strerror(-ret));
	else if (!S_ISDIR(st.st_mode))
		ret = ulsm_error(-ENOTDIR, "control: %s is not a directory: "
				 "refused", dir);
	else if (st.st_uid != euid)
		ret = ulsm_error(-EPERM, "control: %s belongs to uid %u, not "
				 "to this process's %u: refused", dir,
				 (unsigned int)st.st_uid, (unsigned int)euid);
	else if (st.st_mode & 077)
		ret = ulsm_error(-EPERM, "control: %s has mode %04o: group "
				 "or others have access: refused (it must be "
				 "0700)", dir, (unsigned int)(st.st_mode & 07777));
	if (ret) {
		ulsm_sys_close(d);
		return ret;
	}
	*fd = d;
	return 0;
}

/*
 * Whether the socket file @name in @dirfd is ours and nobody listens on
 * it: 1 (stale: it may be replaced), 0 (someone listens), or a negative
 * errno with a message (not a socket, another owner's).
 */
static int stale_socket(int dirfd, const char *name, const char *dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int s, r;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 1 :
		       ulsm_error(-errno, "control: %s/%s: %s", dir, name,
				  strerror(errno));
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return ulsm_error(-EEXIST, "control: %s/%s exists and is not "
				  "a socket of this user: refused", dir, name);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s",
		 dirfd, name);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return ulsm_error(-errno, "control: socket: %s",
				  strerror(errno));
	r = connect(s, (struct sockaddr *)&sa, sizeof(sa)) ? errno : 0;
	close(s);
	if (!r)
		return 0;
	return r == ECONNREFUSED ? 1 :
	       ulsm_error(-r, "control: %s/%s: %s", dir, name, strerror(r));
}

static int bind_socket(int dirfd, const char *name, const char *dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, ret;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s",
		 dirfd, name);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return ulsm_error(-errno, "control: socket: %s",
				  strerror(errno));
	for (int tries = 0;; tries++) {
		if (!bind(s, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		ret = -errno;
		if (ret == -EADDRINUSE && tries == 0) {
			ret = stale_socket(dirfd, name, dir);
			if (ret == 1) {
				unlinkat(dirfd, name, 0);
				continue;
			}
			if (!ret)
				ret = ulsm_error(-EADDRINUSE, "control: a "
						 "program listens on %s/%s",
						 dir, name);
		} else {
			ret = ulsm_error(ret, "control: cannot bind %s/%s: %s",
					 dir, name, strerror(-ret));
		}
		close(s);
		return ret;
	}
	/* The directory is 0700: nobody else reached it in between. */
	if (fchmodat(dirfd, name, 0600, 0) || listen(s, 16)) {
		ret = ulsm_error(-errno, "control: %s/%s: %s", dir, name,
				 strerror(errno));
		unlinkat(dirfd, name, 0);
		close(s);
		return ret;
	}
	return s;
}

/* --- connections ------------------------------------------------------- */

static void conn_close(struct conn *c);

/* Send what can be sent now; -1 when the connection is gone. */
static int conn_flush(struct conn *c)
{
	while (c->off < c->out.len) {
		ssize_t n = send(c->fd, c->out.p + c->off, c->out.len - c->off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		c->off += (size_t)n;
		c->since = now_ms();
	}
	buf_free(&c->out);
	c->off = 0;
	return c->close_after ? -1 : 0;
}

static void reply_error(struct conn *c, int err, const char *msg)
{
	char line[ERROR_MAX + 1];
	size_t i;

	if (!msg || !*msg)
		msg = strerror(-err);
	/* One line: no control characters, at most ERROR_MAX bytes. */
	for (i = 0; msg[i] && i < ERROR_MAX; i++)
		line[i] = (unsigned char)msg[i] < 0x20 ? ' ' : msg[i];
	line[i] = '\0';
	buf_printf(&c->out, "error %d ", err);
	buf_add(&c->out, line, i);
	buf_add(&c->out, "\n", 1);
}

static void reply_ok(struct conn *c, const struct buf *json)
{
	if (json && json->over) {
		reply_error(c, -EFBIG, "the reply is larger than 1 MiB");
		return;
	}
	buf_printf(&c->out, "ok %zu\n", json ? json->len : 0);
	if (json)
		buf_add(&c->out, json->p, json->len);
}

/* --- the recording ----------------------------------------------------- */

static void to_buf(void *arg, const void *bytes, size_t n)
{
	buf_add(arg, bytes, n);
}

static void chunk(struct conn *c, const char *what, struct buf *b)
{
	buf_printf(&c->out, "%s %zu\n", what, b->len);
	buf_add(&c->out, b->p, b->len);
}

/* Read what is new in the rings into the recording's connection. */
static void rec_pump(void)
{
	struct conn *c = ctl.rec;
	struct buf b = { .max = 2 * REC_CHUNK };
	long n;

	if (!c || c->out.len - c->off > REC_HIGH)
		return;
	n = ulsm_trace_stream_read(ctl.stream, to_buf, &b, REC_CHUNK, false);
	if (n > 0 && !b.over)
		chunk(c, "data", &b);
	else if (n < 0)
		reply_error(c, (int)n, ulsm_last_error());
	buf_free(&b);
}

/*
 * End the recording: detach what it attached, then read the rest (the
 * final reads) and, if @send, send it: "data" chunks and the "end" one.
 */
static void rec_end(bool send)
{
	struct conn *c = ctl.rec;
	struct buf last = { .max = 2 * REC_CHUNK };

	if (!c)
		return;
	if (ctl.attached)
		ulsm_trace_disable(ctl.glob);
	ctl.attached = false;
	for (;;) {
		struct buf b = { .max = 2 * REC_CHUNK };
		long n = send ? ulsm_trace_stream_read(ctl.stream, to_buf, &b,
							REC_CHUNK, true) : 0;

		if (n <= 0 || b.over) {
			buf_free(&b);
			break;
		}
		if (last.len)
			chunk(c, "data", &last);
		buf_free(&last);
		last = b;
	}
	if (send)
		chunk(c, "end", &last);
	buf_free(&last);
	ulsm_trace_stream_close(ctl.stream);
	ctl.stream = NULL;
	ctl.rec = NULL;
	c->recording = false;
}

struct glob_count {
	const char *glob;
	int n;
};

static void count_tp(void *arg, const char *name, const char *args,
		     int probes, bool recorder)
{
	struct glob_count *g = arg;

	(void)args, (void)probes, (void)recorder;
	g->n += !fnmatch(g->glob, name, 0);
}

static void do_record(struct conn *c, const char *glob)
{
	struct glob_count g = { glob, 0 };
	struct buf j = { .max = REPLY_MAX };
	int ret;

	if (ctl.rec) {
		reply_error(c, -EBUSY, "a recording is in progress (one at a "
			    "time)");
		return;
	}
	if (strlen(glob) > GLOB_MAX) {
		reply_error(c, -EINVAL, "the glob is longer than 256 bytes");
		return;
	}
	ulsm_clear_error();
	ret = ulsm_trace_stream_open(&ctl.stream);
	if (ret) {
		reply_error(c, ret, ulsm_last_error());
		return;
	}
	ulsm_clear_error();
	ret = ulsm_trace_enable(glob);	/* how many it matched, or -errno */
	if (ret < 0 && ret != -EEXIST) {
		ulsm_trace_stream_close(ctl.stream);
		ctl.stream = NULL;
		reply_error(c, ret, ulsm_last_error());
		return;
	}
	ctl.attached = ret >= 0;
	snprintf(ctl.glob, sizeof(ctl.glob), "%s", glob);
	ctl.rec = c;
	c->recording = true;
	ulsm_trace_each(count_tp, &g, 1000);
	buf_add(&j, "{\"glob\":", 8);
	buf_json(&j, glob);
	buf_printf(&j, ",\"matched\":%d,\"attached\":%s}\n", g.n,
		   ctl.attached ? "true" : "false");
	reply_ok(c, &j);
	buf_free(&j);
}

/* --- show and hello ---------------------------------------------------- */

struct json_list {
	struct buf *b;
	int n;
};

static void sep(struct json_list *l)
{
	if (l->n++)
		buf_add(l->b, ",", 1);
}

static void show_tp(void *arg, const char *name, const char *args,
		    int probes, bool recorder)
{
	struct json_list *l = arg;

	sep(l);
	buf_add(l->b, "{\"name\":", 8);
	buf_json(l->b, name);
	buf_add(l->b, ",\"args\":", 8);
	buf_json(l->b, args);
	buf_printf(l->b, ",\"on\":%s,\"probes\":%d,\"recorder\":%s}",
		   probes ? "true" : "false", probes,
		   recorder ? "true" : "false");
}

static void show_switch(void *arg, const struct ulsm_switch *sw)
{
	struct json_list *l = arg;

	sep(l);
	buf_add(l->b, "{\"name\":", 8);
	buf_json(l->b, sw->name);
	buf_add(l->b, ",\"description\":", 15);
	buf_json(l->b, sw->description);
	buf_printf(l->b, ",\"on\":%s}",
		   __atomic_load_n(&sw->key->key.enabled, __ATOMIC_RELAXED) > 0 ?
		   "true" : "false");
}

/*
 * The hook framework, through the table it registers (src/base/hook_sets.h):
 * none before its first set, and then nothing to list. A set in hand (from
 * this walk) means the table is there: the rest call ulsm_lsm_ops() as is.
 */
static void lsm_each_set(void (*fn)(void *arg,
				    const struct ulsm_lsm_set_info *),
			 void *arg)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();

	if (ops)
		ops->each_set(fn, arg);
}

static void show_module(void *arg, const struct ulsm_lsm_module_info *m)
{
	struct json_list *l = arg;

	sep(l);
	buf_add(l->b, "{\"name\":", 8);
	buf_json(l->b, m->name);
	buf_add(l->b, ",\"state\":", 9);
	buf_json(l->b, m->state);
	buf_printf(l->b, ",\"position\":%d,\"on\":%s,\"reason\":",
		   m->position, m->on ? "true" : "false");
	buf_json(l->b, m->reason);
	buf_add(l->b, "}", 1);
}

static void show_set(void *arg, const struct ulsm_lsm_set_info *s)
{
	struct json_list *l = arg, ml = { l->b, 0 };

	sep(l);
	buf_add(l->b, "{\"name\":", 8);
	buf_json(l->b, s->name);
	buf_printf(l->b, ",\"sealed\":%s,\"toggle_allowed\":%s,"
		   "\"unloadable\":%s,\"modules\":[",
		   s->sealed ? "true" : "false",
		   s->toggle_allowed ? "true" : "false",
		   s->unloadable ? "true" : "false");
	ulsm_lsm_ops()->each_module(s->set, show_module, &ml);
	buf_add(l->b, "]}", 2);
}

/* A key's or call's name: its dynamic symbol, else its address. */
static void json_sym(struct buf *b, const void *p)
{
	Dl_info info;

	if (p && dladdr(p, &info) && info.dli_sname && info.dli_saddr == p)
		buf_json(b, info.dli_sname);
	else
		buf_printf(b, "\"%p\"", p);
}

static int cmp_site_key(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct ulsm_site *)a)->key;
	uintptr_t y = (uintptr_t)((const struct ulsm_site *)b)->key;

	return (x > y) - (x < y);
}

/* The hook sets' own keys and calls, shown with their sets, not here. */
struct set_ranges {
	struct ulsm_range r[128];
	int n;
};

static void set_range(void *arg, const struct ulsm_lsm_set_info *s)
{
	struct set_ranges *sr = arg;
	const struct ulsm_hook_set *set = s->set;

	if (sr->n + 2 > (int)ARRAY_SIZE(sr->r))
		return;
	sr->r[sr->n++] = (struct ulsm_range){ (uintptr_t)set->keys,
		(uintptr_t)set->keys + set->keys_size };
	sr->r[sr->n++] = (struct ulsm_range){ (uintptr_t)set->sealed,
		(uintptr_t)set->sealed + set->sealed_size };
}

/* The switches' keys, named: a program's keys have no dynamic symbol. */
struct switch_names {
	const void *key[64];
	char name[64][64];
	int n;
};

static void switch_name(void *arg, const struct ulsm_switch *sw)
{
	struct switch_names *sn = arg;

	if (sn->n == (int)ARRAY_SIZE(sn->key))
		return;
	sn->key[sn->n] = sw->key;
	snprintf(sn->name[sn->n++], sizeof(sn->name[0]), "%s", sw->name);
}

static bool in_set(const struct set_ranges *sr, const void *key)
{
	for (int i = 0; i < sr->n; i++)
		if ((uintptr_t)key >= sr->r[i].lo && (uintptr_t)key < sr->r[i].hi)
			return true;
	return false;
}

/* What the registry says of one key or call, copied under the patch lock. */
struct kc {
	const void *key, *target;
	int count, sites, direct;
	bool call;
	int sw;			/* index in switch_names, or -1 */
};

/*
 * The keys with branch sites and the calls with a trampoline that the
 * registry knows (read-only): hook slots' calls and keys are their sets'.
 */
static void show_keys_calls(struct buf *b)
{
	struct json_list keys = { b, 0 }, calls = { b, 0 };
	struct set_ranges sr = { .n = 0 };
	struct switch_names *sn;
	struct ulsm_site *s;
	struct kc *v;
	struct buf cb = { .max = REPLY_MAX };
	size_t n, i = 0, nv = 0;

	/* The framework's lock before the patch lock, as the dump takes them. */
	lsm_each_set(set_range, &sr);
	sn = ulsm_calloc(1, sizeof(*sn));
	if (sn)
		ulsm_switch_each(switch_name, sn);

	if (ulsm_lock()) {
		ulsm_free(sn);
		buf_add(b, ",\"keys\":[],\"calls\":[]", 21);
		return;
	}
	n = ulsm_registry_snapshot(NULL, 0);
	s = ulsm_calloc(n + 1, sizeof(*s));
	v = ulsm_calloc(n + 1, sizeof(*v));
	n = s && v ? ulsm_registry_snapshot(s, n) : 0;
	if (n)
		qsort(s, n, sizeof(*s), cmp_site_key);
	while (i < n) {
		size_t j = i, ksites = 0, tramps = 0;

		for (; j < n && s[j].key == s[i].key; j++) {
			ksites += s[j].kind == &ulsm_kind_key_site;
			tramps += s[j].kind == &ulsm_kind_trampoline;
		}
		if (in_set(&sr, s[i].key)) {
			i = j;
			continue;
		}
		if (ksites) {
			const struct static_key *k = s[i].key;

			v[nv] = (struct kc){ .key = k, .sites = (int)ksites,
				.count = __atomic_load_n(&k->enabled,
							 __ATOMIC_RELAXED),
				.sw = -1 };
			for (int w = 0; sn && w < sn->n; w++)
				if (sn->key[w] == k)
					v[nv].sw = w;
			nv++;
		} else if (tramps) {
			const struct static_call_key *k = s[i].key;
			int direct = 0, sites = ulsm_call_sites_count(k, &direct);

			v[nv++] = (struct kc){ .key = k, .call = true,
				.target = k->func, .sites = sites < 0 ? 0 : sites,
				.direct = direct, .sw = -1 };
		}
		i = j;
	}
	ulsm_unlock();
	ulsm_free(s);
	/*
	 * Named after the lock is released: dladdr() takes the dynamic
	 * linker's lock, which a dlclose() holds while the object's
	 * destructor waits for the patch lock. The pointers are only looked
	 * up, never read.
	 */
	buf_add(b, ",\"keys\":[", 9);
	calls.b = &cb;
	for (i = 0; i < nv; i++) {
		if (!v[i].call) {
			sep(&keys);
			buf_add(b, "{\"name\":", 8);
			if (v[i].sw >= 0) {
				buf_json(b, sn->name[v[i].sw]);
				buf_add(b, ",\"switch\":true", 14);
			} else {
				json_sym(b, v[i].key);
			}
			buf_printf(b, ",\"on\":%s,\"count\":%d,\"sites\":%d}",
				   v[i].count > 0 ? "true" : "false",
				   v[i].count, v[i].sites);
		} else {
			sep(&calls);
			buf_add(&cb, "{\"key\":", 7);
			json_sym(&cb, v[i].key);
			buf_add(&cb, ",\"target\":", 10);
			if (v[i].target)
				json_sym(&cb, v[i].target);
			else
				buf_add(&cb, "null", 4);
			buf_printf(&cb, ",\"sites\":%d,\"direct\":%d}",
				   v[i].sites, v[i].direct);
		}
	}
	ulsm_free(v);
	ulsm_free(sn);
	buf_add(b, "],\"calls\":[", 11);
	buf_add(b, cb.p, cb.len);
	b->over |= cb.over;
	buf_add(b, "]", 1);
	buf_free(&cb);
}

static void json_process(struct buf *b)
{
	char comm[64] = "";
	int fd = ulsm_sys_open("/proc/self/comm", O_RDONLY);

	if (fd >= 0) {
		ssize_t n = ulsm_sys_read(fd, comm, sizeof(comm) - 1);

		comm[n > 0 ? n : 0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		ulsm_sys_close(fd);
	}
	buf_printf(b, "\"pid\":%d,\"command\":", (int)getpid());
	buf_json(b, comm);
	buf_printf(b, ",\"uid\":%u,\"version\":\"%s\",\"backend\":",
		   (unsigned int)geteuid(), ULSM_VERSION);
	buf_json(b, ulsm_backend());
	buf_add(b, ",\"sync\":", 8);
	buf_json(b, ulsm_sync_name());
}

static void do_hello(struct conn *c)
{
	struct buf j = { .max = REPLY_MAX };
	struct glob_count g = { "*", 0 };

	ulsm_trace_each(count_tp, &g, 1000);
	buf_add(&j, "{", 1);
	json_process(&j);
	buf_printf(&j, ",\"tracepoints\":%d,\"switches\":%d}\n", g.n,
		   ulsm_switch_each(NULL, NULL));
	reply_ok(c, &j);
	buf_free(&j);
}

static void do_show(struct conn *c)
{
	struct buf j = { .max = REPLY_MAX };
	struct json_list l = { &j, 0 };

	buf_add(&j, "{\"process\":{", 12);
	json_process(&j);
	buf_add(&j, "},\"tracepoints\":[", 17);
	if (ulsm_trace_each(show_tp, &l, 1000)) {
		buf_free(&j);
		reply_error(c, -EBUSY, "the tracepoints are busy (a probe is "
			    "being attached or detached)");
		return;
	}
	buf_add(&j, "],\"switches\":[", 14);
	l.n = 0;
	ulsm_switch_each(show_switch, &l);
	buf_add(&j, "]", 1);
	show_keys_calls(&j);
	buf_add(&j, ",\"sets\":[", 9);
	l.n = 0;
	lsm_each_set(show_set, &l);
	buf_add(&j, "]}\n", 3);
	reply_ok(c, &j);
	buf_free(&j);
}

/* --- switch and toggle ------------------------------------------------- */

static void switch_done(void *arg, const struct ulsm_switch *sw)
{
	struct json_list l = { arg, 0 };

	show_switch(&l, sw);
}

static int on_off(const char *w)
{
	return !strcmp(w, "on") ? 1 : !strcmp(w, "off") ? 0 : -1;
}

static void do_switch(struct conn *c, const char *name, const char *state)
{
	struct buf j = { .max = REPLY_MAX };
	int on = on_off(state), ret;

	if (on < 0) {
		reply_error(c, -EINVAL, "switch NAME on|off");
		return;
	}
	ret = ulsm_switch_set(name, on, switch_done, &j);
	if (ret) {
		reply_error(c, ret, ulsm_last_error());
	} else {
		buf_add(&j, "\n", 1);
		reply_ok(c, &j);
	}
	buf_free(&j);
}

struct find_set {
	const char *name;
	struct ulsm_hook_set *set;
	const char *module;
	struct buf *b;
};

static void find_set(void *arg, const struct ulsm_lsm_set_info *s)
{
	struct find_set *f = arg;

	if (!strcmp(s->name, f->name))
		f->set = s->set;
}

static void module_json(void *arg, const struct ulsm_lsm_module_info *m)
{
	struct find_set *f = arg;
	struct json_list l = { f->b, 0 };

	if (!strcmp(m->name, f->module))
		show_module(&l, m);
}

static void set_json(void *arg, const struct ulsm_lsm_set_info *s)
{
	struct find_set *f = arg;

	if (s->set == f->set)
		ulsm_lsm_ops()->each_module(s->set, module_json, f);
}

static void do_toggle(struct conn *c, const char *set, const char *module,
		      const char *state)
{
	struct buf j = { .max = REPLY_MAX };
	struct find_set f = { set, NULL, module, &j };
	int on = on_off(state), ret;

	if (on < 0) {
		reply_error(c, -EINVAL, "toggle SET MODULE on|off");
		return;
	}
	lsm_each_set(find_set, &f);
	if (!f.set) {
		reply_error(c, -ENOENT, "no initialised hook set of that name");
		return;
	}
	ulsm_clear_error();
	ret = ulsm_lsm_ops()->toggle(f.set, module, on);
	if (ret) {
		reply_error(c, ret, ulsm_last_error());
		return;
	}
	lsm_each_set(set_json, &f);
	buf_add(&j, "\n", 1);
	reply_ok(c, &j);
	buf_free(&j);
}

/* --- requests ---------------------------------------------------------- */

/*
 * One request line (without its newline): verbs and arguments of
 * printable characters, separated by single spaces.
 */
static void request(struct conn *c, char *line)
{
	char *arg[5];
	int n = 0;

	for (char *p = line; *p; p++)
		if ((unsigned char)*p <= ' ' && *p != ' ')
			goto bad;
		else if ((unsigned char)*p >= 0x7f)
			goto bad;
	for (char *p = line; n < 5;) {
		char *sp = strchr(p, ' ');

		if (sp == p || !*p)
			goto bad;	/* an empty word */
		arg[n++] = p;
		if (!sp)
			break;
		*sp = '\0';
		p = sp + 1;
		if (n == 5)
			goto bad;
	}
	if (c->recording) {
		if (n == 1 && !strcmp(arg[0], "stop"))
			rec_end(true);
		else
			reply_error(c, -EINVAL, "inside a recording, only stop");
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
	else if (n == 1 && !strcmp(arg[0], "clear")) {
		int ret = ulsm_trace_clear();

		if (ret)
			reply_error(c, ret, ulsm_last_error());
		else
			reply_ok(c, NULL);
	} else if (n == 2 && !strcmp(arg[0], "record"))
		do_record(c, arg[1]);
	else
		goto bad;
	return;
bad:
	reply_error(c, -EINVAL, "bad request (verbs: hello, show, switch NAME "
		    "on|off, toggle SET MODULE on|off, clear, record GLOB, "
		    "stop)");
}

/* Handle the whole lines read, while nothing is left to send. */
static void requests(struct conn *c)
{
	while (!c->close_after && (c->out.len == c->off || c->recording)) {
		char *nl = memchr(c->in, '\n', c->inlen);
		size_t used;

		if (!nl) {
			if (c->inlen == sizeof(c->in)) {
				reply_error(c, -EINVAL, "a request line is at "
					    "most 1024 bytes");
				c->close_after = true;
				c->inlen = 0;
			}
			return;
		}
		*nl = '\0';
		used = (size_t)(nl - c->in) + 1;
		if (memchr(c->in, '\0', used - 1))
			reply_error(c, -EINVAL, "a NUL byte in a request");
		else
			request(c, c->in);
		memmove(c->in, c->in + used, c->inlen - used);
		c->inlen -= used;
	}
}

static void conn_read(struct conn *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, c->in + c->inlen,
				 sizeof(c->in) - c->inlen, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			conn_close(c);
			return;
		}
		c->inlen += (size_t)n;
		c->since = now_ms();
		requests(c);
		if (c->inlen == sizeof(c->in) || c->close_after ||
		    c->out.len != c->off)
			break;
	}
}

static void conn_close(struct conn *c)
{
	if (c->fd < 0)
		return;
	if (c->recording)
		rec_end(false);
	close(c->fd);
	buf_free(&c->out);
	*c = (struct conn){ .fd = -1, .out.max = OUT_MAX };
}

/* A refusal before the greeting: one line, whatever of it fits. */
static void refuse(int fd, const char *line)
{
	ssize_t n = send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT);

	(void)n;
	close(fd);
}

static void accept_all(void)
{
	for (;;) {
		struct ucred cr;
		socklen_t len = sizeof(cr);
		struct conn *c = NULL;
		int fd = accept4(ctl.lfd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len)) {
			close(fd);
			continue;
		}
		if (cr.uid != geteuid() && cr.uid != 0) {
			ulsm_report("control: refused a connection from uid "
				    "%u, pid %d", (unsigned int)cr.uid,
				    (int)cr.pid);
			refuse(fd, "error -13 permission denied: not this "
			       "process's user\n");
			continue;
		}
		for (int i = 0; i < MAX_CONNS && !c; i++)
			if (ctl.conns[i].fd < 0)
				c = &ctl.conns[i];
		if (!c) {
			refuse(fd, "error -16 busy\n");
			continue;
		}
		*c = (struct conn){ .fd = fd, .out.max = OUT_MAX,
				    .since = now_ms() };
		buf_printf(&c->out, "ulsm-control %d %d\n", PROTO_VERSION,
			   (int)getpid());
		if (conn_flush(c))
			conn_close(c);
	}
}

/* --- the thread -------------------------------------------------------- */

static void *serve(void *unused)
{
	struct pollfd pfd[2 + MAX_CONNS];
	struct conn *of[2 + MAX_CONNS];

	(void)unused;
	for (;;) {
		long long now = now_ms();
		int n = 2, timeout = -1;

		pfd[0] = (struct pollfd){ .fd = ctl.wake[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = ctl.lfd, .events = POLLIN };
		for (int i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &ctl.conns[i];
			bool pending = c->out.len != c->off;
			long long left;

			if (c->fd < 0)
				continue;
			of[n] = c;
			pfd[n] = (struct pollfd){ .fd = c->fd };
			if (!c->close_after && (!pending || c->recording) &&
			    c->inlen < sizeof(c->in))
				pfd[n].events |= POLLIN;
			if (pending)
				pfd[n].events |= POLLOUT;
			n++;
			if (c->recording && !pending)
				continue;	/* a recording is not idle */
			left = c->since + ctl.timeout_ms - now;
			if (left < 0)
				left = 0;
			if (timeout < 0 || left < timeout)
				timeout = (int)left;
		}
		if (ctl.rec && (timeout < 0 || timeout > REC_POLL_MS))
			timeout = REC_POLL_MS;
		if (poll(pfd, (nfds_t)n, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		for (int i = 2; i < n; i++) {
			struct conn *c = of[i];

			if (c->fd < 0 || !pfd[i].revents)
				continue;
			if (pfd[i].revents & POLLOUT) {
				if (conn_flush(c)) {
					conn_close(c);
					continue;
				}
				requests(c);
			}
			if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
				conn_read(c);
		}
		if (pfd[1].revents)
			accept_all();
		rec_pump();
		now = now_ms();
		for (int i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &ctl.conns[i];
			bool pending = c->out.len != c->off;

			if (c->fd < 0)
				continue;
			if ((pending || c->close_after) && conn_flush(c)) {
				conn_close(c);
				continue;
			}
			pending = c->out.len != c->off;
			if ((pending || !c->recording) &&
			    now - c->since >= ctl.timeout_ms)
				conn_close(c);
		}
	}
	for (int i = 0; i < MAX_CONNS; i++)
		conn_close(&ctl.conns[i]);
	return NULL;
}

/* --- start and stop ---------------------------------------------------- */

static void close_all(void)
{
	if (ctl.lfd >= 0)
		close(ctl.lfd);
	if (ctl.dirfd >= 0)
		ulsm_sys_close(ctl.dirfd);
	for (int i = 0; i < 2; i++)
		if (ctl.wake[i] >= 0)
			close(ctl.wake[i]);
	ctl.lfd = ctl.dirfd = ctl.wake[0] = ctl.wake[1] = -1;
}

/*
 * A forked child does not answer on its parent's socket, and does not
 * have the thread: close every descriptor and forget the connections.
 * The file is the parent's: left where it is.
 */
static void fork_child(void)
{
	if (!ctl.running)
		return;
	/*
	 * The unsent bytes are freed: malloc's own fork handlers make the
	 * heap whole in the child, and a buffer left there would be lost
	 * (LeakSanitizer saw one, a reply the parent's thread had just made).
	 */
	for (int i = 0; i < MAX_CONNS; i++)
		if (ctl.conns[i].fd >= 0) {
			close(ctl.conns[i].fd);
			buf_free(&ctl.conns[i].out);
			ctl.conns[i] = (struct conn){ .fd = -1,
						      .out.max = OUT_MAX };
		}
	close_all();
	ctl.rec = NULL;
	ctl.stream = NULL;	/* the recorder forgets it in the child */
	ctl.running = false;
	ctl.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
}

/* At exit the socket goes (only the process that made it removes it). */
static void at_exit(void)
{
	if (ctl.running && ctl.pid == getpid() && ctl.dirfd >= 0)
		unlinkat(ctl.dirfd, ctl.name, 0);
}

static void once_init(void)
{
	pthread_atfork(NULL, NULL, fork_child);
	atexit(at_exit);
	for (int i = 0; i < MAX_CONNS; i++)
		ctl.conns[i] = (struct conn){ .fd = -1, .out.max = OUT_MAX };
}

static int timeout_from_env(void)
{
	const char *v = getenv("ULSM_CONTROL_TIMEOUT_MS");
	char *end;
	long ms;

	if (!v || !*v)
		return TIMEOUT_MS;
	ms = strtol(v, &end, 10);
	return *end || ms < 1 || ms > 600000 ? TIMEOUT_MS : (int)ms;
}

static int start_locked(void)
{
	char dir[sizeof(ctl.path)];
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	sigset_t block, old;
	int ret, n;

	if (getresuid(&ruid, &euid, &suid) || getresgid(&rgid, &egid, &sgid))
		return ulsm_error(-errno, "control: getresuid: %s",
				  strerror(errno));
	if (ruid != euid || rgid != egid)
		return ulsm_error(-EPERM, "control: refused in a setuid or "
				  "setgid program (real uid %u gid %u, "
				  "effective uid %u gid %u)",
				  (unsigned int)ruid, (unsigned int)rgid,
				  (unsigned int)euid, (unsigned int)egid);
	ret = open_dir(dir, sizeof(dir) - 32, &ctl.dirfd);
	if (ret)
		return ret;
	snprintf(ctl.name, sizeof(ctl.name), "ulsm.%d.sock", (int)getpid());
	n = snprintf(ctl.path, sizeof(ctl.path), "%s/%s", dir, ctl.name);
	if (n < 0 || (size_t)n >= sizeof(ctl.path)) {
		ret = ulsm_error(-ENAMETOOLONG, "control: %s: too long", dir);
		goto fail;
	}
	ret = bind_socket(ctl.dirfd, ctl.name, dir);
	if (ret < 0)
		goto fail;
	ctl.lfd = ret;
	if (pipe2(ctl.wake, O_CLOEXEC | O_NONBLOCK)) {
		ret = ulsm_error(-errno, "control: pipe: %s", strerror(errno));
		goto fail_unlink;
	}
	ctl.timeout_ms = timeout_from_env();
	ctl.pid = getpid();
	/*
	 * The program's own signals go to its threads, not to this one (it
	 * inherits the mask); the library's sync signal stays open.
	 */
	sigemptyset(&block);
	for (const int *s = (const int[]){ SIGINT, SIGTERM, SIGHUP, SIGQUIT,
					   SIGUSR1, SIGUSR2, SIGCHLD, SIGALRM,
					   SIGPIPE, SIGWINCH, 0 }; *s; s++)
		sigaddset(&block, *s);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	ret = -pthread_create(&ctl.thread, NULL, serve, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		ret = ulsm_error(ret, "control: cannot start its thread: %s",
				 strerror(-ret));
		goto fail_unlink;
	}
	pthread_setname_np(ctl.thread, "ulsm-control");
	ctl.running = true;
	return 0;
fail_unlink:
	unlinkat(ctl.dirfd, ctl.name, 0);
fail:
	close_all();
	return ret;
}

ULSM_API int ulsm_control_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int ret = 0;

	ulsm_config_init();
	pthread_once(&once, once_init);
	pthread_mutex_lock(&ctl.lock);
	if (!ctl.running)
		ret = start_locked();
	pthread_mutex_unlock(&ctl.lock);
	return ret;
}

ULSM_API void ulsm_control_stop(void)
{
	pthread_mutex_lock(&ctl.lock);
	if (ctl.running && !pthread_equal(pthread_self(), ctl.thread)) {
		ssize_t n = write(ctl.wake[1], "", 1);

		(void)n;
		pthread_join(ctl.thread, NULL);
		unlinkat(ctl.dirfd, ctl.name, 0);
		close_all();
		ctl.running = false;
	}
	pthread_mutex_unlock(&ctl.lock);
}

void ulsm_control_from_env(void)
{
	const char *v = getenv("ULSM_CONTROL");
	int ret;

	if (!v || strcmp(v, "1"))
		return;
	ret = ulsm_control_start();
	if (ret)
		ulsm_report("ULSM_CONTROL=1: %s", ulsm_last_error());
}
