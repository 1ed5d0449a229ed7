// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_recording.c - ulsm-trace's reader and its three outputs
 * under libFuzzer (tests/fuzz/fuzz.mk; make check replays its corpus),
 * linked with the tool's files but its main(). An input is a recording
 * as ulsm-trace reads it: a file of the recorder (versions 1 to 3), or a
 * stream of the control endpoint saved by ulsmctl record (version 2 and
 * 3 records, ending with an end record).
 *
 * Each input is read twice, with its size known (a regular file) and not
 * (a pipe, standard input): the two must agree on accepting it, so the
 * early checks against the size never refuse what reading would accept.
 * What is accepted is printed in all three modes, and must be strict
 * JSON whose slices pair, clean text (tests/tools/trace_check.h), and a
 * CTF trace (written into memory, as recorded and with --wall-clock's
 * offset) of metadata and whole packets (tests/tools/ctf_check.h), of a
 * size linear in the input's. A crash, a leak, a sanitizer's report or an
 * allocation over libFuzzer's limit is a finding. The seeds hold files of
 * each version (tests/fuzz/corpus/recording/).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf.h"
#include "ctf_check.h"
#include "output.h"
#include "reader.h"
#include "trace_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_one(const uint8_t *data, size_t size, bool known,
		    struct trace *t)
{
	static char empty[1];
	struct input in = { 0 };
	int ret;

	/* fmemopen of 0 bytes is refused by some C libraries. */
	in.f = size ? fmemopen((void *)(uintptr_t)data, size, "rb") :
		      fmemopen(empty, 1, "r");
	if (!in.f)
		abort();
	if (!size)
		fgetc(in.f);
	in.size = known ? size : SIZE_UNKNOWN;
	ret = read_trace(&in, t);
	fclose(in.f);
	return ret;
}

static void print_and_check(const struct trace *t, bool json)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		abort();
	if (json)
		print_json(f, t);
	else
		print_text(f, t);
	fclose(f);
	if ((json ? tc_json_check(out, len) : tc_text_check(out, len)) >= 0)
		abort();
	if (json && tc_json_slices_check(out, len) != -1)
		abort();
	free(out);
}

/* The CTF trace's files, one at a time, into memory and checked there. */
struct mem_sink {
	struct ctf_sink sink;
	char *p;
	size_t len, total;
	bool meta;
	unsigned char uuid[16];
};

static FILE *mem_create(struct ctf_sink *sink, const char *name)
{
	struct mem_sink *m = (struct mem_sink *)sink;

	m->meta = !strcmp(name, "metadata");
	return open_memstream(&m->p, &m->len);
}

static int mem_close(struct ctf_sink *sink, FILE *f)
{
	struct mem_sink *m = (struct mem_sink *)sink;

	if (fclose(f))
		abort();
	if (m->meta ? tc_ctf_metadata_check(m->p, m->len) >= 0 :
		      tc_ctf_stream_check((unsigned char *)m->p, m->len,
					  m->uuid) >= 0)
		abort();
	m->total += m->len;
	free(m->p);
	m->p = NULL;
	return 0;
}

/*
 * At most a class's metadata (a name shown with escapes, its fields'
 * names) per event, a packet's header and thread name per thread: a
 * bound linear in the input, which a quadratic writer would break.
 */
static void ctf_and_check(const struct trace *t, size_t size,
			  const struct ctf_opts *o)
{
	struct mem_sink m = { .sink = { mem_create, mem_close } };
	char why[256];

	if (ctf_fits(t, o, why, sizeof(why)))
		return;
	if (ctf_write(t, o, &m.sink) || m.total > 65536 + 2048 * size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t = { 0 };
	int known = read_one(data, size, true, &t);

	free_trace(&t);
	if (read_one(data, size, false, &t) != known)
		abort();
	if (!known) {
		print_and_check(&t, false);
		print_and_check(&t, true);
		ctf_and_check(&t, size, &(struct ctf_opts){ 0 });
		/* --wall-clock: an offset of 2025's (a fixed one: no clock). */
		ctf_and_check(&t, size, &(struct ctf_opts){
			.offset_ns = 1735689600000000000ll, .wall_clock = true });
	}
	free_trace(&t);
	return 0;
}
