// SPDX-License-Identifier: MIT
/*
 * Tracepoints (<ulsm/tracepoint.h>): off, one probe (a direct call, its
 * data), several in attach order, detach from the middle and back to one,
 * errors; probes by glob, also on a tracepoint of an object loaded later;
 * attach and detach while 4 threads hit the tracepoint (every probe gets
 * its own data: 0 wrong); a probe that sleeps is over when detach returns;
 * the recorder's file; the dump. Errors that change nothing: attach and
 * detach from inside a probe (-EDEADLK), the same glob twice (-EEXIST),
 * a glob never attached (-ENOENT). In child processes, which a hang kills:
 * a thread inside a read-side section calls in while another thread
 * detaches (no deadlock); fork while another thread holds the lock, or
 * attaches and detaches; the recorder in a child.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/ulsm.h>

#include "runtime.h"
#include "child.h"
#include "local_tp.h"
#include "tap.h"

/*
 * The plug-in's tracepoints (tp_g3, tp_d3: tp_defs.h) are named here only
 * as strings, for globs and dlsym(): these are the program's own.
 */
LOCAL_TRACEPOINT(tp_a, TP_PROTO(int x, long y), TP_ARGS(x, y));
LOCAL_TRACEPOINT(tp_g1, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tp_g2, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tp_sleep, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tp_rec, TP_PROTO(int x, const char *s, double d),
		 TP_ARGS(x, s, d));

__attribute__((noinline)) static void hit_a(int x, long y) { trace_tp_a(x, y); }

