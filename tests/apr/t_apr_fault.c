// SPDX-License-Identifier: MIT
/*
 * APR refills, all or nothing, by injection (issue 41). Each change of a
 * hook's array through the drop-in refills its slots in one update
 * (src/apr/apr_hooks.c): its keys, its calls, and which array it was
 * filled from and how many slots are in use, as stores of the update.
 * Each change below is run once without a fault, to count the system
 * calls and allocations the refill makes and record what it leaves; then
 * once per call, with that call failing (src/base/sys.h). Each run must
 * end with
 *
 *   - every hook's keys, calls, words (from, filled) and sites as after
 *     the fault-free run, and its results as there; or
 *   - every hook's keys, calls, words and sites exactly as before, a
 *     message on standard error, and each hook's results as before: the
 *     functions it called before where the array grew in place, APR's
 *     walk of the array where the change replaced it (a first
 *     registration, a sort, a deregistration), which gives the results
 *     the fault-free run gives; never a half-filled hook;
 *
 * and a sort through the drop-in, without a fault, must then bring every
 * hook in line. The hooks: a RUN_FIRST, a VOID and a RUN_ALL, whose
 * functions log a letter each.
 *
 * --stride N walks every N-th call.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#ifdef HAVE_APR
#include <apr_general.h>
#include <apr_hooks.h>
#include <apr_pools.h>
#include <ulsm/ulsm.h>

#include "faultwalk.h"
#include "runtime.h"

#define FA_DECLARE(type)	type

APR_DECLARE_EXTERNAL_HOOK(fa, FA, int, first, (int x))
APR_DECLARE_EXTERNAL_HOOK(fa, FA, void, note, (int x))
APR_DECLARE_EXTERNAL_HOOK(fa, FA, int, all, (int x))

APR_HOOK_STRUCT(APR_HOOK_LINK(first) APR_HOOK_LINK(note) APR_HOOK_LINK(all))

APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(fa, FA, int, first, (int x), (x), -1)
APR_IMPLEMENT_EXTERNAL_HOOK_VOID(fa, FA, note, (int x), (x))
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(fa, FA, int, all, (int x), (x), 0, -1)

/* --- the functions: each logs a letter --------------------------------- */

static char flog[64];

static void logc(char c)
{
	size_t n = strlen(flog);

	if (n + 1 < sizeof(flog)) {
		flog[n] = c;
		flog[n + 1] = 0;
	}
}

/* One a line, as a table: a letter logged, a result. */
static __attribute__((noinline)) int f_decline(int x) { (void)x; logc('d'); return -1; }
static __attribute__((noinline)) int f_plus1(int x) { logc('p'); return x + 1; }
static __attribute__((noinline)) int f_times2(int x) { logc('t'); return 2 * x; }

static __attribute__((noinline)) void n_a(int x) { (void)x; logc('a'); }
static __attribute__((noinline)) void n_b(int x) { (void)x; logc('b'); }
static __attribute__((noinline)) void n_c(int x) { (void)x; logc('c'); }

static __attribute__((noinline)) int a_ok(int x) { (void)x; logc('o'); return 0; }
static __attribute__((noinline)) int a_decline(int x) { (void)x; logc('x'); return -1; }
static __attribute__((noinline)) int a_err(int x) { logc('e'); return 7 + x; }

/* --- what the hooks are, and do ---------------------------------------- */

#define NHOOKS		3

static struct ulsm_apr_hook *const hooks[NHOOKS] = {
	&ULSM__APR_P(fa, first, hook), &ULSM__APR_P(fa, note, hook),
	&ULSM__APR_P(fa, all, hook),
};

struct hook_state {
	bool direct, single, tail[ULSM_APR_SLOTS];
	void *call[ULSM_APR_SLOTS], *tcall[ULSM_APR_SLOTS], *run;
	int filled;
	bool from_is_link;
	const void *from;		/* compared within one process only */
};

struct results {
	int first, all;
	char log[3][64];
};

struct state {
	struct hook_state h[NHOOKS];
	struct results r;
	struct walk_sites sites;
};

static void run_hooks(struct results *r)
{
	memset(r, 0, sizeof(*r));
	flog[0] = 0;
	r->first = fa_run_first(5);
	memcpy(r->log[0], flog, sizeof(flog));
	flog[0] = 0;
	fa_run_note(3);
	memcpy(r->log[1], flog, sizeof(flog));
	flog[0] = 0;
	r->all = fa_run_all(2);
	memcpy(r->log[2], flog, sizeof(flog));
}

