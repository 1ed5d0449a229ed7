// SPDX-License-Identifier: MIT
/*
 * t_trace_rec - the recorder (TAP): what the file says, read back here
 * byte by byte (version 3, docs/tracepoints.md "The file"):
 *   - lost events, per thread (a small ring, threads of 10 to 1000
 *     events);
 *   - string arguments as text: NULL, empty, 256 bytes, longer (cut, and
 *     marked), cut before a UTF-8 sequence the limit would split;
 *   - ulsm_trace_clear(), also while 4 threads record;
 *   - the pid, and each thread's name: named before its first event,
 *     renamed after it and gone, renamed and still there;
 *   - a bad ULSM_TRACE_BUF and a glob that matches nothing, reported once;
 *   - the stream: a reader streams while 4 threads record into small
 *     rings; per thread, the events read plus those counted lost are the
 *     events recorded, none twice, none torn (each carries a checksum of
 *     its other words and a string made from them).
 * Each case runs in a child of fork() made before this process records
 * anything, so that it starts with no ring and reads ULSM_TRACE_BUF anew;
 * it sends its checks to the parent, which prints them.
 *
 *	t_trace_rec.t [--events N]	(the stream's events per thread)
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#include "child.h"
#include "local_tp.h"
#include "tap.h"
#include "trace/trace.h"

LOCAL_TRACEPOINT(tr_num, TP_PROTO(int k, long seq), TP_ARGS(k, seq));
LOCAL_TRACEPOINT(tr_str, TP_PROTO(int k, const char *s, char *m),
		 TP_ARGS(k, s, m));
LOCAL_TRACEPOINT(tr_race, TP_PROTO(int k, long seq, long sum,
				   const char *text),
		 TP_ARGS(k, seq, sum, text));

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
# define TR_SLOW	1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#  define TR_SLOW	1
# endif
#endif
#ifndef TR_SLOW
# define TR_SLOW	0
#endif

/* --- each case in a child (tests/lib/child.h) ------------------------- */

struct rec_case {
	void (*fn)(void);
	const char *env;	/* NAME=VALUE, or NULL */
};

static void rec_child(void *arg)
{
	const struct rec_case *c = arg;

	if (c->env)
		putenv((char *)(uintptr_t)c->env);
	c->fn();
}

/* Run @fn in a child, with @env set; its checks are this test's. */
static void in_rec_child(const char *what, void (*fn)(void), const char *env)
{
	struct rec_case c = { fn, env };

	in_child_tap(what, rec_child, &c);
}

/* --- reading a recording (version 3) ------------------------------------ */

#define MAXT	64

struct r_event {
	uint64_t ns;
	uint32_t id, n, strs;
	uint64_t w[6];
	char str[6][ULSM_TRACE_STR_MAX + 1];
	uint32_t len[6], flags[6];
};

struct r_thread {
	uint32_t tid, pid;
	char name[64];
	uint64_t lost;
	struct r_event *ev;
	size_t nev, cap;
};

struct rec_file {
	uint32_t pid;
	char cmd[256];
	char names[64][64];	/* by id */
	struct r_thread t[MAXT];
	int nt;
	bool ended;
	char why[200];		/* why it did not read */
};