/* 100 tracepoints many_00 .. many_99, each with a site of its own. */
#define MANY(i)								\
	LOCAL_TRACEPOINT(many_##i, TP_PROTO(int x), TP_ARGS(x));	\
	__attribute__((noinline)) static void hit_many_##i(int x)	\
	{								\
		trace_many_##i(x);					\
	}
#define X10(M, p)	M(p##0) M(p##1) M(p##2) M(p##3) M(p##4)	\
			M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define X100(M)		X10(M, 0) X10(M, 1) X10(M, 2) X10(M, 3) X10(M, 4) \
			X10(M, 5) X10(M, 6) X10(M, 7) X10(M, 8) X10(M, 9)
X100(MANY)
#define MANY_HIT(i)	hit_many_##i,
static void (*const many_hits[100])(int) = { X100(MANY_HIT) };
__attribute__((noinline)) static void hit_g1(int x) { trace_tp_g1(x); }
__attribute__((noinline)) static void hit_g2(int x) { trace_tp_g2(x); }

/* Each probe checks that it got its own data, and logs its name. */
static char log_buf[256];
static int wrong;
static long sum;
static int d1 = 1, d2 = 2, d3 = 3;

#define PROBE(name, good, c)						\
	static void name(void *data, int x, long y)			\
	{								\
		if (!(good)) {						\
			__atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);	\
			if (getenv("TP_DEBUG"))				\
				fprintf(stderr, "%s got %p (d1 %p d2 %p d3 %p)\n", #name, data, (void *)&d1, (void *)&d2, (void *)&d3); \
		}							\
		__atomic_add_fetch(&sum, x + y, __ATOMIC_RELAXED);	\
		if (c)							\
			log_probe(log_buf, sizeof(log_buf), c);		\
	}
PROBE(p1, data == &d1, '1')
PROBE(p2, data == &d2 || data == &d1, '2')	/* attached with both */
PROBE(p3, data == &d3, '3')
PROBE(q1, data == &d1, 0)
PROBE(q2, data == &d2, 0)
PROBE(q3, data == &d3, 0)

static const char *run_a(void)
{
	log_buf[0] = 0;
	hit_a(1, 2);
	return log_buf;
}

/* The iterator's slots: patched for tp_a's array, calling @want in turn. */
static void slots_are(void *const *want, int n, const char *what)
{
	const struct static_call_key *k[ULSM_TP_SLOTS] = {
		&STATIC_CALL_KEY(__tracepoint_slot_tp_a_0),
		&STATIC_CALL_KEY(__tracepoint_slot_tp_a_1),
		&STATIC_CALL_KEY(__tracepoint_slot_tp_a_2),
		&STATIC_CALL_KEY(__tracepoint_slot_tp_a_3),
	};
	struct ulsm_tracepoint *tp = &__tracepoint_tp_a;
	int good = tp->slotted && tp->slotted == tp->funcs, direct = 0;

	for (int i = 0; good && i < n; i++) {
		int d = -1;

		good = k[i]->func == want[i];
		ulsm_static_call_sites(k[i], &d);
		direct += d >= 1;
	}
	ok(good, "%s: the iterator calls them through its slots", what);
	/*
	 * The last slot has no call site: the iterator tail-calls it. With
	 * clang too: it must not merge a slot's tail call with the next
	 * count's call of the same slot, whose record would then follow no
	 * call (<ulsm/tracepoint.h>, ULSM__TP_TAIL_SITE).
	 */
	if (strcmp(ulsm_backend(), "x86_64") == 0) {
		struct ulsm_stats st;

		is_int(direct, n < ULSM_TP_SLOTS ? n : ULSM_TP_SLOTS - 1,
		       "  x86-64: the slots' sites call their probes directly");
		ulsm_get_stats(&st);
		is_int((long)st.call_sites_skipped, 0, "  x86-64: no site "
		       "record of this program follows anything but a call");
	}
}

static void one_and_several(void)
{
	int direct = -1;

	is_string(run_a(), "", "off: no probe runs");
	is_int(static_key_enabled(&__tracepoint_key_tp_a), 0, "off: key off");
	is_int(register_trace_tp_a(p1, &d1), 0, "attach p1");
	is_string(run_a(), "1", "p1 runs");
	ok(static_call_query(__tracepoint_call_tp_a) == p1,
	   "with one probe the static call targets it");
	ulsm_static_call_sites(&STATIC_CALL_KEY(__tracepoint_call_tp_a),
			       &direct);
	if (strcmp(ulsm_backend(), "x86_64") == 0)
		ok(direct >= 1, "x86-64: the site calls p1 directly (%d)", direct);
	is_int(register_trace_tp_a(p2, &d2), 0, "attach p2");
	slots_are((void *[]){ (void *)p1, (void *)p2 }, 2, "two probes");
	is_int(register_trace_tp_a(p3, &d3), 0, "attach p3");
	is_string(run_a(), "123", "three probes in attach order");
	slots_are((void *[]){ (void *)p1, (void *)p2, (void *)p3 }, 3,
		  "three probes");
	is_int(register_trace_tp_a(p2, &d2), -EEXIST, "p2 again: -EEXIST");
	is_int(register_trace_tp_a(p2, &d1), 0, "p2 with other data is another probe");
	is_string(run_a(), "1232", "four");
	slots_are((void *[]){ (void *)p1, (void *)p2, (void *)p3, (void *)p2 },
		  4, "four probes");
	sum = 0;
	is_int(register_trace_tp_a(q1, &d1), 0, "a fifth, q1");
	is_string(run_a(), "1232", "five: the four in order");
	is_int((int)sum, 5 * 3, "  and q1");
	ok(!__tracepoint_tp_a.slotted, "five, more than its slots: the "
	   "iterator calls them through pointers");
	is_int(unregister_trace_tp_a(q1, &d1), 0, "detach q1");
	slots_are((void *[]){ (void *)p1, (void *)p2, (void *)p3, (void *)p2 },
		  4, "four again");
	is_int(unregister_trace_tp_a(p2, &d1), 0, "detach it");
	is_int(unregister_trace_tp_a(p2, &d2), 0, "detach p2 (the middle)");
	is_string(run_a(), "13", "p1 p3 left, in order");
	slots_are((void *[]){ (void *)p1, (void *)p3 }, 2, "p1 and p3");
	is_int(unregister_trace_tp_a(p1, &d1), 0, "detach p1");
	is_string(run_a(), "3", "p3 alone");
	ok(static_call_query(__tracepoint_call_tp_a) == p3,
	   "back to a direct call of p3");
	is_int(unregister_trace_tp_a(p3, &d3), 0, "detach p3");
	is_string(run_a(), "", "off again");
	is_int(static_key_enabled(&__tracepoint_key_tp_a), 0, "key off");
	is_int(unregister_trace_tp_a(p3, &d3), -ENOENT, "detach again: -ENOENT");
	{
		struct ulsm_stats st0, st1;

		ulsm_get_stats(&st0);
		is_int(register_trace_tp_a(p1, &d1), 0,
		       "attach p1 again, to a tracepoint that was on");
		ulsm_get_stats(&st1);
		if (strcmp(ulsm_backend(), "generic"))
			is_int((int)(st1.batches - st0.batches), 1,
			       "in one update (its grace period first)");
		ok(static_call_query(__tracepoint_call_tp_a) == p1,
		   "calling it directly");
		is_string(run_a(), "1", "p1 runs");
		is_int(unregister_trace_tp_a(p1, &d1), 0, "detach it");
	}
	is_int(tracepoint_probe_register(NULL, (void *)p1, NULL), -EINVAL,
	       "NULL tracepoint");
	{
		/*
		 * A record from older headers (shorter than this library's
		 * first sized layout, docs/abi.md): refused, by its size
		 * alone; the real tracepoint is untouched.
		 */
		struct ulsm_tracepoint older = __tracepoint_tp_a;

		older.size = 8;
		is_int(tracepoint_probe_register(&older, (void *)p1, &d1),
		       -EPROTO, "a tracepoint's record shorter than the "
		       "library's -> -EPROTO");
		ok(!static_key_enabled(__tracepoint_tp_a.key),
		   "  and nothing was attached");
	}
	is_int(wrong, 0, "every probe got its own data");
}

static int gcount;
static void gprobe(void *data, int x)
{
	(void)data;
	__atomic_add_fetch(&gcount, x, __ATOMIC_RELAXED);
}

/*
 * What gprobe counts over one round of hits: @x1 on tp_g1, @x2 on tp_g2,
 * and @x3 through @hit3 (the plug-in's tp_g3), each only when not 0.
 */
static int gsum(int x1, int x2, int (*hit3)(int), int x3)
{
	gcount = 0;
	if (x1)
		hit_g1(x1);
	if (x2)
		hit_g2(x2);
	if (x3)
		hit3(x3);
	return gcount;
}

static void by_glob(void)
{
	char path[PATH_MAX];
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	int (*plugin_hit)(int);
	void *h;

	is_int(ulsm_trace_attach("tp_g*", (void *)gprobe, NULL), 2,
	       "a glob attaches to the two tracepoints that match");
	is_int(gsum(1, 10, NULL, 0), 11, "both run the probe");
	ok(ulsm_tracepoint_find("tp_g3") == NULL, "tp_g3 is not loaded yet");
	snprintf(path, sizeof(path), "%s/plugin_tp.so", dir ? dir : ".");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ok(h != NULL, "dlopen plugin_tp.so%s%s", h ? "" : ": ", h ? "" : dlerror());
	if (!h)
		return;
	ok(ulsm_tracepoint_find("tp_g3") != NULL, "its tracepoint is known");
	plugin_hit = (int (*)(int))dlsym(h, "plugin_tp_hit");
	is_int(gsum(0, 0, plugin_hit, 100), 100,
	       "the glob's probe was attached to it on load");
	is_int(ulsm_trace_detach("tp_g*", (void *)gprobe, NULL), 3,
	       "detach by glob: three");
	is_int(gsum(1, 0, plugin_hit, 100), 0, "no probe runs");
	dlclose(h);
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		/* musl's dlclose() never unloads: the tracepoint stays. */
		dlclose(h);
		ok(ulsm_tracepoint_find("tp_g3") != NULL,
		   "# SKIP dlclose did not unload (musl): the tracepoint stays");
	} else {
		ok(ulsm_tracepoint_find("tp_g3") == NULL, "gone with its object");
	}
}

