// SPDX-License-Identifier: MIT
/*
 * ulsmctl top: a program's activity, live (ulsmctl(1)): per tracepoint
 * its hits per second, per hook set and module its calls and refusals
 * per second, from two counts an interval apart.
 *
 * The endpoint's "counts" (docs/control.md) returns totals since
 * counting was attached, with the time they were read (its monotonic
 * "ns"): the first one on a connection attaches counting, which stays
 * while the connection is open. So top keeps one connection, and a
 * rate is the difference of two totals over the difference of their
 * times (ulsmctl's own clock when an endpoint sends no "ns"). A total
 * that went down (counting attached again) counts from zero.
 *
 * Each sample is one request under the deadline (--timeout). The live
 * view redraws every interval, clearing the screen only when standard
 * output is a terminal; --once prints one sample, two counts an interval
 * apart, and exits (--json with it: the sample as JSON).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ulsmctl.h"
#include "json.h"

struct sample {
	struct json j;
	double ns;
};

/*
 * The previous sample's totals, by name (a tracepoint's; a set's and a
 * module's): an open-addressing table, so that a sample of many names
 * is matched in linear time.
 */
struct totals {
	struct slot {
		const char *set, *name;	/* in the previous sample's pool */
		size_t slen, nlen;
		bool module;
		double a, b;		/* hits; or calls and refusals */
	} *v;
	size_t size;
};

/* FNV-1a over the set's name, a separator, and the name. */
static uint64_t hash(const char *set, size_t slen, const char *name,
		     size_t nlen)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < slen; i++)
		h = (h ^ (unsigned char)set[i]) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (size_t i = 0; i < nlen; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
	return h;
}

/* A tracepoint's slot (@set NULL), or a module's. */
static struct slot *find(struct totals *t, const char *set, size_t slen,
			 const char *name, size_t nlen, bool add)
{
	bool module = set != NULL;

	size_t i;

	if (!t->size)
		return NULL;
	i = hash(set, slen, name, nlen) & (t->size - 1);
	for (;; i = (i + 1) & (t->size - 1)) {
		struct slot *s = &t->v[i];

		if (!s->name)
			break;
		if (s->module == module && s->slen == slen &&
		    s->nlen == nlen && (!slen || !memcmp(s->set, set, slen)) &&
		    !memcmp(s->name, name, nlen))
			return s;
	}
	if (!add)
		return NULL;
	t->v[i] = (struct slot){ set, name, slen, nlen, module, 0, 0 };
	return &t->v[i];
}

static double num(const struct json *j, const struct json_node *o,
		  const char *key)
{
	return json_num(j, json_get(j, o, key), 0);
}

static const char *str(const struct json *j, const struct json_node *o,
		       size_t *len)
{
	const char *s = json_str(j, json_get(j, o, "name"), len);

	if (!s) {
		*len = 1;
		return "-";
	}
	return s;
}

/* The totals of @s, by name (sample @s must outlive them). */
static void index_sample(struct totals *t, const struct sample *s)
{
	const struct json *j = &s->j;
	const struct json_node *root = json_root(j);
	size_t n = 0;

	for (const struct json_node *v = json_first(j, json_get(j, root,
				"tracepoints")); v; v = json_next(j, v))
		n++;
	for (const struct json_node *set = json_first(j, json_get(j, root,
				"sets")); set; set = json_next(j, set))
		for (const struct json_node *m = json_first(j, json_get(j, set,
					"modules")); m; m = json_next(j, m))
			n++;
	free(t->v);
	for (t->size = 16; t->size < 2 * n; t->size *= 2)
		;
	t->v = calloc(t->size, sizeof(*t->v));
	if (!t->v)
		die("out of memory");
	for (const struct json_node *v = json_first(j, json_get(j, root,
				"tracepoints")); v; v = json_next(j, v)) {
		size_t len;
		const char *name = str(j, v, &len);
		struct slot *sl = find(t, NULL, 0, name, len, true);

		sl->a = num(j, v, "hits");
	}
	for (const struct json_node *set = json_first(j, json_get(j, root,
				"sets")); set; set = json_next(j, set)) {
		size_t slen;
		const char *sname = str(j, set, &slen);

		for (const struct json_node *m = json_first(j, json_get(j, set,
					"modules")); m; m = json_next(j, m)) {
			size_t len;
			const char *name = str(j, m, &len);
			struct slot *sl = find(t, sname, slen, name, len,
					       true);

			sl->a = num(j, m, "calls");
			sl->b = num(j, m, "refusals");
		}
	}
}

