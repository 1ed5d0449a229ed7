// SPDX-License-Identifier: MIT
/*
 * Plug-ins that come and go while threads dispatch, for every shape the
 * framework dispatches (docs/hook-framework.md, "Modules that come and
 * go"). The set "ch" (tests/lsm/churn/set.h) allows unloading and has four
 * slots per hook and the order "a,p1,b,p2": a and b are the host's and on
 * throughout, p1 (between them) and p2 (after b, the last slot) are
 * plug-ins built from one source (tests/lsm/churn/module.c), loaded after
 * ulsm_lsm_init() and closed again, cycle after cycle, while 4 threads
 * dispatch each shape and check every answer:
 *
 *   int2, void2   two parameters: the hook's entry on x86-64
 *   int7, void7   seven parameters: the unrolled C walk
 *   each          lsm_for_each_hook, with its own rule (every module's
 *                 answer is collected)
 *
 * Each callback notes its module in a per-thread trace and returns a value
 * derived from its arguments and its identity (tests/lsm/churn/set.h), so the
 * checker knows what every state gives. An answer is right if some
 * slot-by-slot mix of the old and new states gives it, each slot called or
 * skipped as in one of the two: a and b called, p1 and p2 called or not,
 * in that order, each once, with the arguments passed; an int hook stops
 * at the first module that decides and returns its value, else returns the
 * default (0) with b called. Anything else is wrong: a module called
 * twice or out of order, a or b missing, a return value that no module
 * returned (as from a slot whose key is on while its call still reaches
 * an empty static call, whose trampoline is a bare "ret"). The first few
 * wrong answers are printed (shape, x, value, trace), all are counted,
 * and any fails the test; so does an active slot that lsm_for_each_hook
 * meets without a hook list (a caller that writes the kernel's
 * lsm_hook_fn(scall, ...)(...) would dereference NULL), counted as a
 * wrong answer of "each" rather than left to crash.
 *
 * Most cycles write the text by /proc/self/mem, one pwrite() per site,
 * so that a batch's steps last long enough for a thread to run in the
 * middle of one; and int7's walk has several copies (see INT7_WALK). An
 * order of the sites within a step that lets a thread see a slot's key
 * already on while its trampoline still holds "ret" is then caught in
 * most runs of the short form; with ULSM_WRITE=mprotect (stores) only by
 * chance.
 *
 * --cycles N: load/unload cycles of p1 and p2 (default 100; 40 under a
 * sanitizer; 5 under an emulator, where a cycle takes about 0.6 s; make
 * stress: 1000).
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ULSM_LSM_DEFINE
#define ULSM_LSM_BUILTIN_ORDER "a,p1,b,p2"
#include "churn/set.h"

#include <ulsm/ulsm.h>

#include "plugin.h"
#include "runtime.h"
#include "tap.h"

#if defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define UNDER_SANITIZER 1
# endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(UNDER_TSAN)
# define UNDER_SANITIZER 1
#endif

/* --- traces ------------------------------------------------------------ */

#define TRACE_MAX	8

/* The modules called by one dispatch, in order; -id: wrong arguments. */
struct trace {
	int n;
	int id[TRACE_MAX];
};

static __thread struct trace tr;

void ch_note(int id, bool args_ok)
{
	if (tr.n < TRACE_MAX)
		tr.id[tr.n] = args_ok ? id : -id;
	tr.n++;
}

static const char *const mod_name[CH_NMOD + 1] = { "?", "a", "p1", "b", "p2" };

static const char *name_of(int id)
{
	return id >= 1 && id <= CH_NMOD ? mod_name[id] : "?";
}

static void trace_str(const struct trace *t, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < t->n && i < TRACE_MAX && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s%s", i ? " " : "",
				       t->id[i] < 0 ? "!" : "",
				       name_of(abs(t->id[i])));
	if (t->n > TRACE_MAX && at < len)
		snprintf(buf + at, len - at, " ... (%d calls)", t->n);
	if (!t->n)
		snprintf(buf, len, "(none)");
}

/* --- shapes and the checker ---------------------------------------------- */

enum shape { S_INT2, S_VOID2, S_INT7, S_VOID7, S_EACH, NSHAPES };

static const char *const shape_name[NSHAPES] = {
	"int2", "void2", "int7", "void7", "each",
};

