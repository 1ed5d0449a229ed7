// SPDX-License-Identifier: MIT
/*
 * src/trace/tracepoint.c - every loaded tracepoint, and its probes
 * (<ulsm/tracepoint.h>).
 *
 * A tracepoint's site calls its static call with its data inside a
 * read-side section. What the static call targets follows the probes:
 *
 *   none        key off, call NULL
 *   one (p)     key on, call p, data p's
 *   several     key on, call the iterator, which walks funcs (the data is
 *               ignored)
 *
 * funcs, a new array at each change, always lists every probe. The site
 * loads the data and then calls, so a thread may pair an old data with a
 * new target. Each change is ordered so that every such pair is right:
 *
 *   0 -> 1      data stored, a grace period (a thread that passed the
 *               key while it was last on may have entered its section
 *               after the last detach's grace period, with the old data),
 *               then key and call in one update;
 *   1 -> 2+     funcs published, then call -> iterator (ignores data);
 *   2+ -> 2+    funcs published;
 *   2 -> 1 (q)  funcs published, data = q's, a grace period (every thread
 *               that loaded another data has called the iterator), then
 *               call -> q; if that update fails the iterator stays, right
 *               and slower;
 *   1 -> 0      key off and call NULL in one update, then a grace period.
 *
 * An old array is freed only after a grace period, whatever the change:
 * an iterator that began before the last few changes may still read it
 * (a freed one, reused for another array, once paired a probe with
 * another's data under the stress test).
 *
 * A detach returns after the grace period that follows the probe's last
 * publication: no thread is inside it any more. Probes attached by glob
 * are kept, and attached to tracepoints that appear later (an object
 * loaded with dlopen: its constructor adds its tracepoints here).
 *
 * One lock (trace_lock) orders every change; it is taken before the
 * update lock, and never by a probe (a probe must not attach or detach:
 * the grace period would wait for itself, -EDEADLK).
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ulsm/update.h>

#include "base/base.h"
#include "base/sys.h"
#include "trace/trace.h"

/* A probe attached by glob (func NULL: the recorder). */
struct glob_probe {
	char *glob;
	void *func, *data;
	struct glob_probe *next;
};

