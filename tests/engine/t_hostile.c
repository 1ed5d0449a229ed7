// SPDX-License-Identifier: MIT
/*
 * The promise, tried as a hostile program would: an update returns 0 after
 * every thread is synchronised and every site is new, or a negative errno
 * with every site as before; no abort, no hang, whatever the process does
 * to itself. Each case runs in a child of its own:
 *
 *   fds        another thread takes every descriptor and gives them back,
 *              in a loop, while this one flips a key (RLIMIT_NOFILE 64 and
 *              4; default, mprotect and signal methods)
 *   emfile     RLIMIT_NOFILE 3: the errno names the cause (-EMFILE)
 *   seccomp    membarrier and tgkill denied: -ENOSYS, nothing written
 *   sigpending RLIMIT_SIGPENDING 0 with the signal sync: an error, nothing
 *              written
 *   blocked    a thread that blocks every signal; glibc's SIGEV_THREAD
 *              timer thread: the signal sync refuses (-EDEADLK) at once
 *   timeout    a thread that blocks the sync signal in the middle of a
 *              batch: the round times out, the batch rolls back
 *   plugin     a plug-in whose constructor takes every descriptor before
 *              ulsm registers it: it stays pending (and the library says so
 *              on stderr, which the case captures and checks), updates fail
 *              until it can be registered, then it is brought in line
 *   fifo       updaters are served in arrival order
 *   deadlock   an update from a signal handler that interrupts an update of
 *              the same thread: -EDEADLK, never a hang, at any moment
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "captured.h"
#include "key_sites.h"
#include "runtime.h"
#include "child.h"
#include "tap.h"

#if defined(__has_include)
# if __has_include(<linux/seccomp.h>) && __has_include(<linux/filter.h>)
#  include <linux/filter.h>
#  include <linux/seccomp.h>
#  define HAVE_SECCOMP 1
# endif
#endif


#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end writes no code");
}
#else

DEFINE_STATIC_KEY_FALSE(hk);		/* the key the cases flip */
DEFINE_STATIC_KEY_FALSE(other);	/* a second key, for handlers */
DEFINE_STATIC_KEY_FALSE(main_key);	/* the fd-hog plug-in's sites follow it */

__attribute__((noinline)) static int site_a(void)
{
	return static_branch_unlikely(&hk) ? 1 : 0;
}

__attribute__((noinline)) static int site_b(void)
{
	return static_branch_likely(&hk) ? 1 : 0;
}

__attribute__((noinline)) static int site_other(void)
{
	return static_branch_unlikely(&other) ? 1 : 0;
}

__attribute__((noinline)) static int site_main(void)
{
	return static_branch_unlikely(&main_key) ? 1 : 0;
}

/* --- checks inside a child --------------------------------------------- */

/* check(), failures: tests/child.h */

