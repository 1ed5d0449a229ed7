// SPDX-License-Identifier: MIT
/*
 * src/apr/apr_hooks.c - libulsm-apr: fill APR hooks' static-call slots from
 * APR's arrays (<ulsm/apr_hooks.h>).
 *
 * A layer on top of libulsm's public API, in a library of its own so that
 * libulsm does not depend on APR. The units that implement hooks attach
 * their hooks here from their constructors. After every change of an
 * array this file writes, in one update (<ulsm/update.h>):
 *   - slot i's static call: the array's function i, for i below
 *     min(nelts, slots); NULL for the others (no reference is kept to a
 *     module's code once its functions are gone);
 *   - tail key i: on for i == min(nelts, slots) only (the walk ends
 *     there, and RUN_FIRST and VOID hooks tail-call slot i - 1's
 *     function; the keys after it are never reached);
 *   - the single key: on when the array holds exactly one function
 *     (RUN_ALL hooks call it without the slots; RUN_FIRST and VOID hooks
 *     jump to it, where they have no run call);
 *   - the run call, where the hook has one (a RUN_FIRST or VOID hook
 *     whose run function ends in a tail site): that one function, else
 *     the slots function;
 *   - the direct key: on (the run function uses the slots);
 *   - and, once every site is new, which array the slots were filled from
 *     (from) and how many are in use (filled), stores of the update
 *     (ulsm_update_store_ptr): a run function whose array is another
 *     (libaprutil's sort or deregistration, called from a unit built
 *     without the drop-in) walks the array instead, and
 *     ulsm_apr_hook_stale() says so.
 * The update is all or nothing, stores included: if it fails, every key,
 * call and word of every hook in it is as it was, and so is each hook's
 * dispatch; the failure is printed (a registration's return type is
 * APR's void). A hook whose array the change replaced (a sort, a
 * deregistration, the first registration) then finds it is not the one it
 * was filled from, and walks it, as APR does; one whose array grew in
 * place calls the functions it called before, without the new one, until
 * the next change of the hook refills it from the whole array. Nothing
 * here stores or undoes by hand. APR's rule that nobody runs hooks while
 * they change means nothing here depends on the order in which a thread
 * sees the sites change.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <ulsm/apr_hooks.h>
#include <ulsm/ulsm.h>
#include <ulsm/update.h>

/* The real ones: the header maps the names to this file's functions. */
#undef apr_hook_sort_all
#undef apr_hook_deregister_all

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ulsm_apr_hook *hooks;	/* attached, newest first */

void ulsm_apr_hook_attach(struct ulsm_apr_hook *h)
{
	pthread_mutex_lock(&lock);
	h->next = hooks;
	hooks = h;
	pthread_mutex_unlock(&lock);
}

