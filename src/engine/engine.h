/* SPDX-License-Identifier: MIT */
/*
 * src/engine/engine.h - the patching engine, for the layers above it
 * (src/static/, src/lsm/, and the start-up and dump). Never installed.
 *
 * The engine writes instructions into the running process safely while
 * other threads execute them (docs/patching-protocol.md): batches, their
 * verification and rollback, the write path, core sync, the breakpoint
 * handler, the registry of sites, and the objects whose tables hold them.
 * It knows *kinds of site*, not keys, calls or hooks: each layer above
 * registers the kinds it defines (struct ulsm_site_kind, below), and the
 * engine asks a kind to collect its sites when an object is registered.
 * Everything else a kind does (deriving a site's instruction from the
 * state it follows) it does itself, adding the changes to a transaction
 * (struct ulsm_txn, below): the only way code changes.
 *
 *   lock.c        the patch lock (FIFO), and fork
 *   quiesce.c     waiting for signal handlers to leave a snapshot
 *   registry.c    every registered site, by address and by key
 *   object.c      objects' tables, kinds of site, pending objects
 *   caps.c        what the back end needs, decided once
 *   forms.c       what a site does, in the back end's instructions
 *   txn.c         the one transaction: every change of code
 *   patch.c       the protocol: verify, patch a stage, roll back
 *   text_write.c  writing text (/proc/self/mem, mprotect windows)
 *   sync_core.c   making every thread serialise (membarrier, signals)
 *   trap.c        the breakpoint handler
 *   settings.c    the engine's public settings and names
 *   grace.c       grace periods: waiting for threads to leave code
 *   targets.c     the static calls' built-in targets (return 0, no-op)
 *   arch/         the back ends' instruction encodings (src/engine/arch.h),
 *                 for the engine alone: the layers above say what a site
 *                 does (struct ulsm_form, below), never which instruction
 */
#ifndef ULSM_SRC_ENGINE_H
#define ULSM_SRC_ENGINE_H

#include <ulsm/object.h>

#include "base/base.h"
#include "engine/arch.h"

struct ulsm_txn;
struct ulsm_site_kind;

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

/* The address a PC-relative table field refers to. */
static inline uintptr_t ulsm_rel(const int32_t *field)
{
	return (uintptr_t)field + (intptr_t)*field;
}

/* --- the patch lock (src/engine/lock.c) --------------------------------------- */

/*
 * Take the process-wide patch lock. Returns -EDEADLK if the calling thread
 * already holds it (an update from a signal handler that interrupted one).
 */
int ulsm_lock(void);
void ulsm_unlock(void);
bool ulsm_lock_held(void);

/*
 * Take the patch lock for an update: first bring every pending object in
 * line (src/engine/object.c), failing with its error if one still cannot be.
 */
int ulsm_update_lock(void);

/* The patch lock if it is free now: 0, or -EBUSY (dump at exit). */
int ulsm_trylock(void);

/*
 * The fork handlers of the patch lock (docs/patching-protocol.md, "fork")
 * and of the grace periods' locks (src/engine/grace.c). No layer
 * registers its own: the start-up (src/init.c) registers one set that
 * calls every layer's in the lock order, the same in every process
 * whatever was used first.
 */
void ulsm_lock_fork_prepare(void);
void ulsm_lock_fork_parent(void);
void ulsm_lock_fork_child(void);
void ulsm_grace_fork_prepare(void);
void ulsm_grace_fork_parent(void);
void ulsm_grace_fork_child(void);

/* --- trap-handler quiescence (src/engine/quiesce.c) --------------------------- */

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

/* --- grace periods (src/engine/grace.c) ------------------------------- */