/* cur - prev per second; a total that went down starts again at 0. */
static double rate(double cur, double prev, double secs)
{
	double d = cur >= prev ? cur - prev : cur;

	return secs > 0 ? d / secs : 0;
}

static void sample(struct conn *c, struct sample *s)
{
	struct timespec ts;

	c->deadline = now_ms() + opt.timeout_ms;
	ctl_ask(c, "counts\n", "counts", &s->j);
	if (!json_root(&s->j) || json_root(&s->j)->type != JSON_OBJECT)
		die("counts: the reply is not a JSON object");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->ns = json_num(&s->j, json_get(&s->j, json_root(&s->j), "ns"), -1);
	if (s->ns < 0)
		s->ns = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void print_json(pid_t pid, const struct sample *s,
		       struct totals *prev, double secs)
{
	const struct json *j = &s->j;
	const struct json_node *root = json_root(j);
	bool first = true;

	printf("{\"pid\":%d,\"interval_s\":%.3f,\"tracepoints\":[",
	       (int)pid, secs);
	for (const struct json_node *v = json_first(j, json_get(j, root,
				"tracepoints")); v; v = json_next(j, v)) {
		size_t len;
		const char *name = str(j, v, &len);
		struct slot *p = find(prev, NULL, 0, name, len, false);
		double hits = num(j, v, "hits");

		printf("%s{\"name\":", first ? "" : ",");
		json_write_str(stdout, name, len);
		printf(",\"hits\":%.0f,\"per_s\":%.1f}", hits,
		       rate(hits, p ? p->a : 0, secs));
		first = false;
	}
	printf("],\"sets\":[");
	first = true;
	for (const struct json_node *set = json_first(j, json_get(j, root,
				"sets")); set; set = json_next(j, set)) {
		size_t slen;
		const char *sname = str(j, set, &slen);
		bool mfirst = true;

		printf("%s{\"name\":", first ? "" : ",");
		json_write_str(stdout, sname, slen);
		printf(",\"modules\":[");
		for (const struct json_node *m = json_first(j, json_get(j, set,
					"modules")); m; m = json_next(j, m)) {
			size_t len;
			const char *name = str(j, m, &len);
			struct slot *p = find(prev, sname, slen, name, len,
					      false);
			double calls = num(j, m, "calls");
			double refusals = num(j, m, "refusals");

			printf("%s{\"name\":", mfirst ? "" : ",");
			json_write_str(stdout, name, len);
			printf(",\"calls\":%.0f,\"refusals\":%.0f,"
			       "\"calls_per_s\":%.1f,\"refusals_per_s\":%.1f}",
			       calls, refusals, rate(calls, p ? p->a : 0, secs),
			       rate(refusals, p ? p->b : 0, secs));
			mfirst = false;
		}
		printf("]}");
		first = false;
	}
	printf("]}\n");
}

static void print_table(pid_t pid, const char *comm, size_t clen,
			const struct sample *s, struct totals *prev,
			double secs)
{
	const struct json *j = &s->j;
	const struct json_node *root = json_root(j);
	const struct json_node *tps = json_get(j, root, "tracepoints");
	const struct json_node *sets = json_get(j, root, "sets");
	int w = 10;

	esc_put(stdout, comm, clen);
	printf(" (pid %d): rates over %.2f s\n", (int)pid, secs);
	for (const struct json_node *v = json_first(j, tps); v;
	     v = json_next(j, v)) {
		size_t len;
		const char *name = str(j, v, &len);
		int vw = esc_width(name, len);

		w = vw > w ? (vw > 32 ? 32 : vw) : w;
	}
	if (json_first(j, tps))
		printf("\n%-*s  %10s  %12s\n", w, "TRACEPOINT", "HITS/S",
		       "TOTAL");
	for (const struct json_node *v = json_first(j, tps); v;
	     v = json_next(j, v)) {
		size_t len;
		const char *name = str(j, v, &len);
		struct slot *p = find(prev, NULL, 0, name, len, false);
		double hits = num(j, v, "hits");

		esc_pad(stdout, name, len, w);
		printf("  %10.1f  %12.0f\n", rate(hits, p ? p->a : 0, secs),
		       hits);
	}
	for (const struct json_node *set = json_first(j, sets); set;
	     set = json_next(j, set)) {
		size_t slen;
		const char *sname = str(j, set, &slen);
		int mw = 6;

		printf("\nHOOK SET ");
		esc_put(stdout, sname, slen);
		putchar('\n');
		for (const struct json_node *m = json_first(j, json_get(j, set,
					"modules")); m; m = json_next(j, m)) {
			size_t len;
			const char *name = str(j, m, &len);
			int vw = esc_width(name, len);

			mw = vw > mw ? (vw > 32 ? 32 : vw) : mw;
		}
		printf("  %-*s  %10s  %10s\n", mw, "MODULE", "CALLS/S",
		       "REFUSALS/S");
		for (const struct json_node *m = json_first(j, json_get(j, set,
					"modules")); m; m = json_next(j, m)) {
			size_t len;
			const char *name = str(j, m, &len);
			struct slot *p = find(prev, sname, slen, name, len,
					      false);

			fputs("  ", stdout);
			esc_pad(stdout, name, len, mw);
			printf("  %10.1f  %10.1f\n",
			       rate(num(j, m, "calls"), p ? p->a : 0, secs),
			       rate(num(j, m, "refusals"), p ? p->b : 0,
				    secs));
		}
	}
	if (!json_first(j, tps) && !json_first(j, sets))
		printf("\nno tracepoints, no hook sets\n");
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

int cmd_top(pid_t pid)
{
	struct sample a = { .ns = 0 }, b = { .ns = 0 };
	struct totals prev = { NULL, 0 };
	const char *comm;
	struct conn c;
	struct json hello;
	size_t clen;
	bool tty = isatty(1);

	/*
	 * The backstop covers each sample: a request, or for --once the
	 * two and the interval between them.
	 */
	backstop_arm(now_ms() + 2 * opt.timeout_ms + opt.interval_ms +
		     BACKSTOP_MS);
	ctl_connect(&c, pid, now_ms() + opt.timeout_ms);
	ctl_ask(&c, "hello\n", "hello", &hello);
	comm = json_str(&hello, json_get(&hello, json_root(&hello),
					 "command"), &clen);
	if (!comm)
		comm = "-", clen = 1;
	ctl_newer("; top needs an endpoint that counts (\"counts\"): "
		  "this program's library is older");
	sample(&c, &a);
	for (;;) {
		double secs;

		pause_ms(opt.interval_ms);
		backstop_arm(now_ms() + opt.timeout_ms + opt.interval_ms +
			     BACKSTOP_MS);
		sample(&c, &b);
		secs = (b.ns - a.ns) / 1e9;
		index_sample(&prev, &a);
		if (opt.json) {
			print_json(pid, &b, &prev, secs);
		} else {
			if (tty && !opt.once)
				fputs("\033[H\033[2J", stdout);
			print_table(pid, comm, clen, &b, &prev, secs);
		}
		fflush(stdout);
		json_free(&a.j);
		a = b;
		if (opt.once)
			break;
	}
	json_free(&a.j);
	json_free(&hello);
	free(prev.v);
	conn_close(&c);
	return 0;
}