static struct r_thread *r_thread_of(struct rec_file *f, uint32_t tid)
{
	for (int i = 0; i < f->nt; i++)
		if (f->t[i].tid == tid)
			return &f->t[i];
	return NULL;
}

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The events record @p, @len bytes: tid, count, events. */
static bool r_events(struct rec_file *f, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	struct r_thread *t;
	uint32_t count;

	if (len < 8 || !(t = r_thread_of(f, u32_at(p)))) {
		snprintf(f->why, sizeof(f->why), "events of no thread");
		return false;
	}
	count = u32_at(p + 4);
	p += 8;
	for (uint32_t i = 0; i < count; i++) {
		struct r_event *e;
		uint32_t info;

		if (end - p < 16)
			return false;
		if (t->nev == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 256;
			t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
			if (!t->ev)
				return false;
		}
		e = &t->ev[t->nev++];
		memset(e, 0, sizeof(*e));
		e->ns = u64_at(p);
		e->id = u32_at(p + 8);
		info = u32_at(p + 12);
		e->n = info & 0xff;
		e->strs = info >> 8;
		p += 16;
		if (e->n > 6 || end - p < 8 * (long)e->n)
			return false;
		for (uint32_t w = 0; w < e->n; w++, p += 8)
			e->w[w] = u64_at(p);
		for (uint32_t w = 0; w < e->n; w++) {
			if (!(e->strs >> w & 1))
				continue;
			e->len[w] = e->w[w] & ULSM_TRACE_STR_LEN;
			e->flags[w] = e->w[w] & ~ULSM_TRACE_STR_LEN;
			if (e->len[w] > ULSM_TRACE_STR_MAX ||
			    end - p < (long)e->len[w])
				return false;
			memcpy(e->str[w], p, e->len[w]);
			p += e->len[w];
		}
	}
	return p == end;
}

static bool r_parse(struct rec_file *f, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	uint32_t cl;

	memset(f, 0, sizeof(*f));
	if (len < 20 || memcmp(p, ULSM_TRACE_MAGIC, 8)) {
		snprintf(f->why, sizeof(f->why), "no magic");
		return false;
	}
	if (u32_at(p + 8) != ULSM_TRACE_VERSION) {
		snprintf(f->why, sizeof(f->why), "version %u", u32_at(p + 8));
		return false;
	}
	f->pid = u32_at(p + 12);
	cl = u32_at(p + 16);
	if (cl > 255 || len < 20 + cl)
		return false;
	memcpy(f->cmd, p + 20, cl);
	p += 20 + cl;
	while (p < end && !f->ended) {
		uint32_t type, rl;
		const unsigned char *b;

		if (end - p < 8)
			return false;
		type = u32_at(p);
		rl = u32_at(p + 4);
		b = p + 8;
		if ((size_t)(end - b) < rl || rl + 8 > ULSM_TRACE_RECORD_MAX) {
			snprintf(f->why, sizeof(f->why), "a record of %u bytes",
				 rl);
			return false;
		}
		p = b + rl;
		switch (type) {
		case ULSM_TREC_NAME: {
			uint32_t id = u32_at(b), nl = u32_at(b + 8);

			if (id < 64 && nl < 64)
				memcpy(f->names[id], b + 16, nl);
			break;
		}
		case ULSM_TREC_THREAD: {
			struct r_thread *t = r_thread_of(f, u32_at(b));
			uint32_t nl = u32_at(b + 8);

			if (!t) {
				if (f->nt == MAXT)
					return false;
				t = &f->t[f->nt++];
			}
			t->tid = u32_at(b);
			t->pid = u32_at(b + 4);
			memset(t->name, 0, sizeof(t->name));
			memcpy(t->name, b + 12, nl < 63 ? nl : 63);
			break;
		}
		case ULSM_TREC_EVENTS:
			if (!r_events(f, b, rl))
				return false;
			break;
		case ULSM_TREC_LOST: {
			struct r_thread *t = r_thread_of(f, u32_at(b));

			if (!t || rl != 16)
				return false;
			t->lost += u64_at(b + 8);
			break;
		}
		case ULSM_TREC_END:
			f->ended = true;
			break;
		default:
			snprintf(f->why, sizeof(f->why), "a record of type %u",
				 type);
			return false;
		}
	}
	if (!f->ended || p != end) {
		snprintf(f->why, sizeof(f->why), "no end, or bytes after it");
		return false;
	}
	return true;
}

static void r_free(struct rec_file *f)
{
	for (int i = 0; i < f->nt; i++)
		free(f->t[i].ev);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len + 65536 > cap) {
			cap = (*len + 65536) * 2;
			p = realloc(p, cap);
			if (!p)
				break;
		}
		size_t got = fread(p + *len, 1, 65536, f);

		*len += got;
		if (!got)
			break;
	}
	fclose(f);
	return p;
}

