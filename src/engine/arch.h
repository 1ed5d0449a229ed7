/* SPDX-License-Identifier: MIT */
/*
 * src/engine/arch.h - the contract between the patching core and a back end.
 *
 * The core (src/engine/patch.c) owns batches, verification, locking, core sync and
 * the write path; a back end only knows its instruction set:
 *
 *   - which protocol makes a change safe while other threads execute the
 *     site (arch_protocol);
 *   - how to encode each instruction the core asks for, and where a thread
 *     that meets the breakpoint mid-patch continues as that instruction
 *     would (struct ulsm_insn.resume);
 *   - how to serialise the local core and how to make new instructions
 *     visible to instruction fetch;
 *   - for the breakpoint protocol, its breakpoint and how to read and set
 *     the program counter of an interrupted context.
 *
 * x86-64 implements it in src/engine/arch/x86_64/, aarch64 in src/engine/arch/aarch64/
 * (ULSM_PROTO_ATOMIC_WORD: one aligned 32-bit store of B, BL or NOP, then
 * arch_flush_icache()), riscv64 in src/engine/arch/riscv64/ (the same
 * protocol with NOP, JAL and JALR, and a fetch sync: arch_sync_fetch()),
 * the data-only back end in src/engine/arch/generic/. aarch64 and riscv64
 * share what does not depend on the encoding (src/engine/arch/word.h).
 *
 * Only the engine calls these. The layers above say what a site does
 * (struct ulsm_form, src/engine/engine.h), and src/engine/forms.c asks the
 * back end for the instructions.
 *
 * Defaults. A back end writes only what it has; what it leaves out is
 * filled in one place, in one of two ways:
 *
 *   - by file, as musl does: a back end's sources are its folder's .c
 *     files and each file of src/engine/arch/generic/ for which its folder
 *     has no file of the same name (the Makefile). The generic back end's
 *     files are thus every back end's defaults: trap.c (no breakpoint
 *     protocol), fetch.c (fetch coherent with stores, the kernel's too),
 *     sync_fetch.c (no fetch sync). insn.c is the generic back end's own,
 *     and every patching back end has its own.
 *   - by header, as liburcu does: what the inline fast paths of a back end
 *     have or lack is said by its public header (include/ulsm/arch/<arch>.h,
 *     chosen by <ulsm/arch.h>, the one place that decides the
 *     architecture), and this file fills in what is absent under #ifndef:
 *     the hook entries' forms (ULSM__ARCH_HAS_HOOK_ENTRY), the CPU's
 *     counter (ULSM__ARCH_HAS_COUNTER).
 */
#ifndef ULSM_SRC_ARCH_H
#define ULSM_SRC_ARCH_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ulsm/static_call.h>	/* enum ulsm_static_call_form */

enum ulsm_protocol {
	/* Nothing is patched (generic back end). */
	ULSM_PROTO_NONE,
	/* x86: breakpoint on byte 0, sync, tail, sync, byte 0, sync. */
	ULSM_PROTO_BREAKPOINT,
	/*
	 * aarch64, riscv64: one naturally aligned word store, then cache
	 * maintenance.
	 * An instruction may span several words (a trampoline's landing pad
	 * and its branch), but old and new differ in one word at most: that
	 * word is the only one stored (src/engine/patch.c).
	 */
	ULSM_PROTO_ATOMIC_WORD,
};

#define ULSM_MAX_INSN	16

/*
 * An encoded instruction.
 * @len:    bytes used in @bytes
 * @resume: where a thread that traps on the breakpoint over this site
 *          continues as if it had executed this instruction; never a place
 *          that requires popping the stack by hand
 * @link:   0, or for a call: the return address the emulation must give
 *          the thread (arch_context_link), as the call instruction would
 */
struct ulsm_insn {
	uint8_t len;
	uint8_t bytes[ULSM_MAX_INSN];
	uintptr_t resume;
	uintptr_t link;
};

extern const enum ulsm_protocol arch_protocol;

/*
 * Encode a static-branch site at @site: a jump to @target if @jump, else a
 * NOP of the same length. Return 0 or -ERANGE if @target is out of reach.
 */
int arch_encode_branch(uintptr_t site, uintptr_t target, bool jump,
		       struct ulsm_insn *out);

/*
 * Static-call trampolines. @slot is the address of the key's func field,
 * which the indirect form jumps through.
 *
 * arch_encode_tramp: the instruction for target @func (NULL: return),
 * the direct form when @func is in reach, else the indirect one (x86-64:
 * in a trampoline built for retpolines, a jump to its own stub); always a
 * single instruction (see src/engine/arch/x86_64/insn.c for why). Sets *form to
 * the form it is (ULSM_SC_FORM_NULL, _DIRECT, _INDIRECT).
 * Return 0 or -ERANGE (neither form reaches).
 *
 * arch_read_tramp: check the signature of the trampoline at @tramp and
 * decode its instruction into @cur (any legal form). Return 0 or -EILSEQ.
 */
