// SPDX-License-Identifier: MIT
/*
 * A departure that cannot finish (docs/hook-framework.md, "A departure
 * that cannot finish"): a plug-in of a set that allows unloading arrives,
 * then the process loses the right to patch its text or to synchronise
 * its threads, and the plug-in is dlclosed while a thread dispatches. The
 * dlclose must return, and no thread may run code that was unmapped: the
 * module stays (on, since its slots could not be turned off) and its
 * object stays mapped, with its reason; every answer stays right. Each
 * case runs in a child of its own, with a watchdog: a hang fails it.
 *
 *   patching  seccomp denies pwrite64, mprotect and open
 *   sync      seccomp denies membarrier and the tgkill family
 *   walk      each call of a departure fails once, in turn: every run
 *             ends with the module gone and its object unmapped; then
 *             every call from the n-th on fails (but the seal): every
 *             run ends with the module gone, or staying with its object
 *             mapped, never a hang
 *   sealing   each call of ulsm_lsm_seal() fails once, in turn: sealed,
 *             the plug-in's slots past their guards and its object
 *             pinned; or every slot as before and nothing pinned
 *   loading   sealed while a plug-in loads in another thread: both return
 *   last      the seal is denied too (a kernel without mseal): the one
 *             wait left; dlclose waits, and says why
 *   fds       every descriptor taken for longer than a departure tries:
 *             it stops, and is finished later by the library's own
 *             thread once they are back; the name loads again
 *
 * A departure retried every 100 ms for ever, once, made such a dlclose
 * never return.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ULSM_LSM_DEFINE
#include "plugins/set.h"

#include <ulsm/ulsm.h>

#include "base/sys.h"	/* the library's fault injection */

extern unsigned int ulsm_lsm_depart_ms;	/* src/lsm/plugins.c */
#include "runtime.h"
#include "child.h"
#include "tap.h"

#if defined(__has_include)
# if __has_include(<linux/seccomp.h>) && __has_include(<linux/filter.h>)
#  include <linux/audit.h>
#  include <linux/filter.h>
#  include <linux/seccomp.h>
#  define HAVE_SECCOMP 1
# endif
#endif

void pg_note(const char *who)
{
	(void)who;
}

void pg_hold(const char *who, int request)
{
	(void)who;
	(void)request;
}

#include "plugins/acl.h"

static char path[PATH_MAX];
static void *plugin;
static int stop, wrong;
static long dispatched;

/* 7 is rate's (the plug-in), 13 acl's: what each request gives. */
static int expected(int request, bool rate_on)
{
	if (request == 13)
		return -EPERM;
	if (request == 7 && rate_on)
		return -EACCES;
	return 0;
}

/* While rate may leave: 7 gives -EACCES (still there) or 0 (gone). */
static void *dispatcher(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int r = 0; r < 16; r++) {
			int got = call_int_hook(req_check, r);

			if (got != expected(r, true) && got != expected(r, false))
				__atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
		}
		__atomic_fetch_add(&dispatched, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * Opened before any seccomp filter, which may deny open(). Under an
 * emulator, opened again each time: qemu-user writes its /proc/self/maps
 * once, when it is opened, so rereading it shows the mappings of then
 * (an object unmapped since still in it). No seccomp case runs there.
 */
static FILE *maps;

static bool mapped(void)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	if (maps && under_emulator()) {
		fclose(maps);
		maps = NULL;
	}
	if (!maps)
		maps = f;
	if (!f && (f = maps) && fseek(f, 0, SEEK_SET))
		return false;
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "pgw_rate.so") != NULL;
	if (f != maps)
		fclose(f);
	return found;
}

/* --- inside a child ------------------------------------------------------ */

/* check(), failures: tests/child.h */

static pthread_t dispatching;

/* A thread that dispatches and checks every answer (before seccomp: */
static void start_dispatcher(void)	/* a new thread needs mprotect) */
{
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	check(!pthread_create(&dispatching, NULL, dispatcher, NULL),
	      "a dispatcher");
	while (__atomic_load_n(&dispatched, __ATOMIC_RELAXED) < 100)
		sched_yield();
}

