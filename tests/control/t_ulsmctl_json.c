// SPDX-License-Identifier: MIT
/*
 * ulsmctl's JSON parser and writer (tools/ulsmctl/json.c) and its
 * escaping for a terminal (escape.c), alone: strict JSON accepted and
 * written back compactly, everything else refused with where; the bounds
 * (1 MiB, 32 levels) hold; a reply of any shape costs linear time; no
 * control byte survives the writer or the escaping.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "json.h"
#include "ulsmctl.h"

/* The parse of @in written back: "!" and the error when refused. */
static const char *rt(const char *in, size_t len)
{
	static char out[4096];
	char err[128];
	struct json j;
	FILE *f;

	if (json_parse(&j, in, len, err, sizeof(err))) {
		snprintf(out, sizeof(out), "!%s", err);
		return out;
	}
	f = fmemopen(out, sizeof(out), "w");
	json_write(f, &j, json_root(&j));
	fclose(f);
	json_free(&j);
	return out;
}

#define is_round(in, want, ...) is_string(rt(in, strlen(in)), want, __VA_ARGS__)

static double secs_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Parse @len bytes of @s, timed: 0 or the error. */
static int timed_parse(const char *s, size_t len, double *secs)
{
	struct timespec t0;
	struct json j;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = json_parse(&j, s, len, NULL, 0);
	*secs = secs_since(&t0);
	if (!ret)
		json_free(&j);
	return ret;
}

static void valid(void)
{
	is_round(" { \"a\" : [ 1 , -2.5e3 , true , false , null ] ,\n"
		 "\"b\" : { } , \"c\" : [ ] , \"d\" : \"x\" } ",
		 "{\"a\":[1,-2.5e3,true,false,null],\"b\":{},\"c\":[],"
		 "\"d\":\"x\"}", "a reply written back compactly");
	is_round("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
		 "\"\\\"\\\\/\\u0008\\u000c\\u000a\\u000d\\u0009\"",
		 "escapes decoded, and control characters written as \\u00XX");
	is_round("\"\\u00e9\\ud83d\\ude00\\ud800x\"",
		 "\"\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx\"",
		 "\\u escapes, a surrogate pair, a lone surrogate as U+FFFD");
	is_round("\"\\u001b[2J\\u009b\\u007f\"", "\"\\u001b[2J\\u009b\\u007f\"",
		 "ESC, C1 CSI and DEL stay escaped");
	is_round("\"\xc2\x9b\xff\xc3\xa9\"", "\"\\u009b\\u00ff\xc3\xa9\"",
		 "raw C1 and a byte that is not UTF-8 escaped, UTF-8 kept");
	is_round("-0", "-0", "-0");
	is_round("[0.5,1E+2,3e-1]", "[0.5,1E+2,3e-1]", "numbers as written");
}

static void refused(void)
{
	static const char *const bad[] = {
		"", " ", "[", "]", "{", "[1,]", "{\"a\":1,}", "{\"a\"}",
		"{1:2}", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul",
		"\"abc", "\"a\001b\"", "\"\\x\"", "\"\\u12\"", "[1] 2",
		"[1]]", "'a'", "{\"a\":1 \"b\":2}", "NaN", "[\"a\"\"b\"]",
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *r = rt(bad[i], strlen(bad[i]));

		if (r[0] != '!') {
			diag("accepted: \"%s\" as %s", bad[i], r);
			n++;
		}
	}
	ok(!n, "%zu inputs that are not strict JSON refused",
	   sizeof(bad) / sizeof(bad[0]));
	is_string(rt("[1,\"a\x01\"]", 7), "!a control character in a "
		  "string at byte 5", "the error says what and where");
	is_string(rt("1\0", 2), "!more after the value at byte 1",
		  "a NUL after the value");
}

