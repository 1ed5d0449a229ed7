// SPDX-License-Identifier: MIT
/*
 * Tracepoint transitions, all or nothing, by injection (issue 41): each
 * transition below is run once without a fault, to count the system
 * calls and allocations it makes and to record what it leaves; then once
 * per call, with that call failing (src/base/sys.h). Each run must end
 *
 *   - with 0 (or a count), and every tracepoint's probes called as after
 *     the fault-free run, each with its own data (a grace period, or the
 *     direct call or slots owed after it, may have failed: slower, right);
 *   - or with a negative errno, and every tracepoint exactly as before:
 *     its key, its call, its data, its probe array (the same one), its
 *     slots and records, every registered site's bytes, and its probes
 *     called as before; a detach may also return the error of the grace
 *     period that follows its change, with the change made
 *     (tracepoint_probe_unregister(), <ulsm/tracepoint.h>);
 *
 * and the same transition, without a fault, must then succeed.
 *
 * The transitions: 0 -> 1 (a direct call), 1 -> 2 (the iterator), 2 -> 3
 * (the slots), 3 -> 2, 2 -> 1, 1 -> 0, an attach to a tracepoint that was
 * on (its data settled first), a glob over three tracepoints in one
 * transaction and its detach, and the tracepoints' own counting probes
 * (ulsm_trace_count_begin). Two threads hit the tracepoints throughout;
 * a probe that gets another probe's data fails the run.
 *
 * --stride N walks every N-th call (make check: 1 on a native build).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/static_key.h>
#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#include "trace/trace.h"	/* counting, and each tracepoint's probes */
#include "faultwalk.h"
#include "local_tp.h"
#include "runtime.h"
#include "tap.h"

LOCAL_TRACEPOINT(tf_a, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tf_b, TP_PROTO(int x), TP_ARGS(x));
LOCAL_TRACEPOINT(tf_c, TP_PROTO(int x), TP_ARGS(x));

__attribute__((noinline)) static void hit_a(int x) { trace_tf_a(x); }
__attribute__((noinline)) static void hit_b(int x) { trace_tf_b(x); }
__attribute__((noinline)) static void hit_c(int x) { trace_tf_c(x); }

#define NTP	3
static void (*const hits[NTP])(int) = { hit_a, hit_b, hit_c };
static struct ulsm_tracepoint *const tps[NTP] = {
	&__tracepoint_tf_a, &__tracepoint_tf_b, &__tracepoint_tf_c,
};
static const char *const tp_names[NTP] = { "tf_a", "tf_b", "tf_c" };

static DEFINE_STATIC_KEY_FALSE(spare_key);

/* --- probes: each logs its name, per thread, and checks its data -------- */

static __thread char tlog[32];
static int d1 = 1, d2 = 2, d3 = 3;
static unsigned long wrong;

#define PROBE(name, want, c)						\
	static void name(void *data, int x)				\
	{								\
		(void)x;						\
		if (data != (want))					\
			__atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED); \
		log_probe(tlog, sizeof(tlog), c);			\
	}
PROBE(p1, &d1, '1')
PROBE(p2, &d2, '2')
PROBE(p3, &d3, '3')

/* --- what a tracepoint is, and does ----------------------------------- */

#define MAX_PROBES	8

struct tp_state {
	int key;
	void *call, *data, *slot[ULSM_TP_SLOTS];
	struct ulsm_tp_funcs *funcs, *slotted;
	unsigned int gen;
	bool was_on;
	int n;
	struct ulsm_tp_probe probes[MAX_PROBES];
	int info_probes;		/* as the control endpoint sees them */
	bool counted;
	char log[32];			/* one hit: the probes that ran */
};

struct state {
	struct tp_state tp[NTP];
	struct walk_sites sites;
};

static void info_of(void *arg, const struct ulsm_trace_info *i)
{
	struct state *s = arg;

	for (int k = 0; k < NTP; k++)
		if (!strcmp(i->name, tp_names[k])) {
			s->tp[k].info_probes = i->probes;
			s->tp[k].counted = i->counted;
		}
}