/* dlclose while the thread dispatches; whether it came back. */
static void leave(void)
{
	check(dlclose(plugin) == 0, "dlclose returned");
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(dispatching, NULL);
	check(!wrong, "%d wrong answers while it left", wrong);
}

static void arrive(void)
{
	plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	check(plugin != NULL, "dlopen %s: %s", path, dlerror());
	check(ulsm_lsm_module_active(&pg_hook_set, "rate") == 1,
	      "rate arrived (%s)", ulsm_lsm_list(&pg_hook_set));
	check(call_int_hook(req_check, 7) == -EACCES, "rate denies 7");
	start_dispatcher();
	check(mapped(), "its object is mapped");
}

/*
 * The module could not leave: it stays on, and so does its code. Only the
 * seccomp cases use it (unused without <linux/seccomp.h>: musl).
 */
__attribute__((unused)) static void stayed(const char *why)
{
	const char *reason = ulsm_lsm_module_reason(&pg_hook_set, "rate");

	check(ulsm_lsm_module_active(&pg_hook_set, "rate") == 1,
	      "%s: rate stays on (%s)", why, ulsm_lsm_list(&pg_hook_set));
	check(reason && strstr(reason, "could not leave"),
	      "%s: with its reason: %s", why, reason ? reason : "(none)");
	check(mapped(), "%s: its object stays mapped", why);
	for (int i = 0; i < 1000; i++)
		check(call_int_hook(req_check, 7) == -EACCES &&
		      call_int_hook(req_check, 13) == -EPERM &&
		      call_int_hook(req_check, 1) == 0, "%s: answers", why);
	call_void_hook(req_log, 7);
}

static void gone(const char *why)
{
	check(ulsm_lsm_module_active(&pg_hook_set, "rate") != 1,
	      "%s: rate is gone (%s)", why, ulsm_lsm_list(&pg_hook_set));
	check(!mapped(), "%s: its object is unmapped", why);
	check(call_int_hook(req_check, 7) == 0 &&
	      call_int_hook(req_check, 13) == -EPERM, "%s: answers", why);
}

#ifdef HAVE_SECCOMP
/* Deny @n system calls with EPERM, in every thread. */
static int deny(const int *nrs, int n)
{
	struct sock_filter f[40];
	struct sock_fprog prog;
	int k = 0;

	f[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr));
	for (int i = 0; i < n; i++)
		f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
			(unsigned int)nrs[i], (unsigned char)(n - i), 0);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_ERRNO | EPERM);
	prog.len = (unsigned short)k;
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		       SECCOMP_FILTER_FLAG_TSYNC, &prog) ? -errno : 0;
}

static const int no_patching[] = {
	__NR_pwrite64, __NR_mprotect, __NR_openat,
#ifdef __NR_open
	__NR_open,
#endif
};

static const int no_sync[] = {
	__NR_membarrier, __NR_tgkill, __NR_tkill, __NR_rt_tgsigqueueinfo,
};

static void case_patching(void)
{
	arrive();
	check(!deny(no_patching, sizeof(no_patching) / sizeof(int)),
	      "seccomp: no pwrite64, mprotect, open");
	leave();
	stayed("patching denied");
}

static void case_sync(void)
{
	arrive();
	check(!deny(no_sync, sizeof(no_sync) / sizeof(int)),
	      "seccomp: no membarrier, tgkill");
	leave();
	stayed("sync denied");
}

static void case_last(void)
{
	int nrs[8];
	int n = 0;

	for (size_t i = 0; i < sizeof(no_patching) / sizeof(int); i++)
		nrs[n++] = no_patching[i];
	nrs[n++] = 462;		/* mseal, as on every architecture */
	arrive();
	check(!deny(nrs, n), "seccomp: no patching, no mseal");
	fprintf(stderr, "about to dlclose\n");
	dlclose(plugin);
	/* Not reached: the parent's watchdog ends this child. */
	printf("#   dlclose returned\n");
	failures++;
}
#endif

