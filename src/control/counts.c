// SPDX-License-Identifier: MIT
/*
 * The counts that ulsmctl top reads (docs/control.md, "counts"): every
 * tracepoint's hits (its own probe attached, src/trace/tracepoint.c) and
 * every hook set's calls and refusals per module (its dispatch traced,
 * src/lsm/trace.c), attached by a connection's first "counts" and
 * detached when the last such connection closes: while nobody counts,
 * the program pays nothing.
 */
#include <errno.h>
#include <time.h>

#include <ulsm/lsm.h>

#include "control/endpoint.h"
#include "base/hook_sets.h"
#include "trace/trace.h"

#define MAX_SETS	64

static struct {
	unsigned int holders;			/* connections counting */
	struct ulsm_hook_set *set[MAX_SETS];	/* sets traced for them */
	unsigned int nsets;
} cnt;

/* Trace each set not traced for the counts yet (new ones too). */
static void hold_set(void *arg, const struct ulsm_lsm_set_info *s)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();

	(void)arg;
	for (unsigned int i = 0; i < cnt.nsets; i++)
		if (cnt.set[i] == s->set)
			return;
	if (cnt.nsets == MAX_SETS)
		return;
	/* Not traced (a failure): its modules count nothing; said in show. */
	if (ops->trace(s->set, true)) {
		ulsm_clear_error();
		return;
	}
	cnt.set[cnt.nsets++] = s->set;
}

static void hold_sets(void)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();

	if (ops)
		ops->each_set(hold_set, NULL);
}

int counts_hold(void)
{
	int ret;

	if (cnt.holders) {
		cnt.holders++;
		return 0;
	}
	ulsm_clear_error();
	ret = ulsm_trace_count_begin();
	if (ret)
		return ret;
	cnt.holders = 1;
	return 0;
}

/* The counting probes and the hook sets' traced dispatch, detached. */
static void counts_detach(void)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();

	ulsm_trace_count_end();
	for (unsigned int i = 0; ops && i < cnt.nsets; i++)
		if (ops->trace(cnt.set[i], false))
			ulsm_clear_error();
	cnt.nsets = 0;
}

void counts_release(void)
{
	if (!cnt.holders || --cnt.holders)
		return;
	counts_detach();
}

void counts_forget(void)
{
	if (!cnt.holders)
		return;
	cnt.holders = 0;
	counts_detach();
}

static void tp_counts(void *arg, const struct ulsm_trace_info *i)
{
	struct json_list *l = arg;

	if (!i->counted)
		return;
	json_item(l, i->name);
	buf_printf(l->b, ",\"hits\":%lu}", i->hits);
}

static void module_counts(void *arg, const char *module, unsigned long calls,
			  unsigned long refusals)
{
	struct json_list *l = arg;

	json_item(l, module);
	buf_printf(l->b, ",\"calls\":%lu,\"refusals\":%lu}", calls, refusals);
}

int render_counts(struct buf *b)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();
	struct json_list l = { b, 0 };

	hold_sets();
	buf_printf(b, "{\"ns\":%llu,\"tracepoints\":[",
		   (unsigned long long)ulsm_now_ns());
	if (ulsm_trace_each(tp_counts, &l, 1000))
		return -EBUSY;
	buf_add(b, "],\"sets\":[", 10);
	l.n = 0;
	for (unsigned int i = 0; ops && i < cnt.nsets; i++) {
		struct json_list ml = { b, 0 };

		json_item(&l, cnt.set[i]->name);
		buf_add(b, ",\"modules\":[", 12);
		ops->trace_counts(cnt.set[i], module_counts, &ml);
		buf_add(b, "]}", 2);
	}
	buf_add(b, "]}", 2);
	return 0;
}