static void take(struct state *s)
{
	memset(s, 0, sizeof(*s));
	for (int k = 0; k < NTP; k++) {
		struct ulsm_tracepoint *tp = tps[k];
		struct tp_state *t = &s->tp[k];
		struct ulsm_tp_funcs *f;

		t->key = static_key_count(&tp->key->key);
		t->call = __atomic_load_n(&tp->call->func, __ATOMIC_RELAXED);
		t->data = __atomic_load_n(&tp->data, __ATOMIC_RELAXED);
		for (int i = 0; i < ULSM_TP_SLOTS; i++)
			t->slot[i] = __atomic_load_n(&tp->slot_call[i]->func,
						     __ATOMIC_RELAXED);
		f = t->funcs = __atomic_load_n(&tp->funcs, __ATOMIC_ACQUIRE);
		t->slotted = __atomic_load_n(&tp->slotted, __ATOMIC_ACQUIRE);
		t->gen = tp->gen;
		t->was_on = tp->was_on;
		t->n = f ? f->n : 0;
		for (int i = 0; i < t->n && i < MAX_PROBES; i++)
			t->probes[i] = f->probes[i];
		tlog[0] = 0;
		hits[k](1);
		memcpy(t->log, tlog, sizeof(t->log));
	}
	if (ulsm_trace_each(info_of, s, 2000))
		s->tp[0].info_probes = -1;
	walk_sites_take(&s->sites);
}

/*
 * Exactly as @b: every word, the same arrays, every site's bytes; but, if
 * @settled, the data and gen of tf_a (an attach to a tracepoint that was
 * on stores the data of an off tracepoint, which no dispatch reads, in a
 * transaction of its own before the grace period that precedes its
 * change: src/trace/tracepoint.c, settle_begin).
 */
static const char *differs_exactly(const struct state *a,
				   const struct state *b, bool settled)
{
	static char why[128];

	for (int k = 0; k < NTP; k++) {
		struct tp_state x = a->tp[k];

		if (settled && !k) {
			x.data = b->tp[k].data;
			x.gen = b->tp[k].gen;
		}
		if (memcmp(&x, &b->tp[k], sizeof(x))) {
			snprintf(why, sizeof(why), "%s changed (log \"%s\", "
				 "was \"%s\")", tp_names[k], a->tp[k].log,
				 b->tp[k].log);
			return why;
		}
	}
	return walk_sites_why(&a->sites, &b->sites, "changed");
}

/*
 * The same probes, with the same data where it is the test's (the
 * counting probe's is a record of the library's).
 */
static bool same_probes(const struct tp_state *x, const struct tp_state *y)
{
	for (int i = 0; i < x->n && i < MAX_PROBES; i++) {
		const struct ulsm_tp_probe *p = &x->probes[i], *q = &y->probes[i];
		bool ours = p->func == (void *)p1 || p->func == (void *)p2 ||
			    p->func == (void *)p3;

		if (p->func != q->func || (ours && p->data != q->data) ||
		    (!p->data != !q->data))
			return false;
	}
	return true;
}

/* Does what @b does: the same probes, with their data, run the same. */
static const char *differs_in_effect(const struct state *a,
				     const struct state *b)
{
	static char why[128];

	for (int k = 0; k < NTP; k++) {
		const struct tp_state *x = &a->tp[k], *y = &b->tp[k];

		if (x->n != y->n || !same_probes(x, y) ||
		    strcmp(x->log, y->log) || (x->key > 0) != (y->key > 0) ||
		    x->info_probes != y->info_probes ||
		    x->counted != y->counted) {
			snprintf(why, sizeof(why), "%s: %d probes, log \"%s\", "
				 "key %d, %d listed, counted %d (want %d, "
				 "\"%s\", %d, %d, %d)", tp_names[k], x->n,
				 x->log, x->key, x->info_probes, x->counted,
				 y->n, y->log, y->key, y->info_probes,
				 y->counted);
			return why;
		}
	}
	return NULL;
}

/* --- workers ------------------------------------------------------------ */

static void *worker(void *arg)
{
	(void)arg;
	worker_arrives();
	for (unsigned long i = 1;; i++) {
		tlog[0] = 0;
		for (int k = 0; k < NTP; k++)
			hits[k]((int)i);
		/* Busy enough to meet breakpoints, idle enough to be cheap. */
		if (!(i % 256))
			usleep(20);
	}
	return NULL;
}

/* --- the transitions ---------------------------------------------------- */

enum op { OP_FIRST, OP_SECOND, OP_THIRD, OP_DROP_MIDDLE, OP_TO_ONE,
	  OP_TO_ZERO, OP_SETTLE, OP_GLOB, OP_GLOB_DETACH, OP_COUNT, OP_N };

static const char *const op_name[OP_N] = {
	"0 -> 1 (a direct call)", "1 -> 2 (the iterator)",
	"2 -> 3 (the slots)", "3 -> 2 (the middle one leaves)",
	"2 -> 1 (back to one probe)", "1 -> 0",
	"0 -> 1 on a tracepoint that was on (its data settled)",
	"a glob over three tracepoints", "that glob detached",
	"the tracepoints' own probes counting (ulsm_trace_count_begin)",
};