/* The name of each id, kept after the tracepoint's object goes. */
struct tp_name {
	uint32_t id;
	int nargs;
	char *name, *args;
	struct tp_name *next;
};

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ulsm_tracepoint *tracepoints;
static struct glob_probe *globs;
static struct tp_name *names;
static uint32_t next_id = 1;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* strdup, through the library's allocator (fault injection). */
static char *str_copy(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = ulsm_malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

static struct ulsm_tp_funcs *funcs_of(const struct ulsm_tracepoint *tp)
{
	return __atomic_load_n(&tp->funcs, __ATOMIC_RELAXED);
}

static int nprobes(const struct ulsm_tracepoint *tp)
{
	struct ulsm_tp_funcs *f = funcs_of(tp);

	return f ? f->n : 0;
}

static int find(const struct ulsm_tp_funcs *f, void *func, void *data)
{
	for (int i = 0; f && i < f->n; i++)
		if (f->probes[i].func == func && f->probes[i].data == data)
			return i;
	return -1;
}

/* @f without probe @skip (-1: none), plus @add if add->func. */
static struct ulsm_tp_funcs *funcs_new(const struct ulsm_tp_funcs *f,
				       int skip, const struct ulsm_tp_probe *add)
{
	int n = f ? f->n : 0, m = 0;
	struct ulsm_tp_funcs *nf;

	nf = ulsm_malloc(sizeof(*nf) + (size_t)(n + 1) * sizeof(nf->probes[0]));
	if (!nf)
		return NULL;
	for (int i = 0; i < n; i++)
		if (i != skip)
			nf->probes[m++] = f->probes[i];
	if (add && add->func)
		nf->probes[m++] = *add;
	nf->n = m;
	return nf;
}

/* One update: the key on or off, the call to @func. */
static int set_site(struct ulsm_tracepoint *tp, bool on, void *func)
{
	struct ulsm_update *u = ulsm_update_new();
	int ret;

	if (!u)
		return ulsm_error(-ENOMEM, "tracepoint %s: no memory for an "
				  "update", tp->name);
	ulsm_update_key(u, &tp->key->key, on);
	ulsm_update_call(u, tp->call, tp->tramp, func);
	ret = ulsm_update_commit(u);
	ulsm_update_free(u);
	return ret;
}

static void publish(struct ulsm_tracepoint *tp, struct ulsm_tp_funcs *f)
{
	__atomic_store_n(&tp->funcs, f, __ATOMIC_RELEASE);
}

static int attach_locked(struct ulsm_tracepoint *tp, void *func, void *data)
{
	struct ulsm_tp_funcs *old = funcs_of(tp), *nf;
	struct ulsm_tp_probe p = { func ? func : tp->record, func ? data : NULL };
	int n = old ? old->n : 0, ret = 0;

	if (find(old, p.func, p.data) >= 0)
		return -EEXIST;
	nf = funcs_new(old, -1, &p);
	if (!nf)
		return ulsm_error(-ENOMEM, "tracepoint %s: no memory for its "
				  "probes", tp->name);
	publish(tp, nf);
	if (n == 0) {
		__atomic_store_n(&tp->data, p.data, __ATOMIC_RELAXED);
		/*
		 * A thread that passed the key while it was last on may have
		 * entered its section after the last detach's grace period,
		 * and loaded the old data: it must be out before the call
		 * targets the new probe.
		 */
		if (tp->was_on)
			ret = ulsm_synchronize();
		if (!ret)
			ret = set_site(tp, true, p.func);
		tp->was_on = tp->was_on || !ret;
	} else if (n == 1) {
		ret = set_site(tp, true, tp->iter);
	}
	if (ret) {
		/* Nothing patched: no thread saw the new array. */
		publish(tp, old);
		ulsm_free(nf);
		return ret;
	}
	/*
	 * The old array may still be read by an iterator that began before
	 * the last change (also with one probe now: the iterator of the
	 * state before it). Freed after a grace period; if that fails, kept.
	 */
	if (old && !ulsm_synchronize())
		ulsm_free(old);
	return 0;
}

static int detach_locked(struct ulsm_tracepoint *tp, void *func, void *data)
{
	struct ulsm_tp_funcs *old = funcs_of(tp), *nf = NULL;
	int i = find(old, func ? func : tp->record, func ? data : NULL), ret;

	if (i < 0)
		return -ENOENT;
	if (old->n == 1) {
		ret = set_site(tp, false, NULL);
		if (ret)
			return ret;
		publish(tp, NULL);
	} else {
		nf = funcs_new(old, i, NULL);
		if (!nf)
			return ulsm_error(-ENOMEM, "tracepoint %s: no memory for "
					  "its probes", tp->name);
		publish(tp, nf);
		if (nf->n == 1)
			__atomic_store_n(&tp->data, nf->probes[0].data,
					 __ATOMIC_RELAXED);
	}
	ret = ulsm_synchronize();
	if (ret)
		return ret;	/* detached, but its threads are not known:
				   the old array is kept */
	ulsm_free(old);
	/* Back to the direct call; the iterator stays if this fails. */
	if (nf && nf->n == 1 && set_site(tp, true, nf->probes[0].func))
		ulsm_clear_error();
	return 0;
}

ULSM_API int tracepoint_probe_register(struct ulsm_tracepoint *tp,
				       void *probe, void *data)
{
	int ret;

	if (!tp || !probe)
		return ulsm_error(-EINVAL, "tracepoint_probe_register: NULL %s",
				  tp ? "probe" : "tracepoint");
	pthread_mutex_lock(&trace_lock);
	ret = attach_locked(tp, probe, data);
	pthread_mutex_unlock(&trace_lock);
	return ret;
}

ULSM_API int tracepoint_probe_unregister(struct ulsm_tracepoint *tp,
					 void *probe, void *data)
{
	int ret;

	if (!tp || !probe)
		return ulsm_error(-EINVAL, "tracepoint_probe_unregister: NULL %s",
				  tp ? "probe" : "tracepoint");
	pthread_mutex_lock(&trace_lock);
	ret = detach_locked(tp, probe, data);
	pthread_mutex_unlock(&trace_lock);
	return ret;
}

static bool matches(const char *glob, const struct ulsm_tracepoint *tp)
{
	return !fnmatch(glob, tp->name, 0);
}

/*
 * The tracepoints of @m that have no probe yet get @func in one update:
 * enabling a thousand of them costs one batch (three core syncs), not a
 * thousand. Each then holds its new array; on failure none changed.
 */
static int attach_empty(struct ulsm_tracepoint **m, int n, void *func,
			void *data)
{
	struct ulsm_tp_funcs **nf = ulsm_calloc((size_t)n + 1, sizeof(*nf));
	struct ulsm_update *u = ulsm_update_new();
	bool sync = false;
	int ret = 0;

	if (!nf || !u) {
		ret = ulsm_error(-ENOMEM, "ulsm_trace_attach: no memory");
		goto out;
	}
	for (int i = 0; i < n && !ret; i++) {
		struct ulsm_tp_probe p = { func ? func : m[i]->record,
					   func ? data : NULL };

		nf[i] = funcs_new(NULL, -1, &p);
		if (!nf[i]) {
			ret = ulsm_error(-ENOMEM, "ulsm_trace_attach: no memory");
			break;
		}
		__atomic_store_n(&m[i]->data, p.data, __ATOMIC_RELAXED);
		sync |= m[i]->was_on;
		ulsm_update_key(u, &m[i]->key->key, true);
		ulsm_update_call(u, m[i]->call, m[i]->tramp, p.func);
	}
	/* As in attach_locked: late readers of an older data first. */
	if (!ret && sync)
		ret = ulsm_synchronize();
	if (!ret)
		ret = ulsm_update_commit(u);
	for (int i = 0; i < n && !ret; i++) {
		publish(m[i], nf[i]);
		m[i]->was_on = true;
	}
	if (ret)
		for (int i = 0; i < n; i++)
			ulsm_free(nf[i]);
out:
	ulsm_update_free(u);
	ulsm_free(nf);
	return ret;
}

/*
 * Attach @func to every tracepoint that matches @glob: those without a
 * probe in one update, the others one by one. Returns how many; on a
 * failure, detaches those it attached and returns the error.
 */
static int attach_matching(const char *glob, void *func, void *data)
{
	struct ulsm_tracepoint **m, **empty;
	int n = 0, ne = 0, count = 0, ret = 0, done;

	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next)
		n += matches(glob, tp);
	m = ulsm_calloc((size_t)n + 1, sizeof(*m));
	empty = ulsm_calloc((size_t)n + 1, sizeof(*empty));
	if (!m || !empty) {
		ulsm_free(m);
		ulsm_free(empty);
		return ulsm_error(-ENOMEM, "ulsm_trace_attach: no memory");
	}
	n = 0;
	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next) {
		if (!matches(glob, tp))
			continue;
		if (nprobes(tp))
			m[n++] = tp;
		else
			empty[ne++] = tp;
	}
	ret = attach_empty(empty, ne, func, data);
	if (!ret)
		count = ne;
	for (done = 0; !ret && done < n; done++) {
		ret = attach_locked(m[done], func, data);
		if (ret == -EEXIST) {
			ret = 0;	/* attached already: not ours to undo */
			m[done] = NULL;
		} else if (!ret) {
			count++;
		}
	}
	if (ret && count) {
		/* Undo: the empties (if they were attached) and m[0..done-1]. */
		for (int i = 0; i < ne; i++)
			detach_locked(empty[i], func, data);
		for (int i = 0; i + 1 < done; i++)
			if (m[i])
				detach_locked(m[i], func, data);
	}
	ulsm_free(m);
	ulsm_free(empty);
	return ret ? ret : count;
}

