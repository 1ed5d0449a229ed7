// SPDX-License-Identifier: MIT
/*
 * text.c - ulsm-trace --text: one line per event, in time order,
 *
 *	<seconds since the first event> <tid> <tracepoint> <arg>=<value> ...
 *
 * after, for files that name them (version 2 on), a line for the process
 * and one per thread ("# thread <tid> <name>: N events, M lost"). Names
 * may hold any byte: a name stays one field of its line, and nothing a
 * terminal would act on is printed as it is.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

/*
 * What a terminal shows as it is: visible ASCII, and characters from
 * U+00A0 on that are not format controls (which reorder or hide text).
 */
static bool visible(uint32_t cp)
{
	if (cp < 0x80)
		return cp > 0x20 && cp < 0x7f && cp != '\\';
	return cp >= 0xa0 && cp != 0xad && !(cp >= 0x2000 && cp <= 0x200f) &&
	       !(cp >= 0x2028 && cp <= 0x202f) &&
	       !(cp >= 0x2060 && cp <= 0x206f) && cp != 0xfeff;
}

/*
 * Bytes in the text: readable, and nothing a terminal would act on:
 * other bytes as \xNN, \ as \\. A name is one field of its line: a space
 * is \x20 and an empty name "". In a string argument (@quoted, between
 * quotes) a space is itself and a quote is \".
 */
static void text_bytes(FILE *out, const char *str, size_t len, bool quoted)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!len && !quoted)
		fputs("\"\"", out);
	for (size_t i = 0; i < len;) {
		uint32_t cp = s[i];
		size_t n = s[i] < 0x80 ? 1 : utf8_seq(s + i, len - i, &cp);

		if (quoted && (s[i] == ' ' || s[i] == '"')) {
			fputs(s[i] == '"' ? "\\\"" : " ", out);
			i++;
			continue;
		}
		if (n && visible(cp)) {
			fwrite(s + i, 1, n, out);
			i += n;
			continue;
		}
		for (size_t k = 0; k < (n ? n : 1); k++, i++) {
			if (s[i] == '\\')
				fputs("\\\\", out);
			else
				fprintf(out, "\\x%02x", s[i]);
		}
	}
}

void text_str(FILE *out, const char *str, size_t len)
{
	text_bytes(out, str, len, false);
}

static void text_value(FILE *out, const struct arg *a)
{
	if (!a->str) {
		struct value v;

		value_of(a, &v);
		print_number(out, &v, false);
	} else if (a->w & STR_NULL) {
		fputs("NULL", out);
	} else if (a->w & STR_LOST) {
		fputs("(lost)", out);
	} else {
		putc('"', out);
		text_bytes(out, a->bytes, a->len, true);
		fputs(a->w & STR_CUT ? "\"..." : "\"", out);
	}
}

/* Files that say who recorded: the process, and a line per thread. */
static void text_header(FILE *out, const struct trace *t)
{
	if (t->version == 1)
		return;
	fprintf(out, "# pid %" PRIu32 " ", t->pid);
	text_str(out, t->pool + t->cmd_off, t->cmd_len);
	putc('\n', out);
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct thread *th = &t->threads[i];

		fprintf(out, "# thread %" PRIu32 " ", th->tid);
		text_str(out, t->pool + th->name_off,
			 th->named ? th->name_len : 0);
		fprintf(out, ": %" PRIu64 " events, %" PRIu64 " lost",
			th->events, th->lost);
		if (th->pid != t->pid)
			fprintf(out, " (pid %" PRIu32 ")", th->pid);
		putc('\n', out);
	}
}

void print_text(FILE *out, const struct trace *t)
{
	const struct rec *r = t->recs;
	uint64_t t0 = t->nrecs ? r[0].e.ns : 0;

	text_header(out, t);
	for (size_t i = 0; i < t->nrecs; i++) {
		const struct name *nm = rec_name(t, &r[i]);
		const char *name = name_of(t, nm);

		fprintf(out, "%.9f %" PRIu32 " ",
			(double)(r[i].e.ns - t0) / 1e9,
			t->threads[r[i].thread].tid);
		if (r[i].lost) {
			fprintf(out, "(lost) events=%" PRIu64 "\n", r[i].e.w[0]);
			continue;
		}
		text_str(out, name, nm ? nm->len : strlen(name));
		for (uint32_t a = 0; a < r[i].e.n; a++) {
			struct arg arg;

			arg_of(t, &r[i], a, &arg);
			putc(' ', out);
			if (arg.name)
				text_str(out, arg.name, arg.name_len);
			else
				fputs("arg", out);
			putc('=', out);
			text_value(out, &arg);
		}
		putc('\n', out);
	}
}

