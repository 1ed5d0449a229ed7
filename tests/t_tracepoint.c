// SPDX-License-Identifier: MIT
/*
 * Tracepoints (<ulsm/tracepoint.h>): off, one probe (a direct call, its
 * data), several in attach order, detach from the middle and back to one,
 * errors; probes by glob, also on a tracepoint of an object loaded later;
 * attach and detach while 4 threads hit the tracepoint (every probe gets
 * its own data: 0 wrong); a probe that sleeps is over when detach returns;
 * the recorder's file; the dump.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/ulsm.h>

#include "tap.h"
#include "trace/tp_defs.h"

DEFINE_TRACEPOINT(tp_a, TP_PROTO(int x, long y), TP_ARGS(x, y));
DEFINE_TRACEPOINT(tp_g1, TP_PROTO(int x), TP_ARGS(x));
DEFINE_TRACEPOINT(tp_g2, TP_PROTO(int x), TP_ARGS(x));
DEFINE_TRACEPOINT(tp_sleep, TP_PROTO(int x), TP_ARGS(x));
DEFINE_TRACEPOINT(tp_rec, TP_PROTO(int x, const char *s, double d),
		  TP_ARGS(x, s, d));

__attribute__((noinline)) static void hit_a(int x, long y) { trace_tp_a(x, y); }

/* 100 tracepoints many_00 .. many_99, each with a site of its own. */
#define MANY(i)								\
	DECLARE_TRACEPOINT(many_##i, TP_PROTO(int x), TP_ARGS(x));	\
	DEFINE_TRACEPOINT(many_##i, TP_PROTO(int x), TP_ARGS(x));	\
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

static void logc(char c)
{
	size_t n = strlen(log_buf);

	if (n + 1 < sizeof(log_buf)) {
		log_buf[n] = c;
		log_buf[n + 1] = 0;
	}
}

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
			logc(c);					\
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
	is_int(register_trace_tp_a(p3, &d3), 0, "attach p3");
	is_string(run_a(), "123", "three probes in attach order");
	is_int(register_trace_tp_a(p2, &d2), -EEXIST, "p2 again: -EEXIST");
	is_int(register_trace_tp_a(p2, &d1), 0, "p2 with other data is another probe");
	is_string(run_a(), "1232", "four");
	is_int(unregister_trace_tp_a(p2, &d1), 0, "detach it");
	is_int(unregister_trace_tp_a(p2, &d2), 0, "detach p2 (the middle)");
	is_string(run_a(), "13", "p1 p3 left, in order");
	is_int(unregister_trace_tp_a(p1, &d1), 0, "detach p1");
	is_string(run_a(), "3", "p3 alone");
	ok(static_call_query(__tracepoint_call_tp_a) == p3,
	   "back to a direct call of p3");
	is_int(unregister_trace_tp_a(p3, &d3), 0, "detach p3");
	is_string(run_a(), "", "off again");
	is_int(static_key_enabled(&__tracepoint_key_tp_a), 0, "key off");
	is_int(unregister_trace_tp_a(p3, &d3), -ENOENT, "detach again: -ENOENT");
	is_int(tracepoint_probe_register(NULL, (void *)p1, NULL), -EINVAL,
	       "NULL tracepoint");
	is_int(wrong, 0, "every probe got its own data");
}

static int gcount;
static void gprobe(void *data, int x)
{
	(void)data;
	__atomic_add_fetch(&gcount, x, __ATOMIC_RELAXED);
}

static void by_glob(void)
{
	char path[PATH_MAX];
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	int (*plugin_hit)(int);
	void *h;

	is_int(ulsm_trace_attach("tp_g*", (void *)gprobe, NULL), 2,
	       "a glob attaches to the two tracepoints that match");
	gcount = 0;
	hit_g1(1);
	hit_g2(10);
	is_int(gcount, 11, "both run the probe");
	ok(ulsm_tracepoint_find("tp_g3") == NULL, "tp_g3 is not loaded yet");
	snprintf(path, sizeof(path), "%s/plugin_tp.so", dir ? dir : ".");
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ok(h != NULL, "dlopen plugin_tp.so%s%s", h ? "" : ": ", h ? "" : dlerror());
	if (!h)
		return;
	ok(ulsm_tracepoint_find("tp_g3") != NULL, "its tracepoint is known");
	plugin_hit = (int (*)(int))dlsym(h, "plugin_tp_hit");
	gcount = 0;
	plugin_hit(100);
	is_int(gcount, 100, "the glob's probe was attached to it on load");
	is_int(ulsm_trace_detach("tp_g*", (void *)gprobe, NULL), 3,
	       "detach by glob: three");
	gcount = 0;
	plugin_hit(100);
	hit_g1(1);
	is_int(gcount, 0, "no probe runs");
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

/* A glob over 100 tracepoints without a probe: one update. */
static int many_count;
static void many_probe(void *data, int x)
{
	(void)data;
	many_count += x;
}

static void many_at_once(void)
{
	struct ulsm_stats st0, st1;
	bool patching = strcmp(ulsm_backend(), "generic") != 0;

	ulsm_get_stats(&st0);
	is_int(ulsm_trace_attach("many_*", (void *)many_probe, NULL), 100,
	       "a glob attaches one probe to 100 tracepoints");
	ulsm_get_stats(&st1);
	if (patching)
		is_int((int)(st1.batches - st0.batches), 1,
		       "in one update (one batch, %lu core syncs)",
		       st1.core_syncs - st0.core_syncs);
	many_count = 0;
	for (int i = 0; i < 100; i++)
		many_hits[i](1);
	is_int(many_count, 100, "each of the 100 calls it");
	ulsm_get_stats(&st0);
	is_int(ulsm_trace_detach("many_*", (void *)many_probe, NULL), 100,
	       "and detaches from all");
	ulsm_get_stats(&st1);
	if (patching)
		is_int((int)(st1.batches - st0.batches), 1,
		       "in one update too");
	is_int((int)(st1.grace_periods - st0.grace_periods), 1,
	       "and one grace period");
	many_count = 0;
	for (int i = 0; i < 100; i++)
		many_hits[i](1);
	is_int(many_count, 0, "none calls it any more");
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

int main(int argc, char **argv)
{
	int rounds = argc > 1 && !strcmp(argv[1], "--long") ? 20000 : 400;

	diag("back end %s", ulsm_backend());
	one_and_several();
	by_glob();
	many_at_once();
	under_threads(rounds);
	sleeping_probe();
	recorder(getenv("ULSM_TEST_TRACE_FILE"));
	dump();
	return done_testing();
}
