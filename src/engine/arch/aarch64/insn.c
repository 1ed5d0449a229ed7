// SPDX-License-Identifier: MIT
/*
 * aarch64 instruction encoding for the patching core. Words in, words out.
 *
 * Every change this back end asks for is one naturally aligned 32-bit
 * instruction word whose old and new values are both B, BL or NOP: the
 * instructions that the architecture lets one core write while other cores
 * execute them (Arm ARM, DDI 0487, B2.2.5 "Concurrent modification and
 * execution of instructions"; the list also has B.cond, BRK, CBZ/CBNZ,
 * TBZ/TBNZ, ISB and the exception-generating instructions). A core that
 * executes the word meanwhile runs the old or the new instruction, never a
 * mix; the cache maintenance and the core sync that follow every batch
 * (arch_flush_icache, membarrier SYNC_CORE) make sure no core runs the old
 * one once the update has returned. Hence ULSM_PROTO_ATOMIC_WORD: no
 * breakpoint, no trap handler (docs/patching-protocol.md, "The aarch64
 * contract").
 *
 * | what        | word                        | Arm ARM, C6.2 (A64 base)  |
 * |-------------|-----------------------------|---------------------------|
 * | NOP         | d503201f                    | NOP (HINT #0)             |
 * | BTI c       | d503245f                    | BTI (HINT #34)            |
 * | B label     | 14000000 | imm26            | B                         |
 * | BL label    | 94000000 | imm26            | BL                        |
 * | BRK #imm16  | d4200000 | imm16 << 5       | BRK                       |
 * | MOV Wd, Wm  | 2a0003e0 | Rm << 16 | Rd   | MOV (register) = ORR      |
 * | MOV Xd, Xm  | aa0003e0 | Rm << 16 | Rd   | MOV (register) = ORR      |
 *
 * imm26 is the signed word offset from the instruction itself: +-128 MiB.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <ulsm/static_call.h>

#include "engine/arch.h"
#include "base/sys.h"

#define A64_NOP		0xd503201fu
#define A64_BTI_C	0xd503245fu
#define A64_B		0x14000000u
#define A64_BL		0x94000000u
#define A64_B_MASK	0xfc000000u	/* opcode bits of B and BL */
#define A64_BRK(imm)	(0xd4200000u | ((uint32_t)(imm) << 5))

/* The range of B and BL: a signed 26-bit word offset. */
#define A64_BRANCH_RANGE	(1l << 27)

const enum ulsm_protocol arch_protocol = ULSM_PROTO_ATOMIC_WORD;

/*
 * BRK #0x5553, little-endian. The atomic-word protocol writes no
 * breakpoint; the contract asks for one. Unlike x86's int3, the exception
 * leaves the PC *at* the brk, not after it: a protocol that uses it must
 * take that into account (src/engine/trap.c assumes the x86 convention).
 */
const uint8_t arch_breakpoint[] = { 0x60, 0xaa, 0x2a, 0xd4 };
const size_t arch_breakpoint_len = 4;

static uint32_t word_at(uintptr_t addr)
{
	uint32_t w;

	memcpy(&w, (const void *)addr, sizeof(w));
	return w;
}

static void put_word(struct ulsm_insn *out, size_t off, uint32_t w)
{
	memcpy(&out->bytes[off], &w, sizeof(w));
}

/* B or BL (@op) at @pc to @target; -ERANGE beyond +-128 MiB. */
static int encode_branch(uint32_t op, uintptr_t pc, uintptr_t target,
			 uint32_t *w)
{
	intptr_t off = (intptr_t)(target - pc);

	if ((off & 3) || off < -A64_BRANCH_RANGE || off >= A64_BRANCH_RANGE)
		return -ERANGE;
	*w = op | ((uint32_t)(off >> 2) & 0x03ffffffu);
	return 0;
}

/* The target of the B or BL @w at @pc. */
static uintptr_t branch_target(uint32_t w, uintptr_t pc)
{
	int32_t imm26 = (int32_t)(w << 6) >> 6;	/* sign-extend */

	return pc + (intptr_t)imm26 * 4;
}

