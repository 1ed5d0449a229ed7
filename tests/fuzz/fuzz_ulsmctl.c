// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_ulsmctl.c - ulsmctl's reading of what an endpoint sends
 * under libFuzzer (tests/fuzz/fuzz.mk; make check replays its corpus),
 * linked with the tool's parsing files: head.c (the greeting, a reply's
 * line), json.c (its payload) and escape.c (names made safe for a
 * terminal). The endpoint is another process, which may be hostile
 * (t_ulsmctl_door plays one).
 *
 * An input is what an endpoint sends on a connection: a greeting line,
 * then replies, "ok <n>" and n bytes of JSON, or "error <errno> <text>",
 * read as ulsmctl reads them (lines of at most 255 and 1099 bytes, a
 * payload of at most 1 MiB), until something is not a reply. Each
 * payload is parsed; when it is JSON:
 *
 *  - what json_write() makes of it is strict JSON (trace_check.h) with no
 *    byte a terminal acts on, which json_parse() reads back; from the
 *    second time on, that round trip gives the same bytes;
 *  - every key and string, escaped by esc_put(), is clean text;
 *  - and json_get() finds each member by its key.
 *
 * A payload that a strict parser accepts (and that nests at most
 * JSON_MAX_DEPTH deep) must be accepted; the messages of a refused
 * greeting and of an error reply must be clean text. A difference aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "trace_check.h"
#include "ulsmctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_ulsmctl: %s\n", what);
	abort();
}

/* @s (@len bytes) and a newline: what a terminal may show as it is. */
static void clean_text(const char *s, size_t len, const char *what)
{
	char *line = malloc(len + 1);

	if (!line)
		abort();
	memcpy(line, s, len);
	line[len] = '\n';
	if (tc_text_check(line, len + 1) >= 0)
		fail(what);
	free(line);
}

static char *written(const struct json *j, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);

	if (!f)
		abort();
	json_write(f, j, json_root(j));
	fclose(f);
	return out;
}

static void escaped_clean(const char *s, size_t len, const char *what)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	if (!f)
		abort();
	esc_put(f, s, len);
	fclose(f);
	clean_text(out, n, what);
	free(out);
}

/* Every node under @v: keys and strings escaped, members found by key. */
static void walk(const struct json *j, const struct json_node *v, int depth)
{
	for (const struct json_node *c = json_first(j, v); c;
	     c = json_next(j, c)) {
		size_t len;
		const char *s;

		if (v->type == JSON_OBJECT) {
			char key[64];

			s = json_key(j, c, &len);
			escaped_clean(s, len, "a key, escaped, is not clean");
			/* A key without a NUL, short: json_get() finds one. */
			if (len < sizeof(key) && !memchr(s, '\0', len)) {
				memcpy(key, s, len);
				key[len] = '\0';
				if (!json_get(j, v, key))
					fail("json_get() misses a member");
			}
		}
		s = json_str(j, c, &len);
		if (s)
			escaped_clean(s, len, "a string, escaped, is not clean");
		(void)json_num(j, c, 0);
		(void)json_bool(c);
		if (depth < JSON_MAX_DEPTH)
			walk(j, c, depth + 1);
	}
}

/* How deep @s nests, strings aside (for JSON that is valid). */
static int nesting(const char *s, size_t len)
{
	int depth = 0, most = 0;
	bool in = false;

	for (size_t i = 0; i < len; i++) {
		if (in) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in = false;
		} else if (s[i] == '"') {
			in = true;
		} else if (s[i] == '[' || s[i] == '{') {
			most = ++depth > most ? depth : most;
		} else if (s[i] == ']' || s[i] == '}') {
			depth--;
		}
	}
	return most;
}

/* json_write() of @in, checked, parsed again: into *@out. */
static char *rewritten(const struct json *in, size_t *len, struct json *out)
{
	char err[128], *w = written(in, len);

	if (tc_json_check(w, *len) >= 0)
		fail("json_write() wrote what is not JSON");
	for (size_t i = 0; i < *len; i++)
		if ((unsigned char)w[i] < 0x20 || w[i] == 0x7f ||
		    ((unsigned char)w[i] == 0xc2 && i + 1 < *len &&
		     (unsigned char)w[i + 1] < 0xa0))
			fail("json_write() wrote a control character");
	if (json_parse(out, w, *len, err, sizeof(err)))
		fail("json_write()'s JSON refused by json_parse()");
	return w;
}

static void payload(const char *p, size_t len)
{
	struct json j, j1, j2;
	char err[128], *w1, *w2;
	size_t n1, n2;

	if (json_parse(&j, p, len, err, sizeof(err))) {
		if (tc_json_check(p, len) < 0 && nesting(p, len) <= JSON_MAX_DEPTH)
			fail("JSON that a strict parser reads, refused");
		return;
	}
	walk(&j, json_root(&j), 1);
	/*
	 * A byte that is not UTF-8 is written as the character of its value
	 * (\u00XX), which is written as UTF-8 the next time: the second
	 * writing is the one that must not change.
	 */
	free(rewritten(&j, &n1, &j1));
	w1 = rewritten(&j1, &n1, &j2);
	w2 = written(&j2, &n2);
	if (n1 != n2 || memcmp(w1, w2, n1))
		fail("json_write() of its own output is not the same");
	json_free(&j2);
	json_free(&j1);
	json_free(&j);
	free(w1);
	free(w2);
}

/*
 * The next line from *@p, shorter than @max bytes and without a NUL, as
 * conn_take_line() (conn.c) takes it: its length, or -1.
 */
static long next_line(const char **p, const char *end, char *line, size_t max)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t len;

	if (!nl || (size_t)(nl - *p) >= max || memchr(*p, '\0', (size_t)(nl - *p)))
		return -1;
	len = (size_t)(nl - *p);
	memcpy(line, *p, len);
	line[len] = '\0';
	*p = nl + 1;
	return (long)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	char line[1100], why[300];
	struct reply r;

	if (next_line(&p, end, line, 256) < 0)
		return 0;
	if (greeting_check(line, why, sizeof(why))) {
		clean_text(why, strlen(why), "a refused greeting's message");
		return 0;
	}
	while (p < end && next_line(&p, end, line, sizeof(line)) >= 0) {
		if (reply_head(line, &r, REPLY_MAX))
			break;
		if (!r.ok) {
			if (r.err >= 0 || r.err < -4095)
				fail("an error reply's errno out of range");
			clean_text(r.msg, strlen(r.msg), "an error's message");
			continue;
		}
		if (r.len > (size_t)(end - p))
			break;
		payload(p, r.len);
		p += r.len;
	}
	return 0;
}
