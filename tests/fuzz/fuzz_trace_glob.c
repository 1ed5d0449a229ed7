// SPDX-License-Identifier: MIT
/*
 * tests/fuzz/fuzz_trace_glob.c - ULSM_TRACE's globs under libFuzzer
 * (tests/fuzz/fuzz.mk; make check replays its corpus).
 *
 * An input is a value of ULSM_TRACE (up to its first NUL byte, which an
 * environment cannot hold): "glob,glob,...". It is cut into globs by the
 * library's own reading of the list (ulsm_trace_next_glob(), which
 * start-up and the recorder's report use) and each glob, up to
 * MAX_GLOBS, is enabled with ulsm_trace_enable(), as start-up does for
 * the tracepoints that come, and as the control endpoint's record does
 * with a client's glob: the recorder attached to every tracepoint it
 * matches (src/trace/tracepoint.c, glob_attach()). Then each is disabled
 * again, in order.
 *
 * The counts each returns are compared with fnmatch() over the loaded
 * tracepoints (this program's five): an enable attaches the recorder to
 * those its glob matches that no glob enabled before matched, and
 * -EEXIST for a glob enabled already; a disable detaches it from those
 * no other enabled glob still matches. Once all are disabled, no
 * tracepoint has a probe left. A difference aborts.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#include "trace/trace.h"
#include "local_tp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

LOCAL_TRACEPOINT(req_start, TP_PROTO(int fd), TP_ARGS(fd));
LOCAL_TRACEPOINT(req_end, TP_PROTO(int fd, int err), TP_ARGS(fd, err));
LOCAL_TRACEPOINT(cache_miss, TP_PROTO(long key), TP_ARGS(key));
LOCAL_TRACEPOINT(Cache_Hit, TP_PROTO(long key), TP_ARGS(key));
LOCAL_TRACEPOINT(x, TP_PROTO(int v), TP_ARGS(v));

/* Globs of one input that are enabled; the rest are cut into, unused. */
#define MAX_GLOBS	16
#define MAX_TPS		64

static const char *tp_names[MAX_TPS];
static int ntps;

static void quiet(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

static void note_name(void *arg, const struct ulsm_trace_info *i)
{
	(void)arg;
	if (ntps < MAX_TPS)
		tp_names[ntps++] = i->name;
}

static void count_probes(void *arg, const struct ulsm_trace_info *i)
{
	*(int *)arg += i->probes + i->recorder;
}

static void fail(const char *what, const char *glob, const char *list)
{
	fprintf(stderr, "fuzz_trace_glob: %s: glob \"%.100s\" of \"%.200s\"\n",
		what, glob, list);
	abort();
}

/* Tracepoints @glob matches and none of @others[0..@n) (but @skip) does. */
static int only_by(const char *glob, char *const *others, int n, int skip)
{
	int count = 0;

	for (int t = 0; t < ntps; t++) {
		bool other = false;

		if (fnmatch(glob, tp_names[t], 0))
			continue;
		for (int k = 0; k < n && !other; k++)
			other = k != skip && !fnmatch(others[k], tp_names[t], 0);
		count += !other;
	}
	return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	char *list = malloc(size + 1), *copy = malloc(size + 1), *rest, *g;
	char *on[MAX_GLOBS];
	int n = 0, probes = 0;

	if (!list || !copy)
		abort();
	if (!ready) {
		ulsm_set_log(quiet, NULL);
		ulsm_trace_each(note_name, NULL, -1);
		ready = true;
	}
	memcpy(list, data, size);
	list[size] = '\0';
	strcpy(copy, list);
	rest = copy;
	for (int i = 0; i < MAX_GLOBS && (g = ulsm_trace_next_glob(&rest)); i++) {
		int want = only_by(g, on, n, -1), ret = ulsm_trace_enable(g);
		bool again = false;

		if (!*g || strchr(g, ','))
			fail("an empty glob, or one with a comma", g, list);
		for (int k = 0; k < n && !again; k++)
			again = !strcmp(on[k], g);
		if (again ? ret != -EEXIST : ret != want)
			fail("enable's count is not what the glob matches anew",
			     g, list);
		if (!again)
			on[n++] = g;
	}
	for (int k = 0; k < n; k++) {
		int want = only_by(on[k], on + k, n - k, 0);

		if (ulsm_trace_disable(on[k]) != want)
			fail("disable's count is not what the glob alone "
			     "matched", on[k], list);
	}
	ulsm_trace_each(count_probes, &probes, -1);
	if (probes)
		fail("probes left once every glob is disabled", "", list);
	free(copy);
	free(list);
	return 0;
}
