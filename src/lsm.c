// SPDX-License-Identifier: MIT
/*
 * The hook framework's run-time side: module order, initialisation, slot
 * filling, blobs, sealing, toggling, introspection. The kernel's
 * security/security.c (after "lsm: replace indirect LSM hook calls with
 * static calls"), for user space and for several independent sets.
 *
 * Locking: one recursive mutex for the framework's state, because a
 * module's init (called by ulsm_lsm_init with the mutex held) registers its
 * hooks; the patch lock is taken only around the batch that fills slots.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ulsm/lsm.h>

#include "internal.h"


enum module_state {
	MOD_REGISTERED,		/* known, not (yet) ordered */
	MOD_OFF,		/* not listed, removed, disabled, or excluded */
	MOD_ORDERED,		/* in the order, about to be initialised */
	MOD_ACTIVE,		/* initialised */
	MOD_FAILED,		/* its init failed */
};

struct ulsm_lsm_state {
	bool initialised, sealed, toggle_allowed;
	struct lsm_info *modules;	/* registration order */
	struct lsm_info **ordered;
	size_t nordered;
	int blob_sizes[ULSM_BLOB_TYPES];
	char *list;			/* active modules, comma-separated */
};

static pthread_mutex_t lsm_lock;
static pthread_once_t lsm_lock_once = PTHREAD_ONCE_INIT;

static void lsm_lock_take(void)
{
	pthread_mutex_lock(&lsm_lock);
}

static void lsm_lock_release(void)
{
	pthread_mutex_unlock(&lsm_lock);
}

static void lsm_lock_create(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&lsm_lock, &a);
	pthread_mutexattr_destroy(&a);
}

static void lsm_lock_init(void)
{
	lsm_lock_create();
	/*
	 * As for the patch lock: a child must not inherit it held. The child
	 * makes a new one rather than unlocking: a recursive mutex checks its
	 * owner's thread id, which the forking thread no longer has there.
	 */
	if (pthread_atfork(lsm_lock_take, lsm_lock_release, lsm_lock_create))
		ulsm_die("pthread_atfork failed");
}

static void lock(void)
{
	pthread_once(&lsm_lock_once, lsm_lock_init);
	pthread_mutex_lock(&lsm_lock);
}

static void unlock(void)
{
	pthread_mutex_unlock(&lsm_lock);
}

static struct ulsm_lsm_state *state_of(struct ulsm_hook_set *set)
{
	if (!set->state)
		set->state = ulsm_calloc(1, sizeof(*set->state));
	return set->state;
}

ULSM_API int ulsm_lsm_register(struct lsm_info *info, struct ulsm_hook_set *set)
{
	struct ulsm_lsm_state *st;
	struct lsm_info **pp;
	int ret = 0;

	if (!info || !set || !info->name || !*info->name)
		return ulsm_error(-EINVAL, "ulsm_lsm_register: a module needs "
				  "a set and a name");
	ulsm_init();
	lock();
	st = state_of(set);
	if (!st) {
		ret = -ENOMEM;
	} else if (st->initialised) {
		ret = ulsm_error(-EPERM, "module %s: set %s is already "
				 "initialised", info->name, set->name);
	} else {
		for (pp = &st->modules; *pp; pp = &(*pp)->next)
			if (*pp == info)
				goto out;
		info->set = set;
		info->next = NULL;
		info->ulsm_state = MOD_REGISTERED;
		*pp = info;
	}
out:
	unlock();
	return ret;
}

static struct lsm_info *find_module(struct ulsm_lsm_state *st, const char *name,
				    size_t len)
{
	for (struct lsm_info *m = st->modules; m; m = m->next)
		if (strlen(m->name) == len && !strncmp(m->name, name, len))
			return m;
	return NULL;
}

static bool is_ordered(struct ulsm_lsm_state *st, const struct lsm_info *m)
{
	for (size_t i = 0; i < st->nordered; i++)
		if (st->ordered[i] == m)
			return true;
	return false;
}