static const char *shape_how(enum shape s)
{
	switch (s) {
	case S_INT2:	return ch_lsm_has_entry_int2 ? "entry" : "C walk";
	case S_VOID2:	return ch_lsm_has_entry_void2 ? "entry" : "C walk";
	case S_INT7:	return ch_lsm_has_entry_int7 ? "entry" : "C walk";
	case S_VOID7:	return ch_lsm_has_entry_void7 ? "entry" : "C walk";
	default:	return "lsm_for_each_hook";
	}
}

static bool int_shape(enum shape s)
{
	return s == S_INT2 || s == S_INT7;
}

/*
 * What one dispatch gave: the trace its callbacks noted, an int hook's
 * result, and for each the ids of the hook lists its loop met (0: an
 * active slot with no hook list) with the values their callbacks returned.
 */
struct answer {
	struct trace t;
	long r;
	int n;
	int hl[TRACE_MAX];
	long v[TRACE_MAX];
};

/*
 * Why @a, the answer of shape @s to x, is one that no state gives (into
 * @why), or NULL if a slot-by-slot mix of the two states gives it.
 */
static const char *wrong(enum shape s, int x, const struct answer *a,
			 char *why, size_t len)
{
	const struct trace *t = &a->t;
	bool seen_a = false, seen_b = false;
	int prev = 0, last = 0;

	if (t->n > TRACE_MAX)
		return "more calls than there are slots";
	for (int i = 0; i < t->n; i++) {
		int id = t->id[i];

		if (id < 0)
			return "a module was called with other arguments than "
			       "those passed";
		if (id == prev)
			return "a module was called twice";
		if (id < prev)
			return "modules were called out of order";
		if (int_shape(s) && i + 1 < t->n && ch_answer(id, x))
			return "the walk went on after a module decided";
		seen_a |= id == CH_A;
		seen_b |= id == CH_B;
		prev = last = id;
	}
	if (s == S_EACH) {
		if (a->n > TRACE_MAX)
			return "the loop met more slots than there are";
		for (int i = 0; i < a->n; i++)
			if (!a->hl[i])
				return "an active slot (key on) had no hook "
				       "list";
		if (a->n != t->n)
			return "the loop met another number of slots than "
			       "callbacks were called";
		for (int i = 0; i < a->n; i++) {
			if (a->hl[i] != t->id[i])
				return "a slot's hook list names another module "
				       "than the one its callback ran";
			if (a->v[i] != ch_each_answer(t->id[i], x)) {
				snprintf(why, len, "%s returned %ld, not %d",
					 name_of(t->id[i]), a->v[i],
					 ch_each_answer(t->id[i], x));
				return why;
			}
		}
	}
	if (!seen_a)
		return "a, always on, was not called";
	if (int_shape(s)) {
		long want = last ? ch_answer(last, x) : 0;

		if (want && a->r != want) {
			snprintf(why, len, "returned %ld, not %ld (the answer of "
				 "%s, the last called)", a->r, want,
				 name_of(last));
			return why;
		}
		if (!want && a->r) {
			snprintf(why, len, "returned %ld, which no module "
				 "returned (%s)", a->r, seen_b ? "b was called" :
				 "and b, always on, was not called");
			return why;
		}
		if (want)
			return NULL;
	}
	if (!seen_b)
		return "b, always on, was not called";
	return NULL;
}

/* --- dispatch ------------------------------------------------------------ */

static void each(int x, struct answer *a)
{
	struct lsm_static_call *scall;

	a->n = 0;
	lsm_for_each_hook(scall, each) {
		/* A slot on with no hook list would crash: count it instead. */
		const struct security_hook_list *hl =
			__atomic_load_n(&scall->hl, __ATOMIC_ACQUIRE);
		long v = 0;

		if (hl)
			v = lsm_hook_fn(scall, each)(x, ch_arg2(x));
		if (a->n < TRACE_MAX) {
			a->hl[a->n] = hl ? (int)hl->lsmid->id : 0;
			a->v[a->n] = v;
		}
		a->n++;
	}
}