static char path[64];

/* The recorder's file, read back; false (and why) if it does not read. */
static bool write_and_read(struct rec_file *f)
{
	unsigned char *p;
	size_t len;
	long n = ulsm_trace_write(path);
	bool good;

	if (n < 0) {
		snprintf(f->why, sizeof(f->why), "ulsm_trace_write: %ld", n);
		return false;
	}
	p = slurp(path, &len);
	good = p && r_parse(f, p, len);
	free(p);
	unlink(path);
	return good;
}

/* --- the cases --------------------------------------------------------- */

struct job {
	int k;
	long events;
	const char *name_before, *name_after;
	pthread_barrier_t *hold;	/* wait here after recording */
	pthread_barrier_t *done;
};

static void *recorder_thread(void *arg)
{
	struct job *j = arg;

	if (j->name_before)
		pthread_setname_np(pthread_self(), j->name_before);
	for (long i = 0; i < j->events; i++)
		trace_tr_num(j->k, i);
	if (j->name_after)
		pthread_setname_np(pthread_self(), j->name_after);
	if (j->hold) {
		pthread_barrier_wait(j->hold);		/* recorded */
		pthread_barrier_wait(j->done);		/* written */
	}
	return NULL;
}

static void lost_per_thread(void)
{
	static const long counts[4] = { 10, 64, 65, 1000 };
	struct job jobs[4];
	pthread_t t[4];
	struct rec_file f;
	int matched = 0;

	child_ok(ulsm_trace_enable("tr_*") == 3, "the recorder on the 3 tracepoints");
	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct job){ .k = i, .events = counts[i] };
		pthread_create(&t[i], NULL, recorder_thread, &jobs[i]);
		pthread_join(t[i], NULL);	/* one at a time: tids differ */
	}
	if (!child_ok(write_and_read(&f), "the file reads (%s)", f.why))
		return;
	for (int i = 0; i < f.nt; i++) {
		struct r_thread *th = &f.t[i];
		long k = th->nev ? (long)th->ev[0].w[0] : -1;

		if (k < 0 || k > 3)
			continue;
		matched++;
		child_ok(th->nev == (size_t)(counts[k] < 64 ? counts[k] : 64) &&
			 th->lost == (uint64_t)(counts[k] > 64 ? counts[k] - 64 : 0),
			 "a thread of %ld events in a ring of 64: %zu in the file, "
			 "%" PRIu64 " counted lost", counts[k], th->nev, th->lost);
		child_ok(th->nev && (long)th->ev[th->nev - 1].w[1] == counts[k] - 1,
			 "  its newest events are kept (the last: %" PRIu64 ")",
			 th->nev ? th->ev[th->nev - 1].w[1] : 0);
	}
	child_ok(matched == 4, "the 4 threads are in the file (%d)", matched);
	r_free(&f);
}

