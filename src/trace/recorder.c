// SPDX-License-Identifier: MIT
/*
 * src/trace/recorder.c - the built-in recorder: a probe for every
 * prototype (DEFINE_TRACEPOINT's __tracerec_NAME) that writes each hit
 * into its thread's ring buffer; the streams that read the rings while
 * threads write them; and the file ulsm-trace reads, written by a stream.
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
 * The file is docs/tracepoints.md's "The file" (version 2): a header,
 * then records. ulsm_trace_write() is a stream that starts at the rings'
 * oldest event and reads once, with the end.
 *
 * No lock of its own for the names: they are the tracepoint lock's
 * (tracepoint.c); a child of fork() records into a ring of its own
 * (fork_child).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "base/sys.h"
#include "trace/clock.h"
#include "trace/trace.h"

#define SLOT_WORDS	8	/* ns, id and info, six words */
#define MAX_ARGS	ULSM_TRACE_MAX_ARGS
#define NAME_LEN	16	/* a thread's name, as the kernel keeps it */
#define TEXT_PER_EVENT	4	/* words of text per event (32 bytes) */
#define TEXT_MIN	256	/* words: six strings of the longest fit */
#define POS_BITS	48	/* a string's place in its text ring (words) */
#define POS_MASK	((1ull << POS_BITS) - 1)
#define BUF_DEFAULT	16384
#define BUF_MIN		64
#define BUF_MAX		(1ul << 24)

/* A thread's text ring: the bytes of its string arguments. */
struct text {
	uint64_t head;		/* words announced: written or being written */
	uint64_t cap;		/* words, a power of two */
	uint64_t w[];
};

/*
 * A slot is ns, then the tracepoint's id and the info (bits 0-7: words,
 * 8-13: which of them are strings) in one word, then the words. A
 * string's word is its length and flags (ULSM_TRACE_STR_*) in bits 0-15
 * and its place in the text ring in bits 16-63.
 */
struct ring {
	uint64_t head;		/* events written, ever: the owner's */
	uint64_t claimed;	/* events written or being written */
	uint64_t start;		/* events before it were cleared */
	uint32_t cap;		/* events, a power of two */
	uint32_t tid, pid;
	uint32_t name_seq;	/* odd while the owner changes @name */
	uint64_t name[2];	/* the thread's name, NUL-padded */
	uint32_t exited;	/* the thread is gone (its key's destructor) */
	bool text_failed;	/* the owner's: no memory for the text ring */
	struct text *text;	/* made at the first string (release) */
	struct ring *next;
	uint64_t ev[][SLOT_WORDS];
};

static struct ring *rings;		/* pushed with a CAS, never removed */
static __thread struct ring *mine __attribute__((tls_model("initial-exec")));
static __thread int no_ring __attribute__((tls_model("initial-exec")));
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static bool exit_key_made;
static int stream_busy;		/* the one public stream is open */