static void one_word(struct ulsm_insn *out, uint32_t w, uintptr_t resume)
{
	memset(out, 0, sizeof(*out));
	out->len = 4;
	put_word(out, 0, w);
	out->resume = resume;
}

int arch_encode_branch(uintptr_t site, uintptr_t target, bool jump,
		       struct ulsm_insn *out)
{
	uint32_t w = A64_NOP;
	int ret;

	if (site & 3)
		return -EINVAL;
	if (jump) {
		ret = encode_branch(A64_B, site, target, &w);
		if (ret)
			return ret;
	}
	one_word(out, w, jump ? target : site + 4);
	return 0;
}

void arch_serialize(void)
{
	/*
	 * ISB is a context synchronization event: the instructions after it
	 * are fetched anew (Arm ARM, C6.2 "ISB", and the Glossary's "Context
	 * synchronization event"). The signal fallback of src/engine/sync_core.c
	 * runs this in every thread.
	 */
	__asm__ __volatile__("isb" : : : "memory");
}

/*
 * The sequence the Arm ARM gives for making a store visible to instruction
 * fetch (B2.2.5, and "Synchronization and coherency issues between data
 * and instruction accesses"; cache maintenance by VA to the Point of
 * Unification):
 *
 *	DC CVAU  each data cache line  (clean to the PoU)
 *	DSB ISH                        (the clean completes, for all cores)
 *	IC IVAU  each i-cache line     (invalidate to the PoU, all cores)
 *	DSB ISH                        (the invalidation completes)
 *	ISB                            (this core refetches)
 *
 * CTR_EL0 (readable at EL0 on Linux, which sets SCTLR_EL1.UCT or
 * emulates the read) gives the line sizes, and says when a step is not
 * needed: IDC, no clean needed for coherence between data and instruction
 * caches; DIC, no instruction-cache invalidation needed. The other cores
 * refetch after the core sync that follows (membarrier SYNC_CORE: the
 * kernel makes each one execute a context synchronization event).
 */
#define CTR_IDC		(1ul << 28)
#define CTR_DIC		(1ul << 29)

void arch_flush_icache(void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr, end = start + len, p;
	unsigned long ctr;
	size_t dline, iline;

	__asm__ __volatile__("mrs %0, ctr_el0" : "=r" (ctr));
	dline = 4ul << ((ctr >> 16) & 0xf);	/* DminLine: log2 words */
	iline = 4ul << (ctr & 0xf);		/* IminLine */

	if (!(ctr & CTR_IDC))
		for (p = start & ~(dline - 1); p < end; p += dline)
			__asm__ __volatile__("dc cvau, %0" : : "r" (p) : "memory");
	__asm__ __volatile__("dsb ish" : : : "memory");
	if (!(ctr & CTR_DIC))
		for (p = start & ~(iline - 1); p < end; p += iline)
			__asm__ __volatile__("ic ivau, %0" : : "r" (p) : "memory");
	__asm__ __volatile__("dsb ish\n\tisb" : : : "memory");
}

/*
 * No fetch sync: IC IVAU is broadcast to the Inner Shareable domain, so
 * membarrier's context synchronisation on every CPU is all that is left.
 */
const bool arch_has_sync_fetch = false;
const char arch_sync_fetch_name[] = "";

int arch_sync_fetch(void)
{
	return -ENOSYS;
}

uintptr_t arch_context_pc(const void *ucontext)
{
	const ucontext_t *uc = ucontext;

	return (uintptr_t)uc->uc_mcontext.pc;
}

void arch_context_set_pc(void *ucontext, uintptr_t pc)
{
	ucontext_t *uc = ucontext;

	uc->uc_mcontext.pc = pc;
}

void arch_context_link(void *ucontext, uintptr_t link)
{
	ucontext_t *uc = ucontext;

	/* What BL does: the return address goes to x30 (LR). */
	uc->uc_mcontext.regs[30] = link;
}

bool arch_trap_is_breakpoint(int si_code)
{
	/* BRK is reported by the kernel's brk handler as TRAP_BRKPT. */
	return si_code == TRAP_BRKPT;
}