static void strings(void)
{
	static char longer[300], exact[257], utf8[302], quote[] = "a \"q\" \\";
	struct rec_file f;
	struct r_thread *th;

	memset(longer, 'x', 299);
	memset(exact, 'e', 256);
	utf8[0] = 'a';
	for (int i = 0; i < 150; i++)
		memcpy(utf8 + 1 + 2 * i, "\xc3\xa9", 2);	/* e-acute */
	child_ok(ulsm_trace_enable("tr_*") == 3, "the recorder on");
	trace_tr_str(0, "hello", NULL);
	trace_tr_str(1, "", quote);
	trace_tr_str(2, exact, longer);
	trace_tr_str(3, utf8, (char *)"end");
	trace_tr_num(4, 77);
	if (!child_ok(write_and_read(&f), "the file reads (%s)", f.why))
		return;
	th = &f.t[0];
	if (!child_ok(f.nt == 1 && th->nev == 5, "one thread, 5 events (%d, %zu)",
		      f.nt, f.nt ? th->nev : 0))
		return;
	child_ok(th->ev[0].strs == 6 && th->ev[4].strs == 0,
		 "const char * and char * are strings, int and long are not");
	child_ok(!strcmp(th->ev[0].str[1], "hello") && !th->ev[0].flags[1],
		 "a string as its text: \"%s\"", th->ev[0].str[1]);
	child_ok(th->ev[0].flags[2] == ULSM_TRACE_STR_NULL && !th->ev[0].len[2],
		 "NULL as NULL");
	child_ok(!th->ev[1].len[1] && !th->ev[1].flags[1], "an empty string");
	child_ok(!strcmp(th->ev[1].str[2], quote), "quotes and backslashes as they are");
	child_ok(th->ev[2].len[1] == 256 && !th->ev[2].flags[1] &&
		 !memcmp(th->ev[2].str[1], exact, 256),
		 "256 bytes kept whole, not marked");
	child_ok(th->ev[2].len[2] == 256 && th->ev[2].flags[2] == ULSM_TRACE_STR_CUT &&
		 !memcmp(th->ev[2].str[2], longer, 256),
		 "299 bytes: the first 256, marked as cut");
	child_ok(th->ev[3].len[1] == 255 && th->ev[3].flags[1] == ULSM_TRACE_STR_CUT &&
		 !memcmp(th->ev[3].str[1], utf8, 255),
		 "cut before the UTF-8 sequence byte 256 would split (%u bytes)",
		 th->ev[3].len[1]);
	child_ok(th->ev[4].n == 2 && th->ev[4].w[1] == 77, "numbers as before");
	r_free(&f);
}

static void *spin_thread(void *arg)
{
	int *stop = arg;
	long i = 0;

	while (!__atomic_load_n(stop, __ATOMIC_RELAXED))
		trace_tr_num(9, i++);
	return NULL;
}

static void clearing(void)
{
	struct rec_file f;
	pthread_t t[4];
	int stop = 0, bad = 0;

	child_ok(ulsm_trace_enable("tr_*") == 3, "the recorder on");
	for (int i = 0; i < 100; i++)
		trace_tr_num(0, i);
	child_ok(ulsm_trace_clear() == 0, "ulsm_trace_clear: 0");
	for (int i = 0; i < 10; i++)
		trace_tr_num(0, 1000 + i);
	if (child_ok(write_and_read(&f), "the file reads (%s)", f.why))
		child_ok(f.nt == 1 && f.t[0].nev == 10 && !f.t[0].lost &&
			 f.t[0].ev[0].w[1] == 1000,
			 "after a clear: the 10 events since, none lost "
			 "(%zu, %" PRIu64 ")", f.nt ? f.t[0].nev : 0,
			 f.nt ? f.t[0].lost : 0);
	r_free(&f);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spin_thread, &stop);
	for (int i = 0; i < 2000; i++)
		bad += ulsm_trace_clear() != 0;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	child_ok(!bad, "2000 clears while 4 threads record");
	ulsm_trace_clear();
	if (child_ok(write_and_read(&f), "the file reads (%s)", f.why))
		child_ok(f.nt == 0, "after the last clear, no event and no thread "
			 "in the file (%d threads)", f.nt);
	r_free(&f);
}

