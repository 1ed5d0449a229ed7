/* SPDX-License-Identifier: MIT */
/*
 * tests/tools/ctf_check.h - what ulsm-trace --ctf must write, whatever
 * recording it read, checked without a CTF reader: metadata that starts
 * with the CTF 1.8 signature and is text (UTF-8, no control but newline
 * and tab), and stream files that are whole packets, as a reader walks
 * them (the packet header and context of ulsm-trace's stream block:
 * magic, the trace's UUID, stream 0; sizes in bits, the content within
 * the packet, the packet within the file; sequence numbers 0, 1, 2...;
 * times that do not go back; a running total of discarded events that
 * does not go down; a thread name that ends within the content, in
 * UTF-8). babeltrace2, where it is installed, then reads the events.
 * Written apart from the writer (tools/ulsm-trace/ctf.c), so that it
 * checks it rather than repeats it.
 */
#ifndef ULSM_TESTS_CTF_CHECK_H
#define ULSM_TESTS_CTF_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace_check.h"

#define TC_CTF_SIGNATURE	"/* CTF 1.8 */\n"

static inline uint64_t tc_le(const unsigned char *p, int size)
{
	uint64_t v = 0;

	for (int i = size; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* -1 when the metadata is good, else the offset of what is wrong. */
static inline long tc_ctf_metadata_check(const char *p, size_t len)
{
	size_t sig = sizeof(TC_CTF_SIGNATURE) - 1;

	if (len < sig || memcmp(p, TC_CTF_SIGNATURE, sig))
		return 0;
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = tc_utf8((const unsigned char *)p + i, len - i, &cp);

		if (!n || (cp < 0x20 && cp != '\n' && cp != '\t') ||
		    cp == 0x7f)
			return (long)i;
		i += n;
	}
	return -1;
}

/*
 * -1 when the stream file of @len bytes is whole packets that a reader
 * can walk, else the offset of what is wrong. @uuid: the trace's, taken
 * from the first packet when it points at 16 zero bytes.
 */
static inline long tc_ctf_stream_check(const unsigned char *p, size_t len,
				       unsigned char uuid[16])
{
	static const unsigned char zero[16];
	uint64_t seq = 0, end = 0, discarded = 0;
	size_t off = 0;

	if (!len)
		return 0;
	while (off < len) {
		const unsigned char *k = p + off;
		uint64_t content, size, n = len - off;
		size_t name, nul;

		if (n < 81 || tc_le(k, 4) != 0xc1fc1fc1u ||
		    tc_le(k + 20, 4) != 0)
			return (long)off;
		if (!memcmp(uuid, zero, 16))
			memcpy(uuid, k + 4, 16);
		if (memcmp(uuid, k + 4, 16))
			return (long)off + 4;
		content = tc_le(k + 40, 8);
		size = tc_le(k + 48, 8);
		if (content % 8 || size % 8 || content > size ||
		    size / 8 > n || content / 8 < 81)
			return (long)off + 40;
		if (tc_le(k + 56, 8) != seq++)
			return (long)off + 56;
		if (tc_le(k + 24, 8) > tc_le(k + 32, 8) ||
		    tc_le(k + 24, 8) < end)
			return (long)off + 24;
		end = tc_le(k + 32, 8);
		if (tc_le(k + 64, 8) < discarded)
			return (long)off + 64;
		discarded = tc_le(k + 64, 8);
		name = 80;
		for (nul = name; nul < content / 8 && k[nul]; nul++)
			;
		if (nul == content / 8)
			return (long)off + 80;
		for (size_t i = name; i < nul;) {
			uint32_t cp;
			size_t m = tc_utf8(k + i, nul - i, &cp);

			if (!m)
				return (long)(off + i);
			i += m;
		}
		off += size / 8;
	}
	return -1;
}

#endif