/* The bytes of hk's sites agree with its count, and so does the code. */
static bool hk_consistent(void)
{
	struct key_sites ks = { &hk, { site_a, site_b } };

	return key_sites_find(&ks) == 2 &&
	       key_sites_follow(&ks, static_key_count(&hk) > 0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The soft limit only, so that it can be raised again. */
static void set_limit(int resource, rlim_t n)
{
	struct rlimit r;

	getrlimit(resource, &r);
	r.rlim_cur = n;
	if (setrlimit(resource, &r))
		printf("#   setrlimit: %s\n", strerror(errno));
}

/* A thread that sleeps until the process ends. */
static void *parked(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

struct hostile_case {
	void (*fn)(void);
};

static void hostile_child(void *arg)
{
	const struct hostile_case *c = arg;

	alarm(120);	/* a hang fails the case, it does not block */
	c->fn();
	fflush(stdout);
	_exit(failures ? 1 : 0);
}

/* Run @fn in a child (tests/lib/child.h); one TAP line for it. */
static void hostile_case(const char *name, void (*fn)(void))
{
	struct hostile_case c = { fn };

	in_child(name, hostile_child, &c, NULL, 0);
	ok(WIFEXITED(child_status) && !WEXITSTATUS(child_status), "%s", name);
}

/* --- fds --------------------------------------------------------------- */

static int hog_stop;

static void *fd_hog(void *arg)
{
	static int fds[4096];

	(void)arg;
	while (!__atomic_load_n(&hog_stop, __ATOMIC_ACQUIRE)) {
		int n = 0, fd;

		while (n < 4096 && (fd = open("/dev/null", O_RDONLY)) >= 0)
			fds[n++] = fd;
		sched_yield();
		while (n)
			close(fds[--n]);
		sched_yield();
	}
	return NULL;
}

/*
 * qemu-user emulates /proc/self/maps: short of descriptors, it hands out
 * an incomplete one, where a page of ours is missing, and the mprotect
 * method then refuses (-EPERM, "Bad address"). A kernel never does.
 */
static bool emulated_maps_refusal(void)
{
	return under_emulator() && strstr(ulsm_last_error(), "Bad address");
}

static void flip_under_hog(rlim_t limit)
{
	pthread_t t;
	int ok_ = 0, failed = 0, bad_errno = 0;

	set_limit(RLIMIT_NOFILE, limit);
	if (pthread_create(&t, NULL, fd_hog, NULL)) {
		check(0, "pthread_create");
		return;
	}
	for (int i = 0; i < 400; i++) {
		int ret = (i & 1) ? static_branch_disable(&hk) :
				    static_branch_enable(&hk);

		if (!ret)
			ok_++;
		else
			failed++;
		if (ret && ret != -EMFILE && ret != -ENFILE &&
		    !(ret == -EPERM && emulated_maps_refusal()))
			bad_errno = ret;
		check(hk_consistent(), "flip %d (%d): sites agree with the key",
		      i, ret);
	}
	__atomic_store_n(&hog_stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	check(!bad_errno, "every failure names the shortage (got %d)",
	      bad_errno);
	check(!static_branch_disable(&hk) && hk_consistent(),
	      "an update with descriptors back works");
	printf("#   RLIMIT_NOFILE %lu, %s/%s: %d flips done, %d refused "
	       "(EMFILE), none half-done\n", (unsigned long)limit,
	       getenv("ULSM_WRITE") ? getenv("ULSM_WRITE") : "auto",
	       getenv("ULSM_SYNC") ? getenv("ULSM_SYNC") : "auto", ok_, failed);
}

static void case_fds_64(void) { flip_under_hog(64); }

static void case_fds_64_mprotect(void)
{
	setenv("ULSM_WRITE", "mprotect", 1);
	ulsm_set_write_mode(ULSM_WRITE_MPROTECT);
	flip_under_hog(64);
}

static void case_fds_64_signal(void)
{
	setenv("ULSM_SYNC", "signal", 1);
	ulsm_set_sync_mode(ULSM_SYNC_SIGNAL);
	flip_under_hog(64);
}

static void case_fds_4_signal(void)
{
	setenv("ULSM_SYNC", "signal", 1);
	ulsm_set_sync_mode(ULSM_SYNC_SIGNAL);
	flip_under_hog(4);
}

/* --- emfile ------------------------------------------------------------ */

static void case_emfile(void)
{
	int ret;

	set_limit(RLIMIT_NOFILE, 3);
	ret = static_branch_enable(&hk);
	check(ret == -EMFILE, "RLIMIT_NOFILE 3: -EMFILE, got %d", ret);
	check(hk_consistent() && !site_a(), "nothing written");
	set_limit(RLIMIT_NOFILE, 64);
	check(!static_branch_enable(&hk) && site_a(), "works with descriptors");
}

/* --- seccomp ----------------------------------------------------------- */

#ifdef HAVE_SECCOMP
static int deny_sync_syscalls(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_TSYNC, &prog) ? -errno : 0;
}

static void case_seccomp(void)
{
	pthread_t t;
	int ret;

	check(!pthread_create(&t, NULL, parked, NULL), "a parked thread");
	ret = deny_sync_syscalls();
	check(!ret, "seccomp filter: %d", ret);
	ret = static_branch_enable(&hk);
	check(ret == -ENOSYS, "membarrier and tgkill denied: -ENOSYS, got %d",
	      ret);
	check(strstr(ulsm_last_error(), "tgkill") != NULL,
	      "the message names the cause");
	check(hk_consistent() && !site_a(), "nothing written");
}
#endif

/* --- sigpending -------------------------------------------------------- */

static void case_sigpending(void)
{
	pthread_t t;
	int ret;

	check(!ulsm_set_sync_mode(ULSM_SYNC_SIGNAL), "signal sync");
	check(!pthread_create(&t, NULL, parked, NULL), "a parked thread");
	set_limit(RLIMIT_SIGPENDING, 0);
	ret = static_branch_enable(&hk);
	check(ret == -EAGAIN, "RLIMIT_SIGPENDING 0: -EAGAIN, got %d", ret);
	check(hk_consistent() && !site_a(), "nothing written");
}

/* --- blocked ------------------------------------------------------------ */

static void *blocks_everything(void *arg)
{
	sigset_t all;

	(void)arg;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;)
		pause();
	return NULL;
}

static void refused_quickly(const char *what)
{
	double t0 = now_s(), dt;
	int ret = static_branch_enable(&hk);

	dt = now_s() - t0;
	check(ret == -EDEADLK, "%s: -EDEADLK, got %d", what, ret);
	check(strstr(ulsm_last_error(), "blocks") != NULL,
	      "the message says which thread blocks the signal");
	check(dt < 1.0, "refused in %.3f s, before any wait", dt);
	check(hk_consistent() && !site_a(), "nothing written");
	check(!ulsm_set_sync_mode(ULSM_SYNC_MEMBARRIER) &&
	      !static_branch_enable(&hk) && site_a(),
	      "membarrier has no such need");
}

static void case_blocked_thread(void)
{
	pthread_t t;

	check(!ulsm_set_sync_mode(ULSM_SYNC_SIGNAL), "signal sync");
	check(!pthread_create(&t, NULL, blocks_everything, NULL), "thread");
	usleep(20000);
	refused_quickly("a thread blocking every signal");
}

static void on_timer(union sigval v)
{
	(void)v;
}

static void case_sigev_thread(void)
{
	struct sigevent ev;
	timer_t timer;

	check(!ulsm_set_sync_mode(ULSM_SYNC_SIGNAL), "signal sync");
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD;
	ev.sigev_notify_function = on_timer;
	check(!timer_create(CLOCK_MONOTONIC, &ev, &timer), "timer_create");
	usleep(20000);
	refused_quickly("glibc's SIGEV_THREAD helper thread");
}

/* --- timeout ------------------------------------------------------------ */

static int block_now, blocked_now;

static void *blocks_on_request(void *arg)
{
	sigset_t s;

	(void)arg;
	while (!__atomic_load_n(&block_now, __ATOMIC_ACQUIRE))
		site_a();
	sigemptyset(&s);
	sigaddset(&s, SIGRTMAX - 3);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	__atomic_store_n(&blocked_now, 1, __ATOMIC_RELEASE);
	for (;;)
		site_a();
	return NULL;
}

static void block_in_step_1(int step)
{
	if (step != 1 || __atomic_load_n(&block_now, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&block_now, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&blocked_now, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void case_timeout(void)
{
	struct ulsm_stats st;
	pthread_t t;
	double t0, dt;
	int ret;

	check(!ulsm_set_sync_mode(ULSM_SYNC_SIGNAL), "signal sync");
	check(!ulsm_set_sync_timeout(200), "a 200 ms timeout");
	check(ulsm_set_sync_timeout(0) == -EINVAL, "0 ms is refused");
	check(!pthread_create(&t, NULL, blocks_on_request, NULL), "thread");
	usleep(20000);
	ulsm_test_step_hook = block_in_step_1;
	t0 = now_s();
	ret = static_branch_enable(&hk);
	dt = now_s() - t0;
	ulsm_test_step_hook = NULL;
	ulsm_get_stats(&st);
	check(ret == -ETIMEDOUT, "a thread stops answering mid-batch: "
	      "-ETIMEDOUT, got %d", ret);
	check(dt < 2.0, "returned in %.2f s (4 rounds of 200 ms at most)", dt);
	check(st.syncs_failed >= 1, "the rollback's syncs failed too (%lu)",
	      st.syncs_failed);
	check(hk_consistent() && !site_a(), "every site as before");
	printf("#   timed out and rolled back in %.2f s\n", dt);
	/* The thread still blocks the signal: refused before writing now. */
	ret = static_branch_enable(&hk);
	check(ret == -EDEADLK, "the next update sees the block: %d", ret);
	check(!ulsm_set_sync_mode(ULSM_SYNC_MEMBARRIER) &&
	      !static_branch_enable(&hk) && hk_consistent() && site_a(),
	      "membarrier works");
}

/* --- plugin ------------------------------------------------------------ */

/*
 * Standard error in a memory file for a while (tests/lib/captured.h). The
 * library's one line about the pending plug-in is expected: the case
 * checks it and shows it as a TAP comment, instead of letting it
 * interrupt prove's output. Both descriptors are taken before the
 * plug-in takes all the others, and stay open until it gives them back:
 * closing one earlier would hand the library the descriptor it must not
 * get.
 */
static void case_plugin(void)
{
	char path[PATH_MAX], err[1024];
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	int (*fdhog_site)(void), (*held)(void);
	void (*release)(void);
	struct captured cap;
	void *h;
	int ret;

	set_limit(RLIMIT_NOFILE, 64);
	check(!static_branch_enable(&main_key) && site_main(), "main_key on");
	snprintf(path, sizeof(path), "%s/plugin_fdhog.so", dir ? dir : ".");
	ret = capture_stderr(&cap);
	check(!ret, "stderr into a memory file (%d)", ret);
	if (ret)
		return;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	restore_stderr(&cap, err, sizeof(err));
	diag_lines("stderr", err);
	check(h != NULL, "dlopen: %s", h ? "" : dlerror());
	if (!h) {
		close_captured(&cap);
		return;
	}
	/* A pending object is never silent: the library's promise. */
	check(strstr(err, "ulsm: an object's sites cannot be registered now") &&
	      strstr(err, "it is pending, and every update retries it"),
	      "the library says on stderr that the plug-in is pending");
	fdhog_site = (int (*)(void))dlsym(h, "fdhog_site");
	held = (int (*)(void))dlsym(h, "fdhog_held");
	release = (void (*)(void))dlsym(h, "fdhog_release");
	check(held() > 0, "the plug-in holds %d descriptors", held());
	check(ulsm_pending_objects() == 1, "the plug-in is pending");
	check(fdhog_site() == 0, "its site is as compiled (stale)");

	ret = static_branch_disable(&main_key);
	check(ret == -EMFILE, "an update fails while it cannot be registered "
	      "(%d)", ret);
	check(site_main() == 1, "  and changes nothing");
	check(ulsm_retry_pending() == -EMFILE, "an explicit retry fails too");

	release();
	close_captured(&cap);
	ret = static_branch_disable(&main_key);
	check(!ret, "descriptors back: the update works (%d)", ret);
	check(!ulsm_pending_objects(), "nothing pending");
	check(fdhog_site() == 0 && site_main() == 0, "both sites off");
	check(!static_branch_enable(&main_key), "enable");
	check(fdhog_site() == 1 && site_main() == 1,
	      "the plug-in's site follows the key now");
	check(!dlclose(h), "dlclose");
}

/* --- fifo --------------------------------------------------------------- */

extern void (*ulsm_test_lock_hook)(unsigned long ticket);
int ulsm_lock(void);
void ulsm_unlock(void);

static unsigned long tickets_taken;
static int order[8], norder;
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static DEFINE_STATIC_KEY_FALSE(fifo_keys_0);
static DEFINE_STATIC_KEY_FALSE(fifo_keys_1);
static DEFINE_STATIC_KEY_FALSE(fifo_keys_2);
static DEFINE_STATIC_KEY_FALSE(fifo_keys_3);
static struct static_key_false *const fifo_keys[4] = {
	&fifo_keys_0, &fifo_keys_1, &fifo_keys_2, &fifo_keys_3,
};

__attribute__((noinline)) static int fifo_sites(void)
{
	return static_branch_unlikely(&fifo_keys_0) +
	       static_branch_unlikely(&fifo_keys_1) +
	       static_branch_unlikely(&fifo_keys_2) +
	       static_branch_unlikely(&fifo_keys_3);
}

static void count_ticket(unsigned long ticket)
{
	(void)ticket;
	__atomic_add_fetch(&tickets_taken, 1, __ATOMIC_SEQ_CST);
}

static __thread int my_id = -1;

static void record_order(int step)
{
	if (step != 1 || my_id < 0)
		return;
	pthread_mutex_lock(&order_lock);
	order[norder++] = my_id;
	pthread_mutex_unlock(&order_lock);
}

static void *fifo_updater(void *arg)
{
	my_id = (int)(intptr_t)arg;
	if (static_branch_enable(fifo_keys[my_id]))
		printf("#   updater %d failed\n", my_id);
	return NULL;
}

static void case_fifo(void)
{
	pthread_t t[4];
	struct ulsm_stats st;
	unsigned long base;

	ulsm_test_lock_hook = count_ticket;
	ulsm_test_step_hook = record_order;
	check(!ulsm_lock(), "hold the patch lock");
	base = __atomic_load_n(&tickets_taken, __ATOMIC_SEQ_CST);
	for (int i = 0; i < 4; i++) {
		pthread_create(&t[i], NULL, fifo_updater, (void *)(intptr_t)i);
		/* The next starts only once this one has its ticket. */
		while (__atomic_load_n(&tickets_taken, __ATOMIC_SEQ_CST) <
		       base + (unsigned long)i + 1)
			sched_yield();
		usleep(1000);
	}
	ulsm_unlock();
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	ulsm_test_lock_hook = NULL;
	ulsm_test_step_hook = NULL;
	check(norder == 4, "four updates ran (%d)", norder);
	for (int i = 0; i < norder; i++)
		check(order[i] == i, "served %d-th: updater %d", i, order[i]);
	check(fifo_sites() == 4, "all four keys on");
	ulsm_get_stats(&st);
	check(st.lock_waits >= 4 && st.lock_wait_max_ns > 0,
	      "waits recorded (%lu, longest %lu ns)", st.lock_waits,
	      st.lock_wait_max_ns);
}

/* --- deadlock ----------------------------------------------------------- */

static volatile int handler_ret = 1, handler_runs;
static unsigned long handlers_done;

static void update_in_handler(int sig)
{
	int ret;

	(void)sig;
	ret = static_branch_enable(&other);
	if (ret != -EDEADLK && ret != 0)
		handler_ret = ret;
	if (ret == -EDEADLK)
		handler_runs++;
	else if (!ret)
		static_branch_disable(&other);
	__atomic_add_fetch(&handlers_done, 1, __ATOMIC_RELEASE);
}

static void raise_in_lock(unsigned long ticket)
{
	(void)ticket;
	raise(SIGUSR1);
}

static int pester_stop;

static void *pester(void *arg)
{
	pthread_t target = *(pthread_t *)arg;

	while (!__atomic_load_n(&pester_stop, __ATOMIC_ACQUIRE)) {
		unsigned long done = __atomic_load_n(&handlers_done,
						     __ATOMIC_ACQUIRE);

		pthread_kill(target, SIGUSR1);
		/*
		 * The next signal once this one's handler has finished: a
		 * handler that runs between updates does two whole updates,
		 * and a signal always pending would keep the thread in its
		 * handler for ever where updates are slow (an emulator).
		 */
		while (__atomic_load_n(&handlers_done, __ATOMIC_ACQUIRE) == done &&
		       !__atomic_load_n(&pester_stop, __ATOMIC_ACQUIRE))
			usleep(10);
		usleep(50);
	}
	return NULL;
}

static void case_deadlock(void)
{
	int flips = under_emulator() ? 200 : 2000;
	pthread_t self = pthread_self(), t;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = update_in_handler;
	sigaction(SIGUSR1, &sa, NULL);

	/* Deterministic: the ticket is taken, the thread not yet served. */
	ulsm_test_lock_hook = raise_in_lock;
	handler_runs = 0;
	check(!static_branch_enable(&hk), "update with a signal while taking "
	      "the lock");
	ulsm_test_lock_hook = NULL;
	check(handler_runs >= 1 && handler_ret == 1,
	      "the handler's update got -EDEADLK (%d runs, other %d)",
	      handler_runs, handler_ret);
	check(site_other() == 0, "and changed nothing");

#ifdef UNDER_TSAN
	/*
	 * A handler that runs outside an update does a whole update, which
	 * is not async-signal-safe (the README says not to): ThreadSanitizer
	 * rightly reports its malloc. The deterministic case above covers
	 * the window it found.
	 */
	return;
#endif
	/* At any moment: a thread interrupts updates all the time. */
	handler_runs = 0;
	pthread_create(&t, NULL, pester, &self);
	for (int i = 0; i < flips; i++)
		if ((i & 1) ? static_branch_disable(&hk) :
			      static_branch_enable(&hk))
			check(0, "flip %d failed", i);
	__atomic_store_n(&pester_stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	check(handler_ret == 1, "handlers got 0 or -EDEADLK, nothing else "
	      "(%d)", handler_ret);
	printf("#   %d handler updates refused with -EDEADLK, none hung\n",
	       handler_runs);
	check(hk_consistent(), "sites agree with the key");
}

int main(void)
{
	hostile_case("fds: RLIMIT_NOFILE 64, a thread takes them all, flips", case_fds_64);
	hostile_case("fds: the same, mprotect write method", case_fds_64_mprotect);
	hostile_case("emfile: RLIMIT_NOFILE 3 gives -EMFILE", case_emfile);
	if (signal_sync_usable()) {
		hostile_case("fds: the same, signal sync", case_fds_64_signal);
		hostile_case("fds: RLIMIT_NOFILE 4, signal sync", case_fds_4_signal);
#ifdef HAVE_SECCOMP
		hostile_case("seccomp: membarrier and tgkill denied: -ENOSYS",
			     case_seccomp);
#else
		ok(1, "# SKIP seccomp: no <linux/seccomp.h>");
#endif
		hostile_case("sigpending: RLIMIT_SIGPENDING 0, signal sync",
			     case_sigpending);
		hostile_case("blocked: a thread blocking every signal",
			     case_blocked_thread);
		hostile_case("blocked: a SIGEV_THREAD timer's helper",
			     case_sigev_thread);
		hostile_case("timeout: a thread stops answering mid-batch",
			     case_timeout);
	} else {
		ok(1, "# SKIP signal-sync cases: the runtime's own thread "
		   "blocks every signal here");
	}
	hostile_case("plugin: its constructor takes every descriptor", case_plugin);
	hostile_case("fifo: updaters served in arrival order", case_fifo);
	hostile_case("deadlock: updates from handlers in the updating thread",
		     case_deadlock);
	return done_testing();
}
#endif /* ULSM_ARCH_GENERIC */