/**
 * ulsm_read_inside - whether the calling thread is inside a read-side
 * section (<ulsm/grace.h>)
 *
 * A layer that waits for a grace period asks it first, to fail (or defer)
 * rather than wait for itself. Async-signal-safe: it reads only the
 * thread's own state.
 *
 * Return: true if the thread is inside a section (nested, in the shared
 * record, or beyond its counter's limit alike), that is if
 * ulsm_synchronize() would return -EDEADLK here; false otherwise.
 */
bool ulsm_read_inside(void);

/* --- site registry (src/engine/registry.c) ------------------------------------ */

struct ulsm_site {
	uintptr_t addr;
	uintptr_t target;		/* branch: jump target */
	void *key;
	const void *owner;		/* the object's tables */
	const struct ulsm_site_kind *kind;
	uint8_t branch;			/* the kernel's branch bit */
	uint8_t dead;			/* removed without a new snapshot */
	uint8_t role;			/* the kind's own use */
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
/*
 * The same in key order (then address), as the registry keeps them: each
 * key's sites side by side, for a listing by key (src/static/snapshot.c).
 */
size_t ulsm_registry_snapshot_by_key(struct ulsm_site *out, size_t max);

/* --- kinds of site and objects (src/engine/object.c) ------------------ */

/*
 * The tables of an object (<ulsm/object.h>), as the engine hands their
 * records to kinds. A record of "ulsm_call_sites" whose key reference has
 * bit 0 set belongs to another kind than the plain ones (the format lets
 * a layer above add sites of its own to that table): the engine takes
 * the bit off (ulsm_site_record_ref) and gives it to the tagged kind.
 */
enum ulsm_table {
	ULSM_TABLE_JUMP,		/* struct ulsm_jump_entry */
	ULSM_TABLE_CALL,		/* struct ulsm_call_entry */
	ULSM_TABLE_SITE,		/* struct ulsm_call_site */
	ULSM_TABLE_SITE_TAGGED,		/* struct ulsm_call_site, tagged */
	ULSM_TABLES
};

/* What a kind's collect() works with: one object's registration. */
struct ulsm_collect {
	const void *owner;		/* for struct ulsm_site.owner */
	struct ulsm_site *sites;	/* the object's sites so far, */
	size_t n;			/* room for one per record */
	int refused;			/* records refused, for -EILSEQ */
	struct ulsm_txn *txn;		/* changes that bring sites in line */
	void *scratch[ULSM_TABLES];	/* each kind's own, ulsm_free()d
					   after the object */
};

/*
 * A kind of site, defined by a layer above the engine.
 * @name:    what its sites are called, plural ("key sites"), for the dump
 * @table:   which table's records it collects
 * @collect: check the site of @record (one record of @table) against the
 *           instruction it was compiled with; if it holds it, record it
 *           at c->sites[c->n++] (kind, key, owner, ...) and add to
 *           c->txn the instruction its state asks for now. A record
 *           that does not hold it is reported (ulsm_error) and either
 *           counted in c->refused or, where the kind says so, left alone
 *           as compiled. Return 0, or a negative errno that abandons the
 *           object's registration (nothing registered).
 * @ops:     what the defining layer knows of its sites (for instance the
 *           static calls' struct ulsm_call_follower); never read here
 */
struct ulsm_site_kind {
	const char *name;
	enum ulsm_table table;
	int (*collect)(struct ulsm_collect *c, const void *record);
	const void *ops;
};

/*
 * Make @kind collect the records of its table from every object
 * registered from now on. Start-up (src/init.c) registers every kind
 * before the first object. Records of a table with no kind are left as
 * compiled.
 */
void ulsm_site_kind_register(const struct ulsm_site_kind *kind);
/* The kind of @table, or NULL (the dump lists them). */
const struct ulsm_site_kind *ulsm_site_kind_of(enum ulsm_table table);

/*
 * A record of "ulsm_call_sites": the address it records (just after a
 * call, or the site itself for tagged records), and its key reference,
 * tag bit taken off.
 */
static inline uintptr_t ulsm_site_record_addr(const struct ulsm_call_site *e)
{
	return ulsm_rel(&e->ret);
}

static inline const void *ulsm_site_record_ref(const struct ulsm_call_site *e)
{
	const void *const *kref = (const void *const *)ulsm_rel(&e->kref);

	return (const void *)((uintptr_t)*kref & ~(uintptr_t)1);
}

/*
 * Register an object's tables (a reference more if they are known), or
 * keep them pending if a resource is missing (every update retries them).
 * Return 0, -EILSEQ (registered, some sites refused), or another negative
 * errno. The public ulsm_object_register() is start-up's (src/init.c).
 */
int ulsm_objects_add(const struct ulsm_object_tables *t);
/* Drop a reference; the last one forgets the object's sites. */
int ulsm_objects_remove(const struct ulsm_object_tables *t);
/*
 * Register the pending objects now (ulsm_retry_pending(), src/init.c, with
 * the hook framework's departures): 0, or the error of the first that
 * still cannot be registered.
 */
int ulsm_objects_retry(void);

/* For the dump; patch lock held. */
int ulsm_pending_count(void);
void ulsm_objects_for_each(void (*fn)(const void *owner,
				      const void *jump_start,
				      unsigned long refs, bool pending,
				      void *arg), void *arg);

/* --- breakpoint traps ------------------------------------------------ */

/*
 * What the handler does with a breakpoint trap at @addr: the patcher's
 * answer (src/engine/patch.c), given to ulsm_trap_install. Async-signal-safe.
 */
enum ulsm_trap_action {
	ULSM_TRAP_NOT_OURS,
	ULSM_TRAP_EMULATE,	/* continue at *resume, with *link if nonzero */
	ULSM_TRAP_REWIND,	/* re-execute the site: continue at addr */
};
typedef enum ulsm_trap_action (*ulsm_trap_lookup_fn)(uintptr_t addr,
						     uintptr_t *resume,
						     uintptr_t *link);

/* --- capabilities (src/engine/caps.c) ------------------------------------- */

/*
 * What the back end needs (docs/patching-protocol.md, "Capabilities"),
 * decided once by the engine, and applied by it. A layer above reads one
 * only to choose what it asks for, never an instruction: patches_code (a
 * static call without code is a pointer), calls_patchable (a call site
 * stays on its trampoline; a hook entry's call goes through its stub).
 * @patches_code: code is patched (false: the generic back end, whose
 *                transactions are their stores, and whose objects
 *                register no sites)
 * @breakpoints:  the breakpoint protocol (x86-64): a trap handler, three
 *                writes and three syncs per stage
 * @one_word:     each change is one aligned word (aarch64, riscv64): one
 *                store and one sync per stage
 * @sync_fetch:   the back end's fetch sync (riscv64: riscv_flush_icache)
 *                is the core sync, and a CPU's own serialisation does not
 *                follow a thread that moves: the signal round alone is no
 *                sync there (src/engine/sync_core.c)
 * @calls_patchable: a call site may be patched (x86-64: not under a
 *                shadow stack, where a trapped call cannot be emulated);
 *                asked of the back end once, a system call
 */
struct ulsm_caps {
	bool patches_code;
	bool breakpoints;
	bool one_word;
	bool sync_fetch;
	bool calls_patchable;
};

const struct ulsm_caps *ulsm_caps(void);

/*
 * Whether instruction fetch misses /proc/self/mem writes (qemu-user),
 * asked once, with the first descriptor the writer opens; and the answer,
 * false before it is known.
 */
bool ulsm_caps_fetch_misses_procmem(int fd);
bool ulsm_caps_emulated(void);

/*
 * The CPU's counter, for timestamps (src/engine/arch.h): its value now
 * (0 where the back end has none), and whether it can time events (one
 * rate on every CPU, in step), asked of the back end once.
 */
static inline uint64_t ulsm_counter_read(void)
{
	return ulsm__arch_counter_read();
}

bool ulsm_counter_usable(void);

/* --- the one transaction (src/engine/txn.c) ---------------------------------- */

/*
 * The stages of a transaction, applied in this order, each a whole run of
 * the protocol (docs/patching-protocol.md, "One transaction"): sites
 * change one at a time, so a thread may meet a guard already new and what
 * it guards still old. Guards that close first, targets next, guards that
 * open last: every guard a thread finds open leads to a target valid for
 * it.
 */
enum ulsm_stage {
	ULSM_STAGE_GUARDS_OFF,	/* code stops being reached */
	ULSM_STAGE_TARGETS,	/* where reached code goes */
	ULSM_STAGE_GUARDS_ON,	/* code starts being reached */
	ULSM_STAGES
};

/* When a store goes with its stage: before its code changes, or after. */
enum ulsm_when { ULSM_BEFORE, ULSM_AFTER };

struct ulsm_patch {
	uintptr_t addr;
	struct ulsm_insn old;
	struct ulsm_insn new;
	uint8_t stage;			/* enum ulsm_stage */
	uint8_t touched;		/* a write to it succeeded */
};

struct ulsm_batch {
	size_t n, cap;
	struct ulsm_patch *v;
};

#define ULSM_BATCH_INIT	{ 0, 0, NULL }

/* An aligned word of data that goes with the code. */
struct ulsm_store {
	void *addr;
	uintptr_t val, old;		/* old: read when it is stored */
	uint8_t size;			/* sizeof(bool), sizeof(int) or
					   sizeof(void *) */
	uint8_t stage, when;
	bool done;
};

struct ulsm_txn {
	struct ulsm_batch code;		/* every stage's sites */
	size_t nstores, capstores;
	struct ulsm_store *stores;	/* in the order added */
};

#define ULSM_TXN_INIT	{ ULSM_BATCH_INIT, 0, 0, NULL }

/*
 * Add to @t: the change of the site at @addr from @old to @new, in
 * @stage (an unchanged instruction adds nothing); or a store of @val to
 * the int, pointer or bool at @addr, with @stage, before or after its
 * code (a bool: a layer's record that goes with the code, such as a
 * tracepoint's "was on"). Return 0 or -ENOMEM (with a message); on
 * failure the caller frees @t, and nothing was changed.
 */
int ulsm_txn_code(struct ulsm_txn *t, enum ulsm_stage stage, uintptr_t addr,
		  const struct ulsm_insn *old, const struct ulsm_insn *new);
int ulsm_txn_store_int(struct ulsm_txn *t, enum ulsm_stage stage,
		       enum ulsm_when when, int *addr, int val);
int ulsm_txn_store_ptr(struct ulsm_txn *t, enum ulsm_stage stage,
		       enum ulsm_when when, void *addr, const void *val);
int ulsm_txn_store_bool(struct ulsm_txn *t, enum ulsm_stage stage,
			enum ulsm_when when, bool *addr, bool val);

/* Whether @t changes any code. */
static inline bool ulsm_txn_has_code(const struct ulsm_txn *t)
{
	return t->code.n != 0;
}

/*
 * Apply @t: every site and every store, stage by stage, safely while
 * other threads run the code. Caller holds the patch lock (taken with
 * ulsm_update_lock). Return 0 with every site new and every word stored,
 * or a negative errno with every site and word as before (-EIO: a
 * rollback could not finish, docs/patching-protocol.md).
 */
int ulsm_txn_commit(struct ulsm_txn *t);
void ulsm_txn_free(struct ulsm_txn *t);
/*
 * The end of a change made under ulsm_update_lock(): commit @t unless
 * @ret (from queueing its entries) is an error, free it, and unlock.
 * Return: @ret, or what the commit returned.
 */
int ulsm_txn_finish(struct ulsm_txn *t, int ret);

/* --- what a site does (src/engine/forms.c) ---------------------------- */

/*
 * The layers above say what a site does; the engine, through its back
 * end, in which instruction, and adds the change of each site to a
 * transaction in one call, as the kernel's generic code makes one arch
 * call per change (arch_jump_label_transform, arch_static_call_transform).
 * Each form is one instruction the engine replaces whole.
 */
enum ulsm_op {
	ULSM_OP_NOP,		/* fall through; to: the jump it stands in
				   for (a key's), or 0 */
	ULSM_OP_JUMP,		/* jump to @to */
	ULSM_OP_TAIL,		/* jump to @to, or, when @to is the
				   instruction right after, a NOP as long:
				   the same path, with no taken branch */
	ULSM_OP_CALL,		/* call @to */
	ULSM_OP_CALL_VIA,	/* call @to; a thread that meets it mid-patch
				   is sent to @via, which makes the call
				   (under a shadow stack) */
	ULSM_OP_RETURN,		/* return; through the return thunk @to, if
				   not 0 */
};

struct ulsm_form {
	enum ulsm_op op;
	uintptr_t to;
	uintptr_t via;
};

static inline struct ulsm_form ulsm_form(enum ulsm_op op, uintptr_t to)
{
	return (struct ulsm_form){ op, to, 0 };
}

/*
 * A branch site (a static key's): a jump to @target when @jump, else the
 * NOP that stands in for it. Both forms must be encodable for either to
 * be, where the back end says so (riscv64: a jump of +-1 MiB).
 */
static inline struct ulsm_form ulsm_branch(uintptr_t target, bool jump)
{
	return ulsm_form(jump ? ULSM_OP_JUMP : ULSM_OP_NOP, target);
}

/*
 * Add to @t, in @stage, the change of the site at @addr from what @from
 * does to what @to does (nothing if the instruction is the same). The
 * site is checked against @from in the commit's step 0. Return 0, the
 * back end's error for a form it cannot encode there (-ERANGE: out of
 * reach), or -ENOMEM.
 */
int ulsm_txn_site(struct ulsm_txn *t, enum ulsm_stage stage, uintptr_t addr,
		  struct ulsm_form from, struct ulsm_form to);
/*
 * Whether the site at @addr holds @f now: 0, -EILSEQ, or the back end's
 * error for a form it cannot encode there.
 */
int ulsm_site_holds(uintptr_t addr, struct ulsm_form f);
/* Whether the back end can encode @f at @addr (a target in reach). */
bool ulsm_site_reaches(uintptr_t addr, struct ulsm_form f);
/* The target of the direct call at @addr: 0, or -EILSEQ if there is none. */
int ulsm_site_callee(uintptr_t addr, uintptr_t *callee);

/*
 * Finding a site by the label recorded just after it.
 * ulsm_find_jump: the jump to @to that ends at @label (a tail site).
 * ulsm_find_call: the direct call to @callee that ends at @label, or is
 * followed only by register moves there, or the one to a PLT entry that
 * ends in @callee (its GOT slot holds @callee, or the symbol it names is
 * bound to @callee: a -fPIC object's "call sym@PLT"); *@via is what it
 * calls, @callee or the PLT entry. Calls are patched only where
 * ulsm_caps()->calls_patchable.
 * Set *@site and return 0, or return -EILSEQ.
 */
int ulsm_find_jump(uintptr_t label, uintptr_t to, uintptr_t *site);
int ulsm_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site,
		   uintptr_t *via);