/*
 * A tracepoint in a -fPIC shared object: its site was compiled as "call
 * <trampoline>@PLT" (the trampoline has default visibility). The site is
 * recorded and patched all the same: a probe in reach (the plug-in's own)
 * is called directly, one out of reach through the PLT entry, and with
 * none the PLT entry's trampoline returns.
 */
static void plt_sites(void)
{
	bool patching = strcmp(ulsm_backend(), "generic") != 0;
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	const struct static_call_key *key;
	void (*probe)(void *, int);
	int (*hit)(int), (*count)(void);
	int n, direct = -1;
	char path[512];
	void *h;

	snprintf(path, sizeof(path), "%s/plugin_tp.so", dir ? dir : ".");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ok(h != NULL, "PLT: dlopen plugin_tp.so%s%s", h ? "" : ": ",
	   h ? "" : dlerror());
	if (!h)
		return;
	key = dlsym(h, "__SCK____tracepoint_call_tp_g3");
	probe = (void (*)(void *, int))dlsym(h, "plugin_tp_probe");
	hit = (int (*)(int))dlsym(h, "plugin_tp_hit");
	count = (int (*)(void))dlsym(h, "plugin_tp_count");
	if (!ok(key && probe && hit && count, "PLT: the plug-in's symbols")) {
		dlclose(h);
		return;
	}
	n = ulsm_static_call_sites(key, &direct);
	if (patching)
		is_int(n, 1, "PLT: the plug-in's site is recorded though it "
		       "calls the trampoline's PLT entry");
	else
		ok(n <= 0, "PLT: %s back end: no call site patched (%d)",
		   ulsm_backend(), n);
	is_int(ulsm_trace_attach("tp_g3", (void *)probe, NULL), 1,
	       "PLT: attach the plug-in's own probe");
	hit(5);
	is_int(count(), 5, "PLT: it runs");
	n = ulsm_static_call_sites(key, &direct);
	if (patching)
		ok(n == 1 && direct == 1, "PLT: the site calls it directly "
		   "(%d of %d)", direct, n);
	is_int(ulsm_trace_detach("tp_g3", (void *)probe, NULL), 1,
	       "PLT: detach it");
	is_int(ulsm_trace_attach("tp_g3", (void *)gprobe, NULL), 1,
	       "PLT: attach a probe of the program's");
	is_int(gsum(0, 0, hit, 7), 7,
	       "PLT: it runs (directly or through the PLT entry)");
	ulsm_static_call_sites(key, &direct);
	diag("PLT: the program's probe is called %s", direct == 1 ?
	     "directly" : "through the PLT entry (out of reach)");
	is_int(ulsm_trace_detach("tp_g3", (void *)gprobe, NULL), 1,
	       "PLT: detach it");
	ok(gsum(0, 0, hit, 9) == 0 && count() == 5,
	   "PLT: no probe: nothing runs");
	dlclose(h);
}

/* A glob over 100 tracepoints without a probe: one update. */
static int many_count;
static void many_probe(void *data, int x)
{
	(void)data;
	many_count += x;
}

/* What many_probe counts over one hit of each of the 100 tracepoints. */
static int many_sum(void)
{
	many_count = 0;
	for (int i = 0; i < 100; i++)
		many_hits[i](1);
	return many_count;
}

/*
 * many_probe attached (@attach) or detached by the glob "many_*": what
 * that returns; in *@d, the batches, core syncs and grace periods it took
 * (the library's statistics before and after: only these three fields).
 */
static int many_glob(bool attach, struct ulsm_stats *d)
{
	struct ulsm_stats st0;
	int ret;

	ulsm_get_stats(&st0);
	ret = attach ? ulsm_trace_attach("many_*", (void *)many_probe, NULL)
		     : ulsm_trace_detach("many_*", (void *)many_probe, NULL);
	ulsm_get_stats(d);
	d->batches -= st0.batches;
	d->core_syncs -= st0.core_syncs;
	d->grace_periods -= st0.grace_periods;
	return ret;
}

static void many_at_once(void)
{
	struct ulsm_stats d;
	bool patching = strcmp(ulsm_backend(), "generic") != 0;

	is_int(many_glob(true, &d), 100,
	       "a glob attaches one probe to 100 tracepoints");
	if (patching)
		is_int((int)d.batches, 1, "in one update (one batch, %lu core "
		       "syncs)", d.core_syncs);
	is_int(many_sum(), 100, "each of the 100 calls it");
	is_int(many_glob(false, &d), 100, "and detaches from all");
	if (patching)
		is_int((int)d.batches, 1, "in one update too");
	is_int((int)d.grace_periods, 1, "and one grace period");
	is_int(many_sum(), 0, "none calls it any more");
}