static void append(struct ulsm_lsm_state *st, struct lsm_info *m,
		   const char *from)
{
	if (is_ordered(st, m)) {
		ulsm_debug("%s: duplicate %s ignored", from, m->name);
		return;
	}
	st->ordered[st->nordered++] = m;
	m->ulsm_state = MOD_ORDERED;
	ulsm_debug("%s: ordered %s", from, m->name);
}

/* Is "!name" somewhere in @order? */
static bool removed(const char *order, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = order; p && *p; ) {
		size_t n = strcspn(p, ",");

		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		if (n == len + 1 && *p == '!' && !strncmp(p + 1, name, len))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/* Does @order name any module (not only "!name" removals)? */
static bool names_modules(const char *order)
{
	for (const char *p = order; p && *p; ) {
		size_t n = strcspn(p, ",");
		const char *name = p;

		while (n && (*name == ' ' || *name == '\t'))
			name++, n--;
		if (n && *name != '!')
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

static void parse_order(struct ulsm_lsm_state *st, const char *order,
			const char *removals, const char *origin)
{
	struct lsm_info *m;

	for (m = st->modules; m; m = m->next)
		if (m->order == LSM_ORDER_FIRST && !removed(removals, m->name))
			append(st, m, "first");

	if (order) {
		for (const char *p = order; *p; ) {
			size_t n = strcspn(p, ",");
			const char *name = p;

			while (n && (*name == ' ' || *name == '\t'))
				name++, n--;
			while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
				n--;
			p += strcspn(p, ",");
			if (*p == ',')
				p++;
			if (!n || *name == '!')
				continue;
			m = find_module(st, name, n);
			if (!m)
				ulsm_debug("%s: unknown module %.*s ignored",
					   origin, (int)n, name);
			else if (m->order != LSM_ORDER_MUTABLE)
				ulsm_debug("%s: %s is placed by its order "
					   "class; ignored here", origin, m->name);
			else if (!removed(removals, m->name))
				append(st, m, origin);
		}
	} else {
		for (m = st->modules; m; m = m->next)
			if (m->order == LSM_ORDER_MUTABLE &&
			    !removed(removals, m->name))
				append(st, m, origin);
	}

	for (m = st->modules; m; m = m->next)
		if (m->order == LSM_ORDER_LAST && !removed(removals, m->name))
			append(st, m, "last");

	for (m = st->modules; m; m = m->next)
		if (m->ulsm_state == MOD_REGISTERED) {
			m->ulsm_state = MOD_OFF;
			ulsm_debug("%s: %s not listed, off", origin, m->name);
		}
}

static int *blob_field(struct lsm_blob_sizes *b, int type)
{
	switch (type) {
	case ULSM_BLOB_CRED:
		return &b->lbs_cred;
	case ULSM_BLOB_FILE:
		return &b->lbs_file;
	case ULSM_BLOB_INODE:
		return &b->lbs_inode;
	default:
		return &b->lbs_task;
	}
}

/* The kernel's lsm_set_blob_size: the request becomes an offset. */
static void prepare_blobs(struct ulsm_lsm_state *st, struct lsm_info *m)
{
	if (!m->blobs)
		return;
	for (int t = 0; t < ULSM_BLOB_TYPES; t++) {
		int *need = blob_field(m->blobs, t);
		int offset;

		if (*need <= 0)
			continue;
		offset = (st->blob_sizes[t] + (int)sizeof(void *) - 1) &
			 ~((int)sizeof(void *) - 1);
		st->blob_sizes[t] = offset + *need;
		*need = offset;
	}
}

static int build_list(struct ulsm_lsm_state *st)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < st->nordered; i++)
		len += strlen(st->ordered[i]->name) + 1;
	s = ulsm_malloc(len);
	if (!s)
		return -ENOMEM;
	s[0] = '\0';
	for (size_t i = 0; i < st->nordered; i++) {
		if (st->ordered[i]->ulsm_state != MOD_ACTIVE)
			continue;
		if (s[0])
			strcat(s, ",");
		strcat(s, st->ordered[i]->name);
	}
	ulsm_free(st->list);
	st->list = s;
	return 0;
}

ULSM_API int ulsm_lsm_init(struct ulsm_hook_set *set, const char *order)
{
	struct ulsm_lsm_state *st;
	struct lsm_info *exclusive = NULL, *m;
	const char *origin = "argument", *removals;
	size_t count = 0;
	int ret = 0;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_init: NULL set");
	ulsm_init();
	lock();
	st = state_of(set);
	if (!st) {
		ret = -ENOMEM;
		goto out;
	}
	if (st->initialised) {
		ret = ulsm_error(-EALREADY, "set %s is already initialised",
				 set->name);
		goto out;
	}
	if (!order) {
		order = getenv("ULSM_LSM");
		origin = "ULSM_LSM";
	}
	removals = order;
	if (!order || !*order || !names_modules(order)) {
		/* Only "!name" entries: the default order, minus those. */
		order = set->builtin_order;
		origin = order ? "built-in order" : "every module";
	}
	for (m = st->modules; m; m = m->next)
		count++;
	st->ordered = ulsm_calloc(count + 1, sizeof(*st->ordered));
	if (!st->ordered) {
		ret = -ENOMEM;
		goto out;
	}
	parse_order(st, order, removals, origin);

	/* The kernel's lsm_allowed / prepare_lsm, then initialize_lsm. */
	for (size_t i = 0; i < st->nordered; i++) {
		m = st->ordered[i];
		if (m->enabled && !*m->enabled) {
			m->ulsm_state = MOD_OFF;
			ulsm_debug("%s: disabled", m->name);
			continue;
		}
		if (m->flags & LSM_FLAG_EXCLUSIVE) {
			if (exclusive) {
				m->ulsm_state = MOD_OFF;
				ulsm_debug("%s: exclusive %s is already on, "
					   "skipped", m->name, exclusive->name);
				continue;
			}
			exclusive = m;
		}
		prepare_blobs(st, m);
	}
	st->initialised = true;
	for (size_t i = 0; i < st->nordered; i++) {
		m = st->ordered[i];
		if (m->ulsm_state != MOD_ORDERED)
			continue;
		ret = m->init ? m->init() : 0;
		m->ulsm_state = ret ? MOD_FAILED : MOD_ACTIVE;
		if (ret)
			ulsm_debug("%s: init failed (%d), off", m->name, ret);
	}
	ret = build_list(st);
	ulsm_debug("set %s: %s", set->name, st->list ? st->list : "");
out:
	unlock();
	return ret;
}

static const char *hook_name(struct ulsm_hook_set *set,
			     const struct lsm_static_call *scalls)
{
	size_t idx = (size_t)(scalls - set->table) / set->slots;

	return idx < set->nhooks ? set->hook_names[idx] : "?";
}

/* Is @scalls the first slot of one of @set's hooks? */
static bool valid_hook(struct ulsm_hook_set *set,
		       const struct lsm_static_call *scalls)
{
	uintptr_t lo = (uintptr_t)set->table;
	uintptr_t p = (uintptr_t)scalls;
	size_t stride = set->slots * sizeof(*scalls);

	return p >= lo && p < lo + set->nhooks * stride &&
	       (p - lo) % stride == 0;
}

/*
 * A change to a set's slots, planned before it is queued: @on holds every
 * slot's key as it will be after the batch, @tail every tail key. Tail key
 * i of a hook is on while slots i and after of that hook are all off
 * (<ulsm/lsm_hooks.h>): the dispatch ends there with one jmp.
 */
struct slot_plan {
	struct ulsm_hook_set *set;
	size_t n;
	bool *on;
	bool *tail;
};

static bool key_on(const struct static_key *k)
{
	return k->enabled > 0;
}

/* Start from the slots as they are now. */
static int plan_begin(struct slot_plan *p, struct ulsm_hook_set *set)
{
	p->set = set;
	p->n = set->nhooks * set->slots;
	p->on = ulsm_calloc(2 * p->n + 1, sizeof(*p->on));
	if (!p->on)
		return -ENOMEM;
	p->tail = p->on + p->n;
	for (size_t i = 0; i < p->n; i++)
		p->on[i] = key_on(&set->table[i].active->key);
	return 0;
}

static void plan_end(struct slot_plan *p)
{
	ulsm_free(p->on);
	p->on = p->tail = NULL;
}

static size_t plan_index(const struct slot_plan *p,
			 const struct lsm_static_call *s)
{
	return (size_t)(s - p->set->table);
}

/*
 * Queue every key the plan moves: the slot keys whose state changes, then
 * the tail keys that follow from the new slot states.
 */
static int plan_queue(struct slot_plan *p, struct ulsm_batch *b)
{
	unsigned int slots = p->set->slots;
	int ret = 0;

	for (size_t i = 0; i < p->n && !ret; i++) {
		struct static_key *k = &p->set->table[i].active->key;

		if (key_on(k) != p->on[i])
			ret = ulsm_key_queue(k, !p->on[i], p->on[i], b);
	}
	for (size_t h = 0; h < p->set->nhooks && !ret; h++) {
		bool empty = true;

		for (unsigned int j = slots; j-- > 0 && !ret;) {
			size_t i = h * slots + j;
			struct static_key *k = &p->set->tails[i].key;

			empty = empty && !p->on[i];
			p->tail[i] = empty;
			if (key_on(k) != empty)
				ret = ulsm_key_queue(k, !empty, empty, b);
		}
	}
	return ret;
}

/* After the batch: the keys' counts say what their sites now do. */
static void plan_commit(const struct slot_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		__atomic_store_n(&p->set->table[i].active->key.enabled,
				 p->on[i], __ATOMIC_RELEASE);
		__atomic_store_n(&p->set->tails[i].key.enabled, p->tail[i],
				 __ATOMIC_RELEASE);
	}
}