void ulsm_apr_hook_detach(struct ulsm_apr_hook *h)
{
	struct ulsm_apr_hook **p;

	pthread_mutex_lock(&lock);
	for (p = &hooks; *p; p = &(*p)->next) {
		if (*p == h) {
			*p = h->next;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

/* Function i of an APR hook array: pFunc is each element's first member. */
static void *array_func(const apr_array_header_t *a, int i)
{
	void *f;

	memcpy(&f, a->elts + (size_t)i * (size_t)a->elt_size, sizeof(f));
	return f;
}

/* The instruction after the tail site before slot @i (@h->tnext). */
static void *slot_next(const struct ulsm_apr_hook *h, int i)
{
	return (void *)((uintptr_t)&h->tnext[i] + (intptr_t)h->tnext[i]);
}

/* Record @h's slots as its array asks, and what they were filled from. */
static void record(struct ulsm_update *u, struct ulsm_apr_hook *h)
{
	apr_array_header_t *a = *h->link;
	int n = a ? a->nelts : 0, filled = n < h->nslots ? n : h->nslots;

	for (int i = 0; i < h->nslots; i++) {
		ulsm_update_call(u, &h->calls[i], h->tramps[i],
				 i < filled ? array_func(a, i) : NULL);
		ulsm_update_branch(u, &h->tail[i], i == filled);
		if (h->tnext && h->tnext[i])
			ulsm_update_call(u, &h->tcalls[i], h->ttramps[i],
					 i + 1 == filled ? array_func(a, i) :
					 slot_next(h, i));
	}
	ulsm_update_branch(u, h->direct, true);
	if (h->run)
		ulsm_update_call(u, h->run, h->run_tramp,
				 n == 1 ? array_func(a, 0) : h->run_walk);
	else
		ulsm_update_branch(u, h->single, n == 1);
	/*
	 * Pairs with the load of from at the top of the run function
	 * (ULSM__APR_STALE, and the head of ULSM__ARCH_APR_RUN's naked
	 * function: <ulsm/apr_hooks.h>), a plain load: APR's rule leaves no
	 * thread running the hook while it changes. After every site, so
	 * that a thread that runs it meanwhile anyway takes the new array
	 * for one its slots were not filled from, and walks it.
	 */
	ulsm_update_store_ptr(u, &h->from, a, ULSM_UPDATE_AFTER);
	/* Read under the lock only (ulsm_apr_hook_slots): pairs with nothing. */
	ulsm_update_store_int(u, &h->filled, filled, ULSM_UPDATE_AFTER);
}

/*
 * Fill @only's slots, or every attached hook's, in one update. Lock held.
 * A failure changed nothing (the update's stores included): say so.
 */
static void refill(struct ulsm_apr_hook *only)
{
	struct ulsm_update *u = ulsm_update_new();
	const char *why = "no memory for an update";
	int ret = -ENOMEM;

	if (u) {
		for (struct ulsm_apr_hook *h = only ? only : hooks; h;
		     h = only ? NULL : h->next)
			record(u, h);
		ret = ulsm_update_commit(u);
		why = ulsm_last_error();
		ulsm_update_free(u);
	}
	if (ret)
		fprintf(stderr, "ulsm-apr: hook%s %s: the static calls could "
			"not be updated (%s); each hook is dispatched as it was "
			"(APR's walk where its array was replaced) until it "
			"changes again\n", only ? "" : "s",
			only ? only->name : "(all)",
			why && *why ? why : "unknown error");
}

void ulsm_apr_hook_changed(struct ulsm_apr_hook *h)
{
	pthread_mutex_lock(&lock);
	refill(h);
	pthread_mutex_unlock(&lock);
}

void ulsm_apr_hook_sort_all(void)
{
	pthread_mutex_lock(&lock);
	apr_hook_sort_all();
	refill(NULL);
	pthread_mutex_unlock(&lock);
}

void ulsm_apr_hook_deregister_all(void)
{
	pthread_mutex_lock(&lock);
	apr_hook_deregister_all();
	refill(NULL);
	pthread_mutex_unlock(&lock);
}

/*
 * Called on every dispatch of a stale hook (a cold path that then walks
 * APR's array, at APR's cost): one message per process, however many
 * hooks and threads find it. No lock: dispatching threads call it.
 */
void ulsm_apr_hook_stale(const struct ulsm_apr_hook *h)
{
	static int told;

	if (__atomic_load_n(&told, __ATOMIC_RELAXED) ||
	    __atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "ulsm-apr: hook %s: its array was changed behind its "
		"static calls (libaprutil's apr_hook_sort_all() or "
		"apr_hook_deregister_all(), called from a unit compiled without "
		"ulsm-apr's flags, or a change whose update failed); such hooks "
		"are dispatched through APR's array until they change through "
		"ulsm-apr again\n", h->name);
}

int ulsm_apr_hook_slots(const char *name)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&lock);
	for (struct ulsm_apr_hook *h = hooks; h; h = h->next) {
		if (!strcmp(h->name, name)) {
			ret = h->filled;
			if (ret >= 0 && *h->link != h->from)
				ret = -1;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return ret;
}
