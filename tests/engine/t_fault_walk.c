// SPDX-License-Identifier: MIT
/*
 * All or nothing, by injection: every system call and allocation the
 * library makes goes through src/base/sys.c, where the Nth one can be made to
 * fail. For each operation below, on each write method (procmem, mprotect,
 * auto) and both sync methods, a first child counts the calls the
 * operation makes and records the state it leaves (the bytes of every registered site). Then, for
 * every position N and every errno that kind of call can return, a child
 * fails call N and checks the outcome:
 *
 *   - 0, and every registered site holds what the fault-free run left; or
 *   - a negative errno, and every registered site holds, byte for byte,
 *     what it held before;
 *   - the process is alive, no writable and executable mapping and no
 *     /proc/self/mem descriptor is left (a writable view of the text
 *     lives for one batch), and the next update without a fault
 *     succeeds.
 *
 * The operations: a key flip, a static-call update, a toggle of a module
 * with 12 hooks, a module's security_add_hooks (through ulsm_lsm_init),
 * the registration of a dlopen()ed plug-in (whose sites follow a key
 * that is enabled before it is loaded: if registering fails, the plug-in
 * must be pending, its sites as compiled, and the next update must bring
 * it in line), and a module that arrives in a plug-in after
 * ulsm_lsm_init() (refused with every site as before, or up in its
 * place).
 *
 * A second walk fails every call from N on ("persistent"): a rollback
 * whose writes keep failing strands the batch (docs/patching-protocol.md);
 * then only the process's survival and its recovery are checked.
 *
 * Two worker threads run the sites throughout, so breakpoints are met and
 * the signal sync has threads to signal.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>
#include <ulsm/update.h>

#include "engine/engine.h"	/* ulsm_registry_snapshot, struct ulsm_site */
#include "faultwalk.h"
#include "maps.h"
#include "runtime.h"
#include "tap.h"
#include "test_lsm.h"

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end writes no code");
}
#else

/* --- what the operations act on --------------------------------------- */

DEFINE_STATIC_KEY_FALSE(walk_key);
DEFINE_STATIC_KEY_FALSE(spare_key);
DEFINE_STATIC_KEY_FALSE(main_key);	/* the plug-in's sites follow it */

static int target_a(int x) { return x + 1; }
static int target_b(int x) { return x + 2; }
DEFINE_STATIC_CALL(walk_sc, target_a);

__attribute__((noinline)) static int key_site(void)
{
	return static_branch_unlikely(&walk_key) ? 1 : 0;
}

__attribute__((noinline)) static int key_site_likely(void)
{
	return static_branch_likely(&walk_key) ? 1 : 0;
}

__attribute__((noinline)) static int spare_site(void)
{
	return static_branch_unlikely(&spare_key) ? 1 : 0;
}

__attribute__((noinline)) static int call_site(int x)
{
	return static_call(walk_sc)(x);
}

__attribute__((noinline)) static int hook_site(void)
{
	struct t_file f = { 0 };

	return call_int_hook(file_open, &f) + call_int_hook(noargs);
}

/* --- workers ----------------------------------------------------------- */

static void *worker(void *arg)
{
	unsigned long sum = 0;

	(void)arg;
	worker_arrives();
	for (unsigned long i = 1;; i++) {
		sum += (unsigned long)key_site() + (unsigned long)key_site_likely();
		sum += (unsigned long)call_site(1) + (unsigned long)hook_site();
		__asm__ __volatile__("" : : "r" (sum));
		/* Busy enough to meet breakpoints, idle enough to be cheap. */
		if (!(i % 256))
			usleep(20);
	}
	return NULL;
}

/* --- the operations ---------------------------------------------------- */

struct plugin {
	void *h;
	int (*main_unlikely)(void);
	int (*main_likely)(void);
	int (*own)(void);
};

static struct plugin plug;