static int glob_attach(const char *glob, void *func, void *data)
{
	struct glob_probe *g;
	int ret;

	if (!glob)
		return ulsm_error(-EINVAL, "ulsm_trace_attach: NULL glob");
	g = ulsm_calloc(1, sizeof(*g));
	if (g)
		g->glob = str_copy(glob);
	if (!g || !g->glob) {
		ulsm_free(g);
		return ulsm_error(-ENOMEM, "ulsm_trace_attach: no memory");
	}
	g->func = func;
	g->data = data;
	pthread_mutex_lock(&trace_lock);
	ret = attach_matching(glob, func, data);
	if (ret >= 0) {
		g->next = globs;
		globs = g;
	}
	pthread_mutex_unlock(&trace_lock);
	if (ret < 0) {
		ulsm_free(g->glob);
		ulsm_free(g);
	}
	return ret;
}

/*
 * The tracepoints of @glob whose only probe is @func go off in one update
 * and one grace period; *count says how many. Those with other probes are
 * left to detach_locked. On failure none changed.
 */
static int detach_alone(const char *glob, void *func, void *data, int *count)
{
	struct ulsm_update *u = ulsm_update_new();
	struct ulsm_tp_funcs **old;
	struct ulsm_tracepoint **m;
	int n = 0, ret;

	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next)
		n += matches(glob, tp);
	m = ulsm_calloc((size_t)n + 1, sizeof(*m));
	old = ulsm_calloc((size_t)n + 1, sizeof(*old));
	if (!u || !m || !old) {
		ret = ulsm_error(-ENOMEM, "ulsm_trace_detach: no memory");
		goto out;
	}
	n = 0;
	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next) {
		struct ulsm_tp_funcs *f = funcs_of(tp);

		if (!matches(glob, tp) || !f || f->n != 1 ||
		    find(f, func ? func : tp->record, func ? data : NULL) < 0)
			continue;
		m[n] = tp;
		old[n++] = f;
		ulsm_update_key(u, &tp->key->key, false);
		ulsm_update_call(u, tp->call, tp->tramp, NULL);
	}
	ret = ulsm_update_commit(u);
	if (ret)
		goto out;
	for (int i = 0; i < n; i++)
		publish(m[i], NULL);
	*count += n;
	ret = n ? ulsm_synchronize() : 0;
	for (int i = 0; i < n && !ret; i++)
		ulsm_free(old[i]);	/* kept if the grace period failed */
