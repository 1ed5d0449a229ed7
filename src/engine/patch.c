// SPDX-License-Identifier: MIT
/*
 * The patching protocol: a transaction's sites (src/engine/txn.c) changed
 * safely while other threads execute them, one stage at a time. The
 * protocol, its ordering and its failure cases are described in
 * docs/patching-protocol.md ("The breakpoint protocol", "One
 * transaction" and "Failures: all or nothing by construction"); the
 * comments here only point at the steps.
 *
 * The rule that makes a transaction all or nothing: its step 0 acquires
 * everything every stage needs (the write path, the sync's descriptor and
 * buffers, the trap handler); once the first byte is written, a failure
 * rolls back with only those.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

/*
 * The batch being applied (a transaction's sites, every stage), for the
 * breakpoint handler. Only the sites of the stage being written hold
 * breakpoints; @rolling_back says which instruction a thread that traps
 * on one continues as.
 */
static struct ulsm_batch *published;
static int rolling_back;

/*
 * A batch whose rollback could not be finished (a write kept failing): it
 * stays published, rolling back, so that threads meeting its breakpoints
 * continue as the old instructions, until an update finishes the job.
 */
static struct ulsm_batch stranded;

/* Test hook: called after each step's core sync (tests/t_trap.c). */
void (*ulsm_test_step_hook)(int step);

static void after_step(int step)
{
	if (ulsm_test_step_hook)
		ulsm_test_step_hook(step);
}

int ulsm_batch_add(struct ulsm_batch *b, uintptr_t addr,
		   const struct ulsm_insn *old, const struct ulsm_insn *new,
		   enum ulsm_stage stage)
{
	if (old->len != new->len || !old->len || old->len > ULSM_MAX_INSN)
		return ulsm_error(-EINVAL, "site %#lx: bad instruction length",
				  (unsigned long)addr);
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct ulsm_patch *v = ulsm_reallocarray(b->v, cap, sizeof(*v));

		if (!v)
			return ulsm_error(-ENOMEM, "no memory for a batch of %zu "
					  "sites", cap);
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n].addr = addr;
	b->v[b->n].old = *old;
	b->v[b->n].new = *new;
	b->v[b->n].stage = (uint8_t)stage;
	b->v[b->n].touched = 0;
	b->n++;
	return 0;
}

void ulsm_batch_free(struct ulsm_batch *b)
{
	ulsm_free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
}