enum op { OP_FLIP, OP_CALL, OP_TOGGLE, OP_ADD_HOOKS, OP_DLOPEN, OP_ARRIVE,
	  OP_BATCH, OP_N };

static const char *const op_name[OP_N] = {
	"key flip", "static-call update", "toggle of a 12-hook module",
	"security_add_hooks (ulsm_lsm_init)", "dlopen registration",
	"a module's late arrival (dlopen after init)",
	"a key and a call in one update (ulsm_update_commit)",
};

/*
 * The test modules' settings, before the workers start: a worker that
 * reaches a callback through patched code has no happens-before edge with
 * a store made before the patch that ThreadSanitizer could see.
 */
static void modules_setup(void)
{
	tl_defaults();
	tl_init_ret[M_CAPA] = -1;	/* only alpha registers its hooks */
	tl_init_ret[M_OMEGA] = -1;
}

/* Initialise the set with alpha alone: 0, or why alpha is not up. */
static int init_set(void)
{
	int ret;

	ret = ulsm_lsm_init(&tl_hook_set, "alpha");
	if (ret)
		return ret;
	return ulsm_lsm_module_active(&tl_hook_set, "alpha") == 1 ? 0 : -EAGAIN;
}

/* What every child does before the operation, without faults. */
static void setup(enum op op)
{
	modules_setup();
	switch (op) {
	case OP_TOGGLE:
		if (ulsm_lsm_allow_toggle(&tl_hook_set) || init_set())
			_exit(92);
		break;
	case OP_DLOPEN:
		if (static_branch_enable(&main_key))
			_exit(93);
		break;
	case OP_ARRIVE:
		/* "late" is listed: its place is kept until it arrives. */
		if (ulsm_lsm_init(&tl_hook_set, "alpha,late") ||
		    ulsm_lsm_module_active(&tl_hook_set, "alpha") != 1)
			_exit(96);
		break;
	default:
		break;
	}
}

/* A module arriving after init: 0 if it came up, else -EIO (refused). */
static int arrive(void)
{
	char path[PATH_MAX];
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");

	snprintf(path, sizeof(path), "%s/plugin_late.so", dir ? dir : ".");
	if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
		printf("# dlopen: %s\n", dlerror());
		return -ENOENT;
	}
	return ulsm_lsm_module_active(&tl_hook_set, "late") == 1 ? 0 : -EIO;
}

static int load_plugin(void)
{
	char path[PATH_MAX];
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");

	snprintf(path, sizeof(path), "%s/plugin_walk.so", dir ? dir : ".");
	plug.h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!plug.h) {
		printf("# dlopen: %s\n", dlerror());
		return -ENOENT;
	}
	plug.main_unlikely = (int (*)(void))dlsym(plug.h, "plugin_site_main");
	plug.main_likely = (int (*)(void))dlsym(plug.h,
						 "plugin_site_main_likely");
	plug.own = (int (*)(void))dlsym(plug.h, "plugin_site_own");
	return plug.main_unlikely && plug.main_likely && plug.own ? 0 : -ENOENT;
}

/* The key flip and the call update, as one update. */
static int batch(void)
{
	struct ulsm_update *u = ulsm_update_new();
	int ret;

	if (!u)
		return -ENOMEM;
	ret = ulsm_update_branch(u, &walk_key, true);
	if (!ret)
		ret = ulsm_update_static_call(u, walk_sc, target_b);
	if (!ret)
		ret = ulsm_update_commit(u);
	ulsm_update_free(u);
	return ret;
}

static int run(enum op op)
{
	switch (op) {
	case OP_FLIP:
		return static_branch_enable(&walk_key);
	case OP_CALL:
		return static_call_update(walk_sc, target_b);
	case OP_TOGGLE:
		return ulsm_lsm_toggle(&tl_hook_set, "alpha", false);
	case OP_ADD_HOOKS:
		return init_set();
	case OP_DLOPEN:
		return load_plugin();
	case OP_ARRIVE:
		return arrive();
	case OP_BATCH:
		return batch();
	default:
		return -EINVAL;
	}
}