/*
 * Call sites: `bl tramp` <-> `bl func`, one word, in reach of +-128 MiB.
 * A target out of reach (another shared object, usually) leaves the site
 * calling the trampoline, which reaches anything; the caller reports it.
 * Nothing is emulated (no breakpoint), so GCS and PAC see only real calls.
 */
int arch_decode_call(uintptr_t site, uintptr_t *target)
{
	uint32_t w;

	if (site & 3)
		return -EILSEQ;
	w = word_at(site);
	if ((w & A64_B_MASK) != A64_BL)
		return -EILSEQ;
	*target = branch_target(w, site);
	return 0;
}

/*
 * What gcc puts between the call and the label of the next statement when
 * the result must survive another call: `mov w19, w0` and the like, MOV
 * (register), an alias of ORR (shifted register) with the zero register
 * and no shift, either width.
 */
static bool is_reg_move(uint32_t w)
{
	return (w & 0x7fe0ffe0u) == 0x2a0003e0u;
}

/* At most this many moves between the call and its label. */
#define A64_MAX_CALL_GAP	3

int arch_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site)
{
	/*
	 * Instructions are whole aligned words, so there is no stray byte
	 * to mistake for a call: the candidate must be `bl callee`, and
	 * every word from it to the label a register move.
	 */
	if (label & 3)
		return -EILSEQ;
	for (int gap = 0; gap <= A64_MAX_CALL_GAP; gap++) {
		uintptr_t p = label - 4 * (uintptr_t)(gap + 1), target;
		int i;

		if (arch_decode_call(p, &target) || (callee && target != callee))
			continue;
		for (i = 1; i <= gap; i++)
			if (!is_reg_move(word_at(p + 4 * (uintptr_t)i)))
				break;
		if (i > gap) {
			*site = p;
			return 0;
		}
	}
	return -EILSEQ;
}

/*
 * A PLT entry as GNU ld writes it: [bti c;] adrp x16, page; ldr x17,
 * [x16, #off]; add x16, x16, #off; br x17. The slot is page + off.
 */
int arch_decode_plt(uintptr_t stub, uintptr_t *slot)
{
	uint32_t w = word_at(stub), ldr;
	uintptr_t page;
	int64_t imm;

	if (w == 0xd503245fu)			/* bti c */
		w = word_at(stub += 4);
	if ((w & 0x9f00001fu) != 0x90000010u)	/* adrp x16 */
		return -EILSEQ;
	ldr = word_at(stub + 4);
	if ((ldr & 0xffc003ffu) != 0xf9400211u)	/* ldr x17, [x16, #imm] */
		return -EILSEQ;
	if (word_at(stub + 12) != 0xd61f0220u)	/* br x17 */
		return -EILSEQ;
	imm = (int64_t)(((w >> 5) & 0x7ffffu) << 2 | ((w >> 29) & 3));
	imm = (int64_t)((uint64_t)imm << 43) >> 31;	/* sign-extend, << 12 */
	page = (stub & ~(uintptr_t)0xfff) + (uintptr_t)imm;
	*slot = page + (((ldr >> 10) & 0xfffu) << 3);
	return 0;
}

int arch_encode_call(uintptr_t site, uintptr_t target, struct ulsm_insn *out)
{
	uint32_t w;
	int ret = encode_branch(A64_BL, site, target, &w);

	if (ret)
		return ret;
	one_word(out, w, target);
	out->link = site + 4;
	return 0;
}

bool arch_calls_patchable(void)
{
	/* A BL written in place is a real call: nothing pushed by hand. */
	return true;
}

/*
 * The two site forms of hook entries. aarch64 has no entries (its
 * <ulsm/arch/aarch64.h> does not define ULSM__ARCH_HAS_HOOK_ENTRY, so
 * hooks are dispatched by the unrolled walk): no R or C site of an entry
 * is ever recorded, and these are never asked for one.
 */
int arch_encode_return(uintptr_t site, uintptr_t thunk, struct ulsm_insn *out)
{
	(void)site;
	(void)thunk;
	(void)out;
	return -ENOTSUP;
}