static int cmp_patch(const void *a, const void *b)
{
	const struct ulsm_patch *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/*
 * ULSM_PROTO_ATOMIC_WORD: the offset of the one aligned word in which @p's
 * old and new instructions differ, or -1 if they do not. Only that word
 * is stored: storing an unchanged word again (a trampoline's landing pad)
 * would itself be a concurrent modification of an instruction that the
 * architecture may not allow.
 */
static long changed_word(const struct ulsm_patch *p)
{
	for (size_t off = 0; off + 4 <= p->new.len; off += 4)
		if (memcmp(p->old.bytes + off, p->new.bytes + off, 4))
			return (long)off;
	return -1;
}

/* Whether @p changes one aligned word at most (ULSM_PROTO_ATOMIC_WORD). */
static bool one_word_change(const struct ulsm_patch *p)
{
	long off = changed_word(p);

	if ((p->addr & 3) || (p->new.len & 3))
		return false;
	return off < 0 ||
	       !memcmp(p->old.bytes + off + 4, p->new.bytes + off + 4,
		       p->new.len - (size_t)off - 4);
}

/* Step 0: sorted, no overlap, and every site holds what we think it does. */
static int batch_check(struct ulsm_batch *b)
{
	qsort(b->v, b->n, sizeof(*b->v), cmp_patch);
	for (size_t i = 0; i < b->n; i++) {
		const struct ulsm_patch *p = &b->v[i];

		if (i + 1 < b->n && p->addr + p->old.len > b->v[i + 1].addr)
			return ulsm_error(-EINVAL,
				"sites %#lx and %#lx overlap in one batch",
				(unsigned long)p->addr,
				(unsigned long)b->v[i + 1].addr);
		if (ulsm_caps()->one_word && !one_word_change(p))
			return ulsm_error(-EINVAL, "site %#lx: the change is "
				"not one aligned word; nothing written",
				(unsigned long)p->addr);
		if (memcmp((const void *)p->addr, p->old.bytes, p->old.len))
			return ulsm_error(-EILSEQ,
				"site %#lx does not hold the expected instruction "
				"(changed by someone else?); nothing written",
				(unsigned long)p->addr);
	}
	return 0;
}

/* Whether @p is one of the sites of @stage; -1: every stage (a repair). */
static bool in_stage(const struct ulsm_patch *p, int stage)
{
	return stage < 0 || p->stage == stage;
}

/* Whether any site of @b is in @stage. */
static bool stage_used(const struct ulsm_batch *b, int stage)
{
	for (size_t i = 0; i < b->n; i++)
		if (in_stage(&b->v[i], stage))
			return true;
	return false;
}

/*
 * The sites a rollback of @stage brings back: those a write reached.
 * The others still hold their old bytes (the writer's first write is its
 * probe, and a later write may fail on a page of its own).
 */
static bool to_restore(const struct ulsm_patch *p, int stage)
{
	return in_stage(p, stage) && p->touched;
}

static bool stage_touched(const struct ulsm_batch *b, int stage)
{
	for (size_t i = 0; i < b->n; i++)
		if (to_restore(&b->v[i], stage))
			return true;
	return false;
}

/*
 * A write while rolling back: with the descriptor or window that step 0
 * opened, which just worked, so a failure is transient; retried.
 */
static int write_retry(struct ulsm_text_writer *w, uintptr_t addr,
		       const uint8_t *bytes, size_t len)
{
	int ret = -EIO;

	for (int tries = 0; tries < 4 && ret; tries++) {
		if (tries)
			sched_yield();
		ret = ulsm_text_write(w, addr, bytes, len);
	}
	return ret;
}

/* A sync while rolling back: failures do not stop the rollback. */
static void sync_anyway(struct ulsm_sync *s)
{
	if (ulsm_sync_cores(s)) {
		ulsm_stat_add(syncs_failed, 1);
		ulsm_debug("a core sync failed while rolling back (%s); "
			   "going on", ulsm_last_error());
	}
}

/*
 * Bring every site of @stage back to its old instruction, from whatever
 * mix of old, breakpoint and new bytes a failed step left, or from the
 * new bytes of a finished stage: the protocol again, towards the old
 * bytes. Until the last step every site starts with a breakpoint, which
 * is why a failed sync does not stop it (docs/patching-protocol.md).
 * Return 0, or -EIO if a write kept failing.
 */
static int roll_back_breakpoint(struct ulsm_batch *b, int stage,
				struct ulsm_text_writer *w, struct ulsm_sync *s)
{
	const size_t bp = arch_breakpoint_len;
	int ret = 0;

	/*
	 * Pairs with the load of rolling_back in ulsm_trap_lookup() (this
	 * file): set before the first rollback write, so a thread that traps
	 * from here on runs the old instruction.
	 */
	__atomic_store_n(&rolling_back, 1, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < b->n && !ret; i++)
		if (to_restore(&b->v[i], stage))
			ret = write_retry(w, b->v[i].addr, arch_breakpoint, bp);
	sync_anyway(s);
	for (size_t i = 0; i < b->n && !ret; i++) {
		const struct ulsm_patch *p = &b->v[i];

		if (to_restore(p, stage) && p->old.len > bp)
			ret = write_retry(w, p->addr + bp, p->old.bytes + bp,
					  p->old.len - bp);
	}
	sync_anyway(s);
	for (size_t i = 0; i < b->n && !ret; i++)
		if (to_restore(&b->v[i], stage))
			ret = write_retry(w, b->v[i].addr, b->v[i].old.bytes, bp);
	sync_anyway(s);
	return ret ? -EIO : 0;
}

/*
 * A write of steps 1-3 to site @p; a failure is explained for the
 * rollback's message (unless the writer said why it cannot write).
 */
static int step_write(struct ulsm_text_writer *w, struct ulsm_patch *p,
		      uintptr_t addr, const uint8_t *bytes, size_t len)
{
	int ret = ulsm_text_write(w, addr, bytes, len);

	/*
	 * Once the writer has written anything, a failed write may have
	 * changed this site too (a pwrite that worked, then its page's
	 * reprotect that did not): the rollback restores it, which rewrites
	 * the old bytes of a site that did not change, harmlessly. Before
	 * that, nothing at all was written.
	 */
	if (!ret || w->written)
		p->touched = 1;
	if (ret && w->written)
		ulsm_error(ret, "writing %zu byte(s) at %#lx failed: %s", len,
			   (unsigned long)addr, strerror(-ret));
	return ret;
}

static int apply_breakpoint(struct ulsm_batch *b, int stage,
			    struct ulsm_text_writer *w, struct ulsm_sync *s)
{
	const size_t bp = arch_breakpoint_len;
	int ret = 0;

	/* Step 1: a breakpoint over the first byte of every site. */
	for (size_t i = 0; i < b->n && !ret; i++)
		if (in_stage(&b->v[i], stage))
			ret = step_write(w, &b->v[i], b->v[i].addr,
					 arch_breakpoint, bp);
	if (!ret)
		ret = ulsm_sync_cores(s);
	if (!ret)
		after_step(1);

	/* Step 2: the tails, which nobody can reach now. */
	for (size_t i = 0; i < b->n && !ret; i++) {
		struct ulsm_patch *p = &b->v[i];

		if (in_stage(p, stage) && p->new.len > bp)
			ret = step_write(w, p, p->addr + bp, p->new.bytes + bp,
					 p->new.len - bp);
	}
	if (!ret)
		ret = ulsm_sync_cores(s);
	if (!ret)
		after_step(2);

	/*
	 * Step 3: the first bytes; the sites are whole again. No sync after
	 * it: the last one (step 2's) left no core with a stale tail, so a
	 * core can only still fetch the breakpoint of step 1, and a thread
	 * that runs it traps, finds the site's new byte in memory and
	 * rewinds to it (the late-trap rule, which also covers a signal
	 * delivered after the patch): it runs the new instruction. The
	 * kernel syncs here to free the descriptor its handler looks up;
	 * ours looks up a registry that outlives every batch.
	 */
	for (size_t i = 0; i < b->n && !ret; i++)
		if (in_stage(&b->v[i], stage))
			ret = step_write(w, &b->v[i], b->v[i].addr,
					 b->v[i].new.bytes, bp);
	return ret;
}

/*
 * aarch64: each site changes one aligned word (checked in step 0), stored
 * whole; old and new are both instructions that may be changed under a
 * running core, so any site of a failed stage may be stored back at any
 * time, also one that still holds its old word. The core sync comes last:
 * until it returns, a thread may run either word.
 */
static int roll_back_atomic_word(struct ulsm_batch *b, int stage,
				 struct ulsm_text_writer *w, struct ulsm_sync *s)
{
	int ret = 0;

	/*
	 * Pairs with the load of rolling_back in ulsm_trap_lookup() (this
	 * file): set before the first word goes back, so a thread that traps
	 * from here on runs the old instruction.
	 */
	__atomic_store_n(&rolling_back, 1, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < b->n && !ret; i++) {
		const struct ulsm_patch *p = &b->v[i];
		long off = changed_word(p);

		if (off < 0 || !to_restore(p, stage))
			continue;
		ret = write_retry(w, p->addr + (uintptr_t)off,
				  p->old.bytes + off, 4);
		if (!ret)
			arch_flush_icache((void *)(p->addr + (uintptr_t)off), 4);
	}
	sync_anyway(s);
	return ret ? -EIO : 0;
}

static int apply_atomic_word(struct ulsm_batch *b, int stage,
			     struct ulsm_text_writer *w, struct ulsm_sync *s)
{
	int ret = 0;

	/* One naturally aligned store per site, then cache maintenance. */
	for (size_t i = 0; i < b->n && !ret; i++) {
		struct ulsm_patch *p = &b->v[i];
		long off = changed_word(p);

		if (off < 0 || !in_stage(p, stage))
			continue;
		ret = step_write(w, p, p->addr + (uintptr_t)off,
				 p->new.bytes + off, 4);
		if (!ret)
			arch_flush_icache((void *)(p->addr + (uintptr_t)off), 4);
	}
	if (!ret)
		ret = ulsm_sync_cores(s);
	/* The one step's sync is done: for tests, as after a breakpoint step. */
	if (!ret)
		after_step(1);
	return ret;
}

static int roll_back_stage(struct ulsm_batch *b, int stage,
			   struct ulsm_text_writer *w, struct ulsm_sync *s)
{
	return ulsm_caps()->breakpoints ? roll_back_breakpoint(b, stage, w, s) :
	       roll_back_atomic_word(b, stage, w, s);
}

/* Acquire what a batch needs, in step 0. Nothing is written. */
static int batch_begin(struct ulsm_batch *b, struct ulsm_text_writer *w,
		       struct ulsm_sync *s)
{
	int ret;

	if (ulsm_caps()->breakpoints) {
		ret = ulsm_trap_install(ulsm_trap_lookup);
		if (ret)
			return ret;
	}
	ret = ulsm_text_open(w, b);
	if (ret)
		return ret;
	ret = ulsm_sync_begin(s);
	if (ret)
		ulsm_text_close(w);
	return ret;
}

static void batch_end(struct ulsm_text_writer *w, struct ulsm_sync *s)
{
	ulsm_sync_end(s);
	ulsm_text_close(w);
}

/*
 * Finish the rollback of a stranded batch, if there is one. Caller holds
 * the patch lock: every update does this first (ulsm_update_lock). Its
 * stages are undone in reverse order, as a transaction's undo is, so
 * that no guard is open to a target already put back.
 */
int ulsm_batch_repair(void)
{
	struct ulsm_session x;
	int ret;

	if (!stranded.n)
		return 0;
	ret = batch_begin(&stranded, &x.w, &x.s);
	if (!ret) {
		for (int stage = ULSM_STAGES - 1; stage >= 0 && !ret; stage--)
			if (stage_touched(&stranded, stage))
				ret = roll_back_stage(&stranded, stage, &x.w,
						      &x.s);
		batch_end(&x.w, &x.s);
	}
	if (ret)
		return ulsm_error(-EIO, "an earlier batch could not be rolled "
				  "back, and still cannot (%d sites run "
				  "emulated); no update until it can",
				  (int)stranded.n);
	/*
	 * Pairs with ulsm_handler_enter() and the load of published in
	 * ulsm_trap_lookup(): a handler misses the stranded batch, or the wait
	 * below sees it inside before the batch is freed.
	 */
	__atomic_store_n(&published, NULL, __ATOMIC_SEQ_CST);
	ulsm_wait_for_handlers(&ulsm_trap_quiesce);
	ulsm_batch_free(&stranded);
	ulsm_debug("the rollback of an earlier batch is finished");
	return 0;
}

int ulsm_patch_open(struct ulsm_batch *b, struct ulsm_session *x)
{
	int ret;

	if (!ulsm_lock_held())
		ulsm_die("a transaction committed without the patch lock");
	if (!ulsm_caps()->patches_code)
		return ulsm_error(-ENOTSUP, "the generic back end patches no code");
	ret = ulsm_batch_repair();
	if (!ret)
		ret = batch_check(b);
	if (!ret)
		ret = batch_begin(b, &x->w, &x->s);
	if (ret) {
		ulsm_stat_add(batches_failed, 1);
		return ret;
	}
	/*
	 * Pairs with the load of rolling_back in ulsm_trap_lookup() (this
	 * file): stored before the batch is published, so a handler that finds
	 * it reads 0, or a later rollback's 1.
	 */
	__atomic_store_n(&rolling_back, 0, __ATOMIC_SEQ_CST);
	/*
	 * Pairs with the load of published in ulsm_trap_lookup() (this file): a
	 * handler that finds the batch sees its patches, written before.
	 */
	__atomic_store_n(&published, b, __ATOMIC_SEQ_CST);
	return 0;
}

int ulsm_patch_stage(struct ulsm_batch *b, int stage, struct ulsm_session *x)
{
	if (!stage_used(b, stage))
		return 0;
	return ulsm_caps()->breakpoints ? apply_breakpoint(b, stage, &x->w, &x->s) :
	       apply_atomic_word(b, stage, &x->w, &x->s);
}

int ulsm_patch_undo(struct ulsm_batch *b, int stage, struct ulsm_session *x)
{
	/* Nothing written in it (its first write failed): nothing to undo. */
	if (!stage_touched(b, stage))
		return 0;
	return roll_back_stage(b, stage, &x->w, &x->s);
}

void ulsm_patch_strand(struct ulsm_batch *b)
{
	/*
	 * Keep it published, rolling back; the caller's batch memory becomes
	 * ours. Handlers may be reading *b through the published pointer:
	 * publish the copy first, wait for them, then empty *b.
	 * Pairs with the load of rolling_back in ulsm_trap_lookup() (this
	 * file): stored before the copy is published, so a handler that finds
	 * the copy reads 1.
	 */
	__atomic_store_n(&rolling_back, 1, __ATOMIC_SEQ_CST);
	stranded = *b;
	/*
	 * Pairs with ulsm_handler_enter() and the load of published in
	 * ulsm_trap_lookup(): a handler that still reads *b is waited for below
	 * before *b is emptied.
	 */
	__atomic_store_n(&published, &stranded, __ATOMIC_SEQ_CST);
	ulsm_wait_for_handlers(&ulsm_trap_quiesce);
	b->v = NULL;
	b->n = b->cap = 0;
	ulsm_stat_add(batches_stranded, 1);
}

void ulsm_patch_close(struct ulsm_batch *b, struct ulsm_session *x)
{
	/* Step 4: late traps now find the final bytes and rewind. */
	if (!stranded.n) {
		/*
		 * Pairs with ulsm_handler_enter() and the load of published in
		 * ulsm_trap_lookup(): a handler misses the batch, or the wait
		 * below sees it inside before the caller frees it.
		 */
		__atomic_store_n(&published, NULL, __ATOMIC_SEQ_CST);
		ulsm_wait_for_handlers(&ulsm_trap_quiesce);
	}
	(void)b;
	batch_end(&x->w, &x->s);
}

static const struct ulsm_patch *batch_find(const struct ulsm_batch *b,
					   uintptr_t addr)
{
	return ulsm_find_addr(b->v, b->n, sizeof(*b->v),
			      offsetof(struct ulsm_patch, addr), addr);
}

static bool holds_breakpoint(uintptr_t addr)
{
	return !memcmp((const void *)addr, arch_breakpoint, arch_breakpoint_len);
}

enum ulsm_trap_action ulsm_trap_lookup(uintptr_t addr, uintptr_t *resume,
				       uintptr_t *link)
{
	enum ulsm_trap_action action = ULSM_TRAP_NOT_OURS;
	const struct ulsm_batch *b;
	const struct ulsm_patch *p = NULL;

	ulsm_handler_enter(&ulsm_trap_quiesce);
	/*
	 * Pairs with the stores of published in ulsm_patch_open(),
	 * ulsm_patch_strand(), ulsm_patch_close() and ulsm_batch_repair() (this
	 * file), after the increment in ulsm_handler_enter() (quiesce.c):
	 * either this handler sees the new pointer, or the patcher's wait sees
	 * it inside.
	 */
	b = __atomic_load_n(&published, __ATOMIC_SEQ_CST);
	if (b)
		p = batch_find(b, addr);
	if (p && holds_breakpoint(addr)) {
		/*
		 * Mid-patch: continue as the instruction being installed.
		 * Pairs with the stores of rolling_back in ulsm_patch_open(),
		 * roll_back_breakpoint(), roll_back_atomic_word() and
		 * ulsm_patch_strand() (this file), each made before the batch
		 * is published or rewritten.
		 */
		bool back = __atomic_load_n(&rolling_back, __ATOMIC_SEQ_CST);
		const struct ulsm_insn *insn = back ? &p->old : &p->new;

		*resume = insn->resume;
		*link = insn->link;
		action = ULSM_TRAP_EMULATE;
	} else if (p || ulsm_registry_is_site(addr)) {
		/*
		 * Late delivery: the patch is over, run what is there now.
		 * Also when the site holds a breakpoint that no published
		 * batch covers: a batch published and wrote it after we read
		 * the pointer above. Re-executing traps again, and the next
		 * look finds that batch.
		 */
		action = ULSM_TRAP_REWIND;
	}
	ulsm_handler_leave(&ulsm_trap_quiesce);
	return action;
}