/* --- attach and detach while threads hit ------------------------------- */

static int stop, started;

static void *hitter(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	for (long i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++)
		hit_a(1, i & 7);
	return NULL;
}

static void under_threads(int rounds)
{
	static void (*const probes[3])(void *, int, long) = { q1, q2, q3 };
	static void *const datas[3] = { &d1, &d2, &d3 };
	pthread_t t[4];
	bool on[3] = { false, false, false };
	unsigned int seed = 42;
	int bad = 0;

	wrong = 0;
	stop = 0;
	started = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, hitter, NULL);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 4)
		usleep(100);
	for (int r = 0; r < rounds; r++) {
		int i = (int)(rand_r(&seed) % 3), ret;

		ret = on[i] ? unregister_trace_tp_a(probes[i], datas[i])
			    : register_trace_tp_a(probes[i], datas[i]);
		if (ret)
			bad++;
		else
			on[i] = !on[i];
	}
	for (int i = 0; i < 3; i++)
		if (on[i])
			unregister_trace_tp_a(probes[i], datas[i]);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	is_int(bad, 0, "%d attaches and detaches under 4 threads: all 0", rounds);
	is_int(wrong, 0, "no probe ever got another's data");
}

/* --- a probe that sleeps ------------------------------------------------ */

static int inside, finished;

static void sleeper(void *data, int x)
{
	(void)data;
	(void)x;
	__atomic_store_n(&inside, 1, __ATOMIC_SEQ_CST);
	nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	__atomic_add_fetch(&finished, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&inside, 0, __ATOMIC_SEQ_CST);
}

__attribute__((noinline)) static void hit_sleep(void) { trace_tp_sleep(0); }

static void *sleep_hitter(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		hit_sleep();
	return NULL;
}

