// SPDX-License-Identifier: MIT
/*
 * ulsm_dump(): everything the library knows, in one place, for a person
 * reading it: the registered and pending objects, every static key with
 * its state and sites, every static call with its target, form and call
 * sites, every hook set with its modules and slot table. ULSM_DUMP prints
 * it at exit.
 *
 * Names come from dladdr(), which knows the dynamic symbols only: a
 * static or hidden key is shown by its address.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ulsm/lsm.h>

#include "lsm/lsm_internal.h"
#include "static/static.h"
#include "trace/trace.h"
#include "dump.h"

/*
 * An address, to be named: the dump is written under the patch lock into
 * memory, with each address between two marker bytes, and named after
 * the locks are released (named()). dladdr() takes the dynamic linker's
 * lock, which dlclose() holds while the unloading object's destructor
 * waits for the patch lock: naming under the lock could deadlock.
 */
#define NAME_START	'\x01'
#define NAME_END	'\x02'

static bool addr_marked;	/* dump_locked()'s, under the patch lock */

static void put_addr(FILE *f, const void *p)
{
	if (addr_marked)
		fprintf(f, "%c%p%c", NAME_START, p, NAME_END);
	else
		fprintf(f, "%p", p);
}

static void put_name(FILE *f, const void *p)
{
	Dl_info info;

	if (p && dladdr(p, &info) && info.dli_sname &&
	    info.dli_saddr == p)
		fprintf(f, "%s", info.dli_sname);
	else if (p && dladdr(p, &info) && info.dli_fname)
		fprintf(f, "%p (in %s)", p, strrchr(info.dli_fname, '/') ?
			strrchr(info.dli_fname, '/') + 1 : info.dli_fname);
	else
		fprintf(f, "%p", p);
}

/* @text, as written under the locks, to @f with its addresses named. */
static void named(FILE *f, const char *text, size_t len)
{
	const char *end = text + len;

	while (text < end) {
		const char *m = memchr(text, NAME_START, (size_t)(end - text));
		const char *e;
		void *p = NULL;

		if (!m) {
			fwrite(text, 1, (size_t)(end - text), f);
			return;
		}
		fwrite(text, 1, (size_t)(m - text), f);
		e = memchr(m, NAME_END, (size_t)(end - m));
		if (!e) {
			fwrite(m + 1, 1, (size_t)(end - m - 1), f);
			return;
		}
		if (sscanf(m + 1, "%p", &p) == 1)
			put_name(f, p);
		text = e + 1;
	}
}

struct object_count {
	FILE *f;
	const struct ulsm_site *sites;
	size_t n;
	int index;
};

static void show_object(const void *owner, const void *jump_start,
			unsigned long refs, bool pending, void *arg)
{
	struct object_count *c = arg;

	fprintf(c->f, "  object %d: tables at ", ++c->index);
	put_addr(c->f, jump_start);
	if (pending) {
		fprintf(c->f, ": PENDING (its sites run as compiled; every "
			"update retries it)\n");
		return;
	}
	/* Each kind of site, in the order of the tables. */
	for (int t = 0; t < ULSM_TABLES; t++) {
		const struct ulsm_site_kind *kind = ulsm_site_kind_of(t);
		size_t n = 0;

		if (!kind)
			continue;
		for (size_t i = 0; i < c->n; i++)
			n += c->sites[i].owner == owner &&
			     c->sites[i].kind == kind;
		fprintf(c->f, "%s %zu %s", t ? "," : ":", n, kind->name);
	}
	fprintf(c->f, "; %lu reference(s)\n", refs);
}

static void show_keys(FILE *f, const struct ulsm_keys_snapshot *snap)
{
	size_t keys = 0;

	fprintf(f, "static keys:\n");
	for (size_t i = 0; i < snap->nkeys; i++) {
		const struct ulsm_key_summary *k = &snap->keys[i];

		if (!k->key_sites)
			continue;
		fprintf(f, "  ");
		put_addr(f, k->key);
		fprintf(f, ": %s (count %d), %zu site(s)\n",
			k->count > 0 ? "enabled" : "disabled", k->count,
			k->key_sites);
		keys++;
	}
	if (!keys)
		fprintf(f, "  none with sites\n");
}

/* The set whose slots' static-call keys include @key, or NULL. */
static struct ulsm_hook_set *slot_set(const void *key,
				      struct ulsm_hook_set *const *sets,
				      size_t nsets)
{
	for (size_t i = 0; i < nsets; i++) {
		uintptr_t lo = (uintptr_t)sets[i]->sealed;

		if ((uintptr_t)key >= lo &&
		    (uintptr_t)key < lo + sets[i]->sealed_size)
			return sets[i];
	}
	return NULL;
}