/* Fill @n planned slots in one batch: static calls, then the keys. */
static int fill_slots(struct ulsm_hook_set *set, struct lsm_static_call **slot,
		      void **fn, int n)
{
	struct ulsm_batch b = ULSM_BATCH_INIT;
	struct slot_plan plan;
	bool *first = ulsm_calloc((size_t)n + 1, sizeof(*first));
	int ret;

	if (!first || plan_begin(&plan, set)) {
		ulsm_free(first);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++)
		plan.on[plan_index(&plan, slot[i])] = true;
	ret = ulsm_lock();
	if (ret)
		goto out;
	for (int i = 0; i < n && !ret; i++)
		if (arch_protocol != ULSM_PROTO_NONE)
			ret = ulsm_call_queue(slot[i]->key,
					      (uintptr_t)slot[i]->trampoline,
					      fn[i], &b, &first[i]);
	if (!ret)
		ret = plan_queue(&plan, &b);
	if (!ret) {
		for (int i = 0; i < n; i++)
			if (first[i] || arch_protocol == ULSM_PROTO_NONE)
				__atomic_store_n(&slot[i]->key->func, fn[i],
						 __ATOMIC_RELEASE);
		ret = ulsm_batch_apply(&b);
		for (int i = 0; i < n; i++)
			__atomic_store_n(&slot[i]->key->func, ret ? NULL : fn[i],
					 __ATOMIC_RELEASE);
		if (!ret)
			plan_commit(&plan);
	}
	ulsm_unlock();
out:
	ulsm_batch_free(&b);
	plan_end(&plan);
	ulsm_free(first);
	return ret;
}