/* Whether the operation's effect is visible where code runs. */
static bool effect_seen(enum op op)
{
	struct t_file f = { 0 };

	switch (op) {
	case OP_FLIP:
		return key_site() == 1 && key_site_likely() == 1;
	case OP_CALL:
		return call_site(1) == 3;
	case OP_BATCH:
		return key_site() == 1 && key_site_likely() == 1 &&
		       call_site(1) == 3;
	case OP_TOGGLE:
		tl_trace_reset();
		call_int_hook(file_open, &f);
		return !strstr(tl_trace, "alpha");
	case OP_ADD_HOOKS:
		tl_trace_reset();
		call_int_hook(file_open, &f);
		return strstr(tl_trace, "alpha:file_open") != NULL;
	case OP_DLOPEN:
		return plug.main_unlikely() == 1 && plug.main_likely() == 1 &&
		       plug.own() == 0;
	case OP_ARRIVE:
		tl_trace_reset();
		call_int_hook(file_open, &f);
		return strstr(tl_trace, "alpha:file_open late:file_open") != NULL;
	default:
		return false;
	}
}

/* --- one child --------------------------------------------------------- */

/*
 * Where the signal sync cannot work (tests/lib/runtime.h): membarrier only.
 * Auto chooses the method by the batch's size (docs/patching-protocol.md,
 * "Choosing the method by batch size") and falls back to the other.
 */
static const struct walk_mode modes[] = {
	{ ULSM_WRITE_PROCMEM, ULSM_SYNC_MEMBARRIER, "procmem+membarrier" },
	{ ULSM_WRITE_MPROTECT, ULSM_SYNC_MEMBARRIER, "mprotect+membarrier" },
	{ ULSM_WRITE_PROCMEM, ULSM_SYNC_SIGNAL, "procmem+signal" },
	{ ULSM_WRITE_MPROTECT, ULSM_SYNC_SIGNAL, "mprotect+signal" },
	{ ULSM_WRITE_AUTO, ULSM_SYNC_MEMBARRIER, "auto+membarrier" },
};

static bool mode_usable(const struct walk_mode *m)
{
	return m->sync != ULSM_SYNC_SIGNAL || signal_sync_usable();
}

/* What the counting child found, inherited by the walking children. */
static struct walk_sites before, after;
static int rwx_at_start;

