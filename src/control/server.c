// SPDX-License-Identifier: MIT
/*
 * The control endpoint's thread (docs/control.md): one unix socket per
 * process, served by one thread ("ulsm-control") that waits in poll()
 * holding no lock. Requests run in the thread, taking the library's
 * locks as any update does, and release them before it waits again.
 * Every socket is non-blocking and every buffer bounded: a client can
 * make the thread do nothing but close it.
 *
 * The thread never spins and never ends but when it is stopped: a
 * failed poll() is tried again after a pause, and a failed accept (out
 * of descriptors or memory) leaves the listening socket out of the poll
 * for a while, the pause doubling up to a second, rather than polling a
 * socket that stays readable.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control/endpoint.h"
#include "trace/trace.h"

#define ACCEPT_PAUSE_MIN_MS	50
#define ACCEPT_PAUSE_MAX_MS	1000
#define POLL_FAIL_PAUSE_MS	10

/* Start, stop and the thread's own. */
static struct {
	pthread_mutex_t lock;	/* start and stop */
	bool running;
	pid_t pid;		/* whose endpoint it is */
	int dirfd, lfd, wake[2];
	char name[64];		/* the socket's, in dirfd */
	pthread_t thread;
	uint64_t accept_at;	/* the listening socket is polled again then */
	unsigned int accept_pause;
	uint64_t usdt_at;	/* the USDT semaphores are looked at then */
} srv = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.dirfd = -1, .lfd = -1, .wake = { -1, -1 },
};

/* --- the thread -------------------------------------------------------- */

void ctl_drop(struct conn *c)
{
	if (c->recording)
		rec_drop(c);
	if (c->counting)
		counts_release();
	conn_close(c);
}

bool ctl_follow(struct conn *c, int r)
{
	if (r == CONN_EOF_RECORDING) {
		rec_stop(c);	/* the rest is sent, then the end */
		return true;
	}
	if (r == CONN_CLOSE) {
		ctl_drop(c);
		return false;
	}
	return true;
}

/* At most @ms from now, or sooner: *@timeout (-1: none yet). */
static void sooner(int *timeout, long long ms)
{
	if (ms < 0)
		ms = 0;
	if (*timeout < 0 || ms < *timeout)
		*timeout = (int)ms;
}

/* The connection's poll events, and when it would be idle too long. */
static short conn_events(const struct conn *c, uint64_t now, int *timeout)
{
	bool pending = conn_pending(c);
	short ev = 0;

	if (!c->close_after && !c->eof && c->inlen < sizeof(c->in) &&
	    (!pending || c->recording))
		ev |= POLLIN;
	if (pending)
		ev |= POLLOUT;
	/* A recording is idle only while it leaves chunks unsent. */
	if (pending || !c->recording)
		sooner(timeout, (long long)(c->since + (uint64_t)ctl.timeout_ms) -
				(long long)now);
	return ev;
}

/* A failed accept: leave the socket out of the poll for a while. */
static void accept_failed(uint64_t now)
{
	unsigned int p = srv.accept_pause;

	p = p ? p * 2 : ACCEPT_PAUSE_MIN_MS;
	srv.accept_pause = p > ACCEPT_PAUSE_MAX_MS ? ACCEPT_PAUSE_MAX_MS : p;
	srv.accept_at = now + srv.accept_pause;
}

/* Move every connection on, and close those done or idle too long. */
static void sweep(void)
{
	uint64_t now;

	rec_pump();
	for (int i = 0; i < CTL_MAX_CONNS; i++) {
		struct conn *c = &ctl.conns[i];

		if (c->fd < 0)
			continue;
		if (!ctl_follow(c, conn_progress(c, ctl_request)))
			continue;
		/* After the progress: it may have moved c->since on. */
		now = ulsm_now_ms();
		if ((conn_pending(c) || !c->recording) &&
		    now >= c->since + (uint64_t)ctl.timeout_ms)
			ctl_drop(c);
	}
}

