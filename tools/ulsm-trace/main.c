// SPDX-License-Identifier: MIT
/*
 * ulsm-trace - turn the recorder's file (ulsm_trace_write(), ULSM_TRACE,
 * or a recording streamed by the control endpoint) into text, into
 * Chrome trace-event JSON, which Perfetto (ui.perfetto.dev),
 * chrome://tracing and speedscope open, or into a CTF trace, which
 * babeltrace2 and Trace Compass open. ulsm-trace(1) is its manual.
 *
 *	ulsm-trace [--text | --json] FILE
 *	ulsm-trace --ctf OUTDIR [--wall-clock] FILE
 *	ulsm-trace --version
 *
 * FILE "-" is standard input (a recording piped from ulsmctl or ssh).
 *
 * The file may come from elsewhere: truncated, corrupted, or made to do
 * harm; the reader (reader.c) checks it all and the outputs print only a
 * trace it accepted. A bad file gets one line on stderr and exit status
 * 1, and no output: no text, no JSON, no trace directory. Each output has
 * its file: text.c, json.c, ctf.c (with tsdl.c, its metadata, and
 * ctfdir.c, its directory).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ulsm/config.h>

#include "ctf.h"
#include "output.h"
#include "reader.h"

static const char usage_text[] =
	"usage: ulsm-trace [--text | --json] FILE\n"
	"       ulsm-trace --ctf OUTDIR [--wall-clock] FILE\n"
	"       ulsm-trace --version\n"
	"FILE - is standard input.\n";

static int usage(void)
{
	fputs(usage_text, stderr);
	return 2;
}

/*
 * The recording at @path, or standard input for "-". in->size is what is
 * left to read when it is known (a regular file, even as standard input
 * from a position past its start), so that the reader can refuse an
 * impossible count before it reads.
 */
static int open_input(const char *path, struct input *in)
{
	struct stat st;
	off_t at = 0;

	in->f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!in->f)
		return -errno;
	in->size = SIZE_UNKNOWN;
	if (fstat(fileno(in->f), &st) || !S_ISREG(st.st_mode))
		return 0;
	if (in->f == stdin) {
		at = lseek(fileno(in->f), 0, SEEK_CUR);
		if (at < 0 || at > st.st_size)
			return 0;
	}
	in->size = (uint64_t)(st.st_size - at);
	return 0;
}

/*
 * --wall-clock: CLOCK_REALTIME at CLOCK_MONOTONIC's 0, now. The two are
 * read twice around a third read, and the pair that took less time kept.
 */
static int64_t wall_offset(void)
{
	struct timespec m0, r, m1;
	int64_t best = 0, span = INT64_MAX;

	for (int i = 0; i < 3; i++) {
		int64_t d, mono;

		clock_gettime(CLOCK_MONOTONIC, &m0);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m1);
		d = (m1.tv_sec - m0.tv_sec) * 1000000000ll +
		    (m1.tv_nsec - m0.tv_nsec);
		mono = m0.tv_sec * 1000000000ll + m0.tv_nsec + d / 2;
		if (d < span) {
			span = d;
			best = r.tv_sec * 1000000000ll + r.tv_nsec - mono;
		}
	}
	return best;
}

enum mode { TEXT, JSON, CTF };

int main(int argc, char **argv)
{
	const char *path = NULL, *shown, *outdir = NULL;
	struct ctf_opts co = { 0 };
	struct trace t = { 0 };
	struct input in = { 0 };
	enum mode mode = TEXT;
	char why[256];
	int ret = 0, err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			mode = JSON;
		} else if (!strcmp(argv[i], "--text")) {
			mode = TEXT;
		} else if (!strcmp(argv[i], "--ctf") && i + 1 < argc) {
			mode = CTF;
			outdir = argv[++i];
		} else if (!strcmp(argv[i], "--wall-clock")) {
			co.wall_clock = true;
		} else if (!strcmp(argv[i], "--version")) {
			printf("ulsm-trace %s\n", ULSM_VERSION);
			return fflush(stdout) || ferror(stdout);
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return fflush(stdout) || ferror(stdout);
		} else if ((argv[i][0] == '-' && strcmp(argv[i], "-")) || path) {
			return usage();
		} else {
			path = argv[i];
		}
	}
	if (!path || (co.wall_clock && mode != CTF))
		return usage();
	/* Said before a long read: the directory will not do. */
	if (mode == CTF && ctf_dir_usable(outdir, why, sizeof(why))) {
		fprintf(stderr, "ulsm-trace: %s: %s\n", outdir, why);
		return 1;
	}
	if (co.wall_clock)
		co.offset_ns = wall_offset();
	shown = strcmp(path, "-") ? path : "standard input";
	err = open_input(path, &in);
	if (err) {
		fprintf(stderr, "ulsm-trace: %s: cannot open: %s\n", shown,
			strerror(-err));
		return 1;
	}
	if (read_trace(&in, &t)) {
		fprintf(stderr, "ulsm-trace: %s: %s\n", shown, in.msg);
		ret = 1;
	} else if (mode == CTF) {
		if (ctf_fits(&t, &co, why, sizeof(why))) {
			fprintf(stderr, "ulsm-trace: %s: %s\n", shown, why);
			ret = 1;
		} else if (ctf_dir_write(outdir, &t, &co, why, sizeof(why))) {
			fprintf(stderr, "ulsm-trace: %s: %s\n", outdir, why);
			ret = 1;
		}
	} else if (mode == JSON) {
		print_json(stdout, &t);
	} else {
		print_text(stdout, &t);
	}
	if (in.f != stdin)
		fclose(in.f);
	free_trace(&t);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		fprintf(stderr, "ulsm-trace: writing the output: %s\n",
			strerror(errno));
		ret = 1;
	}
	return ret;
}
