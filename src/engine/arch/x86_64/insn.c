// SPDX-License-Identifier: MIT
/*
 * x86-64 instruction encoding for the patching core. Bytes in, bytes out.
 * (Instruction fetch is coherent with stores, SDM vol. 3A 9.1.3: no cache
 * maintenance and no fetch sync, the defaults of src/engine/arch/generic/.
 * The breakpoint and the trapped context: trap.c.)
 *
 * | what          | bytes             | Intel SDM vol. 2          |
 * |---------------|-------------------|---------------------------|
 * | breakpoint    | cc                | INT3                      |
 * | 5-byte NOP    | 0f 1f 44 00 00    | NOP, table 4-12           |
 * | jump          | e9 rel32          | JMP rel32 (E9 cd)         |
 * | call          | e8 rel32          | CALL rel32 (E8 cd)        |
 *
 * rel32 is relative to the end of the 5-byte instruction.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/arch.h"

#define X86_INSN_SIZE	5

const enum ulsm_protocol arch_protocol = ULSM_PROTO_BREAKPOINT;

static const uint8_t x86_nop5[X86_INSN_SIZE] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

int arch_encode_branch(uintptr_t site, uintptr_t target, bool jump,
		       struct ulsm_insn *out)
{
	memset(out, 0, sizeof(*out));
	out->len = X86_INSN_SIZE;
	if (!jump) {
		memcpy(out->bytes, x86_nop5, X86_INSN_SIZE);
		out->resume = site + X86_INSN_SIZE;
		return 0;
	}

	int64_t rel = (int64_t)(target - (site + X86_INSN_SIZE));
	int32_t rel32 = (int32_t)rel;

	if (rel != rel32)
		return -ERANGE;
	out->bytes[0] = 0xe9;
	memcpy(&out->bytes[1], &rel32, sizeof(rel32));
	out->resume = target;
	return 0;
}

void arch_serialize(void)
{
	unsigned int a = 0, b, c = 0, d;

	/* CPUID is serialising (SDM vol. 3A, 9.3 "Serializing Instructions"). */
	__asm__ __volatile__("cpuid"
			     : "+a" (a), "=b" (b), "+c" (c), "=d" (d)
			     : : "memory");
}

/*
 * Call sites. A trapped call is emulated by pushing its return address by
 * hand (the kernel's int3_emulate_call); under a shadow stack (CET, Linux
 * 6.6+) the callee's ret would then not match, so call sites stay on their
 * trampolines there.
 */
int arch_decode_call(uintptr_t site, uintptr_t *target)
{
	const uint8_t *p = (const uint8_t *)site;
	int32_t rel32;

	if (p[0] != 0xe8)
		return -EILSEQ;
	memcpy(&rel32, p + 1, sizeof(rel32));
	*target = site + X86_INSN_SIZE + (intptr_t)rel32;
	return 0;
}

/*
 * What gcc and clang put between a call and the next statement's label
 * when the result goes to another register: a register-to-register mov,
 * REX prefix optional (89 /r or 8b /r with ModRM mod = 11). Its length, or
 * 0 if @p is anything else.
 */
static size_t reg_move_len(const uint8_t *p)
{
	size_t n = (p[0] & 0xf0) == 0x40;

	if ((p[n] == 0x89 || p[n] == 0x8b) && (p[n + 1] & 0xc0) == 0xc0)
		return n + 2;
	return 0;
}

/* At most this many bytes of moves between the call and its label. */
#define X86_MAX_CALL_GAP	12

int arch_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site)
{
	/*
	 * Every candidate must be a call to @callee AND be followed by whole
	 * moves that end exactly at @label, so a stray e8 byte inside another
	 * instruction is never taken for the call. The bytes read lie in the
	 * function holding the call, or the text just before it.
	 */
	for (size_t gap = 0; gap <= X86_MAX_CALL_GAP; gap++) {
		uintptr_t p = label - gap - X86_INSN_SIZE, q, target;

		if (arch_decode_call(p, &target) || (callee && target != callee))
			continue;
		for (q = p + X86_INSN_SIZE; q < label;) {
			size_t n = reg_move_len((const uint8_t *)q);

			if (!n)
				break;
			q += n;
		}
		if (q == label) {
			*site = p;
			return 0;
		}
	}
	return -EILSEQ;
}

/*
 * A PLT entry as GNU ld and lld write them: jmp *slot(%rip) (ff 25),
 * after endbr64 (f3 0f 1e fa, .plt.sec under IBT) and with a bnd prefix
 * (f2, MPX PLTs) or not.
 */
