// SPDX-License-Identifier: MIT
/*
 * Core synchronisation: after a round returns 0, every thread of the
 * process has executed a core-serialising instruction since the writes
 * that preceded the round (or will before it next runs user code), so none
 * can still execute stale instruction bytes.
 *
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) does exactly that,
 * from the kernel. Where it is missing (old kernels, some emulators), every
 * other thread gets a real-time signal whose handler executes a serialising
 * instruction and acknowledges; the caller waits for all acknowledgements,
 * for a bounded time.
 *
 * A back end with a fetch sync (the engine's capability: riscv64's
 * riscv_flush_icache, src/engine/arch.h) has a system call of its own that
 * does it, also for a thread that moves to another CPU afterwards, which
 * a CPU's own serialisation does not follow. There it is the method
 * (SYNC_FETCH), membarrier the next choice, and a signal round is never a
 * sync by itself: with the signal method forced, each round makes the
 * fetch sync first, and without it the signal method is refused.
 *
 * A batch acquires everything its rounds need in ulsm_sync_begin(), before
 * its first write: the method, the handler, the /proc/self/task descriptor;
 * the round buffers are static (batches are serialised by the patch lock).
 * A round itself opens nothing and allocates nothing, so a rollback can
 * always run one. See docs/patching-protocol.md, "Core synchronisation".
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"

/* <linux/membarrier.h>, which musl's compiler does not see. */
#define MEMBARRIER_QUERY			0
#define MEMBARRIER_SYNC_CORE			(1 << 5)
#define MEMBARRIER_REGISTER_SYNC_CORE		(1 << 6)

#define FUTEX_WAIT_PRIVATE_	(0 | 128)
#define FUTEX_WAKE_PRIVATE_	(1 | 128)

enum sync_method { SYNC_NONE, SYNC_MEMBARRIER, SYNC_SIGNAL, SYNC_FETCH };

static enum sync_method last_method;
static bool membarrier_registered;
static bool membarrier_failed;	/* refused in the middle of a batch */
static bool fetch_ready;	/* the back end's fetch sync answered */
static bool fetch_failed;	/* refused in the middle of a batch */

/*
 * Under an emulator (qemu-user) a thread can go on running a block of
 * code it translated before a write, until it leaves that block: the
 * host's membarrier does not make it leave. A signal does: the emulator
 * delivers a guest signal only between blocks. So there (the engine's
 * capability, src/engine/caps.c), every round of membarrier is followed
 * by a signal round, from which the emulator's own threads, which block
 * every signal and run no guest code, are exempt (found in step 0, by
 * their blocked masks). See docs/patching-protocol.md, "aarch64" and
 * "qemu".
 */
#define MAX_EXEMPT	16
static pid_t exempt[MAX_EXEMPT];
static size_t nexempt;

/* The last batch's list: those need no second look (see check_blocked). */
static pid_t was_exempt[MAX_EXEMPT];
static size_t nwas_exempt;

static bool in_list(const pid_t *list, size_t n, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == tid)
			return true;
	return false;
}

static bool is_exempt(pid_t tid)
{
	return in_list(exempt, nexempt, tid);
}

/* Threads signalled per chunk of a round. */
#define CHUNK	256

/* One chunk of a round of the signal fallback, read by the handler. */
struct round {
	size_t n;
	pid_t tids[CHUNK];
	int acked[CHUNK];
	int remaining;		/* futex word: acknowledgements still due */
};

static struct round round_buf;
static struct round *active_round;
static struct ulsm_quiesce sync_quiesce;

/* getdents64 records of /proc/self/task, parsed in place. */
static union {
	char bytes[8192];
	uint64_t align;
} dents;

struct dirent64_ {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static int membarrier_prepare(void)
{
	int mask, ret;

