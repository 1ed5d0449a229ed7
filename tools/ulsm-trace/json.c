// SPDX-License-Identifier: MIT
/*
 * json.c - ulsm-trace --json: Chrome trace-event JSON,
 * {"traceEvents": [...]}, which Perfetto (ui.perfetto.dev),
 * chrome://tracing and speedscope open.
 *
 * The process and its threads by name (metadata events, ph "M"); then,
 * per thread, a tracepoint whose name ends in _begin or _start and the
 * next one that ends in _end or _done with the same stem (nested ones in
 * between) are a slice: a "B" and an "E" event named by the stem, both
 * with the arguments of the two (so that a viewer keys them alike); any
 * other event is an instant (ph "i") with its own. Times are in
 * microseconds since the first event. Strings are escaped as RFC 8259
 * says, and a byte that is not UTF-8 is U+FFFD: the output is strict
 * JSON whatever the file held.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

/*
 * The inside of a JSON string (RFC 8259): quotes, backslashes and
 * controls escaped, well-formed UTF-8 as it is, any other byte as U+FFFD.
 */
static void json_chars(FILE *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n;

		if (s[i] == '"' || s[i] == '\\') {
			fprintf(out, "\\%c", s[i++]);
		} else if (s[i] < 0x20) {
			fprintf(out, "\\u%04x", s[i++]);
		} else if (s[i] < 0x80) {
			putc(s[i++], out);
		} else if ((n = utf8_seq(s + i, len - i, &cp))) {
			fwrite(s + i, 1, n, out);
			i += n;
		} else {
			fputs("\\ufffd", out);
			i++;
		}
	}
}

static void json_str(FILE *out, const char *str, size_t len)
{
	putc('"', out);
	json_chars(out, str, len);
	putc('"', out);
}


static bool same_arg(const struct arg *x, const struct arg *y)
{
	if (x->name_len != y->name_len || (x->name && !y->name) ||
	    (!x->name && y->name) ||
	    (x->name && memcmp(x->name, y->name, x->name_len)))
		return false;
	return true;
}

static bool same_value(const struct arg *x, const struct arg *y)
{
	return x->str == y->str && x->w == y->w &&
	       (!x->str || !memcmp(x->bytes, y->bytes, x->len));
}


static void json_value(FILE *out, const struct arg *a)
{
	if (!a->str) {
		struct value v;

		value_of(a, &v);
		print_number(out, &v, true);
	} else if (a->w & STR_NULL) {
		fputs("null", out);
	} else if (a->w & STR_LOST) {
		fputs("\"(lost)\"", out);
	} else {
		putc('"', out);
		json_chars(out, a->bytes, a->len);
		/* A cut string ends with an ellipsis, U+2026. */
		fputs(a->w & STR_CUT ? "\xe2\x80\xa6\"" : "\"", out);
	}
}

static void json_arg(FILE *out, const struct arg *a, uint32_t i,
		     const char *prefix, bool *first)
{
	fputs(*first ? "" : ", ", out);
	*first = false;
	putc('"', out);
	fputs(prefix, out);
	if (a->name)
		json_chars(out, a->name, a->name_len);
	else
		fprintf(out, "arg%" PRIu32, i);
	fputs("\": ", out);
	json_value(out, a);
}

/*
 * A slice's arguments, the same on its B and its E: the start's, then
 * the end's that say something new (one with a start's name and another
 * value is "end.<name>").
 */
static void json_args(FILE *out, const struct trace *t, const struct rec *r)
{
	const struct rec *s = r, *e = NULL;
	bool first = true;
	struct arg a, b;

	if (r->match != NONE) {
		s = r->match < (size_t)(r - t->recs) ? &t->recs[r->match] : r;
		e = s == r ? &t->recs[r->match] : r;
	}
	fputs(", \"args\": {", out);
	for (uint32_t i = 0; i < s->e.n; i++) {
		arg_of(t, s, i, &a);
		json_arg(out, &a, i, "", &first);
	}
	for (uint32_t i = 0; e && i < e->e.n; i++) {
		bool dup = false, renamed = false;

		arg_of(t, e, i, &a);
		for (uint32_t k = 0; k < s->e.n && !dup; k++) {
			arg_of(t, s, k, &b);
			if (!same_arg(&a, &b) || (!a.name && k != i))
				continue;
			dup = same_value(&a, &b);
			renamed = !dup;
		}
		if (!dup)
			json_arg(out, &a, i, renamed ? "end." : "", &first);
	}
	putc('}', out);
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The process (each pid its threads name) and its threads, by name. */
static void json_names(FILE *out, const struct trace *t, bool *first)
{
	uint32_t *pids = malloc((t->nthreads + 1) * sizeof(*pids));
	size_t n = 0;

	if (t->version == 1)
		goto out;
	if (pids) {
		pids[n++] = t->pid;
		for (size_t i = 0; i < t->nthreads; i++)
			pids[n++] = t->threads[i].pid;
		qsort(pids, n, sizeof(*pids), by_u32);
	}
	for (size_t i = 0; pids && i < n; i++) {
		if (i && pids[i] == pids[i - 1])
			continue;
		fprintf(out, "%s\n {\"name\": \"process_name\", \"ph\": \"M\", "
			"\"pid\": %" PRIu32 ", \"tid\": %" PRIu32 ", \"args\": "
			"{\"name\": ", *first ? "" : ",", pids[i], pids[i]);
		json_str(out, t->pool + t->cmd_off, t->cmd_len);
		fputs("}}", out);
		*first = false;
	}
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct thread *th = &t->threads[i];

		if (!th->named)
			continue;
		fprintf(out, "%s\n {\"name\": \"thread_name\", \"ph\": \"M\", "
			"\"pid\": %" PRIu32 ", \"tid\": %" PRIu32 ", \"args\": "
			"{\"name\": ", *first ? "" : ",", th->pid, th->tid);
		json_str(out, t->pool + th->name_off, th->name_len);
		fputs("}}", out);
		*first = false;
	}
out:
	free(pids);
}

void print_json(FILE *out, const struct trace *t)
{
	const struct rec *r = t->recs;
	uint64_t t0 = t->nrecs ? r[0].e.ns : 0;
	bool first = true;

	fprintf(out, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [");
	json_names(out, t, &first);
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct name *nm = rec_name(t, &r[i]);
		const struct thread *th = &t->threads[r[i].thread];
		const char *name = name_of(t, nm);
		size_t len = nm ? nm->len : strlen(name);
		char ph = 'i';

		if (r[i].lost) {
			name = "lost events";
			len = strlen(name);
		} else if (r[i].match != NONE) {
			/* The name is printed up to the suffix: never copied. */
			ph = r[i].match > i ? 'B' : 'E';
			len = nm->stem;
		}
		fprintf(out, "%s\n {\"name\": ", first ? "" : ",");
		first = false;
		json_str(out, name, len);
		fprintf(out, ", \"cat\": \"ulsm\", \"ph\": \"%c\", \"ts\": %.3f, "
			"\"pid\": %" PRIu32 ", \"tid\": %" PRIu32, ph,
			(double)(r[i].e.ns - t0) / 1000.0, th->pid, th->tid);
		if (ph == 'i')
			fprintf(out, ", \"s\": \"t\"");
		if (r[i].lost)
			fprintf(out, ", \"args\": {\"count\": %" PRIu64 "}",
				r[i].e.w[0]);
		else
			json_args(out, t, &r[i]);
		fprintf(out, "}");
	}
	fprintf(out, "\n]}\n");
}

