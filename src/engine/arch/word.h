/* SPDX-License-Identifier: MIT */
/*
 * src/engine/arch/word.h - what the one-word back ends share (aarch64,
 * riscv64: ULSM_PROTO_ATOMIC_WORD, docs/patching-protocol.md). Every
 * instruction they read or write is a naturally aligned 32-bit word, and
 * their trampolines have the same shape; what differs is the encoding,
 * which each back end gives here as a struct word_isa of its encoders.
 * Included by their own files only: each back end's insn.c ends with
 * WORD_ARCH_FUNCTIONS(its struct word_isa), which defines the contract's
 * functions that it takes from here.
 */
#ifndef ULSM_SRC_ARCH_WORD_H
#define ULSM_SRC_ARCH_WORD_H

#include <errno.h>
#include <string.h>

#include "engine/arch.h"
#include "base/sys.h"

/* The word at @addr (text: read as bytes, never through a typed pointer). */
static inline uint32_t word_at(uintptr_t addr)
{
	uint32_t w;

	memcpy(&w, (const void *)addr, sizeof(w));
	return w;
}

static inline void put_word(struct ulsm_insn *out, size_t off, uint32_t w)
{
	memcpy(&out->bytes[off], &w, sizeof(w));
}

/* An instruction of one word @w; a thread that meets it goes to @resume. */
static inline void one_word(struct ulsm_insn *out, uint32_t w,
			    uintptr_t resume)
{
	memset(out, 0, sizeof(*out));
	out->len = 4;
	put_word(out, 0, w);
	out->resume = resume;
}

/* A call of one word @w at @site to @target, returning to the next word. */
static inline void one_word_call(struct ulsm_insn *out, uint32_t w,
				 uintptr_t site, uintptr_t target)
{
	one_word(out, w, target);
	out->link = site + 4;
}

/*
 * Static-call trampolines, 40 bytes (include/ulsm/arch/<arch>.h has each
 * one's words and why):
 *
 *    0  landing pad     never changes (bti c, lpad 0): comparing it checks
 *                       that it is intact
 *    4  the instruction the only word that ever changes:
 *                         direct     jump to the target
 *                         RET0       jump to +28
 *                         NULL       jump to +32
 *                         indirect   NOP: fall into the load of key->func
 *    8  7 fixed words   load the key through the call-table entry the
 *                       trampoline was assembled with, then key->func;
 *                       return if NULL, else jump there
 *   28  return 0
 *   32  return
 *   36  the signature   an undefined instruction
 *
 * The region the core compares and rewrites is words 0-1; it stores only
 * the word that changes (src/engine/patch.c, apply_atomic_word), so each
 * update is one store of word 1. RET0 is reported as the direct form, as
 * on x86-64, where it jumps to __static_call_return0.
 */
#define WORD_TRAMP_INSN		4
#define WORD_TRAMP_RET0		28
#define WORD_TRAMP_RET		32
#define WORD_TRAMP_SIG		36
#define WORD_TRAMP_TAIL		7	/* words 2-8 */

/* A word to recognise: its fixed bits (mask) and their value. */
struct word_match {
	uint32_t value, mask;
};

static inline bool word_is(uint32_t w, struct word_match m)
{
	return (w & m.mask) == m.value;
}

/*
 * What a one-word back end gives the shared code: its encoders.
 * @nop:         the NOP
 * @jump:        a jump (B, JAL x0) that jump() encodes: its fixed bits
 * @encode_jump: the jump at @pc to @target into *@w; 0, or -ERANGE when
 *               out of reach
 * @jump_target: the target of the jump @w at @pc
 * @pad, @sig:   a trampoline's landing pad and signature words
 * @align:       a trampoline's alignment
 * @tail:        a trampoline's words 2-8 (the load carries offsets:
 *               the mask leaves them out)
 * @tramp_entry: the call-table entry that a trampoline's words 2-3 load
 * @insn_align:  the alignment of any instruction (4; 2 with compressed
 *               instructions)
 * @reg_move:    whether the @len bytes that end at @end are one register
 *               move, the kind the compiler puts between a call and the
 *               label after it (mv s0, a0): @len, else 0
 */
struct word_isa {
	uint32_t nop;
	struct word_match jump;
	int (*encode_jump)(uintptr_t pc, uintptr_t target, uint32_t *w);
	uintptr_t (*jump_target)(uint32_t w, uintptr_t pc);
	uint32_t pad, sig;
	uintptr_t align;
	struct word_match tail[WORD_TRAMP_TAIL];
	uintptr_t (*tramp_entry)(uintptr_t tramp);
	uintptr_t insn_align;
	size_t (*reg_move)(uintptr_t end, size_t len);
};

