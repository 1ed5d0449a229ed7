// SPDX-License-Identifier: MIT
/*
 * t_trace_types - every C type a tracepoint's parameter may have, recorded
 * and read back with its sign and width in all three of ulsm-trace's
 * outputs (TAP; issue 39, "Correct values for every type").
 *
 * Four tracepoints cover char, signed char, unsigned char, short,
 * unsigned short, int, unsigned, long, unsigned long, long long,
 * unsigned long long, bool, an enum with a negative value and one
 * without, size_t, ssize_t, a pointer, float, double and const char *
 * (a string, NULL, and one over 256 bytes that the recorder cuts), each
 * hit twice with values at the edges of its type: -13 as int, -2 as
 * short, -1 as signed char, and 4294967283 as unsigned (the bits of -13,
 * which must not read negative). The recorder writes the file
 * (ulsm_trace_enable(), ulsm_trace_write()); ulsm-trace prints it as
 * text, as JSON and as a CTF trace, which babeltrace2 prints: each
 * field of each event must read exactly as expected in each of the
 * three (and babeltrace2 must say nothing on stderr). Then
 * tests/tools/ctf_compare.sh, the comparison of any recording's text
 * and babeltrace2's reading, must find the two the same, and must find
 * the difference when the text is made to say -14 where babeltrace2
 * says -13. Without babeltrace2 the CTF checks say they skipped.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <ulsm/tracepoint.h>

#include "local_tp.h"
#include "tap.h"

#ifndef TT_TOOL
# define TT_TOOL	"../ulsm-trace"
#endif
#ifndef TT_COMPARE
# define TT_COMPARE	"../../../tests/tools/ctf_compare.sh"
#endif

enum tt_signed { TT_NEG = -7, TT_POS = 3 };
enum tt_unsigned { TT_ZERO = 0, TT_BIG = 200 };

LOCAL_TRACEPOINT(tt_chars, TP_PROTO(char c, signed char sc,
				    unsigned char uc, short s,
				    unsigned short us),
		 TP_ARGS(c, sc, uc, s, us));
LOCAL_TRACEPOINT(tt_ints, TP_PROTO(int i, unsigned int u, long l,
				   unsigned long ul, long long ll,
				   unsigned long long ull),
		 TP_ARGS(i, u, l, ul, ll, ull));
LOCAL_TRACEPOINT(tt_misc, TP_PROTO(bool b, enum tt_signed en,
				   enum tt_unsigned eu, size_t sz,
				   ssize_t ssz, const void *p),
		 TP_ARGS(b, en, eu, sz, ssz, p));
LOCAL_TRACEPOINT(tt_reals, TP_PROTO(float f, double d, const char *s),
		 TP_ARGS(f, d, s));

/*
 * A field of @tp, as each output must print its value at each hit (0, 1,
 * 2; as many as have a @text): @text, and @json or @ctf where that output
 * prints it otherwise (NULL: as the text).
 */
struct want {
	const char *tp, *field;
	const char *text[3], *json[3], *ctf[3];
};

/* 300 bytes: the recorder keeps 256 and marks the string cut. */
static char long_str[301];
static char cut_text[300], cut_json[300], cut_ctf[300];
/* char's sign is the machine's: (char)0xe9 as an int. */
static char char_c[8];

static const struct want wants[] = {
	{ "tt_chars", "c", { "65", char_c } },
	{ "tt_chars", "sc", { "-1", "-128" } },
	{ "tt_chars", "uc", { "255", "0" } },
	{ "tt_chars", "s", { "-2", "-32768" } },
	{ "tt_chars", "us", { "65535", "0" } },
	{ "tt_ints", "i", { "-13", "-2147483648" } },
	{ "tt_ints", "u", { "4294967283", "0" } },
	{ "tt_ints", "l", { "-1234567890123", "9223372036854775807" } },
	{ "tt_ints", "ul", { "18446744073709551615", "0" } },
	{ "tt_ints", "ll", { "-9223372036854775808", "-1" } },
	{ "tt_ints", "ull", { "18446744073709551615", "1" } },
	{ "tt_misc", "b", { "true", "false" },
	  .ctf = { "( \"true\" : container = 1 )",
		   "( \"false\" : container = 0 )" } },
	{ "tt_misc", "en", { "-7", "3" } },
	{ "tt_misc", "eu", { "200", "0" } },
	{ "tt_misc", "sz", { "18446744073709551615", "0" } },
	{ "tt_misc", "ssz", { "-5", "9223372036854775807" } },
	{ "tt_misc", "p", { "0xdeadbeefcafe", "0x0" },
	  .json = { "\"0xdeadbeefcafe\"", "\"0x0\"" },
	  .ctf = { "0xDEADBEEFCAFE" } },
	/*
	 * float and double at their precision (babeltrace2 prints %g);
	 * JSON has no infinity: a string
	 */
	{ "tt_reals", "f", { "-1.5", "0.100000001", "1e+10" },
	  .ctf = { NULL, "0.1" } },
	{ "tt_reals", "d", { "3.25", "-1.0000000000000001e+300", "inf" },
	  .json = { NULL, NULL, "\"inf\"" }, .ctf = { NULL, "-1e+300" } },
	{ "tt_reals", "s", { "\"h\xc3\xa9llo, \\\"w\\\"\"", "NULL", cut_text },
	  .json = { NULL, "null", cut_json },
	  .ctf = { NULL, "\"(null)\"", cut_ctf } },
};

