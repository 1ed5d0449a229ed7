// SPDX-License-Identifier: MIT
/*
 * src/trace/recorder.c - the built-in recorder's rings: a probe for every
 * prototype (DEFINE_TRACEPOINT's __tracerec_NAME) that writes each hit
 * into its thread's ring buffer. The streams and the file that read the
 * rings while threads write them are recording.c's; what both files
 * know of a ring is in ring.h.
 *
 * Per thread: a ring of ULSM_TRACE_BUF events (default 16384, 64 bytes
 * each), made at the thread's first event and kept after the thread
 * exits (the list of rings only grows), with the thread's id, process and
 * name; and, from its first string argument, a ring of text (32 bytes per
 * event) for the strings' bytes. Recording is a clock read (the vDSO: no
 * system call), the stores of one slot and a release store of the head,
 * with no lock: only the owner writes its rings. The oldest events are
 * overwritten when the ring is full; a reader counts them as lost.
 *
 * Reading while threads write (a stream, or the file): the reader copies
 * a slot, then checks that its owner had not begun to overwrite it. So
 * the owner claims each event before it writes the slot: a store of the
 * claim, a release fence (nothing on x86-64, a dmb on aarch64), the
 * slot's stores, a release store of the head. The reader copies with
 * relaxed loads, then an acquire fence, then reads the claim: if the
 * owner had begun event i + cap, the reader sees a claim past it, and
 * event i is dropped and counted as lost (C11 7.17.4: fence to fence
 * synchronisation). A full ring that nobody writes is read whole. A
 * string is announced in the text ring's head before its bytes are
 * written, under the same fence, so a string whose bytes were overwritten
 * while they were copied is seen as such too.
 * Every access to a slot or a text word is atomic (relaxed): a torn copy
 * is found and dropped, never a data race.
 *
 * No lock of its own for the names: they are the tracepoint lock's
 * (tracepoint.c); a child of fork() records into a ring of its own
 * (fork_child).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/base.h"
#include "base/sys.h"
#include "trace/clock.h"
#include "trace/ring.h"
#include "trace/trace.h"

#define TEXT_PER_EVENT	4	/* words of text per event (32 bytes) */
#define TEXT_MIN	256	/* words: six strings of the longest fit */
#define BUF_DEFAULT	16384
#define BUF_MIN		64
#define BUF_MAX		(1ul << 24)

struct ring *ulsm_trace_rings;	/* pushed with a CAS, never removed */
static __thread struct ring *mine __attribute__((tls_model("initial-exec")));
static __thread int no_ring __attribute__((tls_model("initial-exec")));
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static bool exit_key_made;

/* --- one-time reports -------------------------------------------------- */

/* True the first time for @flag: a problem is reported once. */
static bool first_time(int *flag)
{
	return !__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED);
}

uint32_t ulsm_trace_buf_parse(const char *s, bool *bad)
{
	unsigned long n = BUF_DEFAULT;
	uint32_t c;

	*bad = false;
	if (s && *s) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(s, &end, 0);
		if (*s < '0' || *s > '9' || *end || errno || v < BUF_MIN ||
		    v > BUF_MAX)
			*bad = true;
		else
			n = v;
	}
	for (c = 1; c < n; c <<= 1)
		;
	return c;
}

/* ULSM_TRACE_BUF, read once; a bad value reported once. */
static uint32_t ring_cap(void)
{
	static uint32_t cap;
	static int reported;
	uint32_t c = __atomic_load_n(&cap, __ATOMIC_RELAXED);
	const char *s;
	bool bad;

	if (c)
		return c;
	s = getenv("ULSM_TRACE_BUF");
	c = ulsm_trace_buf_parse(s, &bad);
	if (bad && first_time(&reported))
		ulsm_report("ULSM_TRACE_BUF=\"%s\" is not a number of events "
			    "from %d to %lu: %d used", s, BUF_MIN, BUF_MAX,
			    BUF_DEFAULT);
	__atomic_store_n(&cap, c, __ATOMIC_RELAXED);
	return c;
}

/* --- the thread's name ------------------------------------------------- */