/*
 * int7's walk, compiled in eight places, as a hook called from several
 * places of a program is. The dispatching threads run the copy at the
 * lowest address, the checks of one_thread() every copy. Why: a batch
 * writes its sites in address order (step 1 of the breakpoint protocol
 * puts a breakpoint on one site after another, a pwrite() each with the
 * /proc/self/mem method), and a slot's trampoline lies after the code of
 * this unit. So the sites of the other copies lie between the slot's key
 * in the lowest copy and the slot's trampoline: a thread that meets the
 * key's breakpoint (and continues as the new instruction, the slot on)
 * has that many writes of time to reach the trampoline while it still
 * holds its old instruction, where the trap's own round trip (a few
 * microseconds) takes about as long as three writes.
 */
#define INT7_WALK(n)							\
static __attribute__((noinline)) long int7_walk_##n(int x)		\
{									\
	return call_int_hook(int7, x, ch_arg7(x, 1), ch_arg7(x, 2),	\
			     ch_arg7(x, 3), ch_arg7(x, 4), ch_arg7(x, 5),	\
			     ch_arg7(x, 6));				\
}
INT7_WALK(0) INT7_WALK(1) INT7_WALK(2) INT7_WALK(3)
INT7_WALK(4) INT7_WALK(5) INT7_WALK(6) INT7_WALK(7)

#define NCOPIES		8
static long (*const int7_walks[NCOPIES])(int) = {
	int7_walk_0, int7_walk_1, int7_walk_2, int7_walk_3,
	int7_walk_4, int7_walk_5, int7_walk_6, int7_walk_7,
};
static __thread unsigned int walk_copy;

/* The copy the compiler and linker put first. */
static unsigned int lowest_copy(void)
{
	unsigned int low = 0;

	for (unsigned int i = 1; i < NCOPIES; i++)
		if ((uintptr_t)int7_walks[i] < (uintptr_t)int7_walks[low])
			low = i;
	return low;
}

/* Dispatch shape @s with x, into @a. */
static void dispatch(enum shape s, int x, struct answer *a)
{
	tr.n = 0;
	a->r = 0;
	switch (s) {
	case S_INT2:
		a->r = call_int_hook(int2, x, ch_arg2(x));
		break;
	case S_VOID2:
		call_void_hook(void2, x, ch_arg2(x));
		break;
	case S_INT7:
		a->r = int7_walks[walk_copy](x);
		break;
	case S_VOID7:
		call_void_hook(void7, x, ch_arg7(x, 1), ch_arg7(x, 2),
			       ch_arg7(x, 3), ch_arg7(x, 4), ch_arg7(x, 5),
			       ch_arg7(x, 6));
		break;
	default:
		each(x, a);
		break;
	}
	a->t = tr;
}

/* The answer @a as text: value (for int hooks), trace, and the loop's. */
static void answer_str(enum shape s, int x, const struct answer *a, char *buf,
		       size_t len)
{
	char t[128];
	size_t at;

	trace_str(&a->t, t, sizeof(t));
	at = (size_t)snprintf(buf, len, "%s(x=%d)", shape_name[s], x);
	if (int_shape(s) && at < len)
		at += (size_t)snprintf(buf + at, len - at, " = %ld", a->r);
	/* A value left in a register by the caller: say which argument. */
	if (s == S_INT2 && a->r == ch_arg2(x) && at < len)
		at += (size_t)snprintf(buf + at, len - at,
				       " (the second argument's value)");
	for (int k = 1; s == S_INT7 && k < 7 && at < len; k++)
		if (a->r == ch_arg7(x, k))
			at += (size_t)snprintf(buf + at, len - at,
					       " (argument %d's value, x + %d)",
					       k + 1, 101 * k);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, ", trace: %s", t);
	if (s == S_EACH && at < len) {
		at += (size_t)snprintf(buf + at, len - at, ", slots met:");
		for (int i = 0; i < a->n && i < TRACE_MAX && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, " %s=%ld",
					       a->hl[i] ? name_of(a->hl[i]) :
					       "(no hook list)", a->v[i]);
	}
}

/* --- plug-ins ------------------------------------------------------------ */

/* This test's plug-ins (tests/lib/plugin.h). */
static void *load(const char *name)
{
	return plugin_load("ch_", name);
}

static bool unloads(const char *name)
{
	return plugin_unloads("ch_", name);
}

/* --- one thread ------------------------------------------------------------ */

