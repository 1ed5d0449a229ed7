// SPDX-License-Identifier: MIT
/*
 * The patching core: batches of instruction changes applied safely while
 * other threads execute them. The protocol, its ordering and its failure
 * cases are described in docs/patching-protocol.md; the comments here only
 * point at the steps.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * The batch being applied, for the breakpoint handler. @rolling_back says
 * which instruction a trapped thread must continue as.
 */
static struct ulsm_batch *published;
static int rolling_back;

/* Test hook: called after each step's core sync (tests/t_trap.c). */
void (*ulsm_test_step_hook)(int step);

static void after_step(int step)
{
	if (ulsm_test_step_hook)
		ulsm_test_step_hook(step);
}

int ulsm_batch_add(struct ulsm_batch *b, uintptr_t addr,
		   const struct ulsm_insn *old, const struct ulsm_insn *new)
{
	if (old->len != new->len || !old->len || old->len > ULSM_MAX_INSN)
		return ulsm_error(-EINVAL, "site %#lx: bad instruction length",
				  (unsigned long)addr);
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 16;
		struct ulsm_patch *v = ulsm_reallocarray(b->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n].addr = addr;
	b->v[b->n].old = *old;
	b->v[b->n].new = *new;
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
		if (memcmp((const void *)p->addr, p->old.bytes, p->old.len))
			return ulsm_error(-EILSEQ,
				"site %#lx does not hold the expected instruction "
				"(changed by someone else?); nothing written",
				(unsigned long)p->addr);
	}
	return 0;
}

static void write_or_die(struct ulsm_text_writer *w, uintptr_t addr,
			 const uint8_t *bytes, size_t len)
{
	if (ulsm_text_write(w, addr, bytes, len))
		ulsm_die("cannot restore the text at %#lx", (unsigned long)addr);
}

static void sync_or_die(void)
{
	if (ulsm_sync_cores())
		ulsm_die("core sync failed in the middle of a batch");
}

/*
 * Bring every site back to its old instruction, from whatever mix of old,
 * breakpoint and new bytes a failed step left: the protocol again, towards
 * the old bytes. A failure here would leave broken text, hence die.
 */
static void batch_roll_back(struct ulsm_batch *b, struct ulsm_text_writer *w)
{
	__atomic_store_n(&rolling_back, 1, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < b->n; i++)
		write_or_die(w, b->v[i].addr, arch_breakpoint,
			     arch_breakpoint_len);
	sync_or_die();
	for (size_t i = 0; i < b->n; i++) {
		const struct ulsm_patch *p = &b->v[i];

		if (p->old.len > arch_breakpoint_len)
			write_or_die(w, p->addr + arch_breakpoint_len,
				     p->old.bytes + arch_breakpoint_len,
				     p->old.len - arch_breakpoint_len);
	}
	sync_or_die();
	for (size_t i = 0; i < b->n; i++)
		write_or_die(w, b->v[i].addr, b->v[i].old.bytes,
			     arch_breakpoint_len);
	sync_or_die();
}

static int apply_breakpoint(struct ulsm_batch *b, struct ulsm_text_writer *w)
{
	const size_t bp = arch_breakpoint_len;
	int ret = 0;

	__atomic_store_n(&rolling_back, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&published, b, __ATOMIC_SEQ_CST);

	/* Step 1: a breakpoint over the first byte of every site. */
	for (size_t i = 0; i < b->n && !ret; i++)
		ret = ulsm_text_write(w, b->v[i].addr, arch_breakpoint, bp);
	if (!ret)
		ret = ulsm_sync_cores();
	if (!ret)
		after_step(1);

	/* Step 2: the tails, which nobody can reach now. */
	for (size_t i = 0; i < b->n && !ret; i++) {
		const struct ulsm_patch *p = &b->v[i];

		if (p->new.len > bp)
			ret = ulsm_text_write(w, p->addr + bp, p->new.bytes + bp,
					      p->new.len - bp);
	}
	if (!ret)
		ret = ulsm_sync_cores();
	if (!ret)
		after_step(2);

	/* Step 3: the first bytes; the sites are whole again. */
	for (size_t i = 0; i < b->n && !ret; i++)
		ret = ulsm_text_write(w, b->v[i].addr, b->v[i].new.bytes, bp);
	if (!ret)
		ret = ulsm_sync_cores();

	if (ret)
		batch_roll_back(b, w);

	/* Step 4: late traps now find the final bytes and rewind. */
	__atomic_store_n(&published, NULL, __ATOMIC_SEQ_CST);
	ulsm_wait_for_handlers(&ulsm_trap_quiesce);
	return ret;
}

static int apply_atomic_word(struct ulsm_batch *b, struct ulsm_text_writer *w)
{
	/* One naturally aligned store per site, then cache maintenance. */
	for (size_t i = 0; i < b->n; i++) {
		const struct ulsm_patch *p = &b->v[i];
		int ret = ulsm_text_write(w, p->addr, p->new.bytes, p->new.len);

		if (ret) {
			while (i--)
				write_or_die(w, b->v[i].addr, b->v[i].old.bytes,
					     b->v[i].old.len);
			return ret;
		}
		arch_flush_icache((void *)p->addr, p->new.len);
	}
	return ulsm_sync_cores();
}

int ulsm_batch_apply(struct ulsm_batch *b)
{
	struct ulsm_text_writer w;
	int ret;

	if (!ulsm_lock_held())
		ulsm_die("batch applied without the patch lock");
	if (!b->n)
		return 0;
	if (arch_protocol == ULSM_PROTO_NONE)
		return ulsm_error(-ENOTSUP, "the generic back end patches no code");

	ret = batch_check(b);
	if (!ret)
		ret = ulsm_sync_prepare();
	if (!ret && arch_protocol == ULSM_PROTO_BREAKPOINT)
		ret = ulsm_trap_install();
	if (!ret)
		ret = ulsm_text_open(&w, b);
	if (ret) {
		ulsm_stat_add(batches_failed, 1);
		return ret;
	}

	if (arch_protocol == ULSM_PROTO_BREAKPOINT)
		ret = apply_breakpoint(b, &w);
	else
		ret = apply_atomic_word(b, &w);
	ulsm_text_close(&w);

	if (ret) {
		ulsm_stat_add(batches_failed, 1);
		return ulsm_error(ret, "writing the text failed (%s); every site "
				  "restored", strerror(-ret));
	}
	ulsm_stat_add(batches, 1);
	ulsm_stat_add(sites_patched, b->n);
	return 0;
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
	b = __atomic_load_n(&published, __ATOMIC_SEQ_CST);
	if (b)
		p = batch_find(b, addr);
	if (p && holds_breakpoint(addr)) {
		/* Mid-patch: continue as the instruction being installed. */
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