/* The calling thread's name (PR_GET_NAME: no file, no allocation). */
static void own_name(char out[NAME_LEN])
{
	memset(out, 0, NAME_LEN);
	if (prctl(PR_GET_NAME, out, 0, 0, 0))
		out[0] = 0;
	out[NAME_LEN - 1] = 0;
}

/* The owner only: a reader sees the old name or the new, not a mix. */
static void set_name(struct ring *r, const char *name)
{
	uint64_t w[2] = { 0, 0 };
	uint32_t seq = __atomic_load_n(&r->name_seq, __ATOMIC_RELAXED);

	memcpy(w, name, strnlen(name, NAME_LEN - 1));
	__atomic_store_n(&r->name_seq, seq + 1, __ATOMIC_RELAXED);
	/*
	 * Pairs with the acquire fence in get_name() (this file): a reader that
	 * loads any new word of the name then sees the odd count.
	 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&r->name[0], w[0], __ATOMIC_RELAXED);
	__atomic_store_n(&r->name[1], w[1], __ATOMIC_RELAXED);
	/*
	 * Pairs with the acquire load of name_seq in get_name() (this file): a
	 * reader that sees the even count sees the whole name.
	 */
	__atomic_store_n(&r->name_seq, seq + 2, __ATOMIC_RELEASE);
}

/* A bounded retry: an owner stopped in set_name() costs a torn name. */
static void get_name(const struct ring *r, char out[NAME_LEN])
{
	uint64_t w[2];

	for (int tries = 0; tries < 100; tries++) {
		/*
		 * Pairs with the release store of name_seq in set_name() (this
		 * file).
		 */
		uint32_t s1 = __atomic_load_n(&r->name_seq, __ATOMIC_ACQUIRE);

		w[0] = __atomic_load_n(&r->name[0], __ATOMIC_RELAXED);
		w[1] = __atomic_load_n(&r->name[1], __ATOMIC_RELAXED);
		/*
		 * Pairs with the release fence in set_name() (this file): if a
		 * word read is new, the count read again below has moved.
		 */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(s1 & 1) &&
		    s1 == __atomic_load_n(&r->name_seq, __ATOMIC_RELAXED))
			break;
	}
	memcpy(out, w, NAME_LEN);
	out[NAME_LEN - 1] = 0;
}

/*
 * The name now: the kernel's for a thread of this process that is still
 * there (it may have been renamed since its ring was made), else the one
 * its ring kept (at its start, and at its exit).
 */