static void show_calls(FILE *f, const struct ulsm_keys_snapshot *snap,
		       struct ulsm_hook_set *const *sets, size_t nsets)
{
	size_t calls = 0, slots = 0;

	fprintf(f, "static calls:\n");
	for (size_t i = 0; i < snap->nkeys; i++) {
		const struct ulsm_key_summary *k = &snap->keys[i];
		enum ulsm_static_call_form form;
		bool known;

		if (!k->tramps)
			continue;
		if (slot_set(k->key, sets, nsets)) {
			/* A hook slot's: shown with its set, below. */
			slots += k->tramps;
			continue;
		}
		known = !ulsm_tramp_form(k->tramp, &form);
		fprintf(f, "  ");
		put_addr(f, (const void *)k->tramp);
		fprintf(f, " -> ");
		if (k->target)
			put_addr(f, k->target);
		else
			fprintf(f, "NULL");
		fprintf(f, ", %s form", known ?
			ulsm_static_call_form_name(form) : "unknown");
		if (k->call_sites > 0)
			fprintf(f, ", %d call site(s), %d direct",
				k->call_sites, k->direct);
		fprintf(f, "\n");
		calls++;
	}
	if (!calls)
		fprintf(f, "  none of the program's own\n");
	if (slots)
		fprintf(f, "  and %zu hook slots' calls (with their sets, "
			"below)\n", slots);
}

/* A module as show lists it: its place in the order is the same. */
static void dump_module(void *arg, const struct ulsm_lsm_module_info *m)
{
	fprintf(arg, " %s (%s%s", m->name, m->state,
		!strcmp(m->state, "active") && !m->on ? ", toggled off" : "");
	if (m->position)
		fprintf(arg, ", #%d", m->position);
	fprintf(arg, ")");
}

static void dump_expected(void *arg, const char *name)
{
	fprintf(arg, " %s", name);
}

static void show_set(FILE *f, struct ulsm_hook_set *set)
{
	struct ulsm_lsm_state *st = set->state;

	size_t entries = 0;

	for (size_t h = 0; set->entries && h < set->nhooks; h++)
		entries += set->entries[h].map != NULL;
	fprintf(f, "hook set %s: %zu hooks (", set->name, set->nhooks);
	if (entries == set->nhooks)
		fprintf(f, "each dispatched by its entry");
	else if (!entries)
		fprintf(f, "dispatched by the inline walk");
	else
		fprintf(f, "%zu dispatched by an entry, %zu by the inline walk",
			entries, set->nhooks - entries);
	fprintf(f, "), %u slots each%s%s\n", set->slots,
		st && st->sealed ? ", sealed" : "",
		st && st->toggle_allowed ? ", toggling allowed" : "");
	if (!st)
		return;
	fprintf(f, "  active, in order: %s\n",
		st->list && *st->list ? st->list : "(none)");
	fprintf(f, "  modules, in order:");
	ulsm_lsm_each_module(set, dump_module, f);
	fprintf(f, "\n  expected, not loaded:");
	ulsm_lsm_each_expected(set, dump_expected, f);
	fprintf(f, "\n  slots (module, \"(off)\" when toggled off, "
		"\"[guard]\" when called through its guard; hooks with no "
		"module left out):\n");
	for (size_t h = 0; h < set->nhooks; h++) {
		bool any = false;

		for (unsigned int i = 0; i < set->slots && !any; i++)
			any = set->table[h * set->slots + i].hl != NULL;
		if (!any)
			continue;
		fprintf(f, "    %-24s", set->hook_names[h]);
		for (unsigned int i = 0; i < set->slots; i++) {
			const struct lsm_static_call *s =
				&set->table[h * set->slots + i];
			const struct ulsm_hook_guard *g =
				ulsm_lsm_guard(set, h * set->slots + i);

			if (!s->hl)
				fprintf(f, " -");
			else
				fprintf(f, " %s%s%s", s->hl->lsmid->name,
					g && s->key->func == g->fn ?
					"[guard]" : "",
					static_key_enabled(&s->active->key) ?
					"" : "(off)");
		}
		fprintf(f, "\n");
	}
}

/*
 * The dump itself; the caller holds the framework lock and the patch lock.
 * @marked: addresses are marked for named() (else printed bare).
 */
