/* SPDX-License-Identifier: MIT */
/*
 * tests/tools/trace_check.h - what ulsm-trace's output must be, whatever file it
 * read: JSON that a strict parser accepts (RFC 8259, in UTF-8), whose
 * slices a viewer can pair (tc_json_slices_check), and text that a
 * terminal shows as it is (no control bytes but the newline, valid
 * UTF-8). Written apart from the tool's own escaping, so that it checks
 * it rather than repeats it; t_trace_fuzz checks the checker first.
 */
#ifndef ULSM_TESTS_TRACE_CHECK_H
#define ULSM_TESTS_TRACE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The well-formed UTF-8 sequences of more than one byte (Unicode, table
 * 3-7): each lead byte from @first to @last begins @len bytes, the second
 * of which is from @lo to @hi (the others from 0x80 to 0xbf). The narrow
 * second bytes are what rule out overlong forms (after 0xe0 and 0xf0),
 * surrogates (after 0xed) and code points above U+10FFFF (after 0xf4).
 */
static const struct tc_utf8_row {
	unsigned char first, last, len, lo, hi;
} tc_utf8_rows[] = {
	{ 0xc2, 0xdf, 2, 0x80, 0xbf },
	{ 0xe0, 0xe0, 3, 0xa0, 0xbf },
	{ 0xe1, 0xec, 3, 0x80, 0xbf },
	{ 0xed, 0xed, 3, 0x80, 0x9f },
	{ 0xee, 0xef, 3, 0x80, 0xbf },
	{ 0xf0, 0xf0, 4, 0x90, 0xbf },
	{ 0xf1, 0xf3, 4, 0x80, 0xbf },
	{ 0xf4, 0xf4, 4, 0x80, 0x8f },
};

/*
 * The length of the well-formed UTF-8 sequence at @s (at most @n bytes),
 * or 0 (tc_utf8_rows). *@cp gets the code point.
 */
static inline size_t tc_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	const struct tc_utf8_row *r = NULL;
	uint32_t c;

	if (!n)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	for (size_t i = 0; i < sizeof(tc_utf8_rows) / sizeof(tc_utf8_rows[0]);
	     i++)
		if (s[0] >= tc_utf8_rows[i].first &&
		    s[0] <= tc_utf8_rows[i].last)
			r = &tc_utf8_rows[i];
	if (!r || n < r->len || s[1] < r->lo || s[1] > r->hi)
		return 0;
	/* The lead byte's payload: its bits below the 0 after @len ones. */
	c = s[0] & (0x7fu >> r->len);
	for (size_t i = 1; i < r->len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	*cp = c;
	return r->len;
}

struct tc_json {
	const unsigned char *p, *end;
	int depth;
};

static inline void tc_ws(struct tc_json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static inline int tc_lit(struct tc_json *j, const char *word)
{
	for (; *word; word++, j->p++)
		if (j->p == j->end || *j->p != (unsigned char)*word)
			return -1;
	return 0;
}

static inline int tc_hex4(struct tc_json *j, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, j->p++) {
		unsigned char c;

		if (j->p == j->end)
			return -1;
		c = *j->p;
		if (c >= '0' && c <= '9')
			*v = *v << 4 | (uint32_t)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			*v = *v << 4 | (uint32_t)((c | 0x20) - 'a' + 10);
		else
			return -1;
	}
	return 0;
}

static inline int tc_string(struct tc_json *j)
{
	if (j->p == j->end || *j->p != '"')
		return -1;
	j->p++;
	while (j->p < j->end) {
		unsigned char c = *j->p;
		uint32_t cp, lo;
		size_t len;

		if (c == '"') {
			j->p++;
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c != '\\') {
			len = tc_utf8(j->p, (size_t)(j->end - j->p), &cp);
			if (!len)
				return -1;
			j->p += len;
			continue;
		}
		if (++j->p == j->end)
			return -1;
		c = *j->p++;
		if (c != 'u') {
			if (!c || !strchr("\"\\/bfnrt", c))
				return -1;
			continue;
		}
		if (tc_hex4(j, &cp))
			return -1;
		/* A surrogate only as a pair: strict parsers refuse halves. */
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return -1;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (tc_lit(j, "\\u") || tc_hex4(j, &lo) ||
			    lo < 0xdc00 || lo > 0xdfff)
				return -1;
		}
	}
	return -1;
}

static inline int tc_digits(struct tc_json *j)
{
	const unsigned char *from = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > from ? 0 : -1;
}

static inline int tc_number(struct tc_json *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (j->p == j->end || *j->p < '1' || *j->p > '9' || tc_digits(j))
		return -1;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (tc_digits(j))
			return -1;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (tc_digits(j))
			return -1;
	}
	return 0;
}

static inline int tc_value(struct tc_json *j)
{
	char close;

	tc_ws(j);
	if (j->p == j->end)
		return -1;
	switch (*j->p) {
	case '"':
		return tc_string(j);
	case 't':
		return tc_lit(j, "true");
	case 'f':
		return tc_lit(j, "false");
	case 'n':
		return tc_lit(j, "null");
	case '{':
	case '[':
		break;
	default:
		return tc_number(j);
	}
	close = *j->p == '{' ? '}' : ']';
	if (++j->depth > 64)
		return -1;
	j->p++;
	tc_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			tc_ws(j);
			if (tc_string(j))
				return -1;
			tc_ws(j);
			if (j->p == j->end || *j->p++ != ':')
				return -1;
		}
		if (tc_value(j))
			return -1;
		tc_ws(j);
		if (j->p == j->end)
			return -1;
		if (*j->p == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		if (*j->p++ != ',')
			return -1;
	}
}