static void *serve(void *unused)
{
	struct pollfd pfd[2 + CTL_MAX_CONNS];
	struct conn *of[2 + CTL_MAX_CONNS];

	(void)unused;
	for (;;) {
		uint64_t now = ulsm_now_ms();
		int n = 2, timeout = -1, r;
		bool listen = now >= srv.accept_at;

		pfd[0] = (struct pollfd){ .fd = srv.wake[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = listen ? srv.lfd : -1,
					  .events = POLLIN };
		if (!listen)
			sooner(&timeout, (long long)(srv.accept_at - now));
		for (int i = 0; i < CTL_MAX_CONNS; i++) {
			struct conn *c = &ctl.conns[i];

			if (c->fd < 0)
				continue;
			of[n] = c;
			pfd[n] = (struct pollfd){ .fd = c->fd,
				.events = conn_events(c, now, &timeout) };
			n++;
		}
		if (rec_wait_ms() >= 0)
			sooner(&timeout, rec_wait_ms());
		sooner(&timeout, (long long)srv.usdt_at - (long long)now);
		r = ulsm_sys_poll(pfd, (unsigned long)n, timeout);
		if (r < 0 && r != -EINTR) {
			/* No memory for the poll: try again in a while. */
			nanosleep(&(struct timespec){ 0, POLL_FAIL_PAUSE_MS *
						      1000000L }, NULL);
			continue;
		}
		if (r > 0 && pfd[0].revents)
			break;
		for (int i = 2; r > 0 && i < n; i++) {
			struct conn *c = of[i];

			if (c->fd < 0 || !pfd[i].revents)
				continue;
			ctl_follow(c, pfd[i].revents &
					 (POLLIN | POLLHUP | POLLERR) ?
				      conn_read(c, ctl_request) :
				      conn_progress(c, ctl_request));
		}
		if (r > 0 && pfd[1].revents) {
			if (conn_accept_all(srv.lfd))
				accept_failed(ulsm_now_ms());
			else
				srv.accept_pause = 0;
		}
		sweep();
		now = ulsm_now_ms();
		if (now >= srv.usdt_at) {
			ulsm_trace_usdt_look();
			srv.usdt_at = now + ULSM_USDT_POLL_MS;
		}
	}
	for (int i = 0; i < CTL_MAX_CONNS; i++)
		ctl_drop(&ctl.conns[i]);
	return NULL;
}

/* --- start and stop ---------------------------------------------------- */

/* Forget, then close (a child of fork: conn.c). */
static void close_fd(int *fd)
{
	int f = *fd;

	__atomic_store_n(fd, -1, __ATOMIC_RELAXED);
	/*
	 * Pairs with fork_child() (this file), through another thread's fork():
	 * a compiler barrier, so the descriptor is forgotten before close().
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ulsm_sys_close(f);
}

static void close_all(void)
{
	close_fd(&srv.lfd);
	close_fd(&srv.dirfd);
	close_fd(&srv.wake[0]);
	close_fd(&srv.wake[1]);
}

/*
 * The buffers a child of fork() inherits from the thread: kept, never
 * freed (the thread may have been freeing or growing one as the fork
 * happened), and reachable from here, so that a leak checker does not
 * count them. Those of the last fork only.
 */
static void *fork_kept[CTL_MAX_CONNS + 1];

/*
 * A forked child does not answer on its parent's socket, and does not
 * have the thread: close every descriptor and forget the connections.
 * What their counts and recording attached is detached (transactions of
 * the child's own, the engine's locks made anew by the library's handler,
 * src/init.c, which runs first): nobody could read or end it in the
 * child, which would pay for it in every hit. A failure leaves it
 * attached; the child's own endpoint, if it starts one, begins from
 * nothing. The socket file is the parent's: left where it is. A descriptor the
 * thread was accepting as the fork happened is not known here: the
 * child keeps it until exec (it is close-on-exec).
 */
static void fork_child(void)
{
	if (!srv.running)
		return;
	for (int i = 0; i < CTL_MAX_CONNS; i++) {
		struct conn *c = &ctl.conns[i];

		if (c->fd >= 0)
			ulsm_sys_close(c->fd);
		fork_kept[i] = c->out.p;
		*c = (struct conn){ .fd = -1, .out.max = ulsm_control_out_max };
	}
	rec_forget(&fork_kept[CTL_MAX_CONNS]);
	counts_forget();
	close_all();
	srv.running = false;
	srv.accept_at = 0;
	srv.accept_pause = 0;
	srv.lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
}

/* At exit the socket goes (only the process that made it removes it). */
static void at_exit(void)
{
	if (srv.running && srv.pid == getpid() && srv.dirfd >= 0)
		unlinkat(srv.dirfd, srv.name, 0);
}

static void once_init(void)
{
	pthread_atfork(NULL, NULL, fork_child);
	atexit(at_exit);
	for (int i = 0; i < CTL_MAX_CONNS; i++)
		ctl.conns[i] = (struct conn){ .fd = -1,
					      .out.max = ulsm_control_out_max };
}

int ulsm_control_timeout_parse(const char *v)
{
	char *end;
	long ms;

	if (!v || !*v)
		return CTL_TIMEOUT_MS;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (*end || errno || ms < 1 || ms > 600000) {
		ulsm_report("ULSM_CONTROL_TIMEOUT_MS=\"%.32s\" is not a number "
			    "of milliseconds from 1 to 600000: %d used", v,
			    CTL_TIMEOUT_MS);
		return CTL_TIMEOUT_MS;
	}
	return (int)ms;
}

static int start_thread(void)
{
	int ret = ulsm_thread_start(&srv.thread, false, serve, NULL,
				    "ulsm-control");

	if (ret)
		return ulsm_error(ret, "control: cannot start its thread: %s",
				  strerror(-ret));
	return 0;
}

static int start_locked(void)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;
	int ret;

	if (getresuid(&ruid, &euid, &suid) || getresgid(&rgid, &egid, &sgid))
		return ulsm_error(-errno, "control: getresuid: %s",
				  strerror(errno));
	if (ruid != euid || rgid != egid)
		return ulsm_error(-EPERM, "control: refused in a setuid or "
				  "setgid program (real uid %u gid %u, "
				  "effective uid %u gid %u)",
				  (unsigned int)ruid, (unsigned int)rgid,
				  (unsigned int)euid, (unsigned int)egid);
	ret = ctl_open_dir(dir, sizeof(dir) - 24, &srv.dirfd);
	if (ret)
		return ret;
	snprintf(srv.name, sizeof(srv.name), "ulsm.%d.sock", (int)getpid());
	ret = ctl_bind_socket(srv.dirfd, srv.name, dir);
	if (ret < 0)
		goto fail;
	srv.lfd = ret;
	ret = ulsm_sys_pipe(srv.wake, O_NONBLOCK);
	if (ret) {
		ret = ulsm_error(ret, "control: pipe: %s", strerror(-ret));
		goto fail_unlink;
	}
	ctl.timeout_ms =
		ulsm_control_timeout_parse(getenv("ULSM_CONTROL_TIMEOUT_MS"));
	srv.pid = getpid();
	srv.accept_at = 0;
	srv.accept_pause = 0;
	ret = start_thread();
	if (ret)
		goto fail_unlink;
	srv.running = true;
	return 0;
fail_unlink:
	unlinkat(srv.dirfd, srv.name, 0);
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
	pthread_mutex_lock(&srv.lock);
	if (!srv.running)
		ret = start_locked();
	pthread_mutex_unlock(&srv.lock);
	return ret;
}

ULSM_API void ulsm_control_stop(void)
{
	pthread_mutex_lock(&srv.lock);
	if (srv.running && !pthread_equal(pthread_self(), srv.thread)) {
		ssize_t n = write(srv.wake[1], "", 1);

		(void)n;
		pthread_join(srv.thread, NULL);
		unlinkat(srv.dirfd, srv.name, 0);
		close_all();
		srv.running = false;
	}
	pthread_mutex_unlock(&srv.lock);
}

void ulsm_control_from_env(void)
{
	int ret;

	if (!ulsm_env_switch("ULSM_CONTROL"))
		return;
	ret = ulsm_control_start();
	if (ret)
		ulsm_report("ULSM_CONTROL=1: %s", ulsm_last_error());
}