/*
 * The @n-th library call from now fails, whatever its kind: once, or,
 * with @on, that one and every later one but the seal's. Where the
 * signal sync cannot work (ThreadSanitizer), not membarrier either: once
 * it fails the engine uses the signal sync for good.
 */
static void fail_from(unsigned long n, bool on)
{
	unsigned int kinds = ~0u;

	if (on)
		kinds &= ~(1u << ULSM_SYS_MSEAL);
	if (!signal_sync_usable())
		kinds &= ~(1u << ULSM_SYS_MEMBARRIER | 1u << ULSM_SYS_TGKILL);
	/* Atomic: the dispatcher's first read-side section allocates. */
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.kinds, kinds, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.calls, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.fail_to, on ? ULONG_MAX : 0,
			 __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.err, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.failed, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ulsm_fault.fail_from, n, __ATOMIC_SEQ_CST);
}

static void fail_nth(unsigned long n)
{
	fail_from(n, false);
}

static unsigned long walk_n;

/*
 * Every call from the n-th on fails: the module is gone (its object
 * unmapped), or it stays, where its departure stopped, with its object
 * mapped and every answer right.
 */
static void case_walk_on(void)
{
	unsigned long failed, calls;
	bool alloc_failed = false;
	int on;

	ulsm_lsm_depart_ms = 20;
	arrive();
	fail_from(walk_n, true);
	leave();
	failed = __atomic_load_n(&ulsm_fault.failed, __ATOMIC_SEQ_CST);
	calls = __atomic_load_n(&ulsm_fault.calls, __ATOMIC_SEQ_CST);
	fail_nth(0);
	for (unsigned long i = walk_n - 1; i < calls && i < ULSM_FAULT_LOG; i++)
		alloc_failed |= ulsm_fault.log[i] == ULSM_SYS_ALLOC;
	on = ulsm_lsm_module_active(&pg_hook_set, "rate");
	if (on == 1 || mapped()) {
		const char *reason = ulsm_lsm_module_reason(&pg_hook_set, "rate");

		check(mapped(), "stays: its object stays mapped");
		/* Its reason, unless memory failed too (the note is a copy). */
		check(reason ? strstr(reason, "could not leave") != NULL :
		      alloc_failed, "stays, with its reason: %s",
		      reason ? reason : "(none: no memory for it)");
		/*
		 * Each answer is one of a state, old or new: a batch whose
		 * writes failed, and then its rollback's, stays stranded
		 * (-EIO), each site as the old or the new instruction. The
		 * next update finishes its rollback: then the module is
		 * exactly where its departure stopped.
		 */
		for (int i = 0; i < 100; i++) {
			int a7 = call_int_hook(req_check, 7);

			check((a7 == -EACCES || a7 == 0) &&
			      call_int_hook(req_check, 13) == -EPERM &&
			      call_int_hook(req_check, 1) == 0, "stays %s: "
			      "answers (7 gave %d)", on == 1 ? "on" : "off", a7);
		}
		/*
		 * Each try of the departure, once the calls work again,
		 * finishes it (the library's thread may be first): the
		 * module is gone, its name free, its object still mapped.
		 */
		check(ulsm_retry_pending() == 0, "the departure finishes once "
		      "the calls work again (%s)", ulsm_last_error());
		check(ulsm_lsm_module_active(&pg_hook_set, "rate") != 1 &&
		      call_int_hook(req_check, 7) == 0, "then rate is gone "
		      "(%s)", ulsm_lsm_list(&pg_hook_set));
		check(mapped(), "and its object stays mapped");
	} else {
		gone("failing from there on");
	}
	if (failures)
		printf("# departure calls from %lu (%s) failed: 7 gives %d, "
		       "%s\n", walk_n, ulsm_sys_name(ulsm_fault.log[walk_n - 1]),
		       call_int_hook(req_check, 7),
		       ulsm_lsm_module_reason(&pg_hook_set, "rate"));
	fflush(stdout);
	_exit(failures ? 1 : failed ? (on == 1 || mapped() ? 4 : 0) : 3);
}