/*
 * tc_json_check - is @s (@len bytes) one JSON text?
 * Return: -1 if it is, else the offset where it stops being one.
 */
static inline long tc_json_check(const char *s, size_t len)
{
	struct tc_json j = {
		(const unsigned char *)s, (const unsigned char *)s + len, 0
	};

	if (!tc_value(&j)) {
		tc_ws(&j);
		if (j.p == j.end)
			return -1;
	}
	return (long)(j.p - (const unsigned char *)s);
}

/*
 * tc_text_check - lines a terminal shows as they are: valid UTF-8 with no
 * C0 or C1 control and no DEL, a newline at the end of each line.
 * Return: -1 if so, else the offset of the first bad byte.
 */
static inline long tc_text_check(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = tc_utf8(p + i, len - i, &cp);

		if (!n || (cp < 0x20 && cp != '\n') ||
		    (cp >= 0x7f && cp < 0xa0))
			return (long)i;
		i += n;
	}
	return len && p[len - 1] != '\n' ? (long)len - 1 : -1;
}

/*
 * The slices of ulsm-trace's JSON, which viewers need well formed: per
 * thread (pid and tid), each "E" closes the innermost open "B", with the
 * same name and arguments (speedscope keys a slice by them), at the same
 * time or later, and none stays open. The tool prints one event per
 * line; a key's text ("ph": ", "ts": , "pid": ) cannot occur inside a
 * JSON string, whose quotes are all escaped, so a line is cut at them.
 */
struct tc_slice {
	const char *line, *mid;	/* the line; where "pid" starts */
	size_t head, tail;	/* before "ph"; from "pid" to the end */
	uint64_t thread;
	size_t seq;
	double ts;
	char ph;
};

static inline int tc_slice_cmp(const void *a, const void *b)
{
	const struct tc_slice *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static inline bool tc_slice_same(const struct tc_slice *x,
				 const struct tc_slice *y)
{
	return x->head == y->head && x->tail == y->tail &&
	       !memcmp(x->line, y->line, x->head) &&
	       !memcmp(x->mid, y->mid, x->tail);
}

/*
 * tc_json_slices_check - are the slices of @s (@len bytes, JSON that
 * parses) well formed?
 * Return: -1 if so, else the offset of a line that is wrong; -2 if out of
 * memory.
 */
static inline long tc_json_slices_check(const char *s, size_t len)
{
	struct tc_slice *v = NULL, *open = NULL;
	size_t n = 0, cap = 0, nopen = 0;
	long bad = -1;

	for (const char *p = s, *end = s + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *ph, *pid, *tid;
		struct tc_slice sl;

		ph = memmem(p, (size_t)(e - p), "\"ph\": \"", 7);
		pid = memmem(p, (size_t)(e - p), ", \"pid\": ", 9);
		tid = memmem(p, (size_t)(e - p), ", \"tid\": ", 9);
		if (ph && pid && tid && ph + 8 < e && (ph[7] == 'B' || ph[7] == 'E')) {
			const char *ts = memmem(ph, (size_t)(e - ph), "\"ts\": ", 6);

			sl = (struct tc_slice){
				.line = p, .mid = pid, .head = (size_t)(ph - p),
				.tail = (size_t)(e - pid) - (e[-1] == ','),
				.thread = strtoull(pid + 9, NULL, 10) << 32 |
					  (strtoull(tid + 9, NULL, 10) & 0xffffffff),
				.seq = n, .ts = ts ? strtod(ts + 6, NULL) : 0,
				.ph = ph[7],
			};
			if (n == cap) {
				struct tc_slice *w;

				cap = cap ? cap * 2 : 256;
				w = (struct tc_slice *)realloc(v, cap * sizeof(*v));
				if (!w) {
					free(v);
					return -2;
				}
				v = w;
			}
			v[n++] = sl;
		}
		p = e + 1;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), tc_slice_cmp);
	open = (struct tc_slice *)malloc((n + 1) * sizeof(*open));
	if (!open) {
		free(v);
		return -2;
	}
	for (size_t i = 0; i < n && bad < 0; i++) {
		if (i && v[i].thread != v[i - 1].thread && nopen)
			bad = (long)(open[nopen - 1].line - s);
		if (i && v[i].thread != v[i - 1].thread)
			nopen = 0;
		if (v[i].ph == 'B') {
			open[nopen++] = v[i];
		} else if (!nopen || !tc_slice_same(&open[nopen - 1], &v[i]) ||
			   v[i].ts < open[nopen - 1].ts) {
			bad = (long)(v[i].line - s);
		} else {
			nopen--;
		}
	}
	if (bad < 0 && nopen)
		bad = (long)(open[nopen - 1].line - s);
	free(open);
	free(v);
	return bad;
}

#endif /* ULSM_TESTS_TRACE_CHECK_H */
