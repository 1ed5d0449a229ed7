/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/reply_check.h - what a client of the control endpoint must
 * be able to read back, whatever it sent (docs/control.md, "The
 * protocol"), for tests/fuzz/fuzz_control.c:
 *
 *  - the bytes are a sequence of whole items: "ok <n>\n" and n bytes of
 *    JSON ending in a newline (none when n is 0), "error <errno> <text>\n"
 *    with a negative errno and one line of text without control bytes,
 *    or a recording's chunk, "data <n>\n" or "end <n>\n" and n bytes;
 *  - each request line gets one answer (ok, error, or the end chunk of
 *    the recording it stopped), in order: expected_answers() counts them
 *    from what was sent, written from the protocol rather than from the
 *    endpoint's code.
 */
#ifndef ULSM_TESTS_FUZZ_REPLY_CHECK_H
#define ULSM_TESTS_FUZZ_REPLY_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "trace_check.h"

/* A request line is at most this long, its newline included. */
#define RC_LINE_MAX	1024

/*
 * The answers that @sent asks for: one per line, up to and including the
 * first line too long to be one (which is answered with an error, and
 * then the connection ends). The bytes after the last newline are no
 * request, unless they are already too long.
 */
static inline size_t expected_answers(const unsigned char *sent, size_t len)
{
	size_t n = 0, at = 0;

	while (at < len) {
		const unsigned char *nl = memchr(sent + at, '\n', len - at);
		size_t line = nl ? (size_t)(nl - sent) - at : len - at;

		if (line >= RC_LINE_MAX)
			return n + 1;
		if (!nl)
			break;
		n++;
		at += line + 1;
	}
	return n;
}

/* The decimal number at *@p up to @stop, moving *@p past it; -1: none. */
static inline long long rc_number(const char **p, const char *end, char stop)
{
	long long v = 0;
	const char *s = *p;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (1ll << 40))
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (s == end || *s != stop)
		return -1;
	*p = s + 1;
	return v;
}

/*
 * Check @len bytes of replies: NULL if they are whole and well formed,
 * with the answers counted in *@answers and whether the last item was an
 * end chunk in *@last_end; else what is wrong.
 */
static inline const char *check_replies(const char *s, size_t len,
					size_t *answers, bool *last_end)
{
	const char *p = s, *end;

	*answers = 0;
	*last_end = false;
	if (!len)
		return NULL;	/* (and @s may be NULL) */
	end = s + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		long long n;

		if (!nl)
			return "a reply without its newline";
		*last_end = false;
		if (!strncmp(p, "error -", 7)) {
			p += 7;
			n = rc_number(&p, nl, ' ');
			if (n < 1 || n > 4095)
				return "an error line without a negative errno";
			if (nl - p > 512)
				return "an error's message longer than 512 bytes";
			for (; p < nl; p++)
				if ((unsigned char)*p < 0x20 || *p == 0x7f)
					return "a control byte in an error line";
			p = nl + 1;
			++*answers;
			continue;
		}
		if (!strncmp(p, "ok ", 3)) {
			p += 3;
			n = rc_number(&p, end, '\n');
			if (n < 0 || n > end - p)
				return "an ok line without its bytes";
			if (n && (p[n - 1] != '\n' ||
				  tc_json_check(p, (size_t)n - 1) >= 0))
				return "an ok reply that is not JSON and a newline";
			p += n;
			++*answers;
			continue;
		}
		if (!strncmp(p, "data ", 5) || !strncmp(p, "end ", 4)) {
			bool is_end = *p == 'e';

			p += is_end ? 4 : 5;
			n = rc_number(&p, end, '\n');
			if (n < 0 || n > end - p)
				return "a chunk without its bytes";
			p += n;
			*answers += is_end;
			*last_end = is_end;
			continue;
		}
		return "a line that is no reply";
	}
	return NULL;
}

#endif /* ULSM_TESTS_FUZZ_REPLY_CHECK_H */
