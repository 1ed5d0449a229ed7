// SPDX-License-Identifier: MIT
/*
 * src/trace/recorder.c - the built-in recorder: a probe for every
 * prototype (DEFINE_TRACEPOINT's __tracerec_NAME) that writes each hit
 * into its thread's ring buffer, and the file ulsm-trace reads.
 *
 * Per thread: a ring of ULSM_TRACE_BUF events (default 16384, 64 bytes
 * each), made at the thread's first event and kept for the file after the
 * thread exits (the list of rings only grows). Recording is a clock read
 * (the vDSO: no system call), five stores and a head increment, with no
 * lock: only the owner writes its ring. The oldest events are overwritten
 * when it is full.
 *
 * The file (native byte order):
 *   "ULSMTRC1", u32 version (1), u32 number of names,
 *   per name: u32 id, u32 nargs, u32 name length, u32 args length, the
 *             name, the args ("fd, len");
 *   u32 number of rings, per ring: u32 tid, u32 0, u64 events, then the
 *             events (struct ulsm_trace_event), oldest first.
 * An event being written while the file is written may be torn; write the
 * file when the threads of interest are quiet (at exit, it is).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "base/sys.h"
#include "trace/trace.h"

struct ring {
	uint64_t head;			/* events written, ever */
	uint32_t cap;			/* a power of two */
	uint32_t tid;
	struct ring *next;
	struct ulsm_trace_event ev[];
};

static struct ring *rings;		/* pushed with a CAS, never removed */
static __thread struct ring *mine __attribute__((tls_model("initial-exec")));
static __thread int no_ring __attribute__((tls_model("initial-exec")));

static uint32_t ring_cap(void)
{
	const char *s = getenv("ULSM_TRACE_BUF");
	unsigned long n = s ? strtoul(s, NULL, 0) : 0;
	uint32_t cap = 1;

	if (n < 64 || n > (1ul << 24))
		n = 16384;
	while (cap < n)
		cap <<= 1;
	return cap;
}

__attribute__((noinline, cold)) static struct ring *ring_new(void)
{
	uint32_t cap = ring_cap();
	struct ring *r = ulsm_calloc(1, sizeof(*r) + cap * sizeof(r->ev[0]));

	if (!r) {
		no_ring = 1;	/* this thread's events are lost */
		return NULL;
	}
	r->cap = cap;
	r->tid = (uint32_t)ulsm_sys_gettid();
	r->next = __atomic_load_n(&rings, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&rings, &r->next, r, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	mine = r;
	return r;
}

ULSM_API void ulsm__trace_record(const struct ulsm_tracepoint *tp, int n,
				 const uint64_t *words)
{
	struct ring *r = mine;
	struct ulsm_trace_event *e;
	struct timespec ts;
	uint64_t h;

	if (__builtin_expect(!r, 0)) {
		if (no_ring || !(r = ring_new()))
			return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h = r->head;
	e = &r->ev[h & (r->cap - 1)];
	e->ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	e->id = tp->id;
	e->n = (uint32_t)(n < 6 ? n : 6);
	memcpy(e->w, words, e->n * sizeof(words[0]));
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
}

static void put_u32(FILE *f, uint32_t v)
{
	fwrite(&v, sizeof(v), 1, f);
}

static void emit_name(void *arg, uint32_t id, const char *name,
		      const char *args, int nargs)
{
	FILE *f = arg;

	put_u32(f, id);
	put_u32(f, (uint32_t)nargs);
	put_u32(f, (uint32_t)strlen(name));
	put_u32(f, (uint32_t)strlen(args));
	fwrite(name, 1, strlen(name), f);
	fwrite(args, 1, strlen(args), f);
}

static void count_name(void *arg, uint32_t id, const char *name,
		       const char *args, int nargs)
{
	(void)id;
	(void)name;
	(void)args;
	(void)nargs;
	++*(uint32_t *)arg;
}

ULSM_API long ulsm_trace_write(const char *path)
{
	struct ring *head = __atomic_load_n(&rings, __ATOMIC_ACQUIRE);
	uint32_t nnames = 0, nrings = 0;
	long total = 0;
	FILE *f;

	if (!path)
		return ulsm_error(-EINVAL, "ulsm_trace_write: NULL path");
	f = fopen(path, "wb");
	if (!f)
		return ulsm_error(-errno, "ulsm_trace_write: %s: %s", path,
				  strerror(errno));
	ulsm_trace_names(count_name, &nnames);
	fwrite(ULSM_TRACE_MAGIC, 1, 8, f);
	put_u32(f, 1);
	put_u32(f, nnames);
	ulsm_trace_names(emit_name, f);
	for (struct ring *r = head; r; r = r->next)
		nrings++;
	put_u32(f, nrings);
	for (struct ring *r = head; r; r = r->next) {
		uint64_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		uint64_t from = h > r->cap ? h - r->cap : 0;

		put_u32(f, r->tid);
		put_u32(f, 0);
		fwrite(&(uint64_t){ h - from }, sizeof(uint64_t), 1, f);
		for (uint64_t i = from; i < h; i++)
			fwrite(&r->ev[i & (r->cap - 1)], sizeof(r->ev[0]), 1, f);
		total += (long)(h - from);
	}
	if (fclose(f))
		return ulsm_error(-EIO, "ulsm_trace_write: %s: write failed",
				  path);
	return total;
}

/* ULSM_TRACE set: at exit, write ULSM_TRACE_FILE or ulsm-trace.<pid>.bin. */
__attribute__((destructor)) static void write_at_exit(void)
{
	const char *on = getenv("ULSM_TRACE"), *path = getenv("ULSM_TRACE_FILE");
	char def[64];
	long n;

	if (!on || !*on)
		return;
	if (!path || !*path) {
		snprintf(def, sizeof(def), "ulsm-trace.%d.bin", (int)getpid());
		path = def;
	}
	n = ulsm_trace_write(path);
	if (n < 0)
		ulsm_report("ULSM_TRACE: %s", ulsm_last_error());
}