/*
 * Every descriptor taken for longer than a departure tries (the
 * hostile case: 1.0 s, while the departure gave up at 1.01 s): it stops,
 * and the library's thread finishes it once descriptors are back.
 */
static int hog[65536], nhog;

static void *give_back(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ 0, 600 * 1000 * 1000 }, NULL);
	while (nhog)
		close(hog[--nhog]);
	return NULL;
}

static void case_fds(void)
{
	const char *reason = NULL;
	pthread_t t;
	void *again;
	int fd;

	ulsm_lsm_depart_ms = 200;	/* it gives up before they are back */
	arrive();
	while (nhog < (int)(sizeof(hog) / sizeof(hog[0])) && (fd = dup(0)) >= 0)
		hog[nhog++] = fd;
	check(errno == EMFILE, "every descriptor taken (%d)", nhog);
	check(!pthread_create(&t, NULL, give_back, NULL), "a thread gives "
	      "them back in 600 ms");
	leave();
	pthread_join(t, NULL);
	/* No call of ours: the library's own thread finishes it. */
	for (int ms = 0; ms < 15000; ms += 10) {
		reason = ulsm_lsm_module_reason(&pg_hook_set, "rate");
		if (reason && strstr(reason, "finished later"))
			break;
		usleep(10000);
	}
	check(reason && strstr(reason, "finished later"), "the departure "
	      "finished later, by itself: %s", reason ? reason : "(none)");
	check(ulsm_lsm_module_active(&pg_hook_set, "rate") != 1 &&
	      call_int_hook(req_check, 7) == 0, "rate is gone (%s)",
	      ulsm_lsm_list(&pg_hook_set));
	again = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	check(again && ulsm_lsm_module_active(&pg_hook_set, "rate") == 1 &&
	      call_int_hook(req_check, 7) == -EACCES, "and a reload of it "
	      "arrives (%s)", again ? ulsm_lsm_list(&pg_hook_set) : dlerror());
	if (again)
		dlclose(again);
	check(ulsm_lsm_module_active(&pg_hook_set, "rate") != 1 &&
	      call_int_hook(req_check, 7) == 0, "which leaves at its own "
	      "dlclose (%s)", ulsm_lsm_list(&pg_hook_set));
	fflush(stdout);
	_exit(failures ? 1 : 0);
}

static void case_walk(void)
{
	unsigned long failed;

	arrive();
	fail_nth(walk_n);
	leave();
	failed = __atomic_load_n(&ulsm_fault.failed, __ATOMIC_SEQ_CST);
	fail_nth(0);
	gone("one call failed");
	if (failures)
		printf("# departure call %lu (%s) failed: %s\n", walk_n,
		       ulsm_sys_name(ulsm_fault.log[walk_n - 1]),
		       ulsm_lsm_module_reason(&pg_hook_set, "rate"));
	/* The exit code says whether a call was failed: the walk's end. */
	fflush(stdout);
	_exit(failures ? 1 : failed ? 0 : 3);
}

/* The set's slots as the dump shows them (guards marked) into @buf. */
static void slots_text(char *buf, size_t len)
{
	char *dump = NULL, *at;
	size_t n = 0;
	FILE *f = open_memstream(&dump, &n);

	buf[0] = 0;
	if (f) {
		ulsm_dump(f);
		fclose(f);
	}
	at = dump ? strstr(dump, "hook set pg:") : NULL;
	if (at)
		snprintf(buf, len, "%s", at);
	if ((at = strstr(buf, "tracepoints:")))
		*at = 0;
	free(dump);
}