static void sleeping_probe(void)
{
	pthread_t t;

	stop = 0;
	is_int(register_trace_tp_sleep(sleeper, NULL), 0, "attach a probe that sleeps");
	pthread_create(&t, NULL, sleep_hitter, NULL);
	while (!__atomic_load_n(&inside, __ATOMIC_SEQ_CST))
		usleep(1000);
	is_int(unregister_trace_tp_sleep(sleeper, NULL), 0,
	       "detach it while a thread sleeps inside");
	is_int(__atomic_load_n(&inside, __ATOMIC_SEQ_CST), 0,
	       "when detach returns, no thread is inside the probe");
	{
		int f = __atomic_load_n(&finished, __ATOMIC_SEQ_CST);

		usleep(120 * 1000);
		is_int(__atomic_load_n(&finished, __ATOMIC_SEQ_CST), f,
		       "and none enters it afterwards");
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
}

/* --- the recorder -------------------------------------------------------- */

__attribute__((noinline)) static void hit_rec(int x) { trace_tp_rec(x, "s", 0.5); }

static void recorder(const char *out)
{
	char path[PATH_MAX];
	unsigned char head[8];
	long n;
	FILE *f;

	is_int(ulsm_trace_enable("tp_rec"), 1, "the recorder on tp_rec");
	for (int i = 0; i < 5; i++)
		hit_rec(i);
	is_int(ulsm_trace_disable("tp_rec"), 1, "off again");
	hit_rec(99);
	snprintf(path, sizeof(path), "%s", out ? out : "t_tracepoint.bin");
	n = ulsm_trace_write(path);
	is_int((int)n, 5, "five events written to %s", path);
	f = fopen(path, "rb");
	ok(f && fread(head, 1, 8, f) == 8 && !memcmp(head, "ULSMTRC1", 8),
	   "the file starts with its magic");
	if (f)
		fclose(f);
	is_int((int)ulsm_trace_write("/nonexistent/dir/x"), -ENOENT,
	       "a path that cannot be written: -ENOENT");
}

static void dump(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ulsm_dump(f);
	fclose(f);
	ok(strstr(buf, "tracepoints:") && strstr(buf, "tp_a(x, y)") &&
	   strstr(buf, "tp_rec(x, s, d)"), "ulsm_dump lists the tracepoints");
	free(buf);
}

/* --- errors that change nothing, and no deadlock ------------------------ */

/*
 * Checks made in a child process (a deadlock there must not hang the
 * test): each failure is a diagnostic line, the exit status their number.
 */
static int child_bad;
#define CHECK(cond, fmt, ...)						\
	do {								\
		if (!(cond)) {						\
			diag("  child %d: " fmt, (int)getpid(),		\
			     ##__VA_ARGS__);				\
			child_bad++;					\
		}							\
	} while (0)

/* Seconds before a child that hangs is killed (SIGALRM). */
static unsigned int child_timeout(void)
{
	const char *emu = getenv("ULSM_EMU");

	return emu && *emu ? 60 : 10;
}

struct tp_case {
	int (*fn)(void);
};

static void tp_child(void *arg)
{
	const struct tp_case *c = arg;

	alarm(child_timeout());
	child_bad = 0;
	_exit(c->fn());
}

/*
 * Runs @fn in a child process (tests/lib/child.h); a hang fails the check
 * by the timeout.
 */
static void in_tp_child(int (*fn)(void), const char *what)
{
	struct tp_case c = { fn };

	if (in_child(what, tp_child, &c, NULL, 0) < 0)
		ok(0, "%s (fork failed)", what);
	else if (WIFSIGNALED(child_status))
		ok(0, "%s (the child was killed by signal %d%s)", what,
		   WTERMSIG(child_status),
		   WTERMSIG(child_status) == SIGALRM ? ": it hung" : "");
	else
		ok(WEXITSTATUS(child_status) == 0, "%s%s", what,
		   WEXITSTATUS(child_status) ? " (the child's checks failed)" :
		   "");
}

/*
 * How long a thread gives another to reach the middle of its call: the
 * whole of it, although the other's core syncs may signal this thread
 * (EINTR).
 */
static void nap(void)
{
	struct timespec left = { 0, under_emulator() ? 500000000 : 200000000 };

	while (nanosleep(&left, &left) && errno == EINTR)
		;
}

LOCAL_TRACEPOINT(tp_self, TP_PROTO(int x), TP_ARGS(x));
__attribute__((noinline)) static void hit_self(int x) { trace_tp_self(x); }

static int self_calls, comp_calls, self_ret;
static int (*self_action)(void);	/* run once, from inside the probe */

static void comp_probe(void *data, int x)
{
	(void)data;
	(void)x;
	comp_calls++;
}

static void self_probe(void *data, int x)
{
	int (*act)(void) = self_action;

	(void)data;
	(void)x;
	self_calls++;
	if (act) {
		self_action = NULL;
		self_ret = act();
	}
}

static int detach_self(void)
{
	return unregister_trace_tp_self(self_probe, NULL);
}

static int attach_comp(void)
{
	return register_trace_tp_self(comp_probe, NULL);
}

/* A probe that detaches itself, or attaches another: an error, no change. */
static void errors_inside_a_probe(void)
{
	for (int beside = 0; beside < 2; beside++) {
		const char *how = beside ? "beside another probe" : "alone";

		self_calls = comp_calls = 0;
		self_ret = 1;
		is_int(register_trace_tp_self(self_probe, NULL), 0,
		       "%s: attach a probe that detaches itself", how);
		if (beside)
			register_trace_tp_self(comp_probe, NULL);
		self_action = detach_self;
		hit_self(0);
		is_int(self_ret, -EDEADLK, "%s: its detach gets -EDEADLK", how);
		hit_self(0);
		is_int(self_calls, 2, "%s: and changed nothing: the site still "
		       "calls it", how);
		is_int(unregister_trace_tp_self(self_probe, NULL), 0,
		       "%s: a detach from outside then works", how);
		hit_self(0);
		is_int(self_calls, 2, "%s: and it is gone", how);
		if (beside) {
			is_int(comp_calls, 3, "the other probe ran each time");
			unregister_trace_tp_self(comp_probe, NULL);
		}
	}
	self_calls = comp_calls = 0;
	self_ret = 1;
	register_trace_tp_self(self_probe, NULL);
	self_action = attach_comp;
	hit_self(0);
	is_int(self_ret, -EDEADLK,
	       "a probe that attaches another gets -EDEADLK");
	hit_self(0);
	is_int(comp_calls, 0, "and the other was not attached");
	is_int(unregister_trace_tp_self(comp_probe, NULL), -ENOENT,
	       "(its detach: -ENOENT)");
	is_int(unregister_trace_tp_self(self_probe, NULL), 0,
	       "detach the first");
	is_int(static_key_enabled(&__tracepoint_key_tp_self), 0,
	       "tp_self is off");
}

/*
 * A thread inside a read-side section (a probe, or its own section) calls
 * into the tracepoints while another thread detaches a probe from another
 * tracepoint, whose grace period waits for the first thread. Before the
 * fix the detacher held the tracepoint lock through that grace period:
 * the first call that took the lock waited for ever.
 */
LOCAL_TRACEPOINT(tp_in, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tp_other, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tp_z, TP_PROTO(int x), TP_ARGS(x));
__attribute__((noinline)) static void hit_in(int x) { trace_tp_in(x); }
__attribute__((noinline)) static void hit_z(int x) { trace_tp_z(x); }

static int a_inside, b_going, zcount;

static void nop_probe(void *data, int x)
{
	(void)data;
	(void)x;
}

static void z_probe(void *data, int x)
{
	(void)data;
	__atomic_add_fetch(&zcount, x, __ATOMIC_RELAXED);
}

static void *detacher(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&a_inside, __ATOMIC_SEQ_CST))
		usleep(1000);
	__atomic_store_n(&b_going, 1, __ATOMIC_SEQ_CST);
	return (void *)(intptr_t)unregister_trace_tp_other(nop_probe, NULL);
}

/* Inside a section: let the detacher begin, and reach its grace period. */
static void wait_for_detacher(void)
{
	__atomic_store_n(&a_inside, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&b_going, __ATOMIC_SEQ_CST))
		usleep(1000);
	nap();
}

static pthread_t start_detacher(void)
{
	pthread_t t;

	a_inside = b_going = 0;
	CHECK(register_trace_tp_other(nop_probe, NULL) == 0,
	      "attach a probe to tp_other");
	pthread_create(&t, NULL, detacher, NULL);
	return t;
}

static void join_detacher(pthread_t t)
{
	void *ret;

	pthread_join(t, &ret);
	CHECK((intptr_t)ret == 0, "the detacher got %d, want 0",
	      (int)(intptr_t)ret);
}

/* What a probe tries while the detacher waits for it. */
static int in_ret[5];

static void changing_probe(void *data, int x)
{
	(void)data;
	(void)x;
	wait_for_detacher();
	diag("  child: inside a probe: register, unregister, attach, detach, "
	     "enable");
	in_ret[0] = register_trace_tp_z(nop_probe, NULL);
	in_ret[1] = unregister_trace_tp_z(z_probe, NULL);
	in_ret[2] = ulsm_trace_attach("tp_z", (void *)nop_probe, NULL);
	in_ret[3] = ulsm_trace_detach("tp_z*", (void *)z_probe, &d1);
	in_ret[4] = ulsm_trace_enable("tp_z");
}