int arch_encode_tramp(uintptr_t tramp, uintptr_t func, uintptr_t slot,
		      struct ulsm_insn *out, enum ulsm_static_call_form *form);
int arch_read_tramp(uintptr_t tramp, struct ulsm_insn *cur,
		    enum ulsm_static_call_form *form);

/*
 * Call sites (inline static calls): a direct call instruction, recorded
 * by the address just after it.
 *
 * arch_decode_call: if @site holds a direct call, set *target and return
 * 0, else -EILSEQ.
 * arch_find_call: the direct call to @callee whose site entry was recorded
 * at @label, just after it: the call ends at @label, or is followed only
 * by instructions that cannot contain a call (the compiler may move the
 * result between registers first). Set *site, or return -EILSEQ. A
 * @callee of 0 takes a direct call to anything (the caller decodes its
 * target).
 * arch_decode_plt: if @stub is a PLT entry, a jump through a GOT slot, set
 * *slot to the slot's address and return 0; else -EILSEQ, or -ENOSYS
 * where the back end does not read PLTs (generic).
 * arch_encode_call: a direct call at @site to @target; resume is @target
 * and link the return address. Return 0, or -ERANGE (out of reach).
 * arch_calls_patchable: whether a trapped call may be emulated in this
 * process (x86: not under a shadow stack, which a return address written
 * by hand would contradict). When false, call sites are left calling
 * their trampolines. Asked once (the capability calls_patchable).
 */
int arch_decode_call(uintptr_t site, uintptr_t *target);
int arch_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site);
int arch_decode_plt(uintptr_t stub, uintptr_t *slot);
int arch_encode_call(uintptr_t site, uintptr_t target, struct ulsm_insn *out);
bool arch_calls_patchable(void);

/*
 * Hook entries (docs/hook-framework.md, "Dispatch"). A back end that has
 * them defines, in its public header (include/ulsm/arch/<arch>.h),
 * ULSM__ARCH_HAS_HOOK_ENTRY and ULSM__ARCH_HOOK_ENTRY(...), which emits
 * one hook's entry: a global function that, with every site as compiled,
 * returns DEFAULT; its map (struct ulsm_hook_entry.map, the layout of
 * ULSM__HOOK_MAP_* in <ulsm/lsm.h>); and one ulsm_call_sites record per
 * site, { site - ., (address of a pointer to the hook's descriptor, plus
 * 1) - . }. The sites, each one instruction the core can replace whole
 * (x86: 5 bytes; aarch64: one aligned word):
 *
 *   R     compiled as a return (arch_encode_return); becomes a jump to a
 *         callback (arch_encode_branch, the only slot on) or a NOP (more)
 *   X<i>  compiled as a jump to N<i>; becomes a NOP (fall into the slot's
 *         call) or a jump to a callback (the tail call of the last slot)
 *   C<i>  compiled as a call of I<i>; becomes a call of a callback
 *         (arch_encode_call, or arch_encode_call_via under a shadow stack)
 *
 * and, not patched: the DEFAULT set before R, so a walk that calls nobody
 * returns it; after C<i>, the arguments restored (kept on the stack across
 * the call) and, for int hooks, the result compared with DEFAULT (the
 * entry returns it if it differs); I<i>, which tail-calls slot i's key's
 * func, or returns DEFAULT when it is NULL (targets out of reach of a
 * direct call or jump go there); M<i>, which calls I<i> and jumps to the
 * instruction after C<i> (the emulation of C<i> under a shadow stack).
 * Whatever a thread sees of a change, old and new sites mixed, it must
 * run a valid walk: the forms above are what guarantees that
 * (src/lsm/dispatch.c says why), so a back end keeps them.
 *
 * The sites take two forms of the contract besides the branch forms above
 * (a NOP, or a jump: to skip a slot, or as the tail call of the last one):
 *
 * arch_encode_return: a return, at the site @site that a hook's entry
 * reserves for it (x86: 5 bytes): "ret" padded with breakpoints, resuming
 * at an out-of-line ret (so a shadow stack stays in step); or, when
 * @thunk is not 0, a jump to @thunk (the return thunk of
 * -mfunction-return=thunk), resuming there. Return 0 or -ERANGE.
 *
 * arch_encode_call_via: a direct call at @site to @target, like
 * arch_encode_call, but whose emulation mid-patch continues at @stub
 * instead of writing a return address by hand: @stub is code that makes
 * an equivalent call and then continues right after the site (the entry's
 * M stub, "call <slot's indirect stub>; jmp site + len"). For processes
 * with a shadow stack. Return 0 or -ERANGE.
 */
#ifdef ULSM__ARCH_HAS_HOOK_ENTRY
int arch_encode_return(uintptr_t site, uintptr_t thunk, struct ulsm_insn *out);
int arch_encode_call_via(uintptr_t site, uintptr_t target, uintptr_t stub,
			 struct ulsm_insn *out);