/* The child's part: set up, fail call @n (0: none) with @err, check. */
static int child(enum op op, const struct walk_mode *m, unsigned long n,
		 bool persistent, int err, int count_fd)
{
	struct walk_sites now;
	int ret, pending;

	if (ulsm_set_write_mode(m->write) || ulsm_set_sync_mode(m->sync))
		_exit(94);
	if (!getenv("ULSM_DEBUG") && !freopen("/dev/null", "w", stderr))
		_exit(97);	/* the library's own notices, expected here */
	if (!getenv("ULSM_DEBUG"))
		ulsm_set_log(quiet, NULL);	/* not into TAP comments */
	setup(op);
	start_workers(worker);
	if (count_fd >= 0)
		walk_sites_take(&before);

	arm(n, persistent ? ULONG_MAX : 0, err);
	ret = run(op);
	disarm();

	if (count_fd >= 0) {
		/* The counting run: no fault; record what it did. */
		if (ret || !effect_seen(op))
			bad("the operation fails without a fault: %d (%s)", ret,
			    ulsm_last_error());
		walk_sites_take(&after);
		ncalls = ulsm_fault.calls;
		walk_count_send(count_fd, ncalls, &before, &after,
				sizeof(after));
	}

	if (!persistent && rwx_mappings() != rwx_at_start)
		bad("a writable and executable mapping is left");
	if (mem_fds())
		bad("returned %d with a /proc/self/mem descriptor open", ret);
	pending = ulsm_pending_objects();
	walk_sites_take(&now);
	if (persistent) {
		/* A stranded batch may run emulated: only recovery counts. */
	} else if (op == OP_DLOPEN) {
		if (ret)
			bad("dlopen failed: %d", ret);
		if (walk_sites_differ(&now, &before) && !pending &&
		    walk_sites_differ(&now, &after))
			bad("registered sites neither as before nor as after");
		if (!pending && !effect_seen(op))
			bad("registered, but its sites are not in line");
		if (pending && (plug.main_unlikely() || plug.main_likely()))
			bad("pending, but its sites are not as compiled");
	} else if (!ret) {
		uintptr_t at = walk_sites_differ(&now, &after);

		if (at)
			bad("returned 0 but site %#lx is not new",
			    (unsigned long)at);
		if (!effect_seen(op))
			bad("returned 0 but the effect is not seen");
	} else {
		uintptr_t at = walk_sites_differ(&now, &before);

		if (at)
			bad("returned %d (%s) but site %#lx changed", ret,
			    ulsm_last_error(), (unsigned long)at);
		if (effect_seen(op))
			bad("returned %d but the effect is seen", ret);
		if (!ulsm_fault.failed)
			bad("returned %d (%s) with no fault injected", ret,
			    ulsm_last_error());
	}

	/* The next update without a fault succeeds, whatever happened. */
	if (op == OP_DLOPEN || persistent || !ret) {
		int again = static_branch_enable(&spare_key);

		if (again || spare_site() != 1)
			bad("the next update fails: %d (%s)", again,
			    ulsm_last_error());
		if (ulsm_pending_objects())
			bad("an object is still pending after an update");
		if (op == OP_DLOPEN && !effect_seen(op))
			bad("after the next update the plug-in is not in line");
		if (persistent && ret && op != OP_DLOPEN && op != OP_ADD_HOOKS &&
		    op != OP_ARRIVE) {
			/* Do it again; it must work now. */
			again = run(op);
			if (again || !effect_seen(op))
				bad("after recovery the operation fails: %d",
				    again);
		}
	} else if (op != OP_ADD_HOOKS && op != OP_ARRIVE) {
		int again = run(op);

		walk_sites_take(&now);
		if (again || walk_sites_differ(&now, &after) || !effect_seen(op))
			bad("the operation without a fault fails afterwards: "
			    "%d (%s)", again, ulsm_last_error());
	} else {
		int again = static_branch_enable(&spare_key);

		if (again)
			bad("the next update fails: %d", again);
	}
	if (rwx_mappings() != rwx_at_start)
		bad("a writable and executable mapping is left at the end");
	if (mem_fds())
		bad("a /proc/self/mem descriptor is open at the end");
	_exit(ret ? REFUSED : DONE);
}

/* The errnos each kind of call is made to fail with. */
static const int *errnos_of(enum ulsm_sys kind)
{
	static const int open_[] = { EMFILE, ENFILE, EACCES, 0 };
	static const int read_[] = { EIO, ENOMEM, 0 };
	static const int pwrite_[] = { EIO, ENOMEM, EPERM, 0 };
	static const int mprotect_[] = { ENOMEM, EACCES, 0 };
	static const int membarrier_[] = { EPERM, ENOSYS, 0 };
	static const int tgkill_[] = { EAGAIN, EPERM, 0 };
	static const int alloc_[] = { ENOMEM, 0 };
	static const int other_[] = { EIO, 0 };

	switch (kind) {
	case ULSM_SYS_OPEN:
		return open_;
	case ULSM_SYS_READ:
		return read_;
	case ULSM_SYS_PWRITE:
		return pwrite_;
	case ULSM_SYS_MPROTECT:
		return mprotect_;
	case ULSM_SYS_MEMBARRIER:
	case ULSM_SYS_FLUSH_ICACHE:	/* seccomp refuses both alike */
		return membarrier_;
	case ULSM_SYS_TGKILL:
		return tgkill_;
	case ULSM_SYS_ALLOC:
		return alloc_;
	default:
		return other_;
	}
}