out:
	ulsm_update_free(u);
	ulsm_free(m);
	ulsm_free(old);
	return ret;
}

static int glob_detach(const char *glob, void *func, void *data)
{
	struct glob_probe **pp, *g = NULL;
	int count = 0, ret = 0;

	if (!glob)
		return ulsm_error(-EINVAL, "ulsm_trace_detach: NULL glob");
	pthread_mutex_lock(&trace_lock);
	for (pp = &globs; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->glob, glob) && (*pp)->func == func &&
		    (*pp)->data == data) {
			g = *pp;
			*pp = g->next;
			break;
		}
	}
	ret = detach_alone(glob, func, data, &count);
	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next) {
		int r;

		if (!matches(glob, tp))
			continue;
		r = detach_locked(tp, func, data);
		if (!r)
			count++;
		else if (r != -ENOENT && !ret)
			ret = r;
	}
	pthread_mutex_unlock(&trace_lock);
	if (g) {
		ulsm_free(g->glob);
		ulsm_free(g);
	}
	return ret ? ret : count;
}

ULSM_API int ulsm_trace_attach(const char *glob, void *probe, void *data)
{
	if (!probe)
		return ulsm_error(-EINVAL, "ulsm_trace_attach: NULL probe");
	return glob_attach(glob, probe, data);
}

ULSM_API int ulsm_trace_detach(const char *glob, void *probe, void *data)
{
	if (!probe)
		return ulsm_error(-EINVAL, "ulsm_trace_detach: NULL probe");
	return glob_detach(glob, probe, data);
}

ULSM_API int ulsm_trace_enable(const char *glob)
{
	return glob_attach(glob, NULL, NULL);
}

ULSM_API int ulsm_trace_disable(const char *glob)
{
	return glob_detach(glob, NULL, NULL);
}

/* ULSM_TRACE=glob,glob,...: the recorder on those, from the start. */
static void env_init(void)
{
	const char *env = getenv("ULSM_TRACE");
	char *copy, *save = NULL;

	if (!env || !*env)
		return;
	copy = str_copy(env);
	if (!copy)
		return;
	for (char *g = strtok_r(copy, ",", &save); g;
	     g = strtok_r(NULL, ",", &save)) {
		struct glob_probe *gp = ulsm_calloc(1, sizeof(*gp));

		if (!gp || !(gp->glob = str_copy(g))) {
			ulsm_free(gp);
			ulsm_report("ULSM_TRACE: no memory for \"%s\"", g);
			continue;
		}
		gp->next = globs;
		globs = gp;
	}
	ulsm_free(copy);
}