#else
/*
 * No entries: hooks are dispatched by the unrolled walk
 * (<ulsm/lsm_hooks.h>), no R or C site is ever recorded, and these are
 * never asked for one.
 */
static inline int arch_encode_return(uintptr_t site, uintptr_t thunk,
				     struct ulsm_insn *out)
{
	(void)site;
	(void)thunk;
	(void)out;
	return -ENOTSUP;
}

static inline int arch_encode_call_via(uintptr_t site, uintptr_t target,
				       uintptr_t stub, struct ulsm_insn *out)
{
	(void)site;
	(void)target;
	(void)stub;
	(void)out;
	return -ENOTSUP;
}
#endif

/* Execute a core-serialising instruction on the calling CPU. */
void arch_serialize(void);

/*
 * Make [addr, addr + len) visible to instruction fetch on all cores, with
 * the core sync that follows; a back end with a fetch sync (below) only
 * notes the range here, for arch_sync_fetch().
 */
void arch_flush_icache(void *addr, size_t len);

/*
 * The fetch sync: on a back end whose instruction fetch only follows
 * stores after a serialisation of each CPU's own (riscv64: FENCE.I), and
 * where a thread may move to a CPU that made none, user space cannot
 * synchronise the process by itself, and the kernel offers a system call
 * that does (riscv64: riscv_flush_icache, every thread of the process,
 * on whatever CPU it runs next). arch_has_sync_fetch says whether the
 * back end has one (the engine's capability, src/engine/caps.c), and
 * arch_sync_fetch_name its name (ulsm_sync_method()). arch_sync_fetch()
 * makes it, for what arch_flush_icache() was told since the last call
 * that succeeded, through src/base/sys.c; 0 or a negative errno. The
 * engine makes it the core sync (src/engine/sync_core.c). The default
 * (generic/sync_fetch.c) has none, and returns -ENOSYS.
 */
extern const bool arch_has_sync_fetch;
extern const char arch_sync_fetch_name[];
int arch_sync_fetch(void);

/*
 * Whether instruction fetch in this process misses text written through
 * @fd (/proc/self/mem, open for writing), as under qemu-user, whose
 * translated code only notices the guest's own stores. Asked in step 0
 * of a batch that writes through /proc/self/mem; when true, the writer
 * also opens the mprotect windows then, and gives each page it writes
 * its window's protection again, which the emulator notices
 * (src/engine/text_write.c). 0 on hardware, and by default
 * (generic/fetch.c, with an arch_flush_icache() that has nothing to do);
 * 1 when it misses; -1 when it cannot tell (a write failed).
 */
int arch_fetch_misses_procmem(int fd);

/*
 * The breakpoint protocol's trap (src/engine/trap.c): the breakpoint
 * instruction and its length (x86: int3, 1 byte, reported after it);
 * whether a SIGTRAP with this si_code can come from it (x86-64 Linux
 * reports int3 as SI_KERNEL); the program counter of the interrupted
 * context, and setting it. The default (generic/trap.c) has none: the
 * engine installs its handler only for ULSM_PROTO_BREAKPOINT.
 */
extern const uint8_t arch_breakpoint[];
extern const size_t arch_breakpoint_len;
bool arch_trap_is_breakpoint(int si_code);

uintptr_t arch_context_pc(const void *ucontext);
void arch_context_set_pc(void *ucontext, uintptr_t pc);

/*
 * Give an interrupted context the return address @link, as a call would
 * (x86-64 pushes it). Only used at call sites, where
 * the compiler expects the call to write below the stack pointer: the red
 * zone is dead there.
 */
void arch_context_link(void *ucontext, uintptr_t link);

/*
 * The CPU's cycle or timer counter, where the back end has one: a few
 * cycles to read from user space, no system call. The recorder's clock
 * (src/trace/clock.h) reads it for every event, through the engine
 * (ulsm_counter_read(), src/engine/engine.h).
 *
 * ulsm__arch_counter_read: the counter now; inline, in the back end's
 * public header, which then defines ULSM__ARCH_HAS_COUNTER (x86-64:
 * rdtsc; aarch64: cntvct_el0).
 * arch_counter_usable: whether it runs at one rate on every CPU, in
 * every power state, in step across CPUs: only then can two threads'
 * readings be compared and converted to CLOCK_MONOTONIC. Asked once.
 */
#ifdef ULSM__ARCH_HAS_COUNTER
bool arch_counter_usable(void);
#else
/* None: riscv64 (rdtime may trap to the firmware), the generic back end. */
static inline uint64_t ulsm__arch_counter_read(void)
{
	return 0;
}

static inline bool arch_counter_usable(void)
{
	return false;
}
#endif

#endif /* ULSM_SRC_ARCH_H */