/*
 * A change of probes: probe @p (1, 2, 3: p1, p2, p3, each with its data)
 * attached to or detached from tracepoint @tp (TF_A, TF_B: in tps[]), or
 * attached to or detached from the three by the glob "tf_*", or the
 * tracepoints' counting probes begun.
 */
enum act { NONE, ATTACH, DETACH, GLOB_ATTACH, GLOB_DETACH, COUNT };
enum { TF_A, TF_B };

struct change {
	enum act act;
	int tp, p;
};

/*
 * Each transition: what every child does before it, without faults (up to
 * three changes, in order), and the change it makes.
 */
static const struct transition {
	struct change setup[3];
	struct change run;
} transitions[OP_N] = {
	[OP_FIRST] = { .run = { ATTACH, TF_A, 1 } },
	[OP_SECOND] = { { { ATTACH, TF_A, 1 } }, { ATTACH, TF_A, 2 } },
	[OP_THIRD] = { { { ATTACH, TF_A, 1 }, { ATTACH, TF_A, 2 } },
		       { ATTACH, TF_A, 3 } },
	[OP_DROP_MIDDLE] = { { { ATTACH, TF_A, 1 }, { ATTACH, TF_A, 2 },
			       { ATTACH, TF_A, 3 } }, { DETACH, TF_A, 2 } },
	[OP_TO_ONE] = { { { ATTACH, TF_A, 1 }, { ATTACH, TF_A, 2 } },
			{ DETACH, TF_A, 2 } },
	[OP_TO_ZERO] = { { { ATTACH, TF_A, 1 } }, { DETACH, TF_A, 1 } },
	[OP_SETTLE] = { { { ATTACH, TF_A, 1 }, { DETACH, TF_A, 1 } },
			{ ATTACH, TF_A, 2 } },
	[OP_GLOB] = { { { ATTACH, TF_B, 2 } }, { GLOB_ATTACH, 0, 1 } },
	[OP_GLOB_DETACH] = { { { ATTACH, TF_B, 2 }, { GLOB_ATTACH, 0, 1 } },
			     { GLOB_DETACH, 0, 1 } },
	[OP_COUNT] = { .run = { COUNT } },
};

/* Whether the transition detaches: its grace period's error is returned. */
static bool detaches(enum op op)
{
	enum act act = transitions[op].run.act;

	return act == DETACH || act == GLOB_DETACH;
}

static void must(int ret, int code)
{
	if (ret < 0) {
		printf("#   setup: %d (%s)\n", ret, ulsm_last_error());
		_exit(code);
	}
}

/* Makes the change @c: what the call returns. */
static int change(const struct change *c)
{
	static void (*const probe[])(void *, int) = { p1, p2, p3 };
	static int *const data[] = { &d1, &d2, &d3 };
	void *fn = c->p ? (void *)probe[c->p - 1] : NULL;
	int *d = c->p ? data[c->p - 1] : NULL;

	switch (c->act) {
	case ATTACH:
		return tracepoint_probe_register(tps[c->tp], fn, d);
	case DETACH:
		return tracepoint_probe_unregister(tps[c->tp], fn, d);
	case GLOB_ATTACH:
		return ulsm_trace_attach("tf_*", fn, d);
	case GLOB_DETACH:
		return ulsm_trace_detach("tf_*", fn, d);
	case COUNT:
		return ulsm_trace_count_begin();
	default:
		return -EINVAL;
	}
}

/* What every child does before the transition, without faults. */
static void setup(enum op op)
{
	for (int i = 0; i < 3 && transitions[op].setup[i].act != NONE; i++)
		must(change(&transitions[op].setup[i]), 91);
}

static int run(enum op op)
{
	return change(&transitions[op].run);
}

/* --- one child ---------------------------------------------------------- */

static const struct walk_mode modes[] = {
	{ ULSM_WRITE_AUTO, ULSM_SYNC_MEMBARRIER, "auto+membarrier" },
	{ ULSM_WRITE_PROCMEM, ULSM_SYNC_SIGNAL, "procmem+signal" },
};

static bool patching(void)
{
	return strcmp(ulsm_backend(), "generic") != 0;
}

static bool mode_usable(const struct walk_mode *m)
{
	return m->sync != ULSM_SYNC_SIGNAL ||
	       (patching() && signal_sync_usable());
}