ULSM_API int ulsm_security_add_hooks(struct ulsm_hook_set *set,
				     struct security_hook_list *hooks, int count,
				     const struct lsm_id *lsmid)
{
	struct lsm_static_call **slot;
	void **fn;
	int ret = 0;

	if (!set || (!hooks && count) || count < 0 || !lsmid || !lsmid->name)
		return ulsm_error(-EINVAL, "security_add_hooks: bad arguments");
	ulsm_init();
	lock();
	if (!state_of(set) || set->state->sealed) {
		ret = set->state ? ulsm_error(-EPERM, "security_add_hooks(%s): "
					      "set %s is sealed", lsmid->name,
					      set->name) : -ENOMEM;
		unlock();
		return ret;
	}
	slot = ulsm_calloc((size_t)count + 1, sizeof(*slot));
	fn = ulsm_calloc((size_t)count + 1, sizeof(*fn));
	if (!slot || !fn) {
		ret = -ENOMEM;
		goto out;
	}
	/* Plan every hook first: a module that does not fit gets nothing. */
	for (int i = 0; i < count; i++) {
		struct lsm_static_call *s = hooks[i].scalls;
		unsigned int j;

		if (!valid_hook(set, s) || !hooks[i].hook.lsm_callback) {
			ret = ulsm_error(-EINVAL, "security_add_hooks(%s): hook "
					 "%d is not a hook of set %s, or has no "
					 "callback", lsmid->name, i, set->name);
			goto out;
		}
		for (j = 0; j < set->slots; j++) {
			bool planned = false;

			for (int k = 0; k < i; k++)
				planned |= slot[k] == &s[j];
			if (!s[j].hl && !planned)
				break;
		}
		if (j == set->slots) {
			ret = ulsm_error(-ENOSPC, "security_add_hooks(%s): no "
					 "free slot for hook %s (MAX_LSM_COUNT "
					 "%u); nothing registered", lsmid->name,
					 hook_name(set, s), set->slots);
			goto out;
		}
		slot[i] = &s[j];
		fn[i] = hooks[i].hook.lsm_callback;
	}
	ret = fill_slots(set, slot, fn, count);
	if (!ret)
		for (int i = 0; i < count; i++) {
			hooks[i].lsmid = lsmid;
			slot[i]->hl = &hooks[i];
		}
out:
	unlock();
	ulsm_free(slot);
	ulsm_free(fn);
	return ret;
}