static void remember_name(struct ulsm_tracepoint *tp)
{
	struct tp_name *n = ulsm_calloc(1, sizeof(*n));

	tp->id = next_id++;
	if (!n || !(n->name = str_copy(tp->name)) || !(n->args = str_copy(tp->args))) {
		if (n)
			ulsm_free(n->name);
		ulsm_free(n);
		return;		/* its events will be written without a name */
	}
	n->id = tp->id;
	n->nargs = tp->nargs;
	n->next = names;
	names = n;
}

ULSM_API void ulsm__tracepoint_add(struct ulsm_tracepoint *tp)
{
	pthread_mutex_lock(&trace_lock);
	pthread_once(&env_once, env_init);
	remember_name(tp);
	tp->next = tracepoints;
	tracepoints = tp;
	for (struct glob_probe *g = globs; g; g = g->next) {
		int ret;

		if (!matches(g->glob, tp))
			continue;
		ret = attach_locked(tp, g->func, g->data);
		if (ret && ret != -EEXIST)
			ulsm_report("tracepoint %s: the probe of \"%s\" could "
				    "not be attached: %s", tp->name, g->glob,
				    ulsm_last_error());
	}
	pthread_mutex_unlock(&trace_lock);
}

/*
 * The tracepoint's object is being unloaded: its code and its probe
 * arrays go (no thread may run the object's code any more).
 */
ULSM_API void ulsm__tracepoint_remove(struct ulsm_tracepoint *tp)
{
	struct ulsm_tracepoint **pp;

	pthread_mutex_lock(&trace_lock);
	for (pp = &tracepoints; *pp; pp = &(*pp)->next) {
		if (*pp == tp) {
			*pp = tp->next;
			break;
		}
	}
	ulsm_free(funcs_of(tp));
	tp->funcs = NULL;
	pthread_mutex_unlock(&trace_lock);
}

ULSM_API struct ulsm_tracepoint *ulsm_tracepoint_find(const char *name)
{
	struct ulsm_tracepoint *tp;

	if (!name)
		return NULL;
	pthread_mutex_lock(&trace_lock);
	for (tp = tracepoints; tp; tp = tp->next)
		if (!strcmp(tp->name, name))
			break;
	pthread_mutex_unlock(&trace_lock);
	return tp;
}

void ulsm_trace_names(void (*emit)(void *arg, uint32_t id,
				    const char *name, const char *args,
				    int nargs),
		      void *arg)
{
	pthread_mutex_lock(&trace_lock);
	for (struct tp_name *n = names; n; n = n->next)
		emit(arg, n->id, n->name, n->args, n->nargs);
	pthread_mutex_unlock(&trace_lock);
}

/* Waits a second at most: at exit, a thread may hold the lock for good. */
void ulsm_trace_dump(FILE *f)
{
	for (int tries = 0; pthread_mutex_trylock(&trace_lock); tries++) {
		if (tries == 100) {
			fprintf(f, "tracepoints: busy (a probe is being "
				"attached or detached)\n");
			return;
		}
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	fprintf(f, "tracepoints:\n");
	if (!tracepoints)
		fprintf(f, "  none\n");
	for (struct ulsm_tracepoint *tp = tracepoints; tp; tp = tp->next) {
		struct ulsm_tp_funcs *fs = funcs_of(tp);
		int n = nprobes(tp);

		fprintf(f, "  %s(%s) id %u: %s, %d probe%s\n", tp->name,
			tp->args, tp->id, n ? "on" : "off", n, n == 1 ? "" : "s");
		for (int i = 0; i < n; i++) {
			if (fs->probes[i].func == tp->record)
				fprintf(f, "    the recorder\n");
			else
				fprintf(f, "    %p (data %p)\n",
					fs->probes[i].func, fs->probes[i].data);
		}
	}
	for (struct glob_probe *g = globs; g; g = g->next) {
		if (g->func)
			fprintf(f, "  by glob \"%s\": %p (data %p)\n", g->glob,
				g->func, g->data);
		else
			fprintf(f, "  by glob \"%s\": the recorder\n", g->glob);
	}
	pthread_mutex_unlock(&trace_lock);
}