/* The checker catches what it must (a test that cannot fail is a defect). */
static void checker_self_test(void)
{
	static const struct {
		enum shape s;
		int x;
		long r;
		int n, id[4];
		bool ok;
		const char *what;
	} cases[] = {
		{ S_INT7, 16, 16 + 606, 1, { CH_A }, false,
		  "int7 = x + 606 with trace \"a\" (the reviewer's)" },
		{ S_INT7, 16, 0, 1, { CH_A }, false, "int7 = 0, b missing" },
		{ S_INT2, 16, 0, 3, { CH_A, CH_A, CH_B }, false, "a twice" },
		{ S_INT2, 16, 0, 2, { CH_B, CH_A }, false, "out of order" },
		{ S_INT2, 16, 0, 2, { CH_A, -CH_B }, false, "wrong arguments" },
		{ S_INT2, 16 + CH_P1, 0, 3, { CH_A, CH_P1, CH_B }, false,
		  "went on after p1 decided" },
		{ S_VOID2, 16, 0, 2, { CH_P1, CH_B }, false, "void2, a missing" },
		{ S_VOID7, 16, 0, 2, { CH_A, CH_P2 }, false, "void7, b missing" },
		{ S_INT7, 16, 0, 2, { CH_A, CH_B }, true, "int7 = 0, a b" },
		{ S_INT7, 16, 0, 4, { CH_A, CH_P1, CH_B, CH_P2 }, true,
		  "int7 = 0, a p1 b p2" },
		{ S_VOID7, 16, 0, 3, { CH_A, CH_B, CH_P2 }, true,
		  "void7, a b p2" },
		{ S_INT2, 16 + CH_P1, -(CH_P1 << 24 | (16 + CH_P1)), 2,
		  { CH_A, CH_P1 }, true, "int2 = p1's answer, a p1" },
	};
	char why[160];
	int caught = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct answer a = { .r = cases[i].r };
		const char *w;

		a.t.n = cases[i].n;
		memcpy(a.t.id, cases[i].id, sizeof(cases[i].id));
		w = wrong(cases[i].s, cases[i].x, &a, why, sizeof(why));
		if (!w != cases[i].ok)
			diag("checker: %s: %s", cases[i].what, w ? w : "right");
		else
			caught++;
	}
	is_int(caught, (int)(sizeof(cases) / sizeof(cases[0])),
	       "the checker tells right answers from wrong ones (%d cases)",
	       caught);
	{
		struct answer a = { .n = 2, .hl = { CH_A, 0 },
				    .v = { ch_each_answer(CH_A, 16), 0 } };

		a.t.n = 1;
		a.t.id[0] = CH_A;
		ok(wrong(S_EACH, 16, &a, why, sizeof(why)) != NULL,
		   "  and each's slot on with no hook list");
	}
}

/* Every shape with x = 0..15 in this state (@p1, @p2 on or not). */
static int check_state(bool p1, bool p2)
{
	int bad = 0;

	for (int s = 0; s < NSHAPES; s++)
		for (int x = 0; x < 16; x++) {
			struct answer a;
			char why[160], buf[256];
			const char *w;
			struct trace want = { 0 };

			walk_copy = (unsigned int)x % NCOPIES;
			dispatch(s, x, &a);
			/* The exact trace of this state. */
			for (int id = 1; id <= CH_NMOD; id++) {
				if ((id == CH_P1 && !p1) || (id == CH_P2 && !p2))
					continue;
				want.id[want.n++] = id;
				if (int_shape(s) && ch_answer(id, x))
					break;
			}
			w = wrong(s, x, &a, why, sizeof(why));
			if (!w && (a.t.n != want.n ||
				   memcmp(a.t.id, want.id, sizeof(int) * (size_t)want.n)))
				w = "not this state's trace";
			if (w && bad++ < 3) {
				answer_str(s, x, &a, buf, sizeof(buf));
				diag("  %s: %s", buf, w);
			}
		}
	return bad;
}

static bool in_place(void)
{
	static const char *const hooks[] = { "int2", "void2", "int7", "void7",
					     "each" };

	for (int h = 0; h < 5; h++)
		for (unsigned int s = 0; s < MAX_LSM_COUNT; s++) {
			const struct lsm_id *id =
				ulsm_lsm_slot_owner(&ch_hook_set, hooks[h], s);

			if (!id || id->id != s + 1) {
				diag("  hook %s slot %u: %s", hooks[h], s,
				     id ? id->name : "(empty)");
				return false;
			}
		}
	return true;
}