/*
 * Static-call trampolines (the back end's, include/ulsm/arch/<arch>.h),
 * whose form follows a target; @slot is the address of the key's func
 * field, which the indirect form reads.
 *
 * ulsm_tramp_form: whether @tramp is an intact trampoline, and the form
 * its instruction has now. 0 or -EILSEQ.
 * ulsm_txn_tramp_adopt: add to @t (targets' stage) the change of @tramp,
 * intact in any form (as compiled), to the form of @func. 0, -EILSEQ
 * (not intact), -ERANGE (no form reaches @func) or -ENOMEM.
 * ulsm_txn_tramp: add to @t (targets' stage) the change of @tramp from
 * the form of @from to that of @to; *@reads_slot says whether @to's form
 * reads @slot (the target is then stored first). 0, -ERANGE, -EILSEQ
 * (both forms are the same instruction and @tramp does not hold it: the
 * commit, which checks only what changes, would not see it) or -ENOMEM.
 */
int ulsm_tramp_form(uintptr_t tramp, enum ulsm_static_call_form *form);
int ulsm_txn_tramp_adopt(struct ulsm_txn *t, uintptr_t tramp, uintptr_t slot,
			 const void *func);
int ulsm_txn_tramp(struct ulsm_txn *t, uintptr_t tramp, uintptr_t slot,
		   const void *from, const void *to, bool *reads_slot);