static int protect(void *addr, size_t len, const char *what)
{
	int ret = ulsm_sys_mprotect(addr, len, PROT_READ);

	if (ret)
		return ulsm_error(ret, "cannot seal the %s", what);
	/* Linux 6.10+; older kernels say ENOSYS and mprotect must do. */
	ret = ulsm_sys_mseal(addr, len);
	if (ret && ret != -ENOSYS)
		ulsm_debug("mseal of the %s failed: %s", what, strerror(-ret));
	return 0;
}

ULSM_API int ulsm_lsm_seal(struct ulsm_hook_set *set)
{
	int ret;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_seal: NULL set");
	lock();
	if (!state_of(set)) {
		ret = -ENOMEM;
	} else if (set->state->sealed) {
		ret = ulsm_error(-EALREADY, "set %s is already sealed", set->name);
	} else {
		ret = protect(set->sealed, set->sealed_size, "hook tables");
		if (!ret && !set->state->toggle_allowed)
			ret = protect(set->keys, set->keys_size, "slot keys");
		if (!ret)
			set->state->sealed = true;
	}
	unlock();
	return ret;
}

ULSM_API int ulsm_lsm_allow_toggle(struct ulsm_hook_set *set)
{
	int ret = 0;

	if (!set)
		return ulsm_error(-EINVAL, "ulsm_lsm_allow_toggle: NULL set");
	lock();
	if (!state_of(set))
		ret = -ENOMEM;
	else if (set->state->sealed)
		ret = ulsm_error(-EPERM, "set %s is sealed: opt in to toggling "
				 "before sealing", set->name);
	else
		set->state->toggle_allowed = true;
	unlock();
	return ret;
}

static bool owned_by(const struct lsm_static_call *s, const char *name)
{
	return s->hl && !strcmp(s->hl->lsmid->name, name);
}

