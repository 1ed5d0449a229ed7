// SPDX-License-Identifier: MIT
/*
 * The generic back end: nothing is patched, so the engine never asks it
 * for an instruction (its objects register no sites). Keys are counters,
 * read by the sites themselves; static calls are function pointers.
 *
 * This folder is also every back end's defaults (src/engine/arch.h,
 * "Defaults"): a back end that has no file of one of these names gets
 * the generic one. A back end that patches code has its own insn.c.
 */
#include <errno.h>

#include "engine/arch.h"

/*
 * The encoders and decoders below refuse whatever they are given: their
 * arguments are unused by design, not by mistake.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"

const enum ulsm_protocol arch_protocol = ULSM_PROTO_NONE;

int arch_encode_branch(uintptr_t site, uintptr_t target, bool jump,
		       struct ulsm_insn *out)
{
	return -ENOTSUP;
}

void arch_serialize(void)
{
	/*
	 * Pairs with the SEQ_CST store of active_round in chunk_round() and the
	 * acks (src/engine/sync_core.c): the full barrier each thread runs for
	 * a round, which membarrier would run elsewhere; ulsm_synchronize()
	 * (grace.c) counts on it.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int arch_encode_tramp(uintptr_t tramp, uintptr_t func, uintptr_t slot,
		      struct ulsm_insn *out, enum ulsm_static_call_form *form)
{
	return -ENOTSUP;
}

int arch_read_tramp(uintptr_t tramp, struct ulsm_insn *cur,
		    enum ulsm_static_call_form *form)
{
	return -ENOTSUP;
}

int arch_decode_call(uintptr_t site, uintptr_t *target)
{
	return -ENOTSUP;
}

int arch_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site)
{
	return -ENOTSUP;
}

/* Not read here: a call through the PLT keeps calling it. */
int arch_decode_plt(uintptr_t stub, uintptr_t *slot)
{
	return -ENOSYS;
}

int arch_encode_call(uintptr_t site, uintptr_t target, struct ulsm_insn *out)
{
	return -ENOTSUP;
}

bool arch_calls_patchable(void)
{
	return false;
}
