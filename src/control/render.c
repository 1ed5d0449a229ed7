// SPDX-License-Identifier: MIT
/*
 * What the control endpoint says of the process (docs/control.md, "What
 * is exposed"), as JSON: hello's summary, show's whole picture, and one
 * switch or module after a change.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ulsm/config.h>
#include <ulsm/lsm.h>

#include "control/endpoint.h"
#include "base/hook_sets.h"
#include "static/static.h"
#include "trace/trace.h"

static void show_tp(void *arg, const struct ulsm_trace_info *i)
{
	struct json_list *l = arg;

	json_item(l, i->name);
	buf_field(l->b, "args", i->args);
	buf_printf(l->b, ",\"on\":%s,\"probes\":%d,\"recorder\":%s,"
		   "\"recording\":%s,\"usdt\":%s}",
		   i->probes ? "true" : "false", i->probes,
		   i->recorder ? "true" : "false",
		   i->recorder ? "true" : "false",
		   i->usdt ? "true" : "false");
}

static void show_switch(void *arg, const struct ulsm_switch *sw)
{
	struct json_list *l = arg;

	json_item(l, sw->name);
	buf_field(l->b, "description", sw->description);
	buf_printf(l->b, ",\"on\":%s}",
		   __atomic_load_n(&sw->key->key.enabled, __ATOMIC_RELAXED) > 0 ?
		   "true" : "false");
}

/*
 * The hook framework, through the table it registers (src/base/hook_sets.h):
 * none before its first set, and then nothing to list. A set in hand (from
 * this walk) means the table is there: the rest call ulsm_lsm_ops() as is.
 */
static void lsm_each_set(void (*fn)(void *arg,
				    const struct ulsm_lsm_set_info *),
			 void *arg)
{
	const struct ulsm_lsm_ops *ops = ulsm_lsm_ops();

	if (ops)
		ops->each_set(fn, arg);
}

static void show_module(void *arg, const struct ulsm_lsm_module_info *m)
{
	struct json_list *l = arg;

	json_item(l, m->name);
	buf_field(l->b, "state", m->state);
	buf_printf(l->b, ",\"position\":%d,\"place\":%d,\"on\":%s,"
		   "\"reason\":", m->position, m->position,
		   m->on ? "true" : "false");
	buf_json(l->b, m->reason);
	buf_add(l->b, "}", 1);
}

static void show_expected(void *arg, const char *name)
{
	struct json_list *l = arg;

	json_sep(l);
	buf_json(l->b, name);
}

static void show_set(void *arg, const struct ulsm_lsm_set_info *s)
{
	struct json_list *l = arg, ml = { l->b, 0 };

	json_item(l, s->name);
	buf_printf(l->b, ",\"sealed\":%s,\"toggle_allowed\":%s,"
		   "\"unloadable\":%s,\"modules\":[",
		   s->sealed ? "true" : "false",
		   s->toggle_allowed ? "true" : "false",
		   s->unloadable ? "true" : "false");
	ulsm_lsm_ops()->each_module(s->set, show_module, &ml);
	buf_add(l->b, "],\"expected\":[", 14);
	ml.n = 0;
	ulsm_lsm_ops()->each_expected(s->set, show_expected, &ml);
	buf_add(l->b, "]}", 2);
}

/* A key's or call's name: its dynamic symbol, else its address. */
static void json_sym(struct buf *b, const void *p)
{
	Dl_info info;

	if (p && dladdr(p, &info) && info.dli_sname && info.dli_saddr == p)
		buf_json(b, info.dli_sname);
	else
		buf_printf(b, "\"%p\"", p);
}

/* The hook sets' own keys and calls, shown with their sets, not here. */
struct set_ranges {
	struct ulsm_range r[128];
	int n;
};

static void set_range(void *arg, const struct ulsm_lsm_set_info *s)
{
	struct set_ranges *sr = arg;
	const struct ulsm_hook_set *set = s->set;

	if (sr->n + 2 > (int)ARRAY_SIZE(sr->r))
		return;
	sr->r[sr->n++] = (struct ulsm_range){ (uintptr_t)set->keys,
		(uintptr_t)set->keys + set->keys_size };
	sr->r[sr->n++] = (struct ulsm_range){ (uintptr_t)set->sealed,
		(uintptr_t)set->sealed + set->sealed_size };
}

/* The switches' keys, named: a program's keys have no dynamic symbol. */
struct switch_names {
	const void *key[64];
	char name[64][64];
	int n;
};

static void switch_name(void *arg, const struct ulsm_switch *sw)
{
	struct switch_names *sn = arg;

	if (sn->n == (int)ARRAY_SIZE(sn->key))
		return;
	sn->key[sn->n] = sw->key;
	snprintf(sn->name[sn->n++], sizeof(sn->name[0]), "%s", sw->name);
}

static bool in_set(const struct set_ranges *sr, const void *key)
{
	for (int i = 0; i < sr->n; i++)
		if ((uintptr_t)key >= sr->r[i].lo && (uintptr_t)key < sr->r[i].hi)
			return true;
	return false;
}