/* --- text writing (src/engine/text_write.c) ----------------------------------- */

struct ulsm_text_page {
	uintptr_t page;
	uintptr_t first;	/* the first byte of a site on this page */
	int prot;		/* its protection, for the mprotect method */
	uintptr_t map;		/* the start of its mapping, likewise */
};

struct ulsm_text_writer {
	int method;		/* enum ulsm_write_mode, never AUTO once open */
	int fd;			/* /proc/self/mem, for this batch only */
	bool windows_open;	/* the pages are writable (mprotect) */
	bool written;		/* bytes of the text changed: no falling back */
	bool fall_back;		/* the first write may go to the windows */
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
/* Test hook: called after each write of text. */
extern void (*ulsm_test_write_hook)(uintptr_t addr);
/* Give back their protection to pages an earlier batch could not. */
void ulsm_text_restore_stuck(void);

/* --- core sync (src/engine/sync_core.c) --------------------------------------- */

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

/* --- the protocol (src/engine/patch.c), for the commit ---------------------- */

/* What a transaction holds from its step 0 to its end. */
struct ulsm_session {
	struct ulsm_text_writer w;
	struct ulsm_sync s;
};

int ulsm_batch_add(struct ulsm_batch *b, uintptr_t addr,
		   const struct ulsm_insn *old, const struct ulsm_insn *new,
		   enum ulsm_stage stage);
void ulsm_batch_free(struct ulsm_batch *b);

/*
 * Step 0 of @b, every stage at once: finish a stranded batch, sort,
 * refuse overlaps, verify every site, acquire the writer and the sync,
 * publish @b to the trap handler. Return 0, or a negative errno with
 * nothing written and nothing held.
 */
int ulsm_patch_open(struct ulsm_batch *b, struct ulsm_session *x);
/* Patch the sites of @stage (none: nothing, no sync). 0 or -errno. */
int ulsm_patch_stage(struct ulsm_batch *b, int stage, struct ulsm_session *x);
/*
 * Bring the sites of @stage back to their old instruction, from any mix
 * of old, breakpoint and new bytes. 0, or -EIO if a write kept failing.
 */
int ulsm_patch_undo(struct ulsm_batch *b, int stage, struct ulsm_session *x);
/*
 * A rollback could not finish: keep @b published, every site continuing
 * as its old instruction, until an update finishes the job; @b's memory
 * becomes the engine's (@b is left empty).
 */
void ulsm_patch_strand(struct ulsm_batch *b);
/* The end of @b: unpublish it (unless stranded), release the session. */
void ulsm_patch_close(struct ulsm_batch *b, struct ulsm_session *x);

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

/* --- breakpoint handler (src/engine/trap.c) ----------------------------------- */

/*
 * Install the SIGTRAP handler if it is not ours, chaining to the old one,
 * and make it ask @lookup about breakpoint traps.
 */
int ulsm_trap_install(ulsm_trap_lookup_fn lookup);

#endif /* ULSM_SRC_ENGINE_H */