static void dump_locked(FILE *f, bool marked)
{
	struct object_count oc = { f, NULL, 0, 0 };
	struct ulsm_keys_snapshot snap;
	struct ulsm_hook_set *sets[64];
	size_t nsets;

	fprintf(f, "ulsm %s, %s back end, core sync: %s, pending objects: %d\n",
		ULSM_VERSION, ulsm_backend(), ulsm_sync_name(),
		ulsm_pending_count());
	addr_marked = marked;
	if (ulsm_keys_snapshot_take(&snap)) {
		fprintf(f, "  (no memory for the list of %zu sites)\n",
			snap.nsites);
		return;
	}
	oc.sites = snap.sites;
	oc.n = snap.nsites;
	fprintf(f, "objects:\n");
	ulsm_objects_for_each(show_object, &oc);
	if (!oc.index)
		fprintf(f, "  none\n");
	nsets = ulsm_lsm_sets(sets, ARRAY_SIZE(sets));
	if (nsets > ARRAY_SIZE(sets))
		nsets = ARRAY_SIZE(sets);
	show_keys(f, &snap);
	show_calls(f, &snap, sets, nsets);
	ulsm_keys_snapshot_free(&snap);
	if (!nsets)
		fprintf(f, "hook sets: none initialised\n");
	for (size_t i = 0; i < nsets; i++)
		show_set(f, sets[i]);
	fflush(f);
}

/*
 * The dump, from under the framework lock and the patch lock (which it
 * releases): into memory, then to @f with its addresses named once the
 * locks are free. Without memory for it, straight to @f with addresses
 * only.
 */
static void dump_unnamed(FILE *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m) {
		dump_locked(f, false);
		ulsm_unlock();
		ulsm_lsm_unlock();
		return;
	}
	dump_locked(m, true);
	ulsm_unlock();
	ulsm_lsm_unlock();
	fclose(m);
	named(f, text, len);
	ulsm_free(text);	/* open_memstream's: malloc, as ulsm_free frees */
}

ULSM_API void ulsm_dump(FILE *f)
{
	if (!f)
		return;
	ulsm_config_init();
	ulsm_lsm_lock();
	if (ulsm_lock()) {
		ulsm_lsm_unlock();
		fprintf(f, "ulsm: no dump from a signal handler inside an "
			"update\n");
		return;
	}
	dump_unnamed(f);
	/* Its lock comes before the patch lock: taken on its own. */
	ulsm_trace_dump(f);
	fflush(f);
}

/*
 * ULSM_DUMP=1 (standard error) or ULSM_DUMP=path (appended): the dump at
 * exit. Another thread may be in the middle of an update then, or even
 * stopped holding a lock for good: wait a second at most, then say so.
 */
enum ulsm_dump_to ulsm_dump_target(const char *to)
{
	if (!to || !*to || !strcmp(to, "0"))
		return ULSM_DUMP_NONE;
	return strcmp(to, "1") ? ULSM_DUMP_FILE : ULSM_DUMP_STDERR;
}

static void dump_at_exit(void)
{
	static int done;
	const char *to = getenv("ULSM_DUMP");
	enum ulsm_dump_to where = ulsm_dump_target(to);
	FILE *f = stderr;
	bool opened = false;

	/*
	 * Pairs with no other access: the exchange only elects one caller (at
	 * exit), and the loser reads nothing the winner wrote.
	 */
	if (where == ULSM_DUMP_NONE ||
	    __atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return;
	if (where == ULSM_DUMP_FILE) {
		f = fopen(to, "a");
		if (!f)
			return;
		opened = true;
	}
	for (int tries = 0;; tries++) {
		if (!ulsm_lsm_trylock()) {
			if (!ulsm_trylock()) {
				dump_unnamed(f);
				ulsm_trace_dump(f);
				break;
			}
			ulsm_lsm_unlock();
		}
		if (tries == 100) {
			fprintf(f, "ulsm: an update is in progress at exit: no "
				"dump\n");
			break;
		}
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	if (opened)
		fclose(f);
}

/*
 * Arm the dump at exit, once at start-up and again when each new object
 * registers (@object: its tables; NULL at start-up); the first handler
 * that runs dumps, the others return.
 *
 * Why again: exit() runs atexit handlers in the reverse order of their
 * registration, and the dynamic linker's handler, which runs every
 * object's destructors (each unregistering its tables), is registered
 * after the constructors of the shared libraries have run, libulsm.so's
 * among them. A handler armed there alone would dump after the program's
 * own tables were gone ("objects: none"). One armed from the program's
 * constructor, which registers its tables, runs before the destructors.
 * Armed for at most 32 objects: each arming is one atexit() entry.
 */
void ulsm_dump_arm(const void *object)
{
	static const void *armed[32];
	static unsigned int narmed;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	bool arm = !object;

	if (ulsm_dump_target(getenv("ULSM_DUMP")) == ULSM_DUMP_NONE)
		return;
	pthread_mutex_lock(&lock);
	if (object && narmed < ARRAY_SIZE(armed)) {
		arm = true;
		for (unsigned int i = 0; i < narmed && arm; i++)
			arm = armed[i] != object;
		if (arm)
			armed[narmed++] = object;
	}
	if (arm)
		atexit(dump_at_exit);
	pthread_mutex_unlock(&lock);
}