static char dir[] = "/tmp/t_trace_types.XXXXXX";
static char rec[64], ctfdir[64];
static const char *tool = TT_TOOL;
static const char *emu = "";

static void record(void)
{
	long n;

	snprintf(char_c, sizeof(char_c), "%d", (int)(char)0xe9);
	memset(long_str, 'z', 300);
	snprintf(cut_text, sizeof(cut_text), "\"%.256s\"...", long_str);
	snprintf(cut_json, sizeof(cut_json), "\"%.256s\xe2\x80\xa6\"", long_str);
	snprintf(cut_ctf, sizeof(cut_ctf), "\"%.256s\xe2\x80\xa6\"", long_str);
	is_int(ulsm_trace_enable("tt_*"), 4, "the recorder on the 4 tracepoints");
	trace_tt_chars('A', -1, 255, -2, 65535);
	trace_tt_chars((char)0xe9, SCHAR_MIN, 0, SHRT_MIN, 0);
	trace_tt_ints(-13, (unsigned int)-13, -1234567890123L, ULONG_MAX,
		      LLONG_MIN, ULLONG_MAX);
	trace_tt_ints(INT_MIN, 0, LONG_MAX, 0, -1, 1);
	trace_tt_misc(true, TT_NEG, TT_BIG, SIZE_MAX, -5,
		      (const void *)(uintptr_t)0xdeadbeefcafeull);
	trace_tt_misc(false, TT_POS, TT_ZERO, 0, SSIZE_MAX, NULL);
	trace_tt_reals(-1.5f, 3.25, "h\xc3\xa9llo, \"w\"");
	trace_tt_reals(0.1f, -1e300, NULL);
	trace_tt_reals(1e10f, INFINITY, long_str);
	ulsm_trace_disable("tt_*");
	snprintf(rec, sizeof(rec), "%s/rec.bin", dir);
	n = ulsm_trace_write(rec);
	is_int(n, 9, "the recording holds the 9 events");
}

/* The whole output of @cmd, or NULL if it failed. */
static char *run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *out = NULL;
	size_t len = 0, cap = 0, got;

	if (!p)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = 2 * (len + 4096 + 1);
			out = realloc(out, cap);
			if (!out)
				exit(1);
		}
		got = fread(out + len, 1, 4096, p);
		len += got;
	} while (got);
	out[len] = 0;
	if (pclose(p)) {
		free(out);
		return NULL;
	}
	return out;
}