int arch_encode_call_via(uintptr_t site, uintptr_t target, uintptr_t stub,
			 struct ulsm_insn *out)
{
	(void)site;
	(void)target;
	(void)stub;
	(void)out;
	return -ENOTSUP;
}

/*
 * Static-call trampolines (layout in include/ulsm/arch/aarch64.h).
 *
 * The region the core compares and rewrites is words 0-1: `bti c` (never
 * changes; comparing it checks that the landing pad is intact) and the
 * instruction. The core stores only the words that change (src/engine/patch.c,
 * apply_atomic_word), so each update is one store of word 1:
 *
 * | form     | word 1        | continues at        |
 * |----------|---------------|---------------------|
 * | direct   | b func        | func                |
 * | RET0     | b tramp+28    | mov x0, #0; ret     |
 * | null     | b tramp+32    | ret                 |
 * | indirect | nop           | key->func, via x16  |
 *
 * RET0 is reported as the direct form, as on x86-64, where it jumps to
 * __static_call_return0.
 */
#define TRAMP_INSN	4	/* offset of the instruction */
#define TRAMP_RET0	28
#define TRAMP_RET	32
#define TRAMP_SIG	36
#define TRAMP_SIG_WORD	0x00005553u	/* UDF #0x5553 */

/* Words 2-8, the fixed tail: value and mask (ADRP/LDR carry offsets). */
static const struct {
	uint32_t value, mask;
} tramp_tail[] = {
	{ 0x90000010u, 0x9f00001fu },	/* adrp x16, ENTRY */
	{ 0xf9400210u, 0xffc003ffu },	/* ldr x16, [x16, #:lo12:ENTRY] */
	{ 0xf9400210u, 0xffffffffu },	/* ldr x16, [x16] */
	{ 0xb4000070u, 0xffffffffu },	/* cbz x16, .+12 (the ret) */
	{ 0xd61f0200u, 0xffffffffu },	/* br x16 */
	{ 0xd2800000u, 0xffffffffu },	/* mov x0, #0 */
	{ 0xd65f03c0u, 0xffffffffu },	/* ret */
};

/*
 * The call table entry the trampoline's ADRP/LDR pair points at (C6.2
 * ADRP: a signed 21-bit page offset from the instruction's page; LDR
 * (immediate, unsigned offset): imm12 scaled by 8).
 */
static uintptr_t tramp_entry(uintptr_t tramp)
{
	uint32_t adrp = word_at(tramp + 8), ldr = word_at(tramp + 12);
	int64_t pages = (int64_t)((((adrp >> 5) & 0x7ffffu) << 2) |
				  ((adrp >> 29) & 3u));
	uintptr_t page = (tramp + 8) & ~(uintptr_t)0xfff;

	pages = (pages << 43) >> 43;		/* sign-extend 21 bits */
	return page + (uintptr_t)(pages << 12) + ((ldr >> 10) & 0xfffu) * 8;
}

static bool tramp_intact(uintptr_t tramp)
{
	if ((tramp & 31) || word_at(tramp) != A64_BTI_C ||
	    word_at(tramp + TRAMP_SIG) != TRAMP_SIG_WORD)
		return false;
	for (size_t i = 0; i < sizeof(tramp_tail) / sizeof(tramp_tail[0]); i++)
		if ((word_at(tramp + 8 + 4 * i) & tramp_tail[i].mask) !=
		    tramp_tail[i].value)
			return false;
	return true;
}

static void tramp_fill(struct ulsm_insn *out, uint32_t w, uintptr_t resume)
{
	memset(out, 0, sizeof(*out));
	out->len = 8;
	put_word(out, 0, A64_BTI_C);
	put_word(out, TRAMP_INSN, w);
	out->resume = resume;
}

int arch_encode_tramp(uintptr_t tramp, uintptr_t func, uintptr_t slot,
		      struct ulsm_insn *out, enum ulsm_static_call_form *form)
{
	uintptr_t pc = tramp + TRAMP_INSN;
	uint32_t w;

