// SPDX-License-Identifier: MIT
/*
 * The order string's grammar, and its cost.
 *
 *  - One tokenizer for names and "!name" removals: blanks (space, tab) are
 *    trimmed the same way before and after the name, and between "!" and
 *    the name. Every combination is checked for names, and for removals
 *    after the names, before them, and alone (the default order minus
 *    it); then removals of a first and a last module, and what is not a
 *    name.
 *  - Parsing is linear: a 1 MB order string of repeated known names,
 *    unknown names, removals and blanks initialises well within the
 *    alarm(60) that turns a quadratic regression into a failure (it took
 *    about 25 minutes when every entry rescanned the whole string). The
 *    time is printed, not asserted: machines here are shared.
 *  - An entry with blanks before "!" and after the name (" !alpha ") made
 *    the old parser loop for ever; each child has the same alarm.
 *
 * Each case runs ulsm_lsm_init() in a child (a set is initialised once per
 * process) and reports through a pipe. Besides the test modules
 * (tests/lsm/test_lsm.h), this program has three modules without hooks,
 * zz1, zz2 and zz3: they come up without taking a slot, so that an order
 * longer than MAX_LSM_COUNT shows in the list.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "tap.h"
#include "test_lsm.h"

static const struct lsm_id zz_ids[] = {
	{ "zz1", 901 }, { "zz2", 902 }, { "zz3", 903 },
};

DEFINE_LSM(zz1) = { .name = "zz1", .id = &zz_ids[0] };
DEFINE_LSM(zz2) = { .name = "zz2", .id = &zz_ids[1] };
DEFINE_LSM(zz3) = { .name = "zz3", .id = &zz_ids[2] };

struct result {
	int ret;
	int status;		/* the child's wait status */
	long long ns;		/* ulsm_lsm_init() */
	char list[256];
};

static void parse_child(void *arg)
{
	const char *order = arg;
	struct timespec t0, t1;
	struct result r;

	memset(&r, 0, sizeof(r));
	/* A quadratic parser must fail the test, not hang it. */
	alarm(60);
	unsetenv("ULSM_LSM");
	tl_defaults();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r.ret = ulsm_lsm_init(&tl_hook_set, order);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r.ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL +
	       (t1.tv_nsec - t0.tv_nsec);
	snprintf(r.list, sizeof(r.list), "%s", ulsm_lsm_list(&tl_hook_set));
	child_send(&r, sizeof(r));
}

/* ulsm_lsm_init(@order) in a child (SIGALRM after 60 s: a hang). */
static struct result run(const char *order)
{
	struct result r;

	if (in_child("init", parse_child, (void *)(uintptr_t)order, &r,
		     sizeof(r)) != sizeof(r)) {
		memset(&r, 0, sizeof(r));
		r.ret = -9999;
		snprintf(r.list, sizeof(r.list), "(no answer)");
	}
	r.status = child_status;
	return r;
}

/* Show blanks and newlines in test names: "\t" as "\\t". */
static const char *shown(const char *s)
{
	static char buf[128];
	size_t n = 0;

	for (; *s && n + 3 < sizeof(buf); s++) {
		if (*s == '\t' || *s == '\n') {
			buf[n++] = '\\';
			buf[n++] = *s == '\t' ? 't' : 'n';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
	return buf;
}

static void order_is(const char *order, const char *want, const char *why)
{
	struct result r = run(order);

	ok(r.ret == 0 && !strcmp(r.list, want), "%s: \"%s\" -> \"%s\"%s%s",
	   why, shown(order), want, strcmp(r.list, want) ? ", got " : "",
	   strcmp(r.list, want) ? r.list : "");
}

/* Blanks before, after, both, tabs, mixed; and between "!" and the name. */
static const char *const pre[] = { "", " ", "\t", " \t " };
static const char *const post[] = { "", " ", "\t", " \t" };
static const char *const bang[] = { "", " ", "\t", " \t " };

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static void blanks(void)
{
	char order[128], rm[32];

	/* Names: every combination means beta. */
	for (size_t i = 0; i < N(pre); i++)
		for (size_t j = 0; j < N(post); j++) {
			snprintf(order, sizeof(order), "%sbeta%s", pre[i], post[j]);
			order_is(order, "capa,beta,omega", "name");
		}

	/*
	 * Removals: blanks before "!", between "!" and the name, after the
	 * name, in every combination; of a listed module, and as the whole
	 * order (the default minus it).
	 */
	for (size_t i = 0; i < N(pre); i++)
		for (size_t k = 0; k < N(bang); k++)
			for (size_t j = 0; j < N(post); j++) {
				snprintf(rm, sizeof(rm), "%s!%salpha%s", pre[i],
					 bang[k], post[j]);
				snprintf(order, sizeof(order), "alpha,beta,%s", rm);
				order_is(order, "capa,beta,omega", "removal");
				snprintf(order, sizeof(order), "%s,alpha,beta", rm);
				order_is(order, "capa,beta,omega", "removal first");
				order_is(rm, "capa,beta,gamma",
					 "removals only: the built-in order minus "
					 "alpha (omega does not fit)");
			}
	order_is("beta, ! capa ,\t!\tomega\t", "beta", "removal of first and last");

	/* What is not a name. */
	order_is("!", "capa,alpha,beta", "a lone \"!\" removes nothing (default)");
	order_is(" ! \t, ,\t", "capa,alpha,beta", "blanks and \"!\" only (default)");
	order_is("!,beta", "capa,beta,omega", "an empty removal is ignored");
	order_is("!!beta,beta", "capa,beta,omega",
		 "\"!!beta\" removes a module named \"!beta\" (none)");
	order_is("be ta,beta", "capa,beta,omega", "blanks inside a name are part of it");
	order_is("be ta", "capa,omega", "an unknown name still names a module");
	order_is(",,beta,,", "capa,beta,omega", "empty entries ignored");
	order_is("!beta,beta", "capa,omega",
		 "a removal counts wherever it stands");
	order_is("beta\n", "capa,omega",
		 "a newline is not a blank: \"beta\\n\" is unknown");
}

/*
 * A 1 MB order string: repeated known names (duplicates), unknown names,
 * removals of first, last and listed modules with blanks everywhere, and
 * empty entries; then beta.
 */
static void megabyte(void)
{
	static const char unit[] = " zz2 ,\tnosuch_module , ! capa ,, zz1\t,"
				   "!zz3 , zz3 ,\t,!\tomega ,zz2,";
	size_t len = 1u << 20, n = 0;
	char *order = malloc(len + 16);
	struct result r;

	if (!order)
		abort();
	while (n + sizeof(unit) - 1 <= len) {
		memcpy(order + n, unit, sizeof(unit) - 1);
		n += sizeof(unit) - 1;
	}
	memcpy(order + n, "beta", 5);
	r = run(order);
	ok(r.ret == 0 && !strcmp(r.list, "zz2,zz1,beta"),
	   "a %zu-byte order string: \"zz2,zz1,beta\" (got \"%s\", %d)",
	   n + 4, r.list, r.ret);
	ok(WIFEXITED(r.status), "  within the 60 s alarm");
	if (r.ret == 0)
		diag("ulsm_lsm_init with a %zu-byte order string: %.3f ms",
		     n + 4, (double)r.ns / 1e6);
	free(order);
}

int main(void)
{
	order_is("zz3,zz1,beta,zz2", "capa,zz3,zz1,beta,zz2,omega",
		 "modules without hooks come up without a slot");
	blanks();
	megabyte();
	return done_testing();
}
