// SPDX-License-Identifier: MIT
/*
 * The generic back end: nothing is patched, so the patching core never asks
 * for an instruction. Keys are counters, read by the sites themselves.
 */
#include <errno.h>

#include "engine/arch.h"

const enum ulsm_protocol arch_protocol = ULSM_PROTO_NONE;
const uint8_t arch_breakpoint[] = { 0 };
const size_t arch_breakpoint_len = 0;

int arch_encode_branch(uintptr_t site, uintptr_t target, bool jump,
		       struct ulsm_insn *out)
{
	(void)site;
	(void)target;
	(void)jump;
	(void)out;
	return -ENOTSUP;
}

void arch_serialize(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void arch_flush_icache(void *addr, size_t len)
{
	(void)addr;
	(void)len;
}

const bool arch_has_sync_fetch = false;
const char arch_sync_fetch_name[] = "";

int arch_sync_fetch(void)
{
	return -ENOSYS;
}

bool arch_fetch_misses_procmem(int fd)
{
	(void)fd;
	return false;
}

uintptr_t arch_context_pc(const void *ucontext)
{
	(void)ucontext;
	return 0;
}

void arch_context_set_pc(void *ucontext, uintptr_t pc)
{
	(void)ucontext;
	(void)pc;
}

bool arch_trap_is_breakpoint(int si_code)
{
	(void)si_code;
	return false;
}

int arch_encode_tramp(uintptr_t tramp, uintptr_t func, uintptr_t slot,
		      struct ulsm_insn *out, enum ulsm_static_call_form *form)
{
	(void)tramp;
	(void)func;
	(void)slot;
	(void)out;
	(void)form;
	return -ENOTSUP;
}

int arch_read_tramp(uintptr_t tramp, struct ulsm_insn *cur,
		    enum ulsm_static_call_form *form)
{
	(void)tramp;
	(void)cur;
	(void)form;
	return -ENOTSUP;
}

int arch_decode_call(uintptr_t site, uintptr_t *target)
{
	(void)site;
	(void)target;
	return -ENOTSUP;
}

int arch_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site)
{
	(void)label;
	(void)callee;
	(void)site;
	return -ENOTSUP;
}

/* Not read here: a call through the PLT keeps calling it. */
int arch_decode_plt(uintptr_t stub, uintptr_t *slot)
{
	(void)stub;
	(void)slot;
	return -ENOSYS;
}

int arch_encode_call(uintptr_t site, uintptr_t target, struct ulsm_insn *out)
{
	(void)site;
	(void)target;
	(void)out;
	return -ENOTSUP;
}

bool arch_calls_patchable(void)
{
	return false;
}

void arch_context_link(void *ucontext, uintptr_t link)
{
	(void)ucontext;
	(void)link;
}

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