ULSM_API int ulsm_lsm_toggle(struct ulsm_hook_set *set, const char *name,
			     bool enable)
{
	struct ulsm_batch b = ULSM_BATCH_INIT;
	struct slot_plan plan = { 0 };
	struct lsm_info *m;
	size_t n = set ? set->nhooks * set->slots : 0;
	int ret;

	if (!set || !name)
		return ulsm_error(-EINVAL, "ulsm_lsm_toggle: bad arguments");
	lock();
	if (!state_of(set) || !set->state->toggle_allowed) {
		ret = ulsm_error(-EPERM, "set %s: toggling was not allowed "
				 "(ulsm_lsm_allow_toggle)", set->name);
		goto out;
	}
	m = find_module(set->state, name, strlen(name));
	if (!m || m->ulsm_state != MOD_ACTIVE) {
		ret = ulsm_error(-ENOENT, "set %s: no active module %s",
				 set->name, name);
		goto out;
	}
	ret = plan_begin(&plan, set);
	if (ret)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (owned_by(&set->table[i], name))
			plan.on[i] = enable;
	ret = ulsm_lock();
	if (ret)
		goto out;
	ret = plan_queue(&plan, &b);
	if (!ret)
		ret = ulsm_batch_apply(&b);
	if (!ret)
		plan_commit(&plan);
	ulsm_unlock();
out:
	ulsm_batch_free(&b);
	plan_end(&plan);
	unlock();
	return ret;
}

ULSM_API const char *ulsm_lsm_list(struct ulsm_hook_set *set)
{
	const char *s;

	if (!set)
		return "";
	lock();
	s = set->state && set->state->list ? set->state->list : "";
	unlock();
	return s;
}

ULSM_API int ulsm_lsm_module_active(struct ulsm_hook_set *set, const char *name)
{
	struct lsm_info *m;
	int ret;

	if (!set || !name)
		return ulsm_error(-EINVAL, "ulsm_lsm_module_active: bad arguments");
	lock();
	m = set->state ? find_module(set->state, name, strlen(name)) : NULL;
	if (!m)
		ret = ulsm_error(-ENOENT, "set %s has no module %s", set->name,
				 name);
	else
		ret = m->ulsm_state == MOD_ACTIVE;
	unlock();
	return ret;
}

ULSM_API const struct lsm_id *ulsm_lsm_slot_owner(struct ulsm_hook_set *set,
						  const char *hook,
						  unsigned int slot)
{
	if (!set || !hook || slot >= set->slots)
		return NULL;
	for (size_t i = 0; i < set->nhooks; i++)
		if (!strcmp(set->hook_names[i], hook)) {
			const struct lsm_static_call *s =
				&set->table[i * set->slots + slot];

			return s->hl ? s->hl->lsmid : NULL;
		}
	return NULL;
}

ULSM_API int ulsm_lsm_blob_size(struct ulsm_hook_set *set,
				enum ulsm_blob_type type)
{
	if (!set || (int)type < 0 || type >= ULSM_BLOB_TYPES)
		return ulsm_error(-EINVAL, "ulsm_lsm_blob_size: bad arguments");
	return set->state ? set->state->blob_sizes[type] : 0;
}

ULSM_API int ulsm_lsm_blob_alloc(struct ulsm_hook_set *set,
				 enum ulsm_blob_type type, void **blob)
{
	int size = ulsm_lsm_blob_size(set, type);

	if (size < 0 || !blob)
		return ulsm_error(-EINVAL, "ulsm_lsm_blob_alloc: bad arguments");
	*blob = NULL;
	if (!size)
		return 0;
	*blob = ulsm_calloc(1, (size_t)size);
	return *blob ? 0 : -ENOMEM;
}

ULSM_API void ulsm_lsm_blob_free(void **blob)
{
	if (!blob)
		return;
	ulsm_free(*blob);
	*blob = NULL;
}
