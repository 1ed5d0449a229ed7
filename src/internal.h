/* SPDX-License-Identifier: MIT */
/*
 * src/internal.h - what the library's files share. Never installed.
 *
 * Every function here has hidden visibility (the whole library is built
 * with -fvisibility=hidden; public functions are marked ULSM_API).
 */
#ifndef ULSM_SRC_INTERNAL_H
#define ULSM_SRC_INTERNAL_H

#define ULSM_BUILDING_LIBRARY 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "arch.h"
#include "sys.h"

#define ULSM_API	__attribute__((visibility("default")))

struct ulsm_batch;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The element of @base (n elements of @size bytes, sorted by the uintptr_t
 * at offset @off) whose address is @addr, or NULL. Async-signal-safe: the
 * breakpoint handler uses it.
 */
static inline const void *ulsm_find_addr(const void *base, size_t n,
					 size_t size, size_t off,
					 uintptr_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *e = (const char *)base + mid * size;
		uintptr_t a = *(const uintptr_t *)(e + off);

		if (a == addr)
			return e;
		if (a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* --- errors and diagnostics (src/error.c) ------------------------------ */

/* Record @err with a message for ulsm_last_error(); print it if debugging. */
int ulsm_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ulsm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A broken internal invariant: print and abort. Never for caller mistakes. */
_Noreturn void ulsm_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void ulsm_clear_error(void);

/* --- configuration and start-up (src/init.c) --------------------------- */

struct ulsm_config {
	bool debug;
	enum ulsm_sync_mode sync_mode;
	enum ulsm_write_mode write_mode;
	int sync_signal;
	unsigned int sync_timeout_ms;
};

#define ULSM_SYNC_TIMEOUT_MS_DEFAULT	2000

extern struct ulsm_config ulsm_config;

/* Run once, before anything else; safe to call from constructors. */
void ulsm_init(void);

/* --- the patch lock (src/lock.c) --------------------------------------- */

/*
 * Take the process-wide patch lock. Returns -EDEADLK if the calling thread
 * already holds it (an update from a signal handler that interrupted one).
 */
int ulsm_lock(void);
void ulsm_unlock(void);
bool ulsm_lock_held(void);

/*
 * Take the patch lock for an update: first bring every pending object in
 * line (src/object.c), failing with its error if one still cannot be.
 */
int ulsm_update_lock(void);

/* The patch lock if it is free now: 0, or -EBUSY (dump at exit). */
int ulsm_trylock(void);

/* --- objects (src/object.c), for the dump; patch lock held ------------ */

int ulsm_pending_count(void);
void ulsm_objects_for_each(void (*fn)(const void *owner,
				      const void *jump_start,
				      unsigned long refs, bool pending,
				      void *arg), void *arg);

/* Register the dump at exit if ULSM_DUMP asks for it (src/dump.c). */
void ulsm_dump_init(void);
void ulsm_lock_atfork_init(void);

/* --- statistics -------------------------------------------------------- */

extern struct ulsm_stats ulsm_stats;
#define ulsm_stat_add(field, n)						\
	__atomic_fetch_add(&ulsm_stats.field, (n), __ATOMIC_RELAXED)

/* --- trap-handler quiescence (src/quiesce.c) --------------------------- */

/*
 * The breakpoint handler reads snapshots (registry, published batch) that
 * the patcher replaces. The handler brackets its reads with enter/leave;
 * the patcher swaps the pointer, then waits until no handler is inside
 * before freeing the old snapshot. Sequentially consistent on both sides:
 * either the handler sees the new pointer or the patcher sees the handler.
 *
 * One counter per kind of handler, so that a storm of breakpoint traps
 * (threads spinning over a site mid-patch) cannot starve a wait for the
 * sync handlers, and the other way round.
 */
struct ulsm_quiesce {
	unsigned long inside;
};

extern struct ulsm_quiesce ulsm_trap_quiesce;	/* registry, batch */

void ulsm_handler_enter(struct ulsm_quiesce *q);
void ulsm_handler_leave(struct ulsm_quiesce *q);
void ulsm_wait_for_handlers(struct ulsm_quiesce *q);

/* --- site registry (src/registry.c) ------------------------------------ */

enum ulsm_site_kind {
	ULSM_SITE_BRANCH,		/* a static-key site; key: static_key */
	ULSM_SITE_TRAMP,		/* a trampoline; key: static_call_key */
	ULSM_SITE_CALL,			/* a call site; key: static_call_key,
					   target: its trampoline */
	ULSM_SITE_HOOK,			/* a site of a hook's entry
					   (src/lsm_dispatch.c); key: its
					   slot's static_call_key, or the
					   struct ulsm_hook_entry; target: the
					   struct ulsm_hook_entry */
};

struct ulsm_site {
	uintptr_t addr;
	uintptr_t target;		/* branch: jump target */
	void *key;
	const void *owner;		/* the object's tables */
	uint8_t kind;
	uint8_t branch;			/* the kernel's branch bit */
	uint8_t dead;			/* removed without a new snapshot */
	uint8_t role;			/* hook sites: which (lsm_dispatch.c) */
};

/*
 * Replace the set of sites owned by @owner with @sites (n may be 0, which
 * removes them, and never fails). Caller holds the patch lock. Return 0
 * or -ENOMEM.
 */
int ulsm_registry_set_owner(const void *owner, const struct ulsm_site *sites,
			    size_t n);

/*
 * Call @fn for every registered site of @key, in address order. Caller
 * holds the patch lock. Stops at, and returns, the first nonzero result.
 */
int ulsm_registry_for_key(const void *key,
			  int (*fn)(const struct ulsm_site *site, void *arg),
			  void *arg);

/* Whether @addr starts a registered site. Async-signal-safe, in a handler. */
bool ulsm_registry_is_site(uintptr_t addr);

/* The registered site at @addr, or NULL. Caller holds the patch lock. */
const struct ulsm_site *ulsm_registry_find(uintptr_t addr);

/*
 * Copy up to @max registered sites, in address order, to @out; return how
 * many there are. For tests, under the patch lock or with no update
 * running.
 */
size_t ulsm_registry_snapshot(struct ulsm_site *out, size_t max);

/* --- queueing updates into a caller's batch (hook framework) ---------- */

/*
 * Add the sites of @key to @b, moving them from state @from to @to.
 * Caller holds the patch lock, applies the batch, then sets the count.
 */
int ulsm_key_queue(struct static_key *key, bool from, bool to,
		   struct ulsm_batch *b);

/*
 * Add the change of trampoline @tramp from @key->func to @func to @b.
 * *func_first says whether @key->func must be stored before the batch is
 * applied (indirect form) rather than after. Caller holds the patch lock.
 */
int ulsm_call_queue(struct static_call_key *key, uintptr_t tramp, void *func,
		    struct ulsm_batch *b, bool *func_first);

/*
 * The same without the sites of hook entries, which the hook framework
 * queues itself when it fills slots (src/lsm_slots.c).
 */
int ulsm_call_queue_no_hooks(struct static_call_key *key, uintptr_t tramp,
			     void *func, struct ulsm_batch *b,
			     bool *func_first);

/* --- hook entries (src/lsm_dispatch.c) --------------------------------- */

struct ulsm_hook_entry;

/*
 * Register the entry site at @addr of hook entry @e into @s (a record of
 * the object's "ulsm_call_sites" table whose key reference is @e, tagged):
 * check that it holds what the entry was compiled with, and queue in @b
 * the instruction the hook's slots ask for now. Caller holds the patch
 * lock. Return 0 (@s filled), 1 (refused, reported; @s unused), or a
 * negative errno.
 */
int ulsm_hook_site_collect(const struct ulsm_hook_entry *e, uintptr_t addr,
			   const void *owner, struct ulsm_site *s,
			   struct ulsm_batch *b);

/*
 * A slot's target changes from @from to @to (static_call_update of a slot
 * key): queue hook site @s if its instruction changes. Caller holds the
 * patch lock.
 */
int ulsm_hook_site_retarget(const struct ulsm_site *s, const void *from,
			    const void *to, struct ulsm_batch *b);

/* Whether hook site @s is a slot's call, and calls @func directly now. */
bool ulsm_hook_site_is_call(const struct ulsm_site *s);
bool ulsm_hook_site_calls(const struct ulsm_site *s, const void *func);

/* --- static calls (src/static_call.c) ---------------------------------- */

/*
 * Register the trampolines of one object: check each, record it, and bring
 * it in line with its key's target. Caller holds the patch lock.
 * Returns the number of refused trampolines in *refused.
 */
int ulsm_calls_collect(const struct ulsm_call_entry *start,
		       const struct ulsm_call_entry *stop, const void *owner,
		       struct ulsm_site *sites, size_t *n, int *refused,
		       struct ulsm_batch *b);

/*
 * Record the call sites in [@start, @stop) at @sites + *@n (advancing *@n),
 * and queue in @b those whose key's target is not the trampoline they were
 * compiled to call. A site is left alone (counted, not refused) when it
 * does not hold "call <the key's trampoline>", which @sites[0, *@n) (the
 * object's own trampolines) or the registry knows. Caller holds the patch
 * lock.
 */
int ulsm_call_sites_collect(const struct ulsm_call_site *start,
			    const struct ulsm_call_site *stop,
			    const void *owner, struct ulsm_site *sites,
			    size_t *n, struct ulsm_batch *b);

/*
 * How many call sites @key has (its hook-entry calls included), and in
 * *@direct how many call its target directly now. Patch lock held.
 */
int ulsm_call_sites_count(const struct static_call_key *key, int *direct);

/* The address a PC-relative table field refers to. */
static inline uintptr_t ulsm_rel(const int32_t *field)
{
	return (uintptr_t)field + (intptr_t)*field;
}

/* --- breakpoint traps ------------------------------------------------ */

/*
 * What the handler does with a breakpoint trap at @addr: the patcher's
 * answer (src/patch.c), given to ulsm_trap_install. Async-signal-safe.
 */
enum ulsm_trap_action {
	ULSM_TRAP_NOT_OURS,
	ULSM_TRAP_EMULATE,	/* continue at *resume, with *link if nonzero */
	ULSM_TRAP_REWIND,	/* re-execute the site: continue at addr */
};
typedef enum ulsm_trap_action (*ulsm_trap_lookup_fn)(uintptr_t addr,
						     uintptr_t *resume,
						     uintptr_t *link);

/* --- batches (src/patch.c) --------------------------------------------- */

struct ulsm_patch {
	uintptr_t addr;
	struct ulsm_insn old;
	struct ulsm_insn new;
};

struct ulsm_batch {
	size_t n, cap;
	struct ulsm_patch *v;
};

#define ULSM_BATCH_INIT	{ 0, 0, NULL }

int ulsm_batch_add(struct ulsm_batch *b, uintptr_t addr,
		   const struct ulsm_insn *old, const struct ulsm_insn *new);
void ulsm_batch_free(struct ulsm_batch *b);

/*
 * Apply @b: verify, then patch every site safely (docs/patching-protocol.md).
 * Caller holds the patch lock. Return 0, or a negative errno with every
 * site as it was.
 */
int ulsm_batch_apply(struct ulsm_batch *b);

/*
 * Finish the rollback of a batch that could not finish it (a write kept
 * failing). Caller holds the patch lock. Return 0 (also when there was
 * none) or -EIO.
 */
int ulsm_batch_repair(void);

/*
 * What the breakpoint handler does with a trap at @addr (its
 * ulsm_trap_lookup_fn). Async-signal-safe.
 */
enum ulsm_trap_action ulsm_trap_lookup(uintptr_t addr, uintptr_t *resume,
				       uintptr_t *link);

/* Test hook: called after the sync of each step (the atomic-word protocol has one). */
extern void (*ulsm_test_step_hook)(int step);

/* --- text writing (src/text_write.c) ----------------------------------- */

struct ulsm_text_page {
	uintptr_t page;
	uintptr_t first;	/* the first byte of a site on this page */
	int prot;		/* its protection, for the mprotect method */
};

struct ulsm_text_writer {
	int method;		/* enum ulsm_write_mode, never AUTO once open */
	int fd;			/* /proc/self/mem */
	bool windows_open;	/* the pages are writable (mprotect) */
	size_t npages;
	struct ulsm_text_page *pages;
};

/*
 * Choose a write method that works for every site of @b and acquire what
 * it needs, so that no write afterwards needs a new resource. No byte
 * changes. Return 0, -EPERM (with a message) if no method may write
 * there, or the errno of a missing resource (-EMFILE, -ENOMEM, ...).
 */
int ulsm_text_open(struct ulsm_text_writer *w, const struct ulsm_batch *b);
int ulsm_text_write(struct ulsm_text_writer *w, uintptr_t addr,
		    const void *bytes, size_t len);
void ulsm_text_close(struct ulsm_text_writer *w);
/* Give back their protection to pages an earlier batch could not. */
void ulsm_text_restore_stuck(void);

/* --- core sync (src/sync_core.c) --------------------------------------- */

/* What a batch's core syncs need, acquired before its first write. */
struct ulsm_sync {
	int method;
	int taskfd;		/* /proc/self/task, for the signal method */
	pid_t pid, self;
};

/* Choose a sync method that works; return 0, -ENOSYS or -EBUSY. */
int ulsm_sync_prepare(void);
/*
 * Step 0 of a batch: choose the method and acquire what its rounds need;
 * with signals, check that every thread can answer, and rehearse one
 * round. Return 0, or a negative errno with nothing held.
 */
int ulsm_sync_begin(struct ulsm_sync *s);
/* Make every thread of the process serialise its instruction stream. */
int ulsm_sync_cores(struct ulsm_sync *s);
void ulsm_sync_end(struct ulsm_sync *s);
const char *ulsm_sync_name(void);
/*
 * The text writer found an emulator that runs translated code (qemu-user):
 * from now on each membarrier round is followed by a signal round.
 */
void ulsm_sync_set_emulated(void);

/* --- breakpoint handler (src/trap.c) ----------------------------------- */

/*
 * Install the SIGTRAP handler if it is not ours, chaining to the old one,
 * and make it ask @lookup about breakpoint traps.
 */
int ulsm_trap_install(ulsm_trap_lookup_fn lookup);

#endif /* ULSM_SRC_INTERNAL_H */