static inline bool word_tramp_intact(const struct word_isa *isa,
				     uintptr_t tramp)
{
	if ((tramp & (isa->align - 1)) || word_at(tramp) != isa->pad ||
	    word_at(tramp + WORD_TRAMP_SIG) != isa->sig)
		return false;
	for (size_t i = 0; i < WORD_TRAMP_TAIL; i++)
		if (!word_is(word_at(tramp + 8 + 4 * i), isa->tail[i]))
			return false;
	return true;
}

static inline void word_tramp_fill(const struct word_isa *isa,
				   struct ulsm_insn *out, uint32_t w,
				   uintptr_t resume)
{
	memset(out, 0, sizeof(*out));
	out->len = 8;
	put_word(out, 0, isa->pad);
	put_word(out, WORD_TRAMP_INSN, w);
	out->resume = resume;
}

/* A jump within the trampoline (its RET0 or NULL form). */
static inline void word_tramp_inner(const struct word_isa *isa,
				    uintptr_t tramp, uintptr_t to,
				    struct ulsm_insn *out)
{
	uint32_t w;

	isa->encode_jump(tramp + WORD_TRAMP_INSN, tramp + to, &w);
	word_tramp_fill(isa, out, w, tramp + to);
}

/* arch_encode_tramp() (src/engine/arch.h) of a one-word back end. */
static inline int word_encode_tramp(const struct word_isa *isa,
				    uintptr_t tramp, uintptr_t func,
				    uintptr_t slot, struct ulsm_insn *out,
				    enum ulsm_static_call_form *form)
{
	uint32_t w;

	if (!func) {
		word_tramp_inner(isa, tramp, WORD_TRAMP_RET, out);
		*form = ULSM_SC_FORM_NULL;
		return 0;
	}
	if (func == (uintptr_t)__static_call_return0) {
		word_tramp_inner(isa, tramp, WORD_TRAMP_RET0, out);
		*form = ULSM_SC_FORM_DIRECT;
		return 0;
	}
	if (!isa->encode_jump(tramp + WORD_TRAMP_INSN, func, &w)) {
		word_tramp_fill(isa, out, w, func);
		*form = ULSM_SC_FORM_DIRECT;
		return 0;
	}
	/*
	 * The indirect form loads the key through the call table entry the
	 * trampoline was assembled with: it must be @slot's key, or the
	 * trampoline would jump through another key's target.
	 */
	if (!word_tramp_intact(isa, tramp) ||
	    *(const uintptr_t *)isa->tramp_entry(tramp) != slot)
		return -ERANGE;
	word_tramp_fill(isa, out, isa->nop, func);
	*form = ULSM_SC_FORM_INDIRECT;
	return 0;
}

/* arch_read_tramp() (src/engine/arch.h) of a one-word back end. */
static inline int word_read_tramp(const struct word_isa *isa, uintptr_t tramp,
				  struct ulsm_insn *cur,
				  enum ulsm_static_call_form *form)
{
	uintptr_t pc = tramp + WORD_TRAMP_INSN, target;
	uint32_t w;

	if (!word_tramp_intact(isa, tramp))
		return -EILSEQ;
	w = word_at(pc);
	if (w == isa->nop) {
		/* The key's current target, as the tail would load it. */
		const uintptr_t *key =
			*(const uintptr_t *const *)isa->tramp_entry(tramp);

		word_tramp_fill(isa, cur, w,
				*key ? *key : tramp + WORD_TRAMP_RET);
		*form = ULSM_SC_FORM_INDIRECT;
		return 0;
	}
	if (!word_is(w, isa->jump))
		return -EILSEQ;
	target = isa->jump_target(w, pc);
	word_tramp_fill(isa, cur, w, target);
	*form = target == tramp + WORD_TRAMP_RET ? ULSM_SC_FORM_NULL :
		ULSM_SC_FORM_DIRECT;
	return 0;
}

/*
 * Call sites: a call recorded by the label after it. The compiler may put
 * register moves between the call and the label (the result kept for
 * later); at most this many.
 */
#define WORD_MAX_CALL_GAP	3