/* The short form (make check) fails each call with its kind's first errno. */
static bool full;

static void walk(enum op op, const struct walk_mode *m, bool persistent)
{
	struct walk_tally t = { 0 };

	if (!mode_usable(m)) {
		ok(1, "# SKIP %s, %s: the signal sync cannot work here (the "
		   "runtime's own thread blocks every signal)", op_name[op],
		   m->name);
		return;
	}
	unsigned long by_kind[ULSM_SYS_KINDS] = { 0 };
	int fd;
	pid_t pid;

	pid = walk_count_fork(&fd);
	if (!pid)
		child(op, m, 0, false, 0, fd);
	if (!walk_count_read(pid, fd, &before, &after, sizeof(after))) {
		ok(0, "%s, %s: the counting run", op_name[op], m->name);
		return;
	}

	for (unsigned long n = 1; n <= ncalls && n <= ULSM_FAULT_LOG; n++) {
		const int *errs = errnos_of((enum ulsm_sys)kinds[n - 1]);

		if (walk_skip(n))
			continue;

		by_kind[kinds[n - 1]]++;
		for (; *errs; errs++) {
			pid = walk_fork();
			if (!pid)
				child(op, m, n, persistent, *errs, -1);
			if (!walk_tally(&t, wait_child(pid)))
				printf("#   ^ %s, %s, call %lu (%s) fails with "
				       "%s\n", op_name[op], m->name, n,
				       ulsm_sys_name((enum ulsm_sys)kinds[n - 1]),
				       strerror(*errs));
			if (persistent || !full)
				break;
		}
	}
	ok(!t.wrong && ncalls, "%s, %s%s: %lu calls, %lu runs: %lu done, "
	   "%lu refused with nothing changed, %lu wrong", op_name[op],
	   m->name, persistent ? ", every call from N on fails" : "",
	   ncalls, t.tried, t.done, t.refused, t.wrong);
	if (!persistent) {
		char line[256];
		size_t len = 0;

		for (int k = 0; k < ULSM_SYS_KINDS; k++)
			if (by_kind[k])
				len += (size_t)snprintf(line + len,
					sizeof(line) - len, " %s %lu",
					ulsm_sys_name((enum ulsm_sys)k),
					by_kind[k]);
		diag("  calls by kind:%s", line);
	}
}

/*
 * make check runs the short form: each call fails with its kind's usual
 * errno, and the persistent walk covers the key flip and the dlopen.
 * --full (make stress) tries every errno and every operation persistently.
 */
int main(int argc, char **argv)
{
	bool tsan = false, few;

#ifdef UNDER_TSAN
	tsan = true;
#endif
	full = argc > 1 && !strcmp(argv[1], "--full");
	/*
	 * ThreadSanitizer makes each child about 20 times slower, an
	 * emulator 10 to 50 times: there make check walks the key flip and
	 * the dlopen only (the other operations' failures take the same
	 * engine paths, which the native run walks in full).
	 */
	few = !full && (tsan || under_emulator());
	rwx_at_start = rwx_mappings();
	for (int op = 0; op < OP_N; op++) {
		if (few && op != OP_FLIP && op != OP_DLOPEN) {
			ok(1, "# SKIP %s: the short form under %s", op_name[op],
			   tsan ? "ThreadSanitizer" : "an emulator");
			continue;
		}
		for (size_t m = 0; m < ARRAY_SIZE(modes); m++)
			walk((enum op)op, &modes[m], false);
	}
	if (tsan && !full)
		return done_testing();
	for (int op = 0; op < OP_N; op++)
		for (size_t m = 0; m < ARRAY_SIZE(modes); m++)
			if (full || op == OP_FLIP || op == OP_DLOPEN)
				walk((enum op)op, &modes[m], true);
	return done_testing();
}
#endif /* ULSM_ARCH_GENERIC */