int arch_decode_plt(uintptr_t stub, uintptr_t *slot)
{
	const uint8_t *p = (const uint8_t *)stub;
	int32_t disp;

	if (p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		p += 4;
	if (p[0] == 0xf2)
		p++;
	if (p[0] != 0xff || p[1] != 0x25)
		return -EILSEQ;
	memcpy(&disp, p + 2, sizeof(disp));
	*slot = (uintptr_t)(p + 6) + (intptr_t)disp;
	return 0;
}

int arch_encode_call(uintptr_t site, uintptr_t target, struct ulsm_insn *out)
{
	int64_t rel = (int64_t)(target - (site + X86_INSN_SIZE));
	int32_t rel32 = (int32_t)rel;

	if (rel != rel32)
		return -ERANGE;
	memset(out, 0, sizeof(*out));
	out->len = X86_INSN_SIZE;
	out->bytes[0] = 0xe8;
	memcpy(&out->bytes[1], &rel32, sizeof(rel32));
	out->resume = target;
	out->link = site + X86_INSN_SIZE;
	return 0;
}

int arch_encode_call_via(uintptr_t site, uintptr_t target, uintptr_t stub,
			 struct ulsm_insn *out)
{
	int ret = arch_encode_call(site, target, out);

	if (!ret) {
		out->resume = stub;
		out->link = 0;
	}
	return ret;
}

#ifndef ARCH_SHSTK_STATUS
# define ARCH_SHSTK_STATUS	0x5005	/* asm/prctl.h, Linux 6.6 */
#endif
#define X86_SHSTK_ENABLED	1ul	/* ARCH_SHSTK_SHSTK */

bool arch_calls_patchable(void)
{
	unsigned long features = 0;

	/* Older kernels fail with EINVAL: no shadow stack there. */
	if (syscall(SYS_arch_prctl, ARCH_SHSTK_STATUS, &features))
		return true;
	return !(features & X86_SHSTK_ENABLED);
}

/*
 * Static-call trampolines (layout in include/ulsm/arch/x86_64.h).
 *
 * | form     | bytes 0..7                 | continues at (emulation)  |
 * |----------|----------------------------|---------------------------|
 * | null     | c3 cc cc cc cc cc cc cc    | x86_ret_stub (a real ret) |
 * | direct   | e9 rel32 cc cc cc          | the target                |
 * | indirect | ff 25 disp32 cc cc         | the target                |
 * |          | e9 rel32 (to byte 16)      | the stub at byte 16       |
 *
 * The second indirect form is a retpoline trampoline's (signature 0f b9
 * cd): "jmp *key.func" would be a bare indirect branch in a program built
 * to have none, so the far form jumps to the trampoline's own stub, which
 * loads key.func and jumps there through a retpoline thunk. It is still a
 * single instruction, and still follows key.func without being
 * rewritten, so an update between two far targets stays a store.
 *
 * The patched region must always hold exactly one instruction: the int3
 * protocol only keeps threads from *starting* the region, not from being
 * inside it. "xor %eax,%eax; ret" would let a thread sit between the two
 * while the tail is rewritten (the stress test found this within a
 * second). So a call that returns 0 jumps to __static_call_return0, as the
 * kernel's RET0 trampolines do; the kernel's single-instruction "xor5rax"
 * only replaces call sites, which ulsm patches to direct calls instead.
 *
 * A thread that meets the int3 at byte 0 was sent here by a call, so its
 * return address is on the stack. Emulating "ret" by popping it by hand
 * would leave the shadow stack (CET, Linux 6.6+) out of step; sending the
 * thread to a real ret instruction keeps both stacks in step.
 */
#define X86_TRAMP_LEN	8
#define X86_SIG_OFFSET	8
#define X86_STUB_OFFSET	16

static const uint8_t x86_tramp_sig[3] = { 0x0f, 0xb9, 0xcc };
/*
 * A retpoline trampoline: its signature, and its stub's constant bytes:
 * 4c 8b 1d disp32 (mov disp32(%rip), %r11: REX.WR 8B /r, ModRM 1d =
 * r11, RIP+disp32), 4d 8b 1b (mov (%r11), %r11), e9 rel32 (the thunk).
 */
static const uint8_t x86_tramp_sig_rp[3] = { 0x0f, 0xb9, 0xcd };
static const uint8_t x86_stub_load[3] = { 0x4c, 0x8b, 0x1d };
static const uint8_t x86_stub_jump[4] = { 0x4d, 0x8b, 0x1b, 0xe9 };

enum { TRAMP_BAD, TRAMP_PLAIN, TRAMP_RETPOLINE };

/* Which layout the trampoline at @tramp has (its bytes 8.. never change). */
static int tramp_layout(uintptr_t tramp)
{
	const uint8_t *p = (const uint8_t *)tramp;

	if (!memcmp(p + X86_SIG_OFFSET, x86_tramp_sig, sizeof(x86_tramp_sig)))
		return TRAMP_PLAIN;
	if (!memcmp(p + X86_SIG_OFFSET, x86_tramp_sig_rp,
		    sizeof(x86_tramp_sig_rp)) &&
	    !memcmp(p + X86_STUB_OFFSET, x86_stub_load,
		    sizeof(x86_stub_load)) &&
	    !memcmp(p + X86_STUB_OFFSET + 7, x86_stub_jump,
		    sizeof(x86_stub_jump)))
		return TRAMP_RETPOLINE;
	return TRAMP_BAD;
}

__asm__(".pushsection .text, \"ax\"\n\t"
	".balign 16\n"
	"ulsm__x86_ret_stub:\n\t"
	"ret\n\t"
	".popsection");

extern const char ulsm__x86_ret_stub[];

/*
 * The return site of a hook's entry: 5 bytes, so that it can hold the NOP
 * that lets the entry go on to its slots. "ret" is one byte; the rest are
 * breakpoints, never executed (a thread that ran the ret is gone).
 */
int arch_encode_return(uintptr_t site, uintptr_t thunk, struct ulsm_insn *out)
{
	if (thunk)
		return arch_encode_branch(site, thunk, true, out);
	memset(out, 0, sizeof(*out));
	memset(out->bytes, 0xcc, X86_INSN_SIZE);
	out->bytes[0] = 0xc3;
	out->len = X86_INSN_SIZE;
	out->resume = (uintptr_t)ulsm__x86_ret_stub;
	return 0;
}

static void tramp_fill(struct ulsm_insn *out, const uint8_t *insn, size_t n)
{
	memset(out, 0, sizeof(*out));
	memset(out->bytes, 0xcc, X86_TRAMP_LEN);
	memcpy(out->bytes, insn, n);
	out->len = X86_TRAMP_LEN;
}

int arch_encode_tramp(uintptr_t tramp, uintptr_t func, uintptr_t slot,
		      struct ulsm_insn *out, enum ulsm_static_call_form *form)
{
	static const uint8_t ret[] = { 0xc3 };
	uint8_t insn[6];
	int64_t rel;

	if (!func) {
		tramp_fill(out, ret, sizeof(ret));
		out->resume = (uintptr_t)ulsm__x86_ret_stub;
		*form = ULSM_SC_FORM_NULL;
		return 0;
	}
	rel = (int64_t)(func - (tramp + 5));
	if (rel == (int32_t)rel) {
		int32_t rel32 = (int32_t)rel;

		insn[0] = 0xe9;
		memcpy(&insn[1], &rel32, 4);
		tramp_fill(out, insn, 5);
		*form = ULSM_SC_FORM_DIRECT;
	} else if (tramp_layout(tramp) == TRAMP_RETPOLINE) {
		int32_t rel32 = X86_STUB_OFFSET - 5;

		insn[0] = 0xe9;
		memcpy(&insn[1], &rel32, 4);
		tramp_fill(out, insn, 5);
		*form = ULSM_SC_FORM_INDIRECT;	/* through the stub */
		out->resume = tramp + X86_STUB_OFFSET;
		return 0;
	} else {
		int64_t disp = (int64_t)(slot - (tramp + 6));
		int32_t disp32 = (int32_t)disp;

		if (disp != disp32)
			return -ERANGE;
		insn[0] = 0xff;		/* JMP r/m64: FF /4, ModRM 25 = RIP+disp32 */
		insn[1] = 0x25;
		memcpy(&insn[2], &disp32, 4);
		tramp_fill(out, insn, 6);
		*form = ULSM_SC_FORM_INDIRECT;
	}
	out->resume = func;
	return 0;
}

int arch_read_tramp(uintptr_t tramp, struct ulsm_insn *cur,
		    enum ulsm_static_call_form *form)
{
	const uint8_t *p = (const uint8_t *)tramp;
	int layout = tramp_layout(tramp);
	size_t n;

	if (layout == TRAMP_BAD)
		return -EILSEQ;
	switch (p[0]) {
	case 0xc3:
		n = 1, *form = ULSM_SC_FORM_NULL;
		break;
	case 0xe9:
		n = 5, *form = ULSM_SC_FORM_DIRECT;
		break;
	case 0xff:
		/* Never written into a retpoline trampoline. */
		if (p[1] != 0x25 || layout == TRAMP_RETPOLINE)
			return -EILSEQ;
		n = 6, *form = ULSM_SC_FORM_INDIRECT;
		break;
	default:
		return -EILSEQ;
	}
	for (size_t i = n; i < X86_TRAMP_LEN; i++)
		if (p[i] != 0xcc)
			return -EILSEQ;
	tramp_fill(cur, p, n);
	if (*form == ULSM_SC_FORM_NULL) {
		cur->resume = (uintptr_t)ulsm__x86_ret_stub;
	} else {
		int32_t d;

		memcpy(&d, p + (n == 5 ? 1 : 2), 4);
		cur->resume = n == 5 ? tramp + 5 + (intptr_t)d :
			*(const uintptr_t *)(tramp + 6 + (intptr_t)d);
		if (cur->resume == tramp + X86_STUB_OFFSET &&
		    layout == TRAMP_RETPOLINE)
			*form = ULSM_SC_FORM_INDIRECT;	/* the jump to the stub */
	}
	return 0;
}