static int probe_changes_child(void)
{
	static const char *const what[5] = {
		"register", "unregister", "ulsm_trace_attach",
		"ulsm_trace_detach", "ulsm_trace_enable"
	};
	pthread_t t;

	CHECK(register_trace_tp_z(z_probe, NULL) == 0, "attach to tp_z");
	CHECK(ulsm_trace_attach("tp_z*", (void *)z_probe, &d1) == 1,
	      "attach to tp_z* (data d1)");
	CHECK(register_trace_tp_in(changing_probe, NULL) == 0,
	      "attach the probe");
	t = start_detacher();
	hit_in(0);
	join_detacher(t);
	for (int i = 0; i < 5; i++)
		CHECK(in_ret[i] == -EDEADLK, "%s from inside a probe: %d, "
		      "want -EDEADLK", what[i], in_ret[i]);
	zcount = 0;
	hit_z(1);
	CHECK(zcount == 2, "tp_z's two probes (and nothing else) ran: %d",
	      zcount);
	CHECK(unregister_trace_tp_z(z_probe, NULL) == 0 &&
	      ulsm_trace_detach("tp_z*", (void *)z_probe, &d1) == 1,
	      "both are detached from outside");
	return child_bad;
}

/* What code inside its own section does meanwhile: nothing may hang. */
static int section_calls_child(void)
{
	char path[PATH_MAX], *buf = NULL;
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	size_t len = 0;
	pthread_t t;
	void *h;
	FILE *f;

	snprintf(path, sizeof(path), "%s/plugin_tp.so", dir ? dir : ".");
	t = start_detacher();
	ulsm_read_lock();
	wait_for_detacher();
	diag("  child: inside a section: ulsm_tracepoint_find");
	CHECK(ulsm_tracepoint_find("tp_a") == &__tracepoint_tp_a,
	      "ulsm_tracepoint_find");
	diag("  child: ulsm_trace_write");
	CHECK(ulsm_trace_write("/dev/null") >= 0, "ulsm_trace_write");
	diag("  child: dlopen and dlclose an object with tracepoints");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen: %s", h ? "" : dlerror());
	if (h)
		dlclose(h);
	diag("  child: ulsm_dump");
	f = open_memstream(&buf, &len);
	ulsm_dump(f);
	fclose(f);
	CHECK(strstr(buf, "tracepoints:\n") && !strstr(buf, "busy"),
	      "ulsm_dump lists the tracepoints");
	free(buf);
	diag("  child: register");
	CHECK(register_trace_tp_z(nop_probe, NULL) == -EDEADLK,
	      "register from inside a section: -EDEADLK");
	ulsm_read_unlock();
	join_detacher(t);
	CHECK(unregister_trace_tp_z(nop_probe, NULL) == -ENOENT,
	      "and it did not attach");
	return child_bad;
}

/*
 * fork() while another thread holds the tracepoint lock: the child must
 * not inherit it held. The other thread's ulsm_dump() holds it while it
 * writes its list to a stream that waits (a little) for the fork.
 */
LOCAL_TRACEPOINT(tp_fk, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tp_fk2, TP_PROTO(int x), TP_ARGS(x));
__attribute__((noinline)) static void hit_fk(int x) { trace_tp_fk(x); }

static int fk_holding, fk_forked, fk_dumped, fk_count;

static void fk_probe(void *data, int x)
{
	(void)data;
	fk_count += x;
}

/* In the child of the fork: every call that takes the lock, once. */
static int after_fork(void)
{
	fk_count = 0;
	if (register_trace_tp_fk(fk_probe, NULL))
		return 1;
	hit_fk(1);
	if (fk_count != 1 || unregister_trace_tp_fk(fk_probe, NULL))
		return 2;
	if (ulsm_trace_attach("tp_fk", (void *)fk_probe, NULL) != 1 ||
	    ulsm_trace_detach("tp_fk", (void *)fk_probe, NULL) != 1)
		return 3;
	if (ulsm_trace_write("/dev/null") < 0)
		return 4;
	return 0;
}

/* Fork, run after_fork() in the child (killed if it hangs), wait. */
static int fork_and_check(void (*forked)(void))
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(child_timeout() / 2);
		_exit(after_fork());
	}
	if (forked)
		forked();
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status)) {
		diag("  child %d: its child hung (signal %d)", (int)getpid(),
		     WTERMSIG(status));
		return 1;
	}
	if (WEXITSTATUS(status))
		diag("  child %d: its child failed at step %d", (int)getpid(),
		     WEXITSTATUS(status));
	return WEXITSTATUS(status) != 0;
}

static ssize_t slow_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	if (memmem(buf, n, "tracepoints:", 12) &&
	    !__atomic_load_n(&fk_holding, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&fk_holding, 1, __ATOMIC_SEQ_CST);
		for (int i = 0; i < 300; i++) {
			if (__atomic_load_n(&fk_forked, __ATOMIC_SEQ_CST))
				break;
			usleep(1000);
		}
	}
	return (ssize_t)n;
}

