// SPDX-License-Identifier: MIT
/*
 * tests/tools/fuzz_trace.c - ulsm-trace's reader and printers under
 * libFuzzer (clang -fsanitize=fuzzer), linked with the tool's files but
 * its main(): `make fuzz-trace` builds it with ASan and UBSan and runs it
 * FUZZ_TIME seconds from seeds that t_trace_fuzz writes. Not part of make
 * check, which runs the tool itself on files it makes (t_trace_fuzz);
 * this one reaches more inputs per second.
 *
 * Each input is read twice, with its size known (a regular file) and not
 * (a pipe): the two must agree on accepting it, so the early checks
 * against the size never refuse what reading would accept. What is
 * accepted is printed in both modes, and must be strict JSON whose
 * slices pair, and clean text (tests/tools/trace_check.h). A crash, a
 * leak, a sanitizer's report or an allocation over libFuzzer's limit is
 * a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
	}
	free_trace(&t);
	return 0;
}