/*
 * Sealing, its n-th call failed: 0, and no slot is guarded any more and
 * rate stays at dlclose (its object pinned); or an error, and every slot
 * as before (rate on its guard, where there are guards) and nothing
 * pinned: rate leaves at dlclose as from a set never sealed.
 */
static void case_seal_walk(void)
{
	char before[4096], after[4096];
	const char *rows;
	unsigned long failed;
	int ret;

	arrive();
	slots_text(before, sizeof(before));
	fail_nth(walk_n);
	ret = ulsm_lsm_seal(&pg_hook_set);
	failed = __atomic_load_n(&ulsm_fault.failed, __ATOMIC_SEQ_CST);
	fail_nth(0);
	slots_text(after, sizeof(after));
	check(after[0], "the dump shows the set");
	if (!ret) {
		/* The rows, not the legend above them, which names the mark. */
		rows = strstr(after, "req_check");
		check(rows && !strstr(rows, "[guard]"), "sealed: no slot is "
		      "guarded: %s", after);
		leave();
		check(ulsm_lsm_module_active(&pg_hook_set, "rate") == 1 &&
		      mapped(), "sealed: rate stays, its object pinned (%s)",
		      ulsm_lsm_list(&pg_hook_set));
		check(call_int_hook(req_check, 7) == -EACCES, "  and answers");
	} else {
		check(ret < 0 && !strcmp(before, after), "the seal failed "
		      "(%d): every slot as before:\n%s\nnow:\n%s", ret, before,
		      after);
		leave();
		gone("the seal failed");
	}
	if (failures)
		printf("# seal call %lu (%s) failed: %d\n", walk_n,
		       ulsm_sys_name(ulsm_fault.log[walk_n - 1]), ret);
	fflush(stdout);
	_exit(failures ? 1 : failed ? 0 : 3);
}

/*
 * Sealing while a plug-in loads: the loader's constructors run with the
 * dynamic linker's lock held, and its module's registration then takes
 * the framework's. A seal that called the dynamic linker with the
 * framework's lock held waited for the loader, which waited for it.
 */
static sem_t loading;

void pg_loading(void);
void pg_loading(void)
{
	sem_post(&loading);
	/* The seal takes the framework's lock meanwhile. */
	nanosleep(&(struct timespec){ 0, 300 * 1000 * 1000 }, NULL);
}

static void *load_lag(void *arg)
{
	const char *rate = arg;
	char lag[PATH_MAX + 16];

	snprintf(lag, sizeof(lag), "%.*s/pgw_lag.so",
		 (int)(strrchr(rate, '/') - rate), rate);
	return dlopen(lag, RTLD_NOW | RTLD_LOCAL);
}

static void case_seal_loading(void)
{
	pthread_t loader;
	void *lag = NULL;	/* denies 7, as rate does: the dispatcher's */
	int ret;

	check(!ulsm_lsm_allow_toggle(&pg_hook_set), "toggling allowed: %s",
	      ulsm_last_error());
	arrive();
	check(!sem_init(&loading, 0, 0), "a semaphore");
	check(!pthread_create(&loader, NULL, load_lag, path), "a loader");
	sem_wait(&loading);
	ret = ulsm_lsm_seal(&pg_hook_set);
	check(ret == 0, "sealed while a plug-in loads: %d", ret);
	check(!pthread_join(loader, &lag) && lag, "  and it loaded: %s",
	      lag ? "" : dlerror());
	check(ulsm_lsm_module_active(&pg_hook_set, "lag") == 1,
	      "  its module arrived before the seal (%s)",
	      ulsm_lsm_list(&pg_hook_set));
	/*
	 * Not held (it came after the seal looked), so still behind its
	 * guards, whose inner calls are read-only now: a toggle flips its
	 * slot keys only. It wrote them, once, and crashed.
	 */
	check(!ulsm_lsm_toggle(&pg_hook_set, "rate", false) &&
	      !ulsm_lsm_toggle(&pg_hook_set, "lag", false),
	      "  rate and lag toggled off in the sealed set");
	check(call_int_hook(req_check, 7) == 0, "  7 allowed");
	check(!ulsm_lsm_toggle(&pg_hook_set, "rate", true) &&
	      !ulsm_lsm_toggle(&pg_hook_set, "lag", true), "  and on again");
	check(call_int_hook(req_check, 7) == -EACCES, "  7 denied");
	leave();
	check(ulsm_lsm_module_active(&pg_hook_set, "rate") == 1 && mapped(),
	      "rate stays, its object pinned (%s)", ulsm_lsm_list(&pg_hook_set));
	fflush(stdout);
	_exit(failures ? 1 : 0);
}