/* Dispatch runs the hooks: only when asked (the stale message). */
static void take(struct state *s, bool dispatch)
{
	memset(s, 0, sizeof(*s));
	for (int k = 0; k < NHOOKS; k++) {
		const struct ulsm_apr_hook *h = hooks[k];
		struct hook_state *t = &s->h[k];

		t->direct = static_key_enabled(h->direct);
		t->single = static_key_enabled(h->single);
		for (int i = 0; i < h->nslots; i++) {
			t->tail[i] = static_key_enabled(&h->tail[i]);
			t->call[i] = h->calls[i].func;
			t->tcall[i] = h->tcalls ? h->tcalls[i].func : NULL;
		}
		t->run = h->run ? h->run->func : NULL;
		t->filled = h->filled;
		t->from = h->from;
		t->from_is_link = h->from == *h->link;
	}
	if (dispatch)
		run_hooks(&s->r);
	walk_sites_take(&s->sites);
}

/*
 * The drop-in's state of every hook as @b's: @exact, the same arrays
 * (within one process) whatever APR's links are now; else each filled
 * from its link, as @b's were.
 */
static const char *differs(const struct state *a, const struct state *b,
			   bool exact)
{
	static char why[96];

	for (int k = 0; k < NHOOKS; k++) {
		struct hook_state x = a->h[k];

		if (exact)
			x.from_is_link = b->h[k].from_is_link;
		else
			x.from = b->h[k].from;
		if (memcmp(&x, &b->h[k], sizeof(x))) {
			snprintf(why, sizeof(why), "hook %s: keys, calls or "
				 "words differ (filled %d, want %d)",
				 hooks[k]->name, x.filled, b->h[k].filled);
			return why;
		}
	}
	return walk_sites_why(&a->sites, &b->sites, "differs");
}

static const char *results_differ(const struct results *a,
				  const struct results *b)
{
	static char why[512];

	if (a->first == b->first && a->all == b->all &&
	    !strcmp(a->log[0], b->log[0]) && !strcmp(a->log[1], b->log[1]) &&
	    !strcmp(a->log[2], b->log[2]))
		return NULL;
	snprintf(why, sizeof(why), "results first %d \"%s\", note \"%s\", "
		 "all %d \"%s\" (want %d \"%s\", \"%s\", %d \"%s\")",
		 a->first, a->log[0], a->log[1], a->all, a->log[2], b->first,
		 b->log[0], b->log[1], b->all, b->log[2]);
	return why;
}

/* --- the changes ------------------------------------------------------- */

/*
 * A registration: one function on one of the hooks (the other two NULL),
 * at @order. A list of them ends with an entry of no function.
 */
struct reg {
	int (*first)(int);
	void (*note)(int);
	int (*all)(int);
	int order;
};

static void register_all(const struct reg *r)
{
	for (; r && (r->first || r->note || r->all); r++) {
		if (r->first)
			fa_hook_first(r->first, NULL, NULL, r->order);
		else if (r->note)
			fa_hook_note(r->note, NULL, NULL, r->order);
		else
			fa_hook_all(r->all, NULL, NULL, r->order);
	}
}

/* Registered out of order: the sort reorders first's. */
static const struct reg out_of_order[] = {
	{ .first = f_plus1, .order = APR_HOOK_MIDDLE },
	{ .first = f_times2, .order = APR_HOOK_FIRST },
	{ .note = n_a, .order = APR_HOOK_FIRST },
	{ .note = n_c, .order = APR_HOOK_LAST },
	{ .all = a_decline, .order = APR_HOOK_FIRST },
	{ .all = a_err, .order = APR_HOOK_MIDDLE },
	{ 0 }
};

#define REGS(...)	((const struct reg[]){ __VA_ARGS__, { 0 } })

/*
 * A change: what is registered before it (@setup), then the change, which
 * registers @add or calls @call (the drop-in's: the header's macros).
 * @replaces: whether the change replaces the array, so that a hook left
 * as it was walks the new one (the results of the fault-free run); else
 * it grew in place and a hook left as it was calls what it called before.
 */
static const struct change {
	const char *name;
	const struct reg *setup, *add;
	void (*call)(void);
	bool replaces;
} changes[] = {
	{ "a hook's first registration (its array made)", NULL,
	  REGS({ .first = f_plus1, .order = APR_HOOK_MIDDLE }), NULL, true },
	{ "RUN_FIRST from one function to two",
	  REGS({ .first = f_decline, .order = APR_HOOK_FIRST }),
	  REGS({ .first = f_plus1, .order = APR_HOOK_MIDDLE }), NULL, false },
	{ "VOID from two functions to three",
	  REGS({ .note = n_a, .order = APR_HOOK_FIRST },
	       { .note = n_b, .order = APR_HOOK_MIDDLE }),
	  REGS({ .note = n_c, .order = APR_HOOK_LAST }), NULL, false },
	{ "RUN_ALL from one function to two",
	  REGS({ .all = a_ok, .order = APR_HOOK_FIRST }),
	  REGS({ .all = a_err, .order = APR_HOOK_MIDDLE }), NULL, false },
	{ "a sort of every hook (apr_hook_sort_all)", out_of_order, NULL,
	  apr_hook_sort_all, true },
	{ "a deregistration of every hook (apr_hook_deregister_all)",
	  out_of_order, NULL, apr_hook_deregister_all, true },
};