	if (!func) {
		encode_branch(A64_B, pc, tramp + TRAMP_RET, &w);
		tramp_fill(out, w, tramp + TRAMP_RET);
		*form = ULSM_SC_FORM_NULL;
		return 0;
	}
	if (func == (uintptr_t)__static_call_return0) {
		encode_branch(A64_B, pc, tramp + TRAMP_RET0, &w);
		tramp_fill(out, w, tramp + TRAMP_RET0);
		*form = ULSM_SC_FORM_DIRECT;
		return 0;
	}
	if (!encode_branch(A64_B, pc, func, &w)) {
		tramp_fill(out, w, func);
		*form = ULSM_SC_FORM_DIRECT;
		return 0;
	}
	/*
	 * The indirect form loads the key through the call table entry the
	 * trampoline was assembled with: it must be @slot's key, or the
	 * trampoline would jump through another key's target.
	 */
	if (!tramp_intact(tramp) ||
	    *(const uintptr_t *)tramp_entry(tramp) != slot)
		return -ERANGE;
	tramp_fill(out, A64_NOP, func);
	*form = ULSM_SC_FORM_INDIRECT;
	return 0;
}

int arch_read_tramp(uintptr_t tramp, struct ulsm_insn *cur,
		    enum ulsm_static_call_form *form)
{
	uintptr_t pc = tramp + TRAMP_INSN, target;
	uint32_t w;

	if (!tramp_intact(tramp))
		return -EILSEQ;
	w = word_at(pc);
	if (w == A64_NOP) {
		/* The key's current target, as the tail would load it. */
		const uintptr_t *key = *(const uintptr_t *const *)tramp_entry(tramp);

		tramp_fill(cur, w, *key ? *key : tramp + TRAMP_RET);
		*form = ULSM_SC_FORM_INDIRECT;
		return 0;
	}
	if ((w & A64_B_MASK) != A64_B)
		return -EILSEQ;
	target = branch_target(w, pc);
	tramp_fill(cur, w, target);
	*form = target == tramp + TRAMP_RET ? ULSM_SC_FORM_NULL :
		ULSM_SC_FORM_DIRECT;
	return 0;
}

/*
 * Whether instruction fetch misses text written through /proc/self/mem.
 * On hardware it never does: the kernel writes the physical page our
 * mapping maps, and arch_flush_icache() and the core sync do the rest.
 * qemu-user (7.2 at least) translates guest code once and notices changes
 * only through its own write protection of the guest's pages, which a
 * write by the kernel bypasses: the old translation keeps running.
 *
 * So ask, once: rewrite `mov w0, #1` in a private function to `mov w0,
 * #2` through @fd, make it visible as on hardware, call it, write it back.
 * 2 means fetch sees such writes. The function is called only here, by
 * the thread that holds the patch lock.
 */
__asm__(".pushsection .text, \"ax\"\n\t"
	".balign 16\n"
	"ulsm__a64_probe:\n\t"
	"hint 34\n\t"			/* bti c: called through a pointer */
	"mov w0, #1\n\t"
	"ret\n\t"
	".popsection");

extern int ulsm__a64_probe(void) __attribute__((visibility("hidden")));

#define A64_MOV_W0(imm)	(0x52800000u | ((uint32_t)(imm) << 5))	/* MOVZ */

bool arch_fetch_misses_procmem(int fd)
{
	static int misses = -1;
	int (*volatile probe)(void) = ulsm__a64_probe;
	uintptr_t at = (uintptr_t)ulsm__a64_probe + 4;
	uint32_t old = A64_MOV_W0(1), new = A64_MOV_W0(2);
	int got;

	if (misses >= 0)
		return misses;
	if (word_at(at) != old || probe() != 1)
		return true;	/* cannot tell: assume the worst, ask again */
	if (ulsm_sys_pwrite(fd, &new, 4, at) != 4)
		return true;
	arch_flush_icache((void *)at, 4);
	got = probe();
	/* Written back even if that fails: it then stays "returns 2". */
	ulsm_sys_pwrite(fd, &old, 4, at);
	arch_flush_icache((void *)at, 4);
	if (got != 1 && got != 2)
		return true;
	misses = got == 1;
	return misses;
}