/* --- in the parent ------------------------------------------------------- */

struct depart_case {
	void (*fn)(void);
	unsigned int secs;
	const char *err;
};

static void depart_child(void *arg)
{
	const struct depart_case *c = arg;

	if (!freopen(c->err ? c->err : "/dev/null", "w", stderr))
		exit(2);
	setvbuf(stderr, NULL, _IONBF, 0);
	alarm(c->secs);
	ulsm_lsm_init(&pg_hook_set, NULL);
	c->fn();
	/*
	 * _exit: no exit handlers (a sanitizer's leak check needs system
	 * calls that a case's seccomp filter denies).
	 */
	fflush(stdout);
	_exit(failures ? 1 : 0);
}

/*
 * Run @fn in a child (tests/lib/child.h) within @secs, its standard error
 * into @err (NULL: dropped); its exit status, or -signal.
 */
static int depart_case(void (*fn)(void), unsigned int secs, const char *err)
{
	struct depart_case c = { fn, secs, err };

	if (in_child("case", depart_child, &c, NULL, 0) < 0)
		return -1000;
	return WIFEXITED(child_status) ? WEXITSTATUS(child_status) :
					 -WTERMSIG(child_status);
}

/*
 * Whether dlclose() unloads: musl's never does (see t_lsm_plugins), so no
 * departure ever begins there. In a child, which exits 5 if the object
 * is still loaded after its dlclose.
 */
static void case_unloads(void)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		exit(2);
	dlclose(h);
	exit(dlopen(path, RTLD_NOW | RTLD_NOLOAD) ? 5 : 0);
}

/*
 * Whether this kernel (or emulator) seals mappings: where it does not
 * (qemu-user 7.2 knows no mseal), a departure that cannot finish has no
 * way left to keep its object mapped, and dlclose waits for ever, as
 * case_last shows; the walk that fails every call from one on cannot
 * run there. One page is sealed for good.
 */