static void names(void)
{
	pthread_barrier_t hold, done;
	struct job jobs[3] = {
		{ .k = 0, .events = 3, .name_before = "early" },
		{ .k = 1, .events = 3, .name_after = "gone-renamed" },
		{ .k = 2, .events = 3, .name_after = "live-renamed",
		  .hold = &hold, .done = &done },
	};
	const char *want[3] = { "early", "gone-renamed", "live-renamed" };
	pthread_t t[3];
	struct rec_file f;
	char me[16] = "";

	pthread_barrier_init(&hold, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	child_ok(ulsm_trace_enable("tr_*") == 3, "the recorder on");
	trace_tr_num(9, 0);
	for (int i = 0; i < 2; i++) {
		pthread_create(&t[i], NULL, recorder_thread, &jobs[i]);
		pthread_join(t[i], NULL);
	}
	pthread_create(&t[2], NULL, recorder_thread, &jobs[2]);
	pthread_barrier_wait(&hold);
	if (child_ok(write_and_read(&f), "the file reads (%s)", f.why)) {
		child_ok(f.pid == (uint32_t)getpid(), "the file's pid is the "
			 "process's (%u, %d)", f.pid, (int)getpid());
		child_ok(!strcmp(f.cmd, program_invocation_short_name),
			 "and its command (\"%s\")", f.cmd);
		pthread_getname_np(pthread_self(), me, sizeof(me));
		for (int i = 0; i < f.nt; i++) {
			struct r_thread *th = &f.t[i];
			long k = th->nev ? (long)th->ev[0].w[0] : -1;

			if (k == 9)
				child_ok(!strcmp(th->name, me), "the main thread "
					 "by its name (\"%s\")", th->name);
			else if (k >= 0 && k < 3)
				child_ok(!strcmp(th->name, want[k]) &&
					 th->pid == (uint32_t)getpid(),
					 "thread %ld by its name now: \"%s\"", k,
					 th->name);
		}
		child_ok(f.nt == 4, "4 threads (%d)", f.nt);
	}
	r_free(&f);
	pthread_barrier_wait(&done);
	pthread_join(t[2], NULL);
}

static char logged[8][256];
static int nlogged;

static void keep_log(const char *msg, void *arg)
{
	(void)arg;
	if (nlogged < 8)
		snprintf(logged[nlogged], sizeof(logged[0]), "%s", msg);
	nlogged++;
}

static int logged_with(const char *what)
{
	int n = 0;

	for (int i = 0; i < nlogged && i < 8; i++)
		n += !!strstr(logged[i], what);
	return n;
}

static void *three_events(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		trace_tr_num(1, i);
	return NULL;
}

/* ULSM_TRACE_BUF=5 (the child's environment) */
static void reports(void)
{
	struct rec_file f;
	pthread_t t[3];

	ulsm_set_log(keep_log, NULL);
	child_ok(ulsm_trace_enable("tr_*") == 3, "the recorder on");
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, three_events, NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	child_ok(logged_with("ULSM_TRACE_BUF=\"5\"") == 1,
		 "ULSM_TRACE_BUF=5 is reported once, for 3 threads (%d: %s)",
		 logged_with("ULSM_TRACE_BUF"), nlogged ? logged[0] : "nothing");
	for (int i = 0; i < 20000; i++)
		trace_tr_num(2, i);
	if (child_ok(write_and_read(&f), "the file reads (%s)", f.why)) {
		size_t most = 0;

		for (int i = 0; i < f.nt; i++)
			most = f.t[i].nev > most ? f.t[i].nev : most;
		child_ok(most == 16384, "the default ring is used (%zu events)",
			 most);
	}
	r_free(&f);
	nlogged = 0;
	child_ok(ulsm_trace_enable("no_such_*") == 0, "a glob that matches "
		 "nothing: 0");
	child_ok(logged_with("\"no_such_*\" matches no tracepoint") == 1,
		 "and it is reported (%s)", nlogged ? logged[0] : "nothing");
	nlogged = 0;
	child_ok(ulsm_trace_enable("tr_num") == 0, "a glob whose tracepoints all "
		 "record already: 0");
	child_ok(!logged_with("matches no tracepoint"), "and it is not reported "
		 "as matching none (%s)", nlogged ? logged[0] : "nothing");
	ulsm_set_log(NULL, NULL);
}

/* --- the clock ---------------------------------------------------------- */

#define CLOCK_EVENTS	300
#define CLOCK_SLACK_NS	20000	/* a wrong rate or origin is off by far more */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * ulsm_trace_clock_name(): "monotonic" when asked for; otherwise the
 * counter where the library finds it usable, which this test cannot
 * judge, so either name, the same on every call.
 */
static void clock_name_check(void)
{
	const char *want = getenv("ULSM_TRACE_CLOCK"), *got;

	got = ulsm_trace_clock_name();
	if (want && !strcmp(want, "monotonic"))
		child_ok(got && !strcmp(got, "monotonic"),
			 "ULSM_TRACE_CLOCK=monotonic: the clock is \"monotonic\" "
			 "(%s)", got ? got : "NULL");
	else
		child_ok(got && (!strcmp(got, "counter") ||
			      !strcmp(got, "monotonic")),
			 "the clock is \"counter\" or \"monotonic\" (%s)",
			 got ? got : "NULL");
	child_ok(got && ulsm_trace_clock_name() == got,
		 "and stays the same (%s)", got ? got : "NULL");
	child_note("the recorder's clock here: %s", got ? got : "NULL");
}

/*
 * Every event's time in the file is CLOCK_MONOTONIC's between the reads
 * around it (within the anchors' error), and a thread's are in order:
 * with the counter (the default where it is usable) and without
 * (ULSM_TRACE_CLOCK=monotonic, the child's environment in one run).
 */
static void clock_check(void)
{
	static uint64_t before[CLOCK_EVENTS], after[CLOCK_EVENTS];
	struct r_thread *th = NULL;
	uint64_t worst = 0;
	int outside = 0, backwards = 0;
	struct rec_file f;

	ulsm_set_log(keep_log, NULL);
	child_ok(ulsm_trace_enable("tr_num") == 1, "the recorder on tr_num");
	for (int i = 0; i < CLOCK_EVENTS; i++) {
		before[i] = mono_ns();
		trace_tr_num(7, i);
		after[i] = mono_ns();
		if (i % 30 == 29)
			usleep(3000);	/* 30 ms in all: a rate 0.1% off shows */
	}
	if (!child_ok(write_and_read(&f), "the file reads (%s)", f.why))
		return;
	for (int i = 0; i < f.nt; i++)
		if (f.t[i].nev && f.t[i].ev[0].w[0] == 7)
			th = &f.t[i];
	if (child_ok(th && th->nev == CLOCK_EVENTS, "the %d events are in the "
		     "file (%zu)", CLOCK_EVENTS, th ? th->nev : 0)) {
		for (size_t i = 0; i < th->nev; i++) {
			uint64_t ns = th->ev[i].ns, k = th->ev[i].w[1];
			uint64_t off = 0;

			if (k >= CLOCK_EVENTS)
				continue;
			if (ns < before[k])
				off = before[k] - ns;
			else if (ns > after[k])
				off = ns - after[k];
			worst = off > worst ? off : worst;
			outside += off > CLOCK_SLACK_NS;
			backwards += i && ns < th->ev[i - 1].ns;
		}
		child_ok(!outside, "every event's time is CLOCK_MONOTONIC's around "
			 "it, within %d us (%d outside; the worst %" PRIu64
			 " ns off)", CLOCK_SLACK_NS / 1000, outside, worst);
		child_note("events' times at most %" PRIu64 " ns outside the "
			   "clock_gettime() reads around them", worst);
		child_ok(!backwards, "and in order (%d back)", backwards);
	}
	r_free(&f);
	child_ok(!logged_with("ULSM_TRACE_CLOCK"), "nothing reported (%s)",
		 nlogged ? logged[0] : "nothing");
	ulsm_set_log(NULL, NULL);
	clock_name_check();
}

/* ULSM_TRACE_CLOCK=sundial: reported once, at the first event. */
static void clock_bad_value(void)
{
	ulsm_set_log(keep_log, NULL);
	child_ok(ulsm_trace_enable("tr_num") == 1, "the recorder on tr_num");
	trace_tr_num(1, 1);
	trace_tr_num(1, 2);
	child_ok(logged_with("ULSM_TRACE_CLOCK=\"sundial\"") == 1,
		 "a bad ULSM_TRACE_CLOCK is reported, once (%s)",
		 nlogged ? logged[0] : "nothing");
	ulsm_set_log(NULL, NULL);
}

/* --- the stream -------------------------------------------------------- */

static long stream_events = 20000;

struct buf {
	unsigned char *p;
	size_t len, cap;
	size_t pieces, bad_pieces;
};

/* Each piece the stream gives must be whole records. */
static void sink(void *arg, const void *bytes, size_t n)
{
	struct buf *b = arg;
	const unsigned char *p = bytes, *end = p + n;

	b->pieces++;
	if (!b->len) {
		uint32_t cl;

		memcpy(&cl, p + 16, 4);
		p += 20 + cl;
	}
	while (p + 8 <= end) {
		uint32_t rl;

		memcpy(&rl, p + 4, 4);
		p += 8 + rl;
	}
	b->bad_pieces += p != end;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, bytes, n);
	b->len += n;
}