/* The name of switch key @key in @sn, or NULL. */
static const char *switch_of(const struct switch_names *sn, const void *key)
{
	const char *name = NULL;

	for (int w = 0; sn && w < sn->n; w++)
		if (sn->key[w] == key)
			name = sn->name[w];
	return name;
}

/*
 * The keys with branch sites and the calls with a trampoline that the
 * registry knows (read-only): hook slots' calls and keys are their sets'.
 */
static void show_keys_calls(struct buf *b)
{
	struct json_list keys = { b, 0 }, calls = { b, 0 };
	struct set_ranges sr = { .n = 0 };
	struct switch_names *sn;
	struct ulsm_keys_snapshot snap;
	struct buf cb = { .max = CTL_REPLY_MAX };
	int ret;

	/* The framework's lock before the patch lock, as the dump takes them. */
	lsm_each_set(set_range, &sr);
	sn = ulsm_calloc(1, sizeof(*sn));
	if (sn)
		ulsm_switch_each(switch_name, sn);

	ret = ulsm_lock();
	if (!ret) {
		ret = ulsm_keys_snapshot_take(&snap);
		ulsm_unlock();
	}
	if (ret) {
		ulsm_free(sn);
		buf_add(b, ",\"keys\":[],\"calls\":[]", 21);
		return;
	}
	/*
	 * Named after the lock is released: dladdr() takes the dynamic
	 * linker's lock, which a dlclose() holds while the object's
	 * destructor waits for the patch lock. The pointers are only looked
	 * up, never read.
	 */
	buf_add(b, ",\"keys\":[", 9);
	calls.b = &cb;
	for (size_t i = 0; i < snap.nkeys; i++) {
		const struct ulsm_key_summary *k = &snap.keys[i];
		const char *sw;

		if (in_set(&sr, k->key))
			continue;
		if (k->key_sites) {
			json_sep(&keys);
			buf_add(b, "{\"name\":", 8);
			sw = switch_of(sn, k->key);
			if (sw) {
				buf_json(b, sw);
				buf_add(b, ",\"switch\":true", 14);
			} else {
				json_sym(b, k->key);
			}
			buf_printf(b, ",\"on\":%s,\"count\":%d,\"sites\":%zu}",
				   k->count > 0 ? "true" : "false",
				   k->count, k->key_sites);
		} else if (k->tramps) {
			json_sep(&calls);
			buf_add(&cb, "{\"key\":", 7);
			json_sym(&cb, k->key);
			buf_add(&cb, ",\"target\":", 10);
			if (k->target)
				json_sym(&cb, k->target);
			else
				buf_add(&cb, "null", 4);
			buf_printf(&cb, ",\"sites\":%d,\"direct\":%d}",
				   k->call_sites, k->direct);
		}
	}
	ulsm_keys_snapshot_free(&snap);
	ulsm_free(sn);
	buf_add(b, "],\"calls\":[", 11);
	buf_add(b, cb.p, cb.len);
	b->over |= cb.over;
	buf_add(b, "]", 1);
	buf_free(&cb);
}

static void json_process(struct buf *b)
{
	char comm[64] = "";
	int fd = ulsm_sys_open("/proc/self/comm", O_RDONLY);

	if (fd >= 0) {
		ssize_t n = ulsm_sys_read(fd, comm, sizeof(comm) - 1);

		comm[n > 0 ? n : 0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		ulsm_sys_close(fd);
	}
	buf_printf(b, "\"pid\":%d,\"command\":", (int)getpid());
	buf_json(b, comm);
	buf_printf(b, ",\"uid\":%u,\"version\":\"%s\",\"backend\":",
		   (unsigned int)geteuid(), ULSM_VERSION);
	buf_json(b, ulsm_backend());
	buf_field(b, "sync", ulsm_sync_name());
}

struct tp_count {
	int n;
};

static void count_one(void *arg, const struct ulsm_trace_info *i)
{
	(void)i;
	((struct tp_count *)arg)->n++;
}

void render_hello(struct buf *b)
{
	struct tp_count g = { 0 };

	ulsm_trace_each(count_one, &g, 1000);
	buf_add(b, "{", 1);
	json_process(b);
	buf_printf(b, ",\"tracepoints\":%d,\"switches\":%d}", g.n,
		   ulsm_switch_each(NULL, NULL));
}

int render_show(struct buf *b)
{
	struct json_list l = { b, 0 };

	buf_add(b, "{\"process\":{", 12);
	json_process(b);
	buf_add(b, "},\"tracepoints\":[", 17);
	if (ulsm_trace_each(show_tp, &l, 1000))
		return -EBUSY;
	buf_add(b, "],\"switches\":[", 14);
	l.n = 0;
	ulsm_switch_each(show_switch, &l);
	buf_add(b, "]", 1);
	show_keys_calls(b);
	buf_add(b, ",\"sets\":[", 9);
	l.n = 0;
	lsm_each_set(show_set, &l);
	buf_add(b, "]}", 2);
	return 0;
}

void render_switch(struct buf *b, const struct ulsm_switch *sw)
{
	struct json_list l = { b, 0 };

	show_switch(&l, sw);
}

void render_module(struct buf *b, const struct ulsm_lsm_module_info *m)
{
	struct json_list l = { b, 0 };

	show_module(&l, m);
}
