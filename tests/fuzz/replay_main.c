// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/replay_main.c - a libFuzzer harness as a TAP test, without
 * libFuzzer: LLVMFuzzerTestOneInput() on every file of the harness's seed
 * corpus and regressions, in name order, one "ok" per file. make check
 * builds each harness with this main (t_fuzz_<name>), so that every
 * compiler, sanitizer, back end and emulator it runs replays what libFuzzer
 * found and what the seeds cover; make fuzz links the same harness with
 * libFuzzer's main instead (tests/fuzz/fuzz.mk).
 *
 *	t_fuzz_<name>.t [FILE|DIR]...
 *
 * With no argument: FUZZ_DIR/corpus/FUZZ_NAME and FUZZ_DIR/regress/FUZZ_NAME
 * (the second may be missing). A crash, an abort or a sanitizer's report
 * in the harness ends the program, after the "ok" of the file before it;
 * a harness with no seed at all fails, since it would check nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tap.h"

#ifndef FUZZ_DIR
# define FUZZ_DIR	"tests/fuzz"
#endif
#ifndef FUZZ_NAME
# error "FUZZ_NAME: the harness's name (its corpus folder)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replayed;

/* @path without the tree's folder of the harnesses, for short names. */
static const char *shown(const char *path)
{
	size_t n = strlen(FUZZ_DIR "/");

	return strncmp(path, FUZZ_DIR "/", n) ? path : path + n;
}

static void replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	size_t size = 0, cap = 0;

	if (!f) {
		ok(0, "%s: cannot open: %s", path, strerror(errno));
		return;
	}
	for (;;) {
		size_t n;

		if (size == cap) {
			cap = cap ? 2 * cap : 4096;
			data = realloc(data, cap);
			if (!data)
				abort();
		}
		n = fread(data + size, 1, cap - size, f);
		if (!n)
			break;
		size += n;
	}
	if (ferror(f)) {
		ok(0, "%s: cannot read", path);
	} else {
		/* A copy of its exact size: ASan sees a read past the end. */
		unsigned char *exact = malloc(size ? size : 1);

		if (!exact)
			abort();
		memcpy(exact, data, size);
		ok(LLVMFuzzerTestOneInput(exact, size) == 0, "%s (%zu bytes)",
		   shown(path), size);
		free(exact);
		replayed++;
	}
	free(data);
	fclose(f);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int regular(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Every file of @dir, in name order; a missing @dir is said if @needed. */
static void replay_dir(const char *dir, int needed)
{
	struct dirent **names;
	int n = scandir(dir, &names, regular, by_name);

	if (n < 0) {
		if (needed)
			ok(0, "%s: %s", dir, strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!stat(path, &st) && S_ISREG(st.st_mode))
			replay_file(path);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	struct stat st;

	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			if (!stat(argv[i], &st) && S_ISDIR(st.st_mode))
				replay_dir(argv[i], 1);
			else
				replay_file(argv[i]);
		}
		return done_testing();
	}
	replay_dir(FUZZ_DIR "/corpus/" FUZZ_NAME, 1);
	ok(replayed > 0, "the seed corpus of %s is not empty", FUZZ_NAME);
	replay_dir(FUZZ_DIR "/regress/" FUZZ_NAME, 0);
	diag("%d inputs replayed", replayed);
	return done_testing();
}