static void *slow_dumper(void *arg)
{
	cookie_io_functions_t io = { .write = slow_write };
	FILE *f = fopencookie(NULL, "w", io);

	(void)arg;
	if (f) {
		setvbuf(f, NULL, _IONBF, 0);
		ulsm_dump(f);
		fclose(f);
	}
	__atomic_store_n(&fk_dumped, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void set_forked(void)
{
	__atomic_store_n(&fk_forked, 1, __ATOMIC_SEQ_CST);
}

static int fork_while_held_child(void)
{
	pthread_attr_t a;
	pthread_t t;

	/*
	 * Detached: ThreadSanitizer reported it, joinable at the fork, as
	 * leaked in the child (and made the child exit with 66).
	 */
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_create(&t, &a, slow_dumper, NULL);
	pthread_attr_destroy(&a);
	while (!__atomic_load_n(&fk_holding, __ATOMIC_SEQ_CST))
		usleep(100);
	CHECK(fork_and_check(set_forked) == 0,
	      "fork while another thread holds the lock");
	while (!__atomic_load_n(&fk_dumped, __ATOMIC_SEQ_CST))
		usleep(1000);
	return child_bad;
}

static int fk_stop;

static void *fk_changer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&fk_stop, __ATOMIC_RELAXED))
		if (register_trace_tp_fk2(fk_probe, NULL) ||
		    unregister_trace_tp_fk2(fk_probe, NULL))
			return (void *)1;
	return NULL;
}

static int fork_while_changing_child(void)
{
	int bad = 0, forks = under_emulator() ? 3 : 10;
	pthread_t t;
	void *ret;

	/*
	 * A first attach and detach here: grace.c registers its fork
	 * handlers at the first grace period, and a fork racing with that
	 * one runs none of them in the child (glibc runs there only those
	 * whose prepare ran), which then waits for the grace-period lock
	 * (not this test's subject).
	 */
	CHECK(register_trace_tp_fk2(fk_probe, NULL) == 0 &&
	      unregister_trace_tp_fk2(fk_probe, NULL) == 0,
	      "attach and detach once");
	pthread_create(&t, NULL, fk_changer, NULL);
	usleep(1000);
	for (int i = 0; i < forks; i++)
		bad += fork_and_check(NULL) != 0;
	__atomic_store_n(&fk_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, &ret);
	CHECK(!bad, "%d of %d children failed", bad, forks);
	CHECK(ret == NULL, "the other thread's attach or detach failed");
	return child_bad;
}

/*
 * The recorder in a child of fork(): its events are its own thread's,
 * under its own thread id (before, they went into the ring of the parent's
 * forking thread, under the parent's id).
 */
LOCAL_TRACEPOINT(tp_fr, TP_PROTO(int x), TP_ARGS(x));
__attribute__((noinline)) static void hit_fr(int x) { trace_tp_fr(x); }

/*
 * The thread id that recorded event @x of tp_fr in @path, or -1: the
 * file's version 3 (docs/tracepoints.md, "The file"), read just enough.
 */
static long recorded_by(const char *path, uint64_t x)
{
	unsigned char *b = NULL;
	size_t n = 0, at = 16;
	uint32_t id = __tracepoint_tp_fr.id, v, cmdlen;
	long tid = -1;
	FILE *f = fopen(path, "rb");

#define GET(dst, sz)							\
	(at + (sz) <= n ? (memcpy(&(dst), b + at, (sz)), at += (sz), 1) : 0)
	if (!f)
		return -2;
	b = malloc(1 << 22);
	if (b)
		n = fread(b, 1, 1 << 22, f);
	fclose(f);
	if (!b || n < 20 || memcmp(b, "ULSMTRC1", 8))
		goto out;
	memcpy(&v, b + 8, 4);
	memcpy(&cmdlen, b + 16, 4);
	if (v != 3)
		goto out;
	at = 20 + (size_t)cmdlen;
	for (;;) {
		uint32_t type, len, rtid, count;
		size_t body;

		if (!GET(type, 4) || !GET(len, 4) || at + len > n)
			goto out;
		body = at;
		if (type == 5)
			break;
		if (type == 3 && GET(rtid, 4) && GET(count, 4)) {
			for (uint32_t e = 0; e < count; e++) {
				uint64_t ns, w[6] = { 0 };
				uint32_t eid, info, words;

				if (!GET(ns, 8) || !GET(eid, 4) || !GET(info, 4))
					goto out;
				words = info & 0xff;
				if (words > 6 || !GET(w, (size_t)words * 8))
					goto out;
				/* Strings' bytes follow (not tp_fr's). */
				for (uint32_t i = 0; i < words; i++)
					if (info >> (8 + i) & 1)
						at += (size_t)(w[i] & 0xfff);
				if (eid == id && w[0] == x)
					tid = rtid;
			}
		}
		at = body + len;
	}
out:
#undef GET
	free(b);
	return tid;
}

static int recorder_fork_child(void)
{
	char path[64];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "t_tracepoint.%d.bin", (int)getpid());
	CHECK(ulsm_trace_enable("tp_fr") == 1, "the recorder on tp_fr");
	hit_fr(1);
	pid = fork();
	if (pid == 0) {
		hit_fr(2);
		_exit(ulsm_trace_write(path) < 0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      !WEXITSTATUS(status), "the child wrote %s", path);
	CHECK(recorded_by(path, 1) == getpid(),
	      "event 1 under the parent's thread (%d): %ld", (int)getpid(),
	      recorded_by(path, 1));
	CHECK(recorded_by(path, 2) == pid,
	      "event 2 under the child's thread (%d): %ld", (int)pid,
	      recorded_by(path, 2));
	unlink(path);
	return child_bad;
}

/*
 * Globs: the same one twice is -EEXIST and changes nothing (before, it
 * stacked: one detach turned the probe off, but it came back at the next
 * load of a matching object); a detach of a glob that is not attached is
 * -ENOENT; a tracepoint that another glob of the same probe still matches
 * keeps the probe.
 */