static bool one_thread(void)
{
	void *p1, *p2;

	checker_self_test();
	for (int s = 0; s < NSHAPES; s++)
		diag("%s: %s", shape_name[s], shape_how(s));
	is_int(ulsm_lsm_init(&ch_hook_set, NULL), 0,
	       "init (a,p1,b,p2: only a and b are there)");
	is_string(ulsm_lsm_list(&ch_hook_set), "a,b", "  the list");
	is_int(check_state(false, false), 0, "  every shape answers as a, b");

	p1 = load("p1");
	p2 = load("p2");
	ok(p1 && p2, "p1 and p2 loaded%s%s", p1 && p2 ? "" : ": ",
	   p1 && p2 ? "" : dlerror());
	if (!p1 || !p2)
		return false;
	is_string(ulsm_lsm_list(&ch_hook_set), "a,p1,b,p2", "  the list");
	ok(in_place(), "  slots 0..3 of every hook: a, p1, b, p2");
	is_int(check_state(true, true), 0,
	       "  every shape answers as a, p1, b, p2");
	dlclose(p1);
	if (!unloads("p1")) {
		diag("dlclose() does not unload here (musl): p1 and p2 stay, "
		     "nothing comes and goes");
		dlclose(p2);
		return false;
	}
	is_string(ulsm_lsm_list(&ch_hook_set), "a,b,p2", "p1 closed: the list");
	is_int(check_state(false, true), 0, "  every shape answers as a, b, p2");
	dlclose(p2);
	is_string(ulsm_lsm_list(&ch_hook_set), "a,b", "p2 closed: the list");
	is_int(check_state(false, false), 0, "  every shape answers as a, b");
	return true;
}

/* --- threads ------------------------------------------------------------ */

/* The first wrong answers of each shape are printed. */
#define REPORT_MAX	3

static volatile int stop;
static unsigned long rounds, wrongs[NSHAPES];	/* rounds: of every shape */
static int reported[NSHAPES];
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static void report(enum shape s, int x, const struct answer *a,
		   const char *why)
{
	char buf[320];

	pthread_mutex_lock(&report_lock);
	if (reported[s]++ < REPORT_MAX) {
		answer_str(s, x, a, buf, sizeof(buf));
		/* diag() prints in three calls: one line, whole. */
		flockfile(stdout);
		diag("wrong: %s: %s", buf, why);
		funlockfile(stdout);
	}
	pthread_mutex_unlock(&report_lock);
}

static void *dispatcher(void *arg)
{
	unsigned long n = 0;
	unsigned int x = (unsigned int)(uintptr_t)arg << 18;

	walk_copy = lowest_copy();

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int s = 0; s < NSHAPES; s++) {
			struct answer a;
			char why[160];
			const char *bad;

			x = (x + 1) & 0xfffff;
			dispatch(s, (int)x, &a);
			bad = wrong(s, (int)x, &a, why, sizeof(why));
			if (bad) {
				__atomic_fetch_add(&wrongs[s], 1,
						   __ATOMIC_RELAXED);
				report(s, (int)x, &a, bad);
			}
		}
		/* Every shape as often: one count, flushed now and then. */
		if (!(++n & 4095)) {
			__atomic_fetch_add(&rounds, n, __ATOMIC_RELAXED);
			n = 0;
		}
	}
	__atomic_fetch_add(&rounds, n, __ATOMIC_RELAXED);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long all_wrong(void)
{
	unsigned long n = 0;

	for (int s = 0; s < NSHAPES; s++)
		n += __atomic_load_n(&wrongs[s], __ATOMIC_RELAXED);
	return n;
}

/*
 * @cycles cycles of p1 and p2 with text written by @mode, while the
 * dispatchers run. Return the number of loads that failed.
 */