#define NCHANGES	((int)(sizeof(changes) / sizeof(changes[0])))

static void run(const struct change *c)
{
	register_all(c->add);
	if (c->call)
		c->call();
}

/* --- one child --------------------------------------------------------- */

static struct state pre, now, before, after;
static apr_pool_t *pool;

/* What the child wrote on standard error since @f was made its stderr. */
static const char *stderr_text(FILE *f)
{
	static char text[4096];
	size_t n;

	fflush(stderr);
	rewind(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	return text;
}

static void child(const struct change *c, unsigned long n, int count_fd)
{
	FILE *err = tmpfile();
	const char *why, *said;

	if (!err || dup2(fileno(err), 2) < 0)
		_exit(97);
	if (!getenv("ULSM_DEBUG"))
		ulsm_set_log(quiet, NULL);
	register_all(c->setup);
	take(&pre, true);
	if (count_fd < 0 && (why = differs(&pre, &before, false)))
		bad("the set-up differs from the counting run's: %s", why);

	arm(n, 0, 0);		/* each kind's usual errno */
	run(c);
	disarm();

	if (count_fd >= 0) {
		ncalls = ulsm_fault.calls;
		take(&after, true);
		walk_count_send(count_fd, ncalls, &pre, &after, sizeof(after));
	}

	take(&now, false);
	said = stderr_text(err);
	if (!differs(&now, &after, false)) {
		take(&now, true);
		if ((why = results_differ(&now.r, &after.r)))
			bad("filled, but %s", why);
		if (strstr(said, "could not be updated"))
			bad("filled, but says it failed");
		_exit(DONE);
	}
	if ((why = differs(&now, &pre, true)))
		bad("neither filled nor as it was: %s", why);
	if (!ulsm_fault.failed)
		bad("left as it was with no fault injected");
	if (!strstr(said, "could not be updated"))
		bad("left as it was, and nothing says so on stderr");
	take(&now, true);
	if ((why = results_differ(&now.r, c->replaces ? &after.r : &pre.r)))
		bad("left as it was, but %s", why);

	/*
	 * A change through the drop-in, without a fault, refills them all.
	 * Not under ThreadSanitizer after a failed membarrier: the engine
	 * then synchronises by signal, and TSan's own thread blocks every
	 * signal, so each later update is refused, as it says (the native
	 * runs check this step after that fault too).
	 */
#ifdef UNDER_TSAN
	if (strstr(said, "membarrier"))
		_exit(REFUSED);
#endif
	apr_hook_sort_all();
	take(&now, true);
	if ((why = results_differ(&now.r, &after.r)))
		bad("a sort afterwards does not bring them in line: %s", why);
	for (int k = 0; k < NHOOKS; k++)
		if (!now.h[k].from_is_link && *hooks[k]->link)
			bad("hook %s: still not filled from its array after "
			    "a sort", hooks[k]->name);
	_exit(REFUSED);
}

static void walk(const struct change *c, unsigned long stride)
{
	struct walk_tally t = { 0 };
	int fd;
	pid_t pid;

	pid = walk_count_fork(&fd);
	if (!pid)
		child(c, 0, fd);
	if (!walk_count_read(pid, fd, &before, &after, sizeof(after))) {
		ok(0, "%s: the counting run", c->name);
		return;
	}
	if (!results_differ(&before.r, &after.r))
		diag("%s: the change does not change the results", c->name);

	for (unsigned long n = 1; n <= ncalls; n += stride) {
		if (walk_skip(n))
			continue;
		pid = walk_fork();
		if (!pid)
			child(c, n, -1);
		if (!walk_tally(&t, wait_child(pid)))
			printf("#   ^ %s, call %lu fails\n", c->name, n);
	}
	ok(!t.wrong && ncalls && t.refused, "%s: %lu calls, %lu runs: %lu "
	   "filled, %lu left as they were, %lu wrong", c->name, ncalls,
	   t.tried, t.done, t.refused, t.wrong);
}

int main(int argc, char **argv)
{
	unsigned long stride = (unsigned long)arg_long(argc, argv, "--stride",
						       1);
	bool few = under_emulator();

#ifdef UNDER_TSAN
	few = true;
#endif
	if (!stride)
		stride = 1;
	if (apr_initialize() || apr_pool_create(&pool, NULL)) {
		ok(0, "APR initialises");
		return done_testing();
	}
	apr_hook_global_pool = pool;
	diag("back end %s", ulsm_backend());
	for (int i = 0; i < NCHANGES; i++)
		walk(&changes[i], few ? 4 * stride : stride);
	return done_testing();
}

#else
#include "no_apr.h"	/* main: the test says it skipped */
#endif