	if (membarrier_registered && !membarrier_failed)
		return 0;
	if (membarrier_registered) {
		/* It failed in a batch: does it work again? */
		ret = ulsm_sys_membarrier(MEMBARRIER_SYNC_CORE);
		if (!ret)
			membarrier_failed = false;
		return ret;
	}
	mask = ulsm_sys_membarrier(MEMBARRIER_QUERY);
	if (mask < 0)
		return mask;
	if (!(mask & MEMBARRIER_SYNC_CORE))
		return -ENOSYS;
	ret = ulsm_sys_membarrier(MEMBARRIER_REGISTER_SYNC_CORE);
	if (ret)
		return ret;
	membarrier_registered = true;
	return 0;
}

/*
 * The back end's fetch sync, tried once (and again after a failure): the
 * call has no effect but a synchronisation of instruction fetch.
 */
static int fetch_prepare(void)
{
	int ret;

	if (!ulsm_caps()->sync_fetch)
		return -ENOSYS;
	if (fetch_ready && !fetch_failed)
		return 0;
	ret = arch_sync_fetch();
	if (!ret) {
		fetch_ready = true;
		fetch_failed = false;
	}
	return ret;
}

static void ack(struct round *r, size_t i)
{
	int zero = 0;

	/*
	 * Pairs with the acquire loads of acked[] in chunk_round() (this file):
	 * one of the handler and the writer (a thread gone) acks, and the
	 * handler's serialising comes before.
	 */
	if (!__atomic_compare_exchange_n(&r->acked[i], &zero, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	/*
	 * Pairs with the acquire load of remaining in chunk_round() (this
	 * file): once it reads 0, every thread's arch_serialize() is done.
	 */
	if (__atomic_sub_fetch(&r->remaining, 1, __ATOMIC_ACQ_REL) == 0)
		syscall(SYS_futex, &r->remaining, FUTEX_WAKE_PRIVATE_, 1, NULL,
			NULL, 0);
}

static void sync_signal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t self;
	struct round *r;

	(void)sig;
	(void)si;
	(void)uc;
	ulsm_handler_enter(&sync_quiesce);
	/*
	 * The round first, then serialise: the round is published after its
	 * writes, so serialising after seeing it is serialising after them,
	 * even when this signal was sent for an earlier round. Pairs with
	 * the SEQ_CST store of active_round in chunk_round() (this file):
	 * a handler that sees the round sees its tids, acked and remaining.
	 */
	r = __atomic_load_n(&active_round, __ATOMIC_SEQ_CST);
	if (r) {
		arch_serialize();
		self = ulsm_sys_gettid();
		for (size_t i = 0; i < r->n; i++)
			if (r->tids[i] == self)
				ack(r, i);
	}
	ulsm_handler_leave(&sync_quiesce);
	errno = saved;
}

/* Our handler on the sync signal: installed, or refused if someone's. */
static int signal_prepare(void)
{
	int sig = ulsm_config.sync_signal;
	struct sigaction cur, sa;
	int ret;

	ret = ulsm_sys_sigaction(sig, NULL, &cur);
	if (ret)
		return ret;
	if (cur.sa_flags & SA_SIGINFO) {
		if (cur.sa_sigaction == sync_signal_handler)
			return 0;
	} else if (cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN) {
		goto install;
	}
	/* Replacing the program's handler would break the program. */
	return ulsm_error(-EBUSY, "the program handles signal %d, which the "
			  "signal sync needs: choose another with "
			  "ULSM_SYNC_SIGNAL", sig);
install:
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sync_signal_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	return ulsm_sys_sigaction(sig, &sa, NULL);
}

int ulsm_sync_prepare(void)
{
	bool fetch = ulsm_caps()->sync_fetch;
	int mret = 0, fret = 0, sret;

	switch (ulsm_config.sync_mode) {
	case ULSM_SYNC_SIGNAL:
		break;
	case ULSM_SYNC_MEMBARRIER:
		mret = membarrier_prepare();
		if (mret)
			return ulsm_error(-ENOSYS, "membarrier SYNC_CORE is not "
					  "available (%s)", strerror(-mret));
		last_method = SYNC_MEMBARRIER;
		return 0;
	case ULSM_SYNC_AUTO:
		if (fetch && !fetch_failed) {
			fret = fetch_prepare();
			if (!fret) {
				last_method = SYNC_FETCH;
				return 0;
			}
			ulsm_debug("%s fails (%s): trying membarrier",
				   arch_sync_fetch_name, strerror(-fret));
		}
		if (!membarrier_failed) {
			mret = membarrier_prepare();
			if (!mret) {
				last_method = SYNC_MEMBARRIER;
				return 0;
			}
			ulsm_debug("no membarrier SYNC_CORE (%s): using the "
				   "signal fallback", strerror(-mret));
		}
		break;
	}
	if (fetch) {
		/*
		 * Signals only make each thread serialise the CPU it runs on
		 * now; the fetch sync makes every round complete.
		 */
		fret = fetch_prepare();
		if (fret)
			return ulsm_error(-ENOSYS, "no way to synchronise "
					  "instruction fetch: %s: %s; membarrier: "
					  "%s; and the signal sync needs %s here "
					  "(a thread that moves to another CPU "
					  "leaves its serialisation behind)",
					  arch_sync_fetch_name, strerror(-fret),
					  mret ? strerror(-mret) : "not tried",
					  arch_sync_fetch_name);
	}
	sret = signal_prepare();
	if (sret == -EBUSY)
		return sret;
	if (sret)
		return ulsm_error(-ENOSYS, "no way to synchronise cores: "
				  "membarrier: %s; signal %d: %s",
				  mret ? strerror(-mret) : "not tried",
				  ulsm_config.sync_signal, strerror(-sret));
	last_method = SYNC_SIGNAL;
	return 0;
}

/* --- listing threads ---------------------------------------------------- */

/* Where a listing of /proc/self/task stands. */
struct listing {
	int fd;
	size_t pos, len;
	bool eof;
};

static int listing_start(struct listing *l, int fd)
{
	l->fd = fd;
	l->pos = l->len = 0;
	l->eof = false;
	return ulsm_sys_lseek0(fd);
}

/* The next thread id, 0 at the end, or a negative errno. */
static long listing_next(struct listing *l)
{
	for (;;) {
		const struct dirent64_ *d;
		long tid = 0;

		if (l->pos >= l->len) {
			ssize_t n;

			if (l->eof)
				return 0;
			n = ulsm_sys_getdents(l->fd, dents.bytes,
					      sizeof(dents.bytes));
			if (n < 0)
				return n;
			if (n == 0) {
				l->eof = true;
				return 0;
			}
			l->pos = 0;
			l->len = (size_t)n;
		}
		d = (const struct dirent64_ *)(dents.bytes + l->pos);
		l->pos += d->reclen;
		for (const char *c = d->name; *c >= '0' && *c <= '9'; c++)
			tid = tid * 10 + (*c - '0');
		if (tid > 0)
			return tid;
	}
}

/* Test hook: called in a round once its signals are sent. */
void (*ulsm_test_round_hook)(void);

/* Signal one chunk of threads and wait for them until @deadline (ms). */
static int chunk_round(const struct ulsm_sync *s, struct round *r,
		       uint64_t deadline)
{
	int sig = ulsm_config.sync_signal, ret = 0;

	memset(r->acked, 0, r->n * sizeof(r->acked[0]));
	r->remaining = (int)r->n;
	/*
	 * Pairs with the SEQ_CST load of active_round in sync_signal_handler()
	 * (this file): the round's fields, set above, are seen with it.
	 */
	__atomic_store_n(&active_round, r, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < r->n && !ret; i++) {
		ret = ulsm_sys_tgkill(s->pid, r->tids[i], sig);
		if (ret == -ESRCH) {
			ack(r, i);	/* gone: nothing to serialise */
			ret = 0;
		} else if (ret) {
			ret = ulsm_error(ret, "the sync signal cannot be sent to "
					 "thread %d (%s)", (int)r->tids[i],
					 strerror(-ret));
		}
	}
	if (!ret && ulsm_test_round_hook)
		ulsm_test_round_hook();

	/*
	 * Sleep rather than spin: with more threads than CPUs the threads we
	 * wait for need our CPU to run their handlers. Every millisecond,
	 * count threads that exited without answering as done. The probe is
	 * not a fault point: its failure only means "wait on".
	 */
	while (!ret) {
		/*
		 * Pairs with the acq_rel decrement in ack() (this file): when
		 * it reads 0, every handler's arch_serialize() happened before.
		 */
		int left = __atomic_load_n(&r->remaining, __ATOMIC_ACQUIRE);
		struct timespec ms = { 0, 1000000 };

		if (!left)
			break;
		if (ulsm_now_ms() >= deadline) {
			size_t i = 0;

			/*
			 * Pairs with the acq_rel compare-exchange of acked[] in
			 * ack() (this file): only to name a thread that did not
			 * answer.
			 */
			while (i < r->n &&
			       __atomic_load_n(&r->acked[i], __ATOMIC_ACQUIRE))
				i++;
			ret = ulsm_error(-ETIMEDOUT, "%d thread(s) did not answer "
					 "the sync signal %d within %u ms (thread "
					 "%d among them); see ULSM_SYNC_TIMEOUT_MS",
					 left, sig, ulsm_config.sync_timeout_ms,
					 i < r->n ? (int)r->tids[i] : 0);
			break;
		}
		syscall(SYS_futex, &r->remaining, FUTEX_WAIT_PRIVATE_, left,
			&ms, NULL, 0);
		/*
		 * Pairs with the acq_rel compare-exchange of acked[] in ack()
		 * (this file): a thread that answered is not probed.
		 */
		for (size_t i = 0; i < r->n; i++)
			if (!__atomic_load_n(&r->acked[i], __ATOMIC_ACQUIRE) &&
			    /* the liveness probe: not a fault point */
			    syscall(SYS_tgkill, s->pid, r->tids[i], 0) &&
			    errno == ESRCH)
				ack(r, i);
	}

	/*
	 * Pairs with the increment in ulsm_handler_enter() in
	 * sync_signal_handler() (this file), and the wait below: a late handler
	 * misses the round, or is waited for before the round's memory is
	 * reused.
	 */
	__atomic_store_n(&active_round, NULL, __ATOMIC_SEQ_CST);
	ulsm_wait_for_handlers(&sync_quiesce);
	return ret;
}

/*
 * A round: list the threads now, after the writes, and have each of them
 * serialise, a chunk at a time.
 */
static int signal_round(const struct ulsm_sync *s)
{
	uint64_t deadline = ulsm_now_ms() + ulsm_config.sync_timeout_ms;
	struct round *r = &round_buf;
	struct listing l;
	int ret = listing_start(&l, s->taskfd);

	while (!ret) {
		long tid = 0;

		r->n = 0;
		while (r->n < CHUNK && (tid = listing_next(&l)) > 0)
			if (tid != s->self && !is_exempt((pid_t)tid))
				r->tids[r->n++] = (pid_t)tid;
		if (tid < 0)
			return ulsm_error((int)tid, "cannot list the threads "
					  "(%s)", strerror((int)-tid));
		if (r->n)
			ret = chunk_round(s, r, deadline);
		if (!tid)
			break;
	}
	return ret;
}

/* --- a thread that blocks the signal cannot answer it ------------------ */

static int read_small(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = ulsm_sys_openat(dirfd, path, O_RDONLY);
	size_t have = 0;
	ssize_t n = 0;

	if (fd < 0)
		return fd;
	while (have + 1 < size &&
	       (n = ulsm_sys_read(fd, buf + have, size - 1 - have)) > 0)
		have += (size_t)n;
	ulsm_sys_close(fd);
	if (n < 0)
		return (int)n;
	buf[have] = '\0';
	return 0;
}

/* Whether thread @tid blocks @sig: 1, 0, or a negative errno. */
static int blocks_signal(int taskfd, long tid, int sig)
{
	char path[32], buf[4096];
	unsigned long long mask;
	const char *line;
	int ret;

	snprintf(path, sizeof(path), "%ld/status", tid);
	ret = read_small(taskfd, path, buf, sizeof(buf));
	if (ret)
		return ret;
	line = strstr(buf, "\nSigBlk:");
	if (!line || sscanf(line + 8, "%llx", &mask) != 1)
		return -EPROTO;
	return sig <= 64 && (mask >> (sig - 1)) & 1;
}

/*
 * Refuse (-EDEADLK) if a thread blocks the sync signal; or, with
 * @exempting (the emulator's extra round), record such threads as exempt.
 */
static int check_blocked(const struct ulsm_sync *s, bool exempting)
{
	int sig = ulsm_config.sync_signal;
	struct listing l;
	long tid;
	int ret = listing_start(&l, s->taskfd);

	if (exempting) {
		memcpy(was_exempt, exempt, nexempt * sizeof(exempt[0]));
		nwas_exempt = nexempt;
	}
	nexempt = 0;
	while (!ret && (tid = listing_next(&l)) > 0) {
		/*
		 * glibc blocks every signal for a moment in pthread_create()
		 * and while a thread exits: look again for a while before
		 * calling a block permanent. An emulator's thread exempt in
		 * the last batch still blocking is taken at its first look
		 * (those 20 ms made every batch under qemu 25 ms long).
		 */
		int looks = exempting && in_list(was_exempt, nwas_exempt,
						 (pid_t)tid) ? 1 : 20;

		if (tid == s->self)
			continue;
		for (int tries = 0; tries < looks; tries++) {
			struct timespec ms = { 0, 1000000 };

			ret = blocks_signal(s->taskfd, tid, sig);
			if (ret != 1 || tries + 1 == looks)
				break;
			nanosleep(&ms, NULL);
		}
		if (ret == -ENOENT || ret == -ESRCH) {
			ret = 0;	/* it exited meanwhile */
		} else if (ret == 1 && exempting && nexempt < MAX_EXEMPT) {
			exempt[nexempt++] = (pid_t)tid;
			ret = 0;
		} else if (ret == 1) {
			char comm[64] = "", path[32];

			snprintf(path, sizeof(path), "%ld/comm", tid);
			if (!read_small(s->taskfd, path, comm, sizeof(comm)))
				comm[strcspn(comm, "\n")] = '\0';
			return ulsm_error(-EDEADLK, "thread %ld (%s) blocks the "
					  "sync signal %d, so the signal sync "
					  "cannot synchronise it; unblock it there, "
					  "or use membarrier", tid, comm, sig);
		} else if (ret < 0) {
			return ulsm_error(ret, "cannot read the signal mask of "
					  "thread %ld (%s)", tid, strerror(-ret));
		}
	}
	if (!ret && tid < 0)
		ret = ulsm_error((int)tid, "cannot list the threads (%s)",
				 strerror((int)-tid));
	return ret;
}

/* --- a batch's synchronisation ----------------------------------------- */

int ulsm_sync_begin(struct ulsm_sync *s)
{
	int ret;

	s->taskfd = -1;
	s->pid = s->self = 0;
	ret = ulsm_sync_prepare();
	if (ret)
		return ret;
	s->method = last_method;
	if (s->method != SYNC_SIGNAL && !ulsm_caps_emulated())
		return 0;	/* no thread ids needed: a 1-site flip saves two calls */
	s->pid = getpid();
	s->self = ulsm_sys_gettid();
	if (s->method != SYNC_SIGNAL) {
		ret = signal_prepare();
		if (ret)
			return ulsm_error(ret, "the emulator's extra signal round "
					  "cannot be installed (%s)",
					  strerror(-ret));
	}

	ret = ulsm_sys_open("/proc/self/task", O_RDONLY | O_DIRECTORY);
	if (ret < 0)
		return ulsm_error(ret, "cannot open /proc/self/task for the "
				  "signal sync (%s)", strerror(-ret));
	s->taskfd = ret;
	ret = check_blocked(s, s->method != SYNC_SIGNAL);
	if (!ret && s->method == SYNC_SIGNAL) {
		/* The rehearsal: every thread answers now, or nothing starts. */
		ulsm_stat_add(core_syncs, 1);
		ret = signal_round(s);
		if (ret == -EPERM)
			ret = ulsm_error(-ENOSYS, "no working way to synchronise "
					 "cores: membarrier: %s; the sync signal "
					 "may not be sent (tgkill: %s)",
					 membarrier_failed ? "failed" :
					 membarrier_registered ? "not chosen" :
					 "unavailable", strerror(EPERM));
	}
	if (ret)
		ulsm_sync_end(s);
	return ret;
}

int ulsm_sync_cores(struct ulsm_sync *s)
{
	bool fetch = ulsm_caps()->sync_fetch;
	int ret = 0;

	ulsm_stat_add(core_syncs, 1);
	arch_serialize();
	if (s->method == SYNC_FETCH || (s->method == SYNC_SIGNAL && fetch)) {
		ret = arch_sync_fetch();
		if (ret) {
			fetch_failed = true;
			return ulsm_error(ret, "%s failed in the middle of a "
					  "batch (%s)", arch_sync_fetch_name,
					  strerror(-ret));
		}
	}
	if (s->method == SYNC_SIGNAL)
		return signal_round(s);
	if (s->method == SYNC_MEMBARRIER) {
		ret = ulsm_sys_membarrier(MEMBARRIER_SYNC_CORE);
		if (ret) {
			membarrier_failed = true;
			ret = ulsm_error(ret, "membarrier SYNC_CORE failed in the "
					 "middle of a batch (%s)", strerror(-ret));
		}
		/*
		 * membarrier made every other CPU that runs the process
		 * serialise, and (riscv64) marked every other CPU to do so
		 * before it next runs it; the caller's own CPU is not among
		 * them. This thread may have moved to it since its writes:
		 * where the fetch sync is the back end's, serialise here.
		 */
		if (!ret && fetch)
			arch_serialize();
	}
	if (!ret && s->taskfd >= 0)
		ret = signal_round(s);	/* the emulator's extra round */
	return ret;
}

void ulsm_sync_end(struct ulsm_sync *s)
{
	ulsm_sys_close(s->taskfd);
	s->taskfd = -1;
}

const char *ulsm_sync_name(void)
{
	switch (last_method) {
	case SYNC_MEMBARRIER:
		return "membarrier";
	case SYNC_SIGNAL:
		return "signal";
	case SYNC_FETCH:
		return arch_sync_fetch_name;
	default:
		return ulsm_caps()->patches_code ? "unused" : "none";
	}
}