static void env_check(bool at_exit);

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
static void fresh_name(const struct ring *r, char out[NAME_LEN])
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
	 * Pairs with the acquire load of exited in fresh_name() (this file):
	 * the last name, stored above, is seen with it.
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
	r->next = __atomic_load_n(&rings, __ATOMIC_RELAXED);
	/*
	 * Pairs with the acquire loads of rings in discover() and
	 * ulsm_trace_clear() (this file): a reader that finds the ring sees its
	 * id, name and size.
	 */
	while (!__atomic_compare_exchange_n(&rings, &r->next, r, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	mine = r;
	env_check(false);
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
	 * Pairs with the acquire load of text in put_events() (this file): a
	 * stream that finds the text ring sees its size.
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
	 * discover() (this file): a reader that sees the head sees the slots
	 * below it written.
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
	 * Pairs with the acquire fence in put_events() (this file): a copy that
	 * saw any store of the slot then reads this claim.
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
	 * Pairs with the acquire fence in put_events() (this file): a copy that
	 * saw any store of the slot or of the text then reads this claim and
	 * text head.
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
	for (struct ring *r = __atomic_load_n(&rings, __ATOMIC_ACQUIRE); r;
	     r = r->next) {
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

static void env_check(bool at_exit)
{
	const char *env = getenv("ULSM_TRACE");
	struct env_globs g = { 0 };
	char *rest;

	if (!env || !*env)
		return;
	if (!at_exit && !first_time(&env_started))
		return;
	g.copy = ulsm_malloc(strlen(env) + 1);
	if (!g.copy)
		return;
	strcpy(g.copy, env);
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

/* --- streams ----------------------------------------------------------- */

#define BATCH		128		/* events copied at once */
#define CHUNK		(256u << 10)	/* bytes given to the sink at once */

/* A ring, as one stream sees it. */
struct view {
	struct ring *r;
	uint64_t pos;		/* the next event to send */
	uint64_t until;		/* this read sends events up to it */
	uint64_t lost;		/* lost, not sent yet */
	char name[NAME_LEN];	/* as last sent */
	uint64_t last_ns;	/* the last event's time, as sent */
	bool announced;
};

/* A tracepoint's name, to send. */
struct pname {
	struct pname *next;
	uint32_t id, nargs, nl, al;
	unsigned char types[ULSM_TRACE_MAX_ARGS];
	char bytes[];
};

struct ulsm_trace_stream {
	bool from_start;	/* the file: every event still in the rings */
	bool public_;		/* the one of ulsm_trace_stream_open() */
	bool discovered, header_sent, frozen, ended;
	int names_wait_ms;
	uint32_t names_max;	/* names up to this id were taken */
	struct pname *names, **names_tail;
	struct ring *seen;	/* the ring list's head, when last walked */
	struct view *v;
	size_t nv, vcap, turn;
	uint64_t events;	/* events given */
	struct ulsm_trace_clock_map clock;	/* this read's (snapshot) */
	/* The records of a chunk, before the sink gets them. */
	unsigned char *out;
	size_t len, budget;
	/* A batch of one ring, copied: slots, and their strings' bytes. */
	uint64_t (*slot)[SLOT_WORDS];
	unsigned char *text;		/* BATCH x MAX_ARGS strings */
	uint32_t text_off[BATCH][MAX_ARGS];
};

static struct ulsm_trace_stream *stream_new(bool from_start)
{
	struct ulsm_trace_stream *s = ulsm_calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->from_start = from_start;
	s->names_wait_ms = -1;
	s->names_tail = &s->names;
	s->out = ulsm_malloc(CHUNK);
	s->slot = ulsm_calloc(BATCH, sizeof(*s->slot));
	s->text = ulsm_malloc((size_t)BATCH * MAX_ARGS * ULSM_TRACE_STR_MAX);
	if (!s->out || !s->slot || !s->text) {
		ulsm_free(s->out);
		ulsm_free(s->slot);
		ulsm_free(s->text);
		ulsm_free(s);
		return NULL;
	}
	return s;
}

static void stream_free(struct ulsm_trace_stream *s)
{
	while (s->names) {
		struct pname *p = s->names;

		s->names = p->next;
		ulsm_free(p);
	}
	ulsm_free(s->v);
	ulsm_free(s->out);
	ulsm_free(s->slot);
	ulsm_free(s->text);
	ulsm_free(s);
}

/* Rings pushed since the last look (they are at the list's head). */
static int discover(struct ulsm_trace_stream *s)
{
	/*
	 * Pairs with the release compare-exchange in ring_new() (this file):
	 * each ring found is whole.
	 */
	struct ring *head = __atomic_load_n(&rings, __ATOMIC_ACQUIRE);
	bool at_open = !s->discovered;
	size_t n = 0;

	for (struct ring *r = head; r && r != s->seen; r = r->next)
		n++;
	if (s->nv + n > s->vcap) {
		size_t cap = (s->nv + n) * 2 + 8;
		struct view *v = ulsm_reallocarray(s->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->vcap = cap;
	}
	for (struct ring *r = head; r && r != s->seen; r = r->next) {
		struct view *v = &s->v[s->nv++];

		/*
		 * A stream sends what is recorded after it was opened: the
		 * rings there when it opens from their heads; those made
		 * later from their start.
		 */
		*v = (struct view){ .r = r };
		/*
		 * Pairs with the release store of head in put_event() (this
		 * file); only a position is taken.
		 */
		if (at_open && !s->from_start)
			v->pos = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	}
	s->seen = head;
	s->discovered = true;
	return 0;
}

static void take_name(void *arg, uint32_t id, const char *name,
		      const char *args, int nargs, const unsigned char *types)
{
	struct ulsm_trace_stream *s = arg;
	size_t nl = strnlen(name, 4096), al = strnlen(args, 4096);
	struct pname *p;

	if (id <= s->names_max)
		return;
	p = ulsm_malloc(sizeof(*p) + nl + al);
	if (!p)
		return;		/* its events will be sent without a name */
	*p = (struct pname){ .id = id, .nargs = (uint32_t)nargs,
			     .nl = (uint32_t)nl, .al = (uint32_t)al };
	memcpy(p->types, types, nargs < ULSM_TRACE_MAX_ARGS ?
	       (size_t)nargs : ULSM_TRACE_MAX_ARGS);
	memcpy(p->bytes, name, nl);
	memcpy(p->bytes + nl, args, al);
	*s->names_tail = p;
	s->names_tail = &p->next;
}

/*
 * What this read sends: the rings' heads now, then the names of every
 * tracepoint added before (so every event sent has its name sent first).
 */
static int snapshot(struct ulsm_trace_stream *s)
{
	uint32_t max = s->names_max;
	int ret = discover(s);

	if (ret)
		return ret;
	/*
	 * Pairs with the release store of head in put_event() (this file):
	 * every event this read sends was written whole before.
	 */
	for (size_t i = 0; i < s->nv; i++)
		s->v[i].until = __atomic_load_n(&s->v[i].r->head,
						__ATOMIC_ACQUIRE);
	/* After the heads: every event this read sends is older. */
	ulsm_trace_clock_map_now(&s->clock);
	if (ulsm_trace_names_wait(take_name, s, s->names_wait_ms)) {
		ulsm_report("the recorder: the tracepoints' names could not "
			    "be read (their lock is held): their events are "
			    "written without them");
		s->names_wait_ms = 0;
	}
	for (struct pname *p = s->names; p; p = p->next)
		max = p->id > max ? p->id : max;
	s->names_max = max;
	return 0;
}

/* Room for @n more bytes of this chunk, or NULL. */
static unsigned char *room(struct ulsm_trace_stream *s, size_t n)
{
	unsigned char *p;

	if (s->len + n > s->budget)
		return NULL;
	p = s->out + s->len;
	s->len += n;
	return p;
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	memcpy(p, v, n);
	return p + n;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
	return put(p, &v, 4);
}

static unsigned char *put64(unsigned char *p, uint64_t v)
{
	return put(p, &v, 8);
}

/* A record's header, and room for its @body bytes; NULL if it won't fit. */
static unsigned char *record(struct ulsm_trace_stream *s, uint32_t type,
			     size_t body)
{
	unsigned char *p = room(s, 8 + body);

	if (p) {
		p = put32(p, type);
		p = put32(p, (uint32_t)body);
	}
	return p;
}

static bool put_header(struct ulsm_trace_stream *s)
{
	const char *cmd = program_invocation_short_name;
	size_t cl = cmd ? strnlen(cmd, 255) : 0;
	unsigned char *p = room(s, 20 + cl);

	if (!p)
		return false;
	p = put(p, ULSM_TRACE_MAGIC, 8);
	p = put32(p, ULSM_TRACE_VERSION);
	p = put32(p, (uint32_t)getpid());
	p = put32(p, (uint32_t)cl);
	put(p, cmd, cl);
	s->header_sent = true;
	return true;
}

static bool put_names(struct ulsm_trace_stream *s)
{
	while (s->names) {
		struct pname *n = s->names;
		size_t nt = n->nargs < ULSM_TRACE_MAX_ARGS ? n->nargs :
			    ULSM_TRACE_MAX_ARGS;
		unsigned char *p = record(s, ULSM_TREC_NAME,
					  16 + (size_t)n->nl + n->al + nt);

		if (!p)
			return false;
		p = put32(p, n->id);
		p = put32(p, (uint32_t)nt);
		p = put32(p, n->nl);
		p = put32(p, n->al);
		p = put(p, n->bytes, (size_t)n->nl + n->al);
		put(p, n->types, nt);
		s->names = n->next;
		if (!s->names)
			s->names_tail = &s->names;
		ulsm_free(n);
	}
	return true;
}

static bool put_thread(struct ulsm_trace_stream *s, struct view *v,
		       const char *name)
{
	size_t nl = strnlen(name, NAME_LEN - 1);
	unsigned char *p = record(s, ULSM_TREC_THREAD, 12 + nl);

	if (!p)
		return false;
	p = put32(p, v->r->tid);
	p = put32(p, v->r->pid);
	p = put32(p, (uint32_t)nl);
	put(p, name, nl);
	memset(v->name, 0, NAME_LEN);
	memcpy(v->name, name, nl);
	v->announced = true;
	return true;
}

static bool put_lost(struct ulsm_trace_stream *s, struct view *v)
{
	unsigned char *p;

	if (!v->lost)
		return true;
	p = record(s, ULSM_TREC_LOST, 16);
	if (!p)
		return false;
	p = put32(p, v->r->tid);
	p = put32(p, 0);
	put64(p, v->lost);
	v->lost = 0;
	return true;
}

/* Lost since the stream last read: cleared ones are skipped. */
static void skip_lost(struct view *v)
{
	struct ring *r = v->r;
	uint64_t start = __atomic_load_n(&r->start, __ATOMIC_RELAXED);
	/* Pairs with the release store of head in put_event() (this file). */
	uint64_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint64_t oldest = h > r->cap ? h - r->cap : 0, to;

	if (v->pos < start)
		v->pos = start < v->until ? start : v->until;
	if (v->pos < oldest) {
		to = oldest < v->until ? oldest : v->until;
		v->lost += to - v->pos;
		v->pos = to;
	}
}

/* A string's text, copied; its word says where it is and how long. */
static void copy_text(const struct text *t, uint64_t word, unsigned char *to)
{
	size_t len = word & ULSM_TRACE_STR_LEN;
	uint64_t pos = word >> 16;

	if (len > ULSM_TRACE_STR_MAX)
		len = ULSM_TRACE_STR_MAX;	/* a torn slot */
	for (size_t k = 0; k < len; k += 8) {
		uint64_t w = __atomic_load_n(&t->w[(pos + k / 8) & (t->cap - 1)],
					     __ATOMIC_RELAXED);

		memcpy(to + k, &w, len - k < 8 ? len - k : 8);
	}
}

/*
 * A copied slot as the file has it: words and strings within bounds, and
 * each string's word its length and flags only; a string whose bytes
 * were overwritten before the copy ended (the text ring's head @th has
 * passed them) is lost. The words are how many and which are strings.
 */
static void settle(uint64_t *slot, const struct text *t, uint64_t th)
{
	uint32_t info = (uint32_t)(slot[1] >> 32);
	uint32_t n = info & 0xff, strs = info >> 8 & 0x3f;

	n = n < MAX_ARGS ? n : MAX_ARGS;
	strs &= (1u << n) - 1;
	slot[1] = (uint32_t)slot[1] | (uint64_t)(n | strs << 8) << 32;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t w = slot[2 + i], len = w & ULSM_TRACE_STR_LEN, pos;

		if (!(strs >> i & 1))
			continue;
		if (w & (ULSM_TRACE_STR_NULL | ULSM_TRACE_STR_LOST)) {
			slot[2 + i] = w & (ULSM_TRACE_STR_NULL | ULSM_TRACE_STR_LOST);
			continue;
		}
		pos = th - ((th - (w >> 16)) & POS_MASK);
		if (!t || len > ULSM_TRACE_STR_MAX || th - pos > t->cap)
			slot[2 + i] = ULSM_TRACE_STR_LOST;
		else
			slot[2 + i] = w & (ULSM_TRACE_STR_LEN | ULSM_TRACE_STR_CUT);
	}
}

static size_t event_size(const uint64_t *slot)
{
	uint32_t info = (uint32_t)(slot[1] >> 32);
	uint32_t n = info & 0xff, strs = info >> 8;
	size_t size = 16 + 8 * (size_t)n;

	for (uint32_t i = 0; i < n; i++)
		if (strs >> i & 1)
			size += slot[2 + i] & ULSM_TRACE_STR_LEN;
	return size;
}

/* Settled slot @j of the batch, into the record at @p. */
static unsigned char *put_one(const struct ulsm_trace_stream *s,
			      struct view *v, unsigned char *p, size_t j)
{
	const uint64_t *slot = s->slot[j];
	uint32_t info = (uint32_t)(slot[1] >> 32);
	uint32_t n = info & 0xff, strs = info >> 8;
	uint64_t ns = ulsm_trace_clock_to_ns(&s->clock, slot[0]);
	unsigned char *bytes;

	/*
	 * A thread's events in order of time: the mappings of two reads
	 * differ by their anchors' reading error (clock.h), tens of ns.
	 */
	if (ns < v->last_ns)
		ns = v->last_ns;
	v->last_ns = ns;
	p = put64(p, ns);
	p = put32(p, (uint32_t)slot[1]);
	p = put32(p, info);
	bytes = p + 8 * n;
	for (uint32_t i = 0; i < n; i++) {
		p = put64(p, slot[2 + i]);
		if (strs >> i & 1 && slot[2 + i] & ULSM_TRACE_STR_LEN)
			bytes = put(bytes, s->text + s->text_off[j][i],
				    slot[2 + i] & ULSM_TRACE_STR_LEN);
	}
	return bytes;
}

/*
 * One batch of @v's events: copied, checked, and as many as fit sent as
 * one record (after the thread's record, the first time, and its lost
 * count). False when the chunk is full.
 */
static bool put_events(struct ulsm_trace_stream *s, struct view *v)
{
	struct ring *r = v->r;
	/*
	 * Pairs with the release store of text in text_new() (this file): the
	 * text ring's size is seen with it.
	 */
	const struct text *t = __atomic_load_n(&r->text, __ATOMIC_ACQUIRE);
	uint64_t k, c, th = 0, torn;
	size_t off = 0, fit, size = 8;
	unsigned char *p;

	skip_lost(v);
	k = v->until - v->pos < BATCH ? v->until - v->pos : BATCH;
	for (uint64_t j = 0; j < k; j++) {
		const uint64_t *slot = r->ev[(v->pos + j) & (r->cap - 1)];
		uint32_t info, n, strs;

		for (int w = 0; w < SLOT_WORDS; w++)
			s->slot[j][w] = __atomic_load_n(&slot[w],
							__ATOMIC_RELAXED);
		info = (uint32_t)(s->slot[j][1] >> 32);
		n = info & 0xff;
		strs = info >> 8 & 0x3f;
		for (uint32_t i = 0; i < n && i < MAX_ARGS && t; i++) {
			if (!(strs >> i & 1))
				continue;
			s->text_off[j][i] = (uint32_t)off;
			copy_text(t, s->slot[j][2 + i], s->text + off);
			off += ULSM_TRACE_STR_MAX;
		}
	}
	/*
	 * Pairs with the release fences in ulsm__trace_record() and
	 * ulsm__trace_record_str() (this file): an owner that began to
	 * overwrite a copied slot has its claim seen below (C11 7.17.4).
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	c = __atomic_load_n(&r->claimed, __ATOMIC_RELAXED);
	if (t)
		th = __atomic_load_n(&t->head, __ATOMIC_RELAXED);
	/* Those the owner may have begun to overwrite while they were copied. */
	torn = c > r->cap && c - r->cap > v->pos ? c - r->cap - v->pos : 0;
	torn = torn < k ? torn : k;
	v->lost += torn;
	v->pos += torn;
	if (k == torn && !v->lost)
		return true;
	if (!v->announced) {
		char name[NAME_LEN];

		fresh_name(r, name);
		if (!put_thread(s, v, name))
			return false;
	}
	if (!put_lost(s, v))
		return false;
	if (k == torn)
		return true;
	/* As many as fit, in one record: tid, count, events. */
	for (fit = 0; torn + fit < k; fit++) {
		uint64_t *slot = s->slot[torn + fit];
		size_t e;

		settle(slot, t, th);
		e = event_size(slot);
		if (s->len + 8 + size + e > s->budget ||
		    8 + size + e > ULSM_TRACE_RECORD_MAX)
			break;
		size += e;
	}
	if (!fit)
		return false;
	p = record(s, ULSM_TREC_EVENTS, size);
	p = put32(p, r->tid);
	p = put32(p, (uint32_t)fit);
	for (size_t j = 0; j < fit; j++)
		p = put_one(s, v, p, torn + j);
	v->pos += fit;
	s->events += fit;
	return true;
}

static bool views_done(const struct ulsm_trace_stream *s)
{
	for (size_t i = 0; i < s->nv; i++)
		if (s->v[i].pos < s->v[i].until || s->v[i].lost)
			return false;
	return true;
}

/* The threads' names as they are now, then the end. */
static bool put_end(struct ulsm_trace_stream *s)
{
	for (size_t i = 0; i < s->nv; i++) {
		struct view *v = &s->v[i];
		char name[NAME_LEN];

		if (!v->announced)
			continue;
		fresh_name(v->r, name);
		if (strcmp(name, v->name) && !put_thread(s, v, name))
			return false;
	}
	if (!record(s, ULSM_TREC_END, 0))
		return false;
	s->ended = true;
	return true;
}

/*
 * A chunk of whole records, at most s->budget bytes: the header, the
 * names, then the rings in turns of a batch each (so that a slow reader
 * is fair to them all), then, if @final, the end.
 */
static void fill(struct ulsm_trace_stream *s, bool final)
{
	bool more = true;

	if (!s->header_sent && !put_header(s))
		return;
	if (!put_names(s))
		return;
	while (more) {
		more = false;
		for (size_t n = 0; n < s->nv; n++) {
			struct view *v = &s->v[s->turn % s->nv];

			s->turn++;
			skip_lost(v);
			if (v->pos >= v->until && !v->lost)
				continue;
			if (!put_events(s, v))
				return;
			more = true;
		}
	}
	if (final && views_done(s))
		put_end(s);
}

long ulsm_trace_stream_read(struct ulsm_trace_stream *s,
			    void (*sink)(void *arg, const void *bytes,
					 size_t n),
			    void *arg, size_t max, bool final)
{
	long given = 0;
	int ret;

	if (!s || !sink)
		return ulsm_error(-EINVAL, "ulsm_trace_stream_read: NULL %s",
				  s ? "sink" : "stream");
	if (max < ULSM_TRACE_STREAM_MIN)
		return ulsm_error(-EINVAL, "ulsm_trace_stream_read: %zu bytes "
				  "at most: less than a record may need (%d)",
				  max, ULSM_TRACE_STREAM_MIN);
	if (s->ended)
		return 0;
	if (!s->frozen) {
		ret = snapshot(s);
		if (ret)
			return ulsm_error(ret, "ulsm_trace_stream_read: no "
					  "memory");
		s->frozen = final;
	}
	if (max > LONG_MAX)
		max = LONG_MAX;
	for (;;) {
		s->len = 0;
		s->budget = max - (size_t)given < CHUNK ? max - (size_t)given :
							   CHUNK;
		fill(s, final);
		if (!s->len)
			break;
		sink(arg, s->out, s->len);
		given += (long)s->len;
		if (s->ended || (size_t)given + ULSM_TRACE_STREAM_MIN > max)
			break;
	}
	return given;
}

/*
 * A child of fork() has no stream: the one its parent had open belongs to
 * a thread (the control endpoint's) that the child does not have.
 */
static void stream_fork_child(void)
{
	__atomic_store_n(&stream_busy, 0, __ATOMIC_RELAXED);
}

static void stream_atfork(void)
{
	if (pthread_atfork(NULL, NULL, stream_fork_child))
		ulsm_die("pthread_atfork failed");
}

int ulsm_trace_stream_open(struct ulsm_trace_stream **s)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	int ret;

	if (!s)
		return ulsm_error(-EINVAL, "ulsm_trace_stream_open: NULL");
	*s = NULL;
	pthread_once(&once, stream_atfork);
	/*
	 * Pairs with the release stores of stream_busy in
	 * ulsm_trace_stream_open() and ulsm_trace_stream_close() (this file):
	 * the last stream is freed before the next one opens.
	 */
	if (__atomic_exchange_n(&stream_busy, 1, __ATOMIC_ACQUIRE))
		return ulsm_error(-EBUSY, "a recording is being streamed "
				  "already");
	env_check(false);
	*s = stream_new(false);
	ret = *s ? discover(*s) : -ENOMEM;
	if (ret) {
		if (*s)
			stream_free(*s);
		*s = NULL;
		/*
		 * Pairs with the acquire exchange of stream_busy in
		 * ulsm_trace_stream_open() (this file).
		 */
		__atomic_store_n(&stream_busy, 0, __ATOMIC_RELEASE);
		return ulsm_error(ret, "ulsm_trace_stream_open: no memory");
	}
	(*s)->public_ = true;
	return 0;
}

void ulsm_trace_stream_close(struct ulsm_trace_stream *s)
{
	if (!s)
		return;
	/*
	 * Pairs with the acquire exchange of stream_busy in
	 * ulsm_trace_stream_open() (this file): the stream is done before the
	 * next one opens.
	 */
	if (s->public_)
		__atomic_store_n(&stream_busy, 0, __ATOMIC_RELEASE);
	stream_free(s);
}

/* --- the file ---------------------------------------------------------- */

struct file_sink {
	FILE *f;
	bool failed;
};

static void to_file(void *arg, const void *bytes, size_t n)
{
	struct file_sink *fs = arg;

	if (fwrite(bytes, 1, n, fs->f) != n)
		fs->failed = true;
}

static long write_file(const char *path, int names_wait_ms)
{
	struct file_sink fs = { 0 };
	struct ulsm_trace_stream *s;
	long n;

	if (!path)
		return ulsm_error(-EINVAL, "ulsm_trace_write: NULL path");
	env_check(false);
	s = stream_new(true);
	if (!s)
		return ulsm_error(-ENOMEM, "ulsm_trace_write: no memory");
	s->names_wait_ms = names_wait_ms;
	fs.f = fopen(path, "wb");
	if (!fs.f) {
		n = ulsm_error(-errno, "ulsm_trace_write: %s: %s", path,
			       strerror(errno));
		stream_free(s);
		return n;
	}
	/* One read: it ends, since it reads what was there when it began. */
	n = ulsm_trace_stream_read(s, to_file, &fs, SIZE_MAX, true);
	if (n >= 0 && !s->ended)
		n = ulsm_error(-EIO, "ulsm_trace_write: %s: the recording "
			       "did not end", path);
	if (fclose(fs.f))
		fs.failed = true;
	if (n >= 0 && fs.failed)
		n = ulsm_error(-EIO, "ulsm_trace_write: %s: write failed", path);
	else if (n >= 0)
		n = (long)s->events;
	stream_free(s);
	return n;
}

ULSM_API long ulsm_trace_write(const char *path)
{
	return write_file(path, -1);
}

/*
 * ULSM_TRACE set: at exit, write ULSM_TRACE_FILE or ulsm-trace.<pid>.bin,
 * and report the globs that never matched. A second at most for the
 * names' lock: another thread may hold it for good at exit.
 */
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
	/* Only the report of globs that never matched, at exit. */
	__atomic_store_n(&env_started, 1, __ATOMIC_RELAXED);
	n = write_file(path, 1000);
	if (n < 0)
		ulsm_report("ULSM_TRACE: %s", ulsm_last_error());
	env_check(true);
}
