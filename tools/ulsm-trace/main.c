// SPDX-License-Identifier: MIT
/*
 * ulsm-trace - turn the recorder's file (ulsm_trace_write(), ULSM_TRACE,
 * or a recording streamed by the control endpoint) into text or into
 * Chrome trace-event JSON, which Perfetto (ui.perfetto.dev),
 * chrome://tracing and speedscope open. ulsm-trace(1) is its manual.
 *
 *	ulsm-trace [--text | --json] FILE
 *
 * The file may come from elsewhere: truncated, corrupted, or made to do
 * harm; the reader (reader.c) checks it all and the outputs print only a
 * trace it accepted. A bad file gets one line on stderr and exit status
 * 1. Each output has its file: text.c, json.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "reader.h"

static int usage(void)
{
	fprintf(stderr, "usage: ulsm-trace [--text | --json] FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	struct trace t = { 0 };
	struct input in = { 0 };
	struct stat st;
	bool json = false;
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--text"))
			json = false;
		else if (argv[i][0] == '-' || path)
			return usage();
		else
			path = argv[i];
	}
	if (!path)
		return usage();
	in.f = fopen(path, "rb");
	if (!in.f) {
		fprintf(stderr, "ulsm-trace: %s: cannot open: %s\n", path,
			strerror(errno));
		return 1;
	}
	in.size = !fstat(fileno(in.f), &st) && S_ISREG(st.st_mode) ?
		  (uint64_t)st.st_size : SIZE_UNKNOWN;
	if (read_trace(&in, &t)) {
		fprintf(stderr, "ulsm-trace: %s: %s\n", path, in.msg);
		ret = 1;
	} else if (json) {
		print_json(stdout, &t);
	} else {
		print_text(stdout, &t);
	}
	fclose(in.f);
	free_trace(&t);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		fprintf(stderr, "ulsm-trace: writing the output: %s\n",
			strerror(errno));
		ret = 1;
	}
	return ret;
}