static long checksum(int k, long seq)
{
	return (long)((uint64_t)seq * 2654435761u ^ (uint64_t)k << 40);
}

static int racers_done;

static void *race_thread(void *arg)
{
	struct job *j = arg;
	char text[64];

	pthread_barrier_wait(j->hold);
	for (long i = 0; i < j->events; i++) {
		snprintf(text, sizeof(text), "%d:%ld:%lx", j->k, i,
			 checksum(j->k, i));
		trace_tr_race(j->k, i, checksum(j->k, i), text);
	}
	__atomic_add_fetch(&racers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ULSM_TRACE_BUF=64 (the child's environment): many losses. */
static void streaming(void)
{
	struct ulsm_trace_stream *s = NULL, *s2 = NULL;
	struct buf b = { 0 };
	pthread_barrier_t go;
	struct job jobs[4];
	pthread_t t[4];
	struct rec_file *f = calloc(1, sizeof(*f));
	long n, reads = 0, total_lost = 0;
	bool running = true;

	child_ok(ulsm_trace_enable("tr_*") == 3, "the recorder on");
	for (int i = 0; i < 50; i++)
		trace_tr_num(7, i);	/* before the stream: not sent */
	child_ok(ulsm_trace_stream_open(&s) == 0, "a stream opens");
	child_ok(ulsm_trace_stream_open(&s2) == -EBUSY && !s2,
		 "a second one: -EBUSY");
	child_ok(ulsm_trace_stream_read(s, sink, &b, ULSM_TRACE_STREAM_MIN - 1,
				     false) == -EINVAL,
		 "a read of fewer than %d bytes: -EINVAL", ULSM_TRACE_STREAM_MIN);
	pthread_barrier_init(&go, NULL, 5);
	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct job){ .k = i, .events = stream_events,
					.hold = &go };
		pthread_create(&t[i], NULL, race_thread, &jobs[i]);
	}
	pthread_barrier_wait(&go);
	while (running) {
		/* The pieces' size varies: 16 KiB to 80 KiB. */
		size_t max = ULSM_TRACE_STREAM_MIN + (size_t)(reads % 5) * 16384;

		running = __atomic_load_n(&racers_done, __ATOMIC_ACQUIRE) < 4;
		n = ulsm_trace_stream_read(s, sink, &b, max, false);
		if (n < 0 || (size_t)n > max) {
			child_ok(0, "a read returned %ld (at most %zu)", n, max);
			break;
		}
		reads++;
		if (reads % 3 == 0)
			usleep(100);	/* a slow reader: the rings overwrite */
		if (!running)
			break;
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	while ((n = ulsm_trace_stream_read(s, sink, &b, ULSM_TRACE_STREAM_MIN,
					   true)) > 0)
		reads++;
	child_ok(n == 0, "the final reads end (%ld)", n);
	child_ok(ulsm_trace_stream_read(s, sink, &b, 65536, true) == 0,
		 "and a read after them gives nothing");
	{
		pid_t pid;
		int status = -1;

		/* A child of fork() has no stream open: it may open one. */
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			struct ulsm_trace_stream *c = NULL;

			_exit(ulsm_trace_stream_open(&c) ? 1 : 0);
		}
		waitpid(pid, &status, 0);
		child_ok(WIFEXITED(status) && !WEXITSTATUS(status),
			 "a child of fork() opens a stream while its parent "
			 "has one open");
	}
	ulsm_trace_stream_close(s);
	child_ok(ulsm_trace_stream_open(&s2) == 0, "once closed, a stream opens "
		 "again");
	ulsm_trace_stream_close(s2);
	child_note("%ld reads, %zu pieces, %zu bytes", reads, b.pieces, b.len);
	child_ok(!b.bad_pieces, "every piece is whole records (%zu of %zu not)",
		 b.bad_pieces, b.pieces);
	if (!child_ok(r_parse(f, b.p, b.len), "the stream reads as a recording "
		      "(%s)", f->why))
		goto out;
	for (int k = 0; k < 4; k++) {
		struct r_thread *th = NULL;
		long dup = 0, torn = 0, prev = -1;
		uint64_t seen = 0;

		for (int i = 0; i < f->nt; i++)
			if (f->t[i].nev && f->t[i].ev[0].w[0] == (uint64_t)k)
				th = &f->t[i];
		if (!child_ok(th, "thread %d is in the stream", k))
			continue;
		for (size_t i = 0; i < th->nev; i++) {
			struct r_event *e = &th->ev[i];
			char text[64];
			long seq = (long)e->w[1];

			snprintf(text, sizeof(text), "%d:%ld:%lx", k, seq,
				 checksum(k, seq));
			if (e->id != th->ev[0].id || e->n != 4 || e->strs != 8 ||
			    e->w[0] != (uint64_t)k ||
			    (long)e->w[2] != checksum(k, seq) ||
			    (!(e->flags[3] & ULSM_TRACE_STR_LOST) &&
			     strcmp(e->str[3], text)))
				torn++;
			if (seq <= prev)
				dup++;
			prev = seq;
			seen++;
		}
		total_lost += (long)th->lost;
		child_ok(seen + th->lost == (uint64_t)stream_events && !dup && !torn,
			 "thread %d: %" PRIu64 " read + %" PRIu64 " lost = %ld "
			 "recorded; %ld twice or out of order, %ld torn", k, seen,
			 th->lost, stream_events, dup, torn);
	}
	child_ok(f->nt == 4, "only the 4 threads (the 50 events before the "
		 "stream opened are not in it: %d threads)", f->nt);
	child_note("%ld events lost in all", total_lost);
	r_free(f);
out:
	free(f);
	free(b.p);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--events") && i + 1 < argc)
			stream_events = strtol(argv[++i], NULL, 0);
		else {
			fprintf(stderr, "usage: t_trace_rec.t [--events N]\n");
			return 2;
		}
	}
	if (getenv("ULSM_EMU") && *getenv("ULSM_EMU"))
		stream_events /= 10;
	else if (TR_SLOW)
		stream_events /= 4;
	snprintf(path, sizeof(path), "/tmp/t_trace_rec.%d.bin", (int)getpid());
	in_rec_child("lost per thread", lost_per_thread, "ULSM_TRACE_BUF=64");
	in_rec_child("strings", strings, NULL);
	in_rec_child("clear", clearing, "ULSM_TRACE_BUF=64");
	in_rec_child("pid and names", names, NULL);
	in_rec_child("reports", reports, "ULSM_TRACE_BUF=5");
	in_rec_child("clock", clock_check, NULL);
	in_rec_child("clock, CLOCK_MONOTONIC", clock_check,
		 "ULSM_TRACE_CLOCK=monotonic");
	in_rec_child("clock, a bad value", clock_bad_value,
		 "ULSM_TRACE_CLOCK=sundial");
	in_rec_child("stream, rings of 64", streaming, "ULSM_TRACE_BUF=64");
	in_rec_child("stream, rings of 16384", streaming, NULL);
	return done_testing();
}