void ulsm_trace_ring_name(const struct ring *r, char out[NAME_LEN])
{
	char path[64], buf[NAME_LEN + 1];
	ssize_t n;
	int fd;

	get_name(r, out);
	/*
	 * Pairs with the release store of exited in ring_exit() (this file): a
	 * thread seen gone has its last name in the ring.
	 */
	if (r->pid != (uint32_t)getpid() ||
	    __atomic_load_n(&r->exited, __ATOMIC_ACQUIRE))
		return;
	if (r->tid == (uint32_t)ulsm_sys_gettid()) {
		own_name(out);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", r->tid);
	fd = ulsm_sys_open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = ulsm_sys_read(fd, buf, NAME_LEN);
	ulsm_sys_close(fd);
	if (n <= 0)
		return;
	if (buf[n - 1] == '\n')
		n--;
	memset(out, 0, NAME_LEN);
	memcpy(out, buf, (size_t)n < NAME_LEN - 1 ? (size_t)n : NAME_LEN - 1);
}

/*
 * The thread's key destructor: its last name, and that it is gone (its
 * tid may be another thread's later). The ring stays: nothing is freed
 * at thread exit, so a later destructor may still record.
 */
static void ring_exit(void *p)
{
	struct ring *r = p;
	char name[NAME_LEN];

	if (r->tid == (uint32_t)ulsm_sys_gettid()) {
		own_name(name);
		set_name(r, name);
	}
	/*
	 * Pairs with the acquire load of exited in ulsm_trace_ring_name()
	 * (this file): the last name, stored above, is seen with it.
	 */
	__atomic_store_n(&r->exited, 1, __ATOMIC_RELEASE);
}

static void exit_key_init(void)
{
	exit_key_made = !pthread_key_create(&exit_key, ring_exit);
}

/* --- recording --------------------------------------------------------- */

/* The clock, chosen before the process's first event (clock.h). */
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

ULSM_API const char *ulsm_trace_clock_name(void)
{
	pthread_once(&clock_once, ulsm_trace_clock_init);
	/*
	 * Pairs with the release store in ulsm_trace_clock_init()
	 * (src/trace/clock.c); pthread_once() orders it already.
	 */
	return __atomic_load_n(&ulsm__trace_counter, __ATOMIC_ACQUIRE) ?
	       "counter" : "monotonic";
}

__attribute__((noinline, cold)) static struct ring *ring_new(void)
{
	static int reported_small, reported_none;
	uint32_t cap = ring_cap();
	struct ring *r = ulsm_calloc(1, sizeof(*r) + cap * sizeof(r->ev[0]));
	char name[NAME_LEN];

	pthread_once(&clock_once, ulsm_trace_clock_init);
	ulsm_trace_clock_report();

	if (!r) {
		/* One slot: the thread's losses are still counted. */
		r = ulsm_calloc(1, sizeof(*r) + sizeof(r->ev[0]));
		if (!r) {
			no_ring = 1;
			if (first_time(&reported_none))
				ulsm_report("the recorder: no memory for thread "
					    "%d's ring: its events are lost",
					    (int)ulsm_sys_gettid());
			return NULL;
		}
		if (first_time(&reported_small))
			ulsm_report("the recorder: no memory for a ring of %u "
				    "events (thread %d): it keeps its last "
				    "event, and counts the others as lost", cap,
				    (int)ulsm_sys_gettid());
		cap = 1;
	}
	r->cap = cap;
	r->tid = (uint32_t)ulsm_sys_gettid();
	r->pid = (uint32_t)getpid();
	own_name(name);
	set_name(r, name);
	pthread_once(&exit_key_once, exit_key_init);
	if (exit_key_made)
		pthread_setspecific(exit_key, r);
	r->next = __atomic_load_n(&ulsm_trace_rings, __ATOMIC_RELAXED);
	/*
	 * Pairs with the acquire loads of ulsm_trace_rings in discover()
	 * (recording.c) and ulsm_trace_clear() (this file): a reader that
	 * finds the ring sees its id, name and size.
	 */
	while (!__atomic_compare_exchange_n(&ulsm_trace_rings, &r->next, r,
					    true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	mine = r;
	ulsm_trace_env_check(false);
	return r;
}

/*
 * In the child of fork(), the forking thread's ring is a copy of its
 * parent thread's, under that thread's id: the child's events go to a
 * ring of its own. The copied rings stay, with what was recorded before
 * the fork (a child may write them: a snapshot).
 */
static void fork_child(void)
{
	mine = NULL;
	no_ring = 0;
}

void ulsm_trace_recorder_atfork_init(void)
{
	if (pthread_atfork(NULL, NULL, fork_child))
		ulsm_die("pthread_atfork failed");
}

/* The thread's text ring, at its first string (the owner's). */
__attribute__((noinline, cold)) static struct text *text_new(struct ring *r)
{
	static int reported;
	uint64_t cap = TEXT_MIN;
	struct text *t;

	if (r->text_failed)
		return NULL;
	while (cap < (uint64_t)r->cap * TEXT_PER_EVENT)
		cap <<= 1;
	t = ulsm_calloc(1, sizeof(*t) + cap * sizeof(t->w[0]));
	if (!t) {
		r->text_failed = true;
		if (first_time(&reported))
			ulsm_report("the recorder: no memory for thread %u's "
				    "strings: they are recorded as lost", r->tid);
		return NULL;
	}
	t->cap = cap;
	/*
	 * Pairs with the acquire load of text in put_events() (recording.c):
	 * a stream that finds the text ring sees its size.
	 */
	__atomic_store_n(&r->text, t, __ATOMIC_RELEASE);
	return t;
}

static inline struct ring *my_ring(void)
{
	struct ring *r = mine;

	if (__builtin_expect(!r, 0) && !no_ring)
		r = ring_new();
	return r;
}

/* Event @h's slot (after the caller's release fence), then the head. */
static inline void put_event(struct ring *r, uint64_t h, uint64_t ns,
			     uint32_t id, uint32_t info, int n,
			     const uint64_t *w)
{
	uint64_t *s = r->ev[h & (r->cap - 1)];

	__atomic_store_n(&s[0], ns, __ATOMIC_RELAXED);
	__atomic_store_n(&s[1], (uint64_t)id | (uint64_t)info << 32,
			 __ATOMIC_RELAXED);
	for (int i = 0; i < n; i++)
		__atomic_store_n(&s[2 + i], w[i], __ATOMIC_RELAXED);
	/*
	 * Pairs with the acquire loads of head in snapshot(), skip_lost() and
	 * discover() (recording.c): a reader that sees the head sees the
	 * slots below it written.
	 */
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
}

ULSM_API void ulsm__trace_record(const struct ulsm_tracepoint *tp, int n,
				 const uint64_t *words)
{
	struct ring *r = my_ring();
	uint64_t ns, h;

	if (!r)
		return;
	ns = ulsm_trace_clock();
	h = r->head;
	n = n < MAX_ARGS ? n : MAX_ARGS;
	/* Claimed before this slot's stores (see the top). */
	__atomic_store_n(&r->claimed, h + 1, __ATOMIC_RELAXED);
	/*
	 * Pairs with the acquire fence in put_events() (recording.c): a copy
	 * that saw any store of the slot then reads this claim.
	 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	put_event(r, h, ns, tp->id, (uint32_t)n, n, words);
}

/*
 * A string of at most ULSM_TRACE_STR_MAX bytes: cut before the UTF-8
 * sequence that the limit would split, so the text stays well formed.
 */
static size_t str_len(const char *s, uint32_t *flags)
{
	size_t len = strnlen(s, ULSM_TRACE_STR_MAX + 1);

	if (len <= ULSM_TRACE_STR_MAX)
		return len;
	*flags |= ULSM_TRACE_STR_CUT;
	len = ULSM_TRACE_STR_MAX;
	for (int i = 0; i < 3 && len && ((unsigned char)s[len] & 0xc0) == 0x80;
	     i++)
		len--;
	if (((unsigned char)s[len] & 0xc0) == 0x80)
		len = ULSM_TRACE_STR_MAX;	/* not UTF-8: cut anywhere */
	return len;
}

static void put_text(struct text *t, uint64_t pos, const char *s, size_t len)
{
	for (size_t k = 0; k < len; k += 8) {
		uint64_t w = 0;

		memcpy(&w, s + k, len - k < 8 ? len - k : 8);
		__atomic_store_n(&t->w[(pos + k / 8) & (t->cap - 1)], w,
				 __ATOMIC_RELAXED);
	}
}

/*
 * The probe of a prototype with string parameters (@strs: which words
 * are `const char *` or `char *`): each string's bytes are copied into
 * the thread's text ring, at most ULSM_TRACE_STR_MAX of them.
 */
ULSM_API void ulsm__trace_record_str(const struct ulsm_tracepoint *tp, int n,
				     const uint64_t *words, unsigned int strs)
{
	struct ring *r = my_ring();
	uint64_t w[MAX_ARGS], ns, h, pos = 0, total = 0;
	size_t len[MAX_ARGS];
	struct text *t;

	if (!r)
		return;
	ns = ulsm_trace_clock();
	n = n < MAX_ARGS ? n : MAX_ARGS;
	strs &= (1u << n) - 1;
	t = r->text ? r->text : text_new(r);
	for (int i = 0; i < n; i++) {
		const char *s = (const char *)(uintptr_t)words[i];
		uint32_t flags = 0;

		w[i] = words[i];
		len[i] = 0;
		if (!(strs >> i & 1))
			continue;
		if (!s) {
			w[i] = ULSM_TRACE_STR_NULL;
		} else if (!t) {
			w[i] = ULSM_TRACE_STR_LOST;
		} else {
			len[i] = str_len(s, &flags);
			w[i] = len[i] | flags;
			total += (len[i] + 7) / 8;
		}
	}
	h = r->head;
	if (total) {
		pos = t->head;
		/* Announced before the bytes are written (see the top). */
		__atomic_store_n(&t->head, pos + total, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&r->claimed, h + 1, __ATOMIC_RELAXED);
	/*
	 * Pairs with the acquire fence in put_events() (recording.c): a copy
	 * that saw any store of the slot or of the text then reads this claim
	 * and text head.
	 */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (int i = 0; i < n && total; i++) {
		if (!len[i])
			continue;
		w[i] |= (pos & POS_MASK) << 16;
		put_text(t, pos, (const char *)(uintptr_t)words[i], len[i]);
		pos += (len[i] + 7) / 8;
	}
	put_event(r, h, ns, tp->id, (uint32_t)n | strs << 8, n, w);
}

ULSM_API int ulsm_trace_clear(void)
{
	/*
	 * Pairs with the release compare-exchange in ring_new() (this file):
	 * each ring found is whole.
	 */
	for (struct ring *r = __atomic_load_n(&ulsm_trace_rings,
					      __ATOMIC_ACQUIRE);
	     r; r = r->next) {
		/*
		 * Pairs with the release store of head in put_event() (this
		 * file); only the number is used here.
		 */
		uint64_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		uint64_t s = __atomic_load_n(&r->start, __ATOMIC_RELAXED);

		/* Never backwards, whoever else clears at the same time. */
		while (s < h && !__atomic_compare_exchange_n(&r->start, &s, h,
				true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	return 0;
}

/* --- ULSM_TRACE's globs ------------------------------------------------ */

struct env_globs {
	char *copy;
	char *glob[64];
	bool matched[64];
	int n;
};

static void match_name(void *arg, uint32_t id, const char *name,
		       const char *args, int nargs, const unsigned char *types)
{
	struct env_globs *g = arg;

	(void)id;
	(void)args;
	(void)nargs;
	(void)types;
	for (int i = 0; i < g->n; i++)
		g->matched[i] |= !fnmatch(g->glob[i], name, 0);
}

/*
 * ULSM_TRACE's globs that match no tracepoint are reported: once when
 * the recorder is first used (a thread's first event, the first file or
 * stream), and at exit if they never matched. A library cannot tell when
 * its program's start-up is over; by its first event, every object
 * loaded at start has added its tracepoints. Names are kept after their
 * objects go, so "never" includes objects loaded and unloaded since.
 */
static int env_started;

void ulsm_trace_env_check(bool at_exit)
{
	const char *env = getenv("ULSM_TRACE");
	struct env_globs g = { 0 };
	char *rest;

	if (!env || !*env)
		return;
	if (!at_exit && !first_time(&env_started))
		return;
	g.copy = ulsm_strdup(env);
	if (!g.copy)
		return;
	rest = g.copy;
	for (char *p; g.n < 64 && (p = ulsm_trace_next_glob(&rest));)
		g.glob[g.n++] = p;
	/* Inside a probe the lock may be held by an attach: try again later. */
	if (ulsm_trace_names_wait(match_name, &g, at_exit ? 1000 : 0)) {
		if (!at_exit)
			__atomic_store_n(&env_started, 0, __ATOMIC_RELAXED);
		ulsm_free(g.copy);
		return;
	}
	for (int i = 0; i < g.n; i++) {
		if (g.matched[i])
			continue;
		if (at_exit)
			ulsm_report("ULSM_TRACE: \"%s\" matched no tracepoint: "
				    "nothing was recorded for it", g.glob[i]);
		else
			ulsm_report("ULSM_TRACE: \"%s\" matches no tracepoint "
				    "(yet: it is attached to those loaded "
				    "later)", g.glob[i]);
	}
	ulsm_free(g.copy);
}

void ulsm_trace_env_exiting(void)
{
	__atomic_store_n(&env_started, 1, __ATOMIC_RELAXED);
}