/* The @nth line of @out that holds @key, or NULL; *@len its length. */
static const char *nth_line(const char *out, const char *key, int nth,
			    size_t *len)
{
	for (const char *l = out; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		const char *k = memmem(l, n, key, strlen(key));

		if (k && nth-- == 0) {
			*len = n;
			return l;
		}
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/*
 * Whether the line holds the field with exactly this value: the text's
 * " f=v" before a space or the end, the JSON's "f": v before , or },
 * babeltrace2's " f = v" before , or " }".
 */
static bool has_field(const char *line, size_t len, const char *field,
		      const char *value, int form)
{
	char pat[1024];
	size_t n;

	if (form == 0)
		n = (size_t)snprintf(pat, sizeof(pat), " %s=%s", field, value);
	else if (form == 1)
		n = (size_t)snprintf(pat, sizeof(pat), "\"%s\": %s", field,
				     value);
	else
		n = (size_t)snprintf(pat, sizeof(pat), " %s = %s", field,
				     value);
	for (const char *p = line; (p = memmem(p, len - (size_t)(p - line),
					      pat, n)); p++) {
		const char *end = p + n;
		size_t left = len - (size_t)(end - line);

		if (form == 0 && (!left || *end == ' '))
			return true;
		if (form == 1 && left && (*end == ',' || *end == '}'))
			return true;
		if (form == 2 && left && (*end == ',' || !strncmp(end, " }", 2)))
			return true;
	}
	return false;
}

static const char *const form_name[] = { "text", "JSON", "babeltrace2" };

/* Every field of wants[] at each hit, in one output (@form). */
static void check_output(const char *out, int form)
{
	int bad = 0, checked = 0;

	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		for (int nth = 0; nth < 3 && wants[i].text[nth]; nth++) {
			const struct want *w = &wants[i];
			const char *value = form == 1 ? w->json[nth] :
					    form == 2 ? w->ctf[nth] : NULL;
			char key[64];
			const char *line;
			size_t len;

			if (form == 0)
				snprintf(key, sizeof(key), " %s ", w->tp);
			else if (form == 1)
				snprintf(key, sizeof(key), "\"name\": \"%s\"",
					 w->tp);
			else
				snprintf(key, sizeof(key), " %s: ", w->tp);
			if (!value)
				value = w->text[nth];
			line = out ? nth_line(out, key, nth, &len) : NULL;
			checked++;
			if (line && has_field(line, len, w->field, value, form))
				continue;
			if (bad++ < 5)
				diag("  %s, %s #%d: %s is not %s in: %.*s",
				     form_name[form], w->tp, nth, w->field,
				     value, line ? (int)(len < 300 ? len : 300)
				     : 4, line ? line : "none");
		}
	ok(!bad, "%s: each of the %d fields reads with its sign and width "
	   "(-13 as int, -2 as short, -1 as signed char, 4294967283 as "
	   "unsigned)", form_name[form], checked);
}

static bool have_babeltrace2(void)
{
	return !system("command -v babeltrace2 >/dev/null 2>&1");
}

static int skips;

static void skip(const char *what)
{
	printf("ok %d # skip %s: babeltrace2 is not installed\n", ++tap_count,
	       what);
	skips++;
}

static void check_ctf(void)
{
	char cmd[512], err[80];
	char *out;
	struct stat st;

	snprintf(ctfdir, sizeof(ctfdir), "%s/ctf", dir);
	snprintf(cmd, sizeof(cmd), "%s '%s' --ctf '%s' '%s'", emu, tool,
		 ctfdir, rec);
	ok(!system(cmd) && !stat(ctfdir, &st) && S_ISDIR(st.st_mode),
	   "--ctf wrote a trace directory");
	if (!have_babeltrace2()) {
		skip("babeltrace2 reads the trace, saying nothing on stderr");
		skip("babeltrace2: each field with its sign and width");
		return;
	}
	snprintf(err, sizeof(err), "%s/bt.err", dir);
	snprintf(cmd, sizeof(cmd), "BABELTRACE_TERM_COLOR=NEVER babeltrace2 "
		 "'%s' 2>'%s'", ctfdir, err);
	out = run(cmd);
	ok(out && !stat(err, &st) && !st.st_size,
	   "babeltrace2 reads the trace, saying nothing on stderr");
	check_output(out, 2);
	free(out);
}

/* The comparison of any recording, on this one, and on a wrong text. */
static void check_compare(void)
{
	char cmd[1024], fake[64];
	char *out;
	FILE *f;

	if (!have_babeltrace2()) {
		skip("ctf_compare.sh: the text and babeltrace2 agree");
		skip("ctf_compare.sh: a -13 that reads -14 in the text is "
		     "found");
		return;
	}
	snprintf(cmd, sizeof(cmd), "ULSM_EMU='%s' '%s' -t '%s' '%s'", emu,
		 TT_COMPARE, tool, rec);
	out = run(cmd);
	ok(out && strstr(out, "9 events (43 fields)") &&
	   strstr(out, "the same"), "ctf_compare.sh: the text and "
	   "babeltrace2 agree, field by field: %s", out ? strtok(out, "\n") :
	   "it failed");
	free(out);
	/* A tool whose text says -14 where the file says -13. */
	snprintf(fake, sizeof(fake), "%s/fake-tool", dir);
	f = fopen(fake, "w");
	if (f) {
		fprintf(f, "#!/bin/sh\nif [ \"$1\" = --text ]; then\n"
			"\t%s '%s' \"$@\" | sed 's/ i=-13 / i=-14 /'\n"
			"else\n\texec %s '%s' \"$@\"\nfi\n", emu, tool, emu,
			tool);
		fclose(f);
		chmod(fake, 0700);
	}
	/* The fake runs the emulator itself: none for ctf_compare to add. */
	snprintf(cmd, sizeof(cmd), "ULSM_EMU= '%s' -t '%s' '%s'; echo status $?",
		 TT_COMPARE, fake, rec);
	out = run(cmd);
	ok(out && strstr(out, "i is -14 in the text, -13 in babeltrace2") &&
	   strstr(out, "status 1"), "ctf_compare.sh: a -13 that reads -14 "
	   "in the text is found");
	free(out);
	unlink(fake);
}

int main(void)
{
	char cmd[512];
	char *out;
	const char *e = getenv("ULSM_EMU"), *t = getenv("ULSM_TRACE_TOOL");

	if (e)
		emu = e;
	if (t && *t)
		tool = t;
	if (access(tool, X_OK))
		skip_all("no ulsm-trace to test");
	if (!mkdtemp(dir)) {
		diag("mkdtemp: %s", strerror(errno));
		return 1;
	}
	record();
	snprintf(cmd, sizeof(cmd), "%s '%s' --text '%s'", emu, tool, rec);
	out = run(cmd);
	check_output(out, 0);
	free(out);
	snprintf(cmd, sizeof(cmd), "%s '%s' --json '%s'", emu, tool, rec);
	out = run(cmd);
	check_output(out, 1);
	free(out);
	check_ctf();
	check_compare();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	if (skips)
		diag("%d checks skipped: no babeltrace2 (apt-get install "
		     "babeltrace2)", skips);
	return done_testing();
}