static int dcount;

static void dprobe(void *data, int x)
{
	(void)data;
	__atomic_add_fetch(&dcount, x, __ATOMIC_RELAXED);
}

LOCAL_TRACEPOINT(tp_d1, TP_PROTO(int x), TP_ARGS(x));
__attribute__((noinline)) static void hit_d1(int x) { trace_tp_d1(x); }

static int same_glob_child(void)
{
	char path[PATH_MAX];
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	int (*hit)(int), ret;
	void *h;

	snprintf(path, sizeof(path), "%s/plugin_tp.so", dir ? dir : ".");
	CHECK(ulsm_trace_attach("tp_d*", (void *)dprobe, NULL) == 1,
	      "attach tp_d*");
	ret = ulsm_trace_attach("tp_d*", (void *)dprobe, NULL);
	CHECK(ret == -EEXIST, "the same again: %d, want -EEXIST", ret);
	ret = ulsm_trace_detach("tp_d*", (void *)dprobe, NULL);
	CHECK(ret == 1, "detach: %d, want 1", ret);
	dcount = 0;
	hit_d1(1);
	CHECK(dcount == 0, "tp_d1 still runs the probe");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen: %s", h ? "" : dlerror());
	if (!h)
		return child_bad;
	hit = (int (*)(int))dlsym(h, "plugin_tp_hit_d");
	CHECK(hit != NULL, "plugin_tp_hit_d");
	if (hit)
		hit(100);
	CHECK(dcount == 0, "the probe came back on tp_d3 when its object "
	      "loaded");
	ret = ulsm_trace_detach("tp_d*", (void *)dprobe, NULL);
	CHECK(ret == -ENOENT, "a detach of it now: %d, want -ENOENT", ret);
	dlclose(h);
	return child_bad;
}

LOCAL_TRACEPOINT(tp_ov1, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tp_ov2, TP_PROTO(int x), TP_ARGS(x));
__attribute__((noinline)) static void hit_ov1(int x) { trace_tp_ov1(x); }
__attribute__((noinline)) static void hit_ov2(int x) { trace_tp_ov2(x); }

static int run_ov(void)
{
	dcount = 0;
	hit_ov1(1);
	hit_ov2(10);
	return dcount;
}

static void glob_errors(void)
{
	is_int(ulsm_trace_detach("tp_nope*", (void *)dprobe, NULL), -ENOENT,
	       "detach of a glob never attached: -ENOENT");
	is_int(ulsm_trace_disable("tp_nope"), -ENOENT,
	       "the recorder's too");
	is_int(ulsm_trace_attach("tp_ov*", (void *)dprobe, &d1), 2,
	       "attach tp_ov* with data d1");
	is_int(ulsm_trace_detach("tp_ov*", (void *)dprobe, &d2), -ENOENT,
	       "its detach with other data: -ENOENT");
	is_int(run_ov(), 11, "and both still run the probe");
	is_int(ulsm_trace_attach("tp_ov*", (void *)dprobe, &d1), -EEXIST,
	       "the same glob, probe and data again: -EEXIST");
	is_int(ulsm_trace_detach("tp_ov*", (void *)dprobe, &d1), 2,
	       "one detach: from both");
	is_int(run_ov(), 0, "neither runs it");
	is_int(ulsm_trace_detach("tp_ov*", (void *)dprobe, &d1), -ENOENT,
	       "a second detach: -ENOENT");

	is_int(ulsm_trace_attach("tp_ov*", (void *)dprobe, NULL), 2,
	       "attach tp_ov*");
	is_int(ulsm_trace_attach("tp_ov1", (void *)dprobe, NULL), 0,
	       "and tp_ov1, which has the probe already");
	is_int(ulsm_trace_detach("tp_ov*", (void *)dprobe, NULL), 1,
	       "detach tp_ov*: from tp_ov2 only, tp_ov1's glob keeps it");
	is_int(run_ov(), 1, "tp_ov1 still runs it");
	is_int(ulsm_trace_detach("tp_ov1", (void *)dprobe, NULL), 1,
	       "detach tp_ov1");
	is_int(run_ov(), 0, "neither runs it");
}

static void in_child_processes(void)
{
	in_tp_child(probe_changes_child, "a probe that attaches or detaches "
		    "while another thread detaches: -EDEADLK, no deadlock");
	in_tp_child(section_calls_child, "inside a read-side section while "
		    "another thread detaches: find, write, dlopen, dlclose, dump "
		    "return");
	in_tp_child(fork_while_held_child, "fork while another thread holds "
		    "the tracepoint lock: the child attaches, detaches, writes");
	in_tp_child(fork_while_changing_child, "fork while another thread "
		    "attaches and detaches: the same");
	in_tp_child(recorder_fork_child, "the recorder in a child of fork: its "
		    "events under its own thread id");
	in_tp_child(same_glob_child, "the same glob twice: -EEXIST, and one "
		    "detach leaves nothing, also for an object loaded later");
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 && !strcmp(argv[1], "--long") ? 20000 :
		     (int)arg_long(argc, argv, "--rounds", 400);

	diag("back end %s", ulsm_backend());
	in_child_processes();
	one_and_several();
	errors_inside_a_probe();
	glob_errors();
	by_glob();
	plt_sites();
	many_at_once();
	under_threads(rounds);
	sleeping_probe();
	recorder(getenv("ULSM_TEST_TRACE_FILE"));
	dump();
	return done_testing();
}