static bool mseal_works(void)
{
	void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p != MAP_FAILED && syscall(462, p, 4096, 0) == 0;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	unsigned long n, gone_runs = 0;
	int st;

	if (!strcmp(ulsm_backend(), "generic")) {
		printf("1..0 # SKIP the generic back end patches no code\n");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/pgw_rate.so", dir ? dir : ".");
#ifdef HAVE_SECCOMP
	/* One case in this process, to debug it: patching, sync. */
	if (argc > 1) {
		ulsm_lsm_init(&pg_hook_set, NULL);
		if (!strcmp(argv[1], "patching"))
			case_patching();
		else if (!strcmp(argv[1], "sync"))
			case_sync();
		else if (!strcmp(argv[1], "walk") && argc > 2) {
			walk_n = strtoul(argv[2], NULL, 0);
			case_walk();
		} else if (!strcmp(argv[1], "loading")) {
			case_seal_loading();
		} else if (!strcmp(argv[1], "sealing") && argc > 2) {
			walk_n = strtoul(argv[2], NULL, 0);
			case_seal_walk();
		} else if (!strcmp(argv[1], "fds")) {
			case_fds();
		} else if (!strcmp(argv[1], "walk-on") && argc > 2) {
			walk_n = strtoul(argv[2], NULL, 0);
			case_walk_on();
		}
		printf("# %d failures\n", failures);
		return failures != 0;
	}
#else
	(void)argc;
	(void)argv;
#endif

#ifdef HAVE_SECCOMP
	if (!under_emulator()) {
		char log[] = "/tmp/ulsm-depart-XXXXXX", line[512];
		int fd = mkstemp(log);
		bool said = false;
		FILE *f;

		is_int(depart_case(case_patching, 20, NULL), 0, "patching denied "
		       "after arrival: dlclose returns, the module stays on, "
		       "its object mapped");
		is_int(depart_case(case_sync, 20, NULL), 0, "sync denied after "
		       "arrival: the same");
		st = depart_case(case_last, 2, log);
		is_int(st, -SIGALRM, "the seal denied too: dlclose waits, the "
		       "one wait left (killed by the watchdog)");
		f = fd >= 0 ? fdopen(fd, "r") : NULL;
		while (f && fgets(line, sizeof(line), f))
			said |= strstr(line, "cannot be kept mapped") != NULL;
		ok(said, "and says why on standard error");
		if (f)
			fclose(f);
		unlink(log);
	} else {
		ok(1, "# SKIP seccomp under an emulator (its filter sees the "
		   "host's system calls)");
	}
#else
	ok(1, "# SKIP no <linux/seccomp.h>");
#endif
	if (depart_case(case_unloads, 20, NULL) == 5) {
		ok(1, "# SKIP dlclose() does not unload here (musl): no "
		   "departure begins");
		return done_testing();
	}
	/*
	 * Under an emulator, and under ThreadSanitizer (whose forked
	 * children take a second each: 40 s alone at the end of its make
	 * check), a run is slow: every third call only. The native and ASan
	 * runs walk every call.
	 */
	unsigned long step = under_emulator() ? 3 : 1;

#ifdef UNDER_TSAN
	step = 3;
#endif

	for (n = 1; n < 2000; n += step) {
		walk_n = n;
		st = depart_case(case_walk, 20, NULL);
		if (st == 3)
			break;
		if (st)
			break;
		gone_runs++;
	}
	ok(st == 3, "each call of a departure failed in turn (%lu runs): "
	   "every one ended with the module gone and unmapped (last: %d)",
	   gone_runs, st);

	unsigned long sealed_runs = 0;

	for (n = 1; n < 2000; n += step) {
		walk_n = n;
		st = depart_case(case_seal_walk, 20, NULL);
		if (st)
			break;
		sealed_runs++;
	}
	ok(st == 3, "each call of a seal failed in turn (%lu runs): sealed "
	   "with no guard left and the plug-in pinned, or every slot as "
	   "before and nothing pinned (last: %d)", sealed_runs, st);

	is_int(depart_case(case_seal_loading, 10, NULL), 0, "sealed while a "
	       "plug-in loads in another thread: no deadlock between the "
	       "dynamic linker's lock and the framework's");

	unsigned long stayed = 0;

	if (!mseal_works()) {
		ok(1, "# SKIP no mseal here: a departure that stops keeps its "
		   "object mapped by it (case fds)");
		ok(1, "# SKIP no mseal here: failing every call from the n-th "
		   "on leaves dlclose waiting for ever (case last)");
		return done_testing();
	}
	is_int(depart_case(case_fds, 30, NULL), 0, "descriptors short for "
	       "longer than a departure tries: it is finished later, by "
	       "the library's thread, and the name loads again");
	gone_runs = 0;
	for (n = 1; n < 2000; n += step) {
		walk_n = n;
		st = depart_case(case_walk_on, 20, NULL);
		if (st != 0 && st != 4)
			break;
		gone_runs += st == 0;
		stayed += st == 4;
	}
	ok(st == 3, "every call from the n-th on failed, for each n (%lu "
	   "runs): %lu ended with the module gone, %lu with it staying and "
	   "its object mapped; no hang, no crash (last: %d)", gone_runs + stayed,
	   gone_runs, stayed, st);
	return done_testing();
}