static void bounds(void)
{
	char deep[80];
	size_t big = (1 << 20) + 1;
	char *s = malloc(big + 16);
	double t;
	int d;

	for (d = 0; d < 32; d++)
		deep[d] = '[';
	for (int i = 0; i < 32; i++)
		deep[d++] = ']';
	deep[d] = '\0';
	ok(rt(deep, strlen(deep))[0] == '[', "32 levels of nesting");
	memmove(deep + 1, deep, strlen(deep) + 1);
	deep[0] = '[';
	strcat(deep, "]");
	is_string(rt(deep, strlen(deep)), "!nested too deep at byte 33",
		  "33 levels refused");
	memset(s, '[', big);
	d = timed_parse(s, big - 1, &t);
	ok(d && t < 0.1, "1 MiB of \"[\": refused in %.4f s", t);
	ok(timed_parse(s, big, &t), "more than 1 MiB: refused");
	free(s);
}

/* Inputs of 1 MiB whose cost would not be linear in a naive reader. */
static void linear(void)
{
	size_t len = 1 << 20, n = 0;
	char *s = malloc(len + 1);
	struct json j;
	double t;
	struct timespec t0;
	int ret;

	s[n++] = '[';
	while (n + 3 < len) {
		s[n++] = '0';
		s[n++] = ',';
	}
	s[n++] = '0';
	s[n++] = ']';
	ret = timed_parse(s, n, &t);
	ok(!ret && t < 1, "an array of half a million numbers: %.3f s", t);

	n = 0;
	s[n++] = '"';
	while (n + 8 < len) {
		memcpy(s + n, "\\u0000", 6);
		n += 6;
	}
	s[n++] = '"';
	ret = timed_parse(s, n, &t);
	ok(!ret && t < 1, "a string of 170,000 escapes: %.3f s", t);

	/* An object of many members, each looked up by a printer. */
	n = 0;
	s[n++] = '{';
	for (int i = 0; n + 24 < len; i++)
		n += (size_t)sprintf(s + n, "%s\"k%d\":1", i ? "," : "", i);
	s[n++] = '}';
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!json_parse(&j, s, n, NULL, 0)) {
		for (int i = 0; i < 8; i++)
			json_get(&j, json_root(&j), "absent");
		json_free(&j);
		t = secs_since(&t0);
		ok(t < 1, "an object of 90,000 members, 8 lookups: %.3f s",
		   t);
	} else {
		ok(0, "an object of 90,000 members parses");
	}
	free(s);
}

/* What esc_str() makes of @s (@len bytes). */
static const char *esc(const char *s, size_t len)
{
	static char out[256];

	return esc_str(out, sizeof(out), s, len);
}

static void escaping(void)
{
	is_string(esc("a\x1b]0;x\x07z", 8), "a\\x1b]0;x\\x07z",
		  "ESC and BEL as \\xNN");
	is_string(esc("\xc2\x9b" "31m\x9b\x7f", 7), "\\x9b31m\\x9b\\x7f",
		  "C1 CSI (UTF-8 or a bare byte) and DEL as \\xNN");
	is_string(esc("caf\xc3\xa9 \xe2\x82\xac", 9), "caf\xc3\xa9 \xe2\x82\xac",
		  "printable UTF-8 kept");
	is_string(esc("a\\b", 3), "a\\\\b", "a backslash doubled");
	is_string(esc("\xed\xa0\x80\xf8", 4), "\\xed\\xa0\\x80\\xf8",
		  "a surrogate and a byte that is not UTF-8 as \\xNN");
	is_int(esc_width("\xc3\xa9\x1b", 3), 5, "widths: a character 1, "
	       "an escape 4");
	{
		char many[100];
		const char *r;

		memset(many, 1, sizeof(many));
		r = esc(many, sizeof(many));
		ok(strlen(r) < 256 && !strcmp(r + strlen(r) - 3, "..."),
		   "cut to its buffer, and said so");
	}
}

int main(void)
{
	valid();
	refused();
	bounds();
	linear();
	escaping();
	return done_testing();
}