static unsigned long churn(long cycles, enum ulsm_write_mode mode,
			   const char *label)
{
	unsigned long w0[NSHAPES], failed = 0, bad_cycles = 0;
	struct ulsm_stats st0, st1;
	double t0, secs;
	char line[256];
	size_t at = 0;

	if (ulsm_set_write_mode(mode))
		diag("ulsm_set_write_mode(%s) failed: %s", label,
		     ulsm_last_error());
	for (int s = 0; s < NSHAPES; s++)
		w0[s] = __atomic_load_n(&wrongs[s], __ATOMIC_RELAXED);
	ulsm_get_stats(&st0);
	t0 = now();
	for (long i = 0; i < cycles; i++) {
		/*
		 * p1 arrives alone and p2 after it; p1 leaves with p2 there,
		 * then p2: each arrival and departure, between a and b and
		 * after b, with the other plug-in in and out.
		 */
		unsigned long before = all_wrong();
		void *p1 = load("p1"), *p2 = load("p2");

		failed += !p1 + !p2;
		if (p1)
			dlclose(p1);
		if (p2)
			dlclose(p2);
		bad_cycles += all_wrong() != before;
	}
	secs = now() - t0;
	ulsm_get_stats(&st1);
	for (int s = 0; s < NSHAPES && at < sizeof(line); s++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s %lu",
				       s ? ", " : "", shape_name[s],
				       __atomic_load_n(&wrongs[s],
						       __ATOMIC_RELAXED) - w0[s]);
	flockfile(stdout);	/* the dispatchers may report meanwhile */
	diag("%ld cycles, text written %s: %.2f s, %lu batches of %.1f "
	     "sites on average, %lu traps emulated; wrong: %s (in %lu "
	     "cycles)", cycles, label, secs, st1.batches - st0.batches,
	     st1.batches > st0.batches ? (double)(st1.sites_patched -
	     st0.sites_patched) / (double)(st1.batches - st0.batches) : 0.0,
	     st1.traps_emulated - st0.traps_emulated, line, bad_cycles);
	funlockfile(stdout);
	return failed;
}

int main(int argc, char **argv)
{
#ifdef UNDER_SANITIZER
	long def = 40;
#else
	long def = under_emulator() ? 40 : 100;
#endif
	/* Under an emulator, an eighth of that (arg_count). */
	long cycles = arg_count(argc, argv, "--cycles", def);
	const char *wm = getenv("ULSM_WRITE");
	unsigned long failed_loads = 0, total;
	pthread_t t[4];
	double t0, secs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!one_thread())
		return done_testing();

	for (uintptr_t i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, dispatcher, (void *)i);
	t0 = now();
	if (!strcmp(ulsm_backend(), "generic")) {
		/* Keys and calls are data there: no text to write. */
		failed_loads = churn(cycles, ULSM_WRITE_AUTO,
				     "by no one (generic back end)");
	} else if (wm && *wm) {
		/* The method the environment asks for, throughout. */
		failed_loads = churn(cycles, !strcmp(wm, "procmem") ?
				     ULSM_WRITE_PROCMEM : !strcmp(wm, "mprotect") ?
				     ULSM_WRITE_MPROTECT : ULSM_WRITE_AUTO, wm);
	} else {
		/*
		 * Three cycles in four with one pwrite() per site, whose
		 * batches take longest, so that a thread runs between two
		 * writes of one step; the others as the library chooses (for
		 * batches of this many sites, an mprotect window, whose
		 * stores take no time).
		 */
		failed_loads = churn(cycles - cycles / 4, ULSM_WRITE_PROCMEM,
				     "by /proc/self/mem");
		failed_loads += churn(cycles / 4, ULSM_WRITE_AUTO,
				      "as the library chooses");
	}
	secs = now() - t0;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);

	total = rounds * NSHAPES;
	ok(failed_loads == 0 && total > 0,
	   "4 threads dispatched every shape while %ld cycles loaded and "
	   "unloaded p1 and p2 (%.2f s): %lu dispatches checked, %lu failed "
	   "loads", cycles, secs, total, failed_loads);
	for (int s = 0; s < NSHAPES; s++)
		ok(wrongs[s] == 0 && rounds > 0,
		   "  %-5s (%s): %lu dispatches, %lu wrong (%.1f per second)",
		   shape_name[s], shape_how(s), rounds, wrongs[s],
		   secs > 0 ? wrongs[s] / secs : 0.0);
	is_string(ulsm_lsm_list(&ch_hook_set), "a,b",
		  "  the set is back as it was");
	is_int(check_state(false, false), 0, "  and answers as it did");
	return done_testing();
}
