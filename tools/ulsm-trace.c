// SPDX-License-Identifier: MIT
/*
 * ulsm-trace - turn the recorder's file (ulsm_trace_write(), ULSM_TRACE)
 * into text or into Chrome trace-event JSON, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open.
 *
 *	ulsm-trace [--text | --json] FILE
 *
 * Text: one line per event, in time order:
 *	<seconds since the first event> <tid> <tracepoint> <arg>=<value> ...
 * JSON: {"traceEvents": [...]}, one event per record: a tracepoint whose
 * name ends in _begin or _start opens a slice (ph "B") named without the
 * suffix, one ending in _end or _done closes it (ph "E"), any other is an
 * instant event (ph "i"); the arguments are in "args". Times are in
 * microseconds since the first event.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct event {
	uint64_t ns;
	uint32_t id;
	uint32_t n;
	uint64_t w[6];
};

struct name {
	uint32_t id;
	uint32_t nargs;
	char *name;
	char *args;		/* the buffer argv points into */
	char *argv[6];
};

struct rec {
	struct event e;
	uint32_t tid;
};

static struct name *names;
static uint32_t nnames;

static void die(const char *what, const char *path)
{
	fprintf(stderr, "ulsm-trace: %s: %s\n", path, what);
	exit(1);
}

static void get(void *p, size_t len, FILE *f, const char *path)
{
	if (fread(p, 1, len, f) != len)
		die("truncated or not a trace file", path);
}

static uint32_t get_u32(FILE *f, const char *path)
{
	uint32_t v;

	get(&v, sizeof(v), f, path);
	return v;
}

static char *get_str(FILE *f, uint32_t len, const char *path)
{
	char *s;

	if (len > 4096)
		die("a name longer than 4096 bytes: not a trace file", path);
	s = calloc(1, len + 1);
	if (!s)
		die("out of memory", path);
	get(s, len, f, path);
	return s;
}

/* "fd, len" -> argv[0] = "fd", argv[1] = "len". */
static void split_args(struct name *nm, char *args)
{
	char *save = NULL, *a = strtok_r(args, ",", &save);

	for (uint32_t i = 0; a && i < 6; i++, a = strtok_r(NULL, ",", &save)) {
		while (*a == ' ')
			a++;
		nm->argv[i] = a;
	}
}

static const struct name *find(uint32_t id)
{
	for (uint32_t i = 0; i < nnames; i++)
		if (names[i].id == id)
			return &names[i];
	return NULL;
}

static int by_time(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->e.ns < y->e.ns ? -1 : x->e.ns > y->e.ns;
}

static struct rec *read_file(const char *path, size_t *count)
{
	char magic[8];
	struct rec *recs = NULL;
	size_t n = 0;
	uint32_t nrings;
	FILE *f = fopen(path, "rb");

	if (!f)
		die("cannot open", path);
	get(magic, 8, f, path);
	if (memcmp(magic, "ULSMTRC1", 8) || get_u32(f, path) != 1)
		die("not a ulsm trace file (version 1)", path);
	nnames = get_u32(f, path);
	names = calloc(nnames ? nnames : 1, sizeof(*names));
	if (!names)
		die("out of memory", path);
	for (uint32_t i = 0; i < nnames; i++) {
		uint32_t nl, al;

		names[i].id = get_u32(f, path);
		names[i].nargs = get_u32(f, path);
		nl = get_u32(f, path);
		al = get_u32(f, path);
		names[i].name = get_str(f, nl, path);
		names[i].args = get_str(f, al, path);
		split_args(&names[i], names[i].args);
	}
	nrings = get_u32(f, path);
	for (uint32_t r = 0; r < nrings; r++) {
		uint32_t tid = get_u32(f, path);
		uint64_t k;

		get_u32(f, path);
		get(&k, sizeof(k), f, path);
		if (k > (1u << 26))
			die("a ring larger than 2^26 events: not a trace file",
			    path);
		recs = realloc(recs, (n + k) * sizeof(*recs) + 1);
		if (!recs)
			die("out of memory", path);
		for (uint64_t i = 0; i < k; i++, n++) {
			get(&recs[n].e, sizeof(recs[n].e), f, path);
			recs[n].tid = tid;
		}
	}
	fclose(f);
	qsort(recs, n, sizeof(*recs), by_time);
	*count = n;
	return recs;
}

/* A JSON string: the names are C identifiers, but say so safely. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static size_t ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && !strcmp(s + a - b, suffix) ? a - b : 0;
}

static void print_json(const struct rec *r, size_t n)
{
	uint64_t t0 = n ? r[0].e.ns : 0;

	printf("{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
	for (size_t i = 0; i < n; i++) {
		const struct name *nm = find(r[i].e.id);
		const char *name = nm ? nm->name : "unknown";
		char base[256];
		char ph = 'i';
		size_t cut;

		snprintf(base, sizeof(base), "%s", name);
		if ((cut = ends_with(name, "_begin")) ||
		    (cut = ends_with(name, "_start"))) {
			ph = 'B';
			base[cut] = 0;
		} else if ((cut = ends_with(name, "_end")) ||
			   (cut = ends_with(name, "_done"))) {
			ph = 'E';
			base[cut] = 0;
		}
		printf("%s\n {\"name\": ", i ? "," : "");
		json_str(base);
		printf(", \"cat\": \"ulsm\", \"ph\": \"%c\", \"ts\": %.3f, "
		       "\"pid\": 1, \"tid\": %" PRIu32, ph,
		       (double)(r[i].e.ns - t0) / 1000.0, r[i].tid);
		if (ph == 'i')
			printf(", \"s\": \"t\"");
		printf(", \"args\": {");
		for (uint32_t a = 0; a < r[i].e.n && a < 6; a++) {
			printf("%s", a ? ", " : "");
			if (nm && nm->argv[a])
				json_str(nm->argv[a]);
			else
				printf("\"arg%u\"", a);
			printf(": %" PRId64, (int64_t)r[i].e.w[a]);
		}
		printf("}}");
	}
	printf("\n]}\n");
}

static void print_text(const struct rec *r, size_t n)
{
	uint64_t t0 = n ? r[0].e.ns : 0;

	for (size_t i = 0; i < n; i++) {
		const struct name *nm = find(r[i].e.id);

		printf("%.9f %" PRIu32 " %s", (double)(r[i].e.ns - t0) / 1e9,
		       r[i].tid, nm ? nm->name : "unknown");
		for (uint32_t a = 0; a < r[i].e.n && a < 6; a++)
			printf(" %s=%" PRId64,
			       nm && nm->argv[a] ? nm->argv[a] : "arg",
			       (int64_t)r[i].e.w[a]);
		putchar('\n');
	}
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	bool json = false;
	struct rec *recs;
	size_t n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--text"))
			json = false;
		else if (argv[i][0] == '-' || path) {
			fprintf(stderr, "usage: ulsm-trace [--text | --json] FILE\n");
			return 2;
		} else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: ulsm-trace [--text | --json] FILE\n");
		return 2;
	}
	recs = read_file(path, &n);
	if (json)
		print_json(recs, n);
	else
		print_text(recs, n);
	free(recs);
	for (uint32_t i = 0; i < nnames; i++) {
		free(names[i].name);
		free(names[i].args);
	}
	free(names);
	return ferror(stdout) ? 1 : 0;
}