/*
 * The call that ends at @end, or is followed there by @gap or more moves
 * (at most WORD_MAX_CALL_GAP in all). Instruction lengths are not known
 * reading backwards (riscv64's compressed moves are 2 bytes): a candidate
 * counts only if it decodes as a move of that length, ending where the
 * next begins, and the call before them as a call (of @callee, unless it
 * is 0), so a stray word inside another instruction is never taken for it.
 */
static inline int word_find_call_at(const struct word_isa *isa,
				    uintptr_t end, uintptr_t callee, int gap,
				    uintptr_t *site)
{
	uintptr_t target;

	if (!arch_decode_call(end - 4, &target) &&
	    (!callee || target == callee)) {
		*site = end - 4;
		return 0;
	}
	if (gap == WORD_MAX_CALL_GAP)
		return -EILSEQ;
	for (size_t len = 2; len <= 4; len += 2) {
		size_t n = isa->reg_move(end, len);

		if (n && !word_find_call_at(isa, end - n, callee, gap + 1, site))
			return 0;
	}
	return -EILSEQ;
}

/* arch_find_call() (src/engine/arch.h) of a one-word back end. */
static inline int word_find_call(const struct word_isa *isa, uintptr_t label,
				 uintptr_t callee, uintptr_t *site)
{
	if (label & (isa->insn_align - 1))
		return -EILSEQ;
	return word_find_call_at(isa, label, callee, 0, site);
}

/*
 * arch_fetch_misses_procmem() (src/engine/arch.h) of a one-word back end:
 * whether instruction fetch misses text written through /proc/self/mem.
 * On hardware it never does: the kernel writes the physical page our
 * mapping maps, and the cache maintenance, fetch sync and core sync do the
 * rest. qemu-user (7.2 at least) translates guest code once and notices
 * changes only through its own write protection of the guest's pages,
 * which a write by the kernel bypasses: the old translation keeps running.
 *
 * So ask, once: @probe is a private function whose word 1 is @old (it
 * returns 1); rewrite it to @new (it returns 2) through @fd, make it
 * visible as a batch would (the fetch sync too, where there is one: this
 * thread may move between the write and the call), call it, write it
 * back. 2 means fetch sees such writes. @probe is called only here, by
 * the thread that holds the patch lock, through a pointer: it starts with
 * a landing pad. 1: fetch misses; 0: it sees; -1: cannot tell (a write
 * or a sync failed), asked again with the next descriptor (the answer is
 * kept by src/engine/caps.c).
 */
static inline int word_fetch_misses(int fd, int (*probe)(void),
				    uint32_t old, uint32_t new)
{
	int (*volatile call)(void) = probe;
	uintptr_t at = (uintptr_t)probe + 4;
	int got;

	if (word_at(at) != old || call() != 1)
		return -1;	/* cannot tell */
	if (ulsm_sys_pwrite(fd, &new, 4, at) != 4)
		return -1;
	arch_flush_icache((void *)at, 4);
	got = arch_has_sync_fetch && arch_sync_fetch() ? -1 : call();
	/* Written back even if that fails: it then stays "returns 2". */
	ulsm_sys_pwrite(fd, &old, 4, at);
	arch_flush_icache((void *)at, 4);
	if (arch_has_sync_fetch)
		arch_sync_fetch();
	if (got != 1 && got != 2)
		return -1;
	return got == 1;
}

/*
 * The contract's functions (src/engine/arch.h) that a one-word back end
 * takes from here, for its struct word_isa @isa. Its calls need no
 * emulation: a call written in place is a real call, nothing is pushed by
 * hand, so a shadow stack (arm64 GCS, riscv Zicfiss, pushed by the
 * callee) and pointer authentication see only real calls.
 */
#define WORD_ARCH_FUNCTIONS(isa)					\
int arch_encode_tramp(uintptr_t tramp, uintptr_t func, uintptr_t slot,	\
		      struct ulsm_insn *out,				\
		      enum ulsm_static_call_form *form)			\
{									\
	return word_encode_tramp(&(isa), tramp, func, slot, out, form);	\
}									\
									\
int arch_read_tramp(uintptr_t tramp, struct ulsm_insn *cur,		\
		    enum ulsm_static_call_form *form)			\
{									\
	return word_read_tramp(&(isa), tramp, cur, form);		\
}									\
									\
int arch_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site)	\
{									\
	return word_find_call(&(isa), label, callee, site);		\
}									\
									\
bool arch_calls_patchable(void)						\
{									\
	return true;							\
}

#endif /* ULSM_SRC_ARCH_WORD_H */