/* What the counting child found, inherited by the walking children. */
static struct state before, after, now, pre;

/* The child's part: set up, fail call @n (0: none), check. */
static void child(enum op op, const struct walk_mode *m, unsigned long n,
		  int count_fd)
{
	const char *why;
	int ret;

	if (patching() &&
	    (ulsm_set_write_mode(m->write) || ulsm_set_sync_mode(m->sync)))
		_exit(94);
	if (!getenv("ULSM_DEBUG")) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(97);	/* the library's notices, expected */
		ulsm_set_log(quiet, NULL);
	}
	setup(op);
	start_workers(worker);
	take(&pre);
	if (count_fd < 0 && (why = differs_in_effect(&pre, &before)))
		bad("the set-up differs from the counting run's: %s", why);

	arm(n, 0, 0);		/* each kind's usual errno */
	ret = run(op);
	disarm();

	if (count_fd >= 0) {
		/* The counting run: no fault; record what it did. */
		if (ret < 0)
			bad("the transition fails without a fault: %d (%s)",
			    ret, ulsm_last_error());
		ncalls = ulsm_fault.calls;
		take(&after);
		walk_count_send(count_fd, ncalls, &pre, &after, sizeof(after));
	}

	take(&now);
	if (ret >= 0) {
		if ((why = differs_in_effect(&now, &after)))
			bad("returned %d, but does not do what it should: %s",
			    ret, why);
	} else if ((why = differs_exactly(&now, &pre, op == OP_SETTLE))) {
		if (!detaches(op) || differs_in_effect(&now, &after))
			bad("returned %d (%s), but %s", ret, ulsm_last_error(),
			    why);
	} else {
		if (!ulsm_fault.failed)
			bad("returned %d (%s) with no fault injected", ret,
			    ulsm_last_error());
		/* The same transition, without a fault, now succeeds. */
		ret = run(op);
		take(&now);
		if (ret < 0 || (why = differs_in_effect(&now, &after)))
			bad("the transition without a fault fails afterwards: "
			    "%d (%s)", ret, why ? why : ulsm_last_error());
		ret = -1;
	}
	if (static_branch_enable(&spare_key))
		bad("the next update fails: %s", ulsm_last_error());
	if (__atomic_load_n(&wrong, __ATOMIC_RELAXED))
		bad("%lu probe calls with another probe's data", wrong);
	_exit(ret < 0 ? REFUSED : DONE);
}

static void walk(enum op op, const struct walk_mode *m, unsigned long stride)
{
	struct walk_tally t = { 0 };
	int fd;
	pid_t pid;

	if (!mode_usable(m)) {
		ok(1, "# SKIP %s, %s: no signal sync here", op_name[op],
		   m->name);
		return;
	}
	pid = walk_count_fork(&fd);
	if (!pid)
		child(op, m, 0, fd);
	if (!walk_count_read(pid, fd, &before, &after, sizeof(after))) {
		ok(0, "%s, %s: the counting run", op_name[op], m->name);
		return;
	}

	for (unsigned long n = 1; n <= ncalls && n <= ULSM_FAULT_LOG;
	     n += stride) {
		if (walk_skip(n))
			continue;
		pid = walk_fork();
		if (!pid)
			child(op, m, n, -1);
		if (!walk_tally(&t, wait_child(pid)))
			printf("#   ^ %s, %s, call %lu (%s) fails\n",
			       op_name[op], m->name, n,
			       ulsm_sys_name((enum ulsm_sys)kinds[n - 1]));
	}
	ok(!t.wrong && ncalls && t.refused, "%s, %s: %lu calls, %lu runs: %lu "
	   "done, %lu refused with nothing changed, %lu wrong", op_name[op],
	   patching() ? m->name : "no text written", ncalls, t.tried, t.done,
	   t.refused, t.wrong);
}

int main(int argc, char **argv)
{
	unsigned long stride = (unsigned long)arg_long(argc, argv, "--stride",
						       1);
	bool few = false;

#ifdef UNDER_TSAN
	few = true;
#endif
	few = few || under_emulator();
	if (!stride)
		stride = 1;
	diag("back end %s", ulsm_backend());
	for (int op = 0; op < OP_N; op++)
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			if ((few || !patching()) && m) {
				ok(1, "# SKIP %s, %s: one mode %s", op_name[op],
				   modes[m].name, patching() ? "here" :
				   "on the generic back end");
				continue;
			}
			walk((enum op)op, &modes[m], few ? 4 * stride : stride);
		}
	return done_testing();
}
