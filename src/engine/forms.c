// SPDX-License-Identifier: MIT
/*
 * What a site does, in the back end's instructions: the one place that
 * asks the back end (src/engine/arch.h) for the instructions of the
 * layers' sites. A layer says what a site does (struct ulsm_form), or
 * which call or jump it looks for; the instruction, its length and the
 * bytes to expect are the engine's (src/engine/engine.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "engine/engine.h"

static int form_insn(uintptr_t addr, struct ulsm_form f,
		     struct ulsm_insn *out)
{
	int ret;

	switch (f.op) {
	case ULSM_OP_NOP:
		return arch_encode_branch(addr, f.to, false, out);
	case ULSM_OP_JUMP:
		return arch_encode_branch(addr, f.to, true, out);
	case ULSM_OP_TAIL:
		ret = arch_encode_branch(addr, f.to, true, out);
		if (!ret && f.to == addr + out->len)
			ret = arch_encode_branch(addr, 0, false, out);
		return ret;
	case ULSM_OP_CALL:
		return arch_encode_call(addr, f.to, out);
	case ULSM_OP_CALL_VIA:
		return arch_encode_call_via(addr, f.to, f.via, out);
	case ULSM_OP_RETURN:
		return arch_encode_return(addr, f.to, out);
	}
	return -EINVAL;
}

int ulsm_txn_site(struct ulsm_txn *t, enum ulsm_stage stage, uintptr_t addr,
		  struct ulsm_form from, struct ulsm_form to)
{
	struct ulsm_insn old, new;
	int ret;

	ret = form_insn(addr, from, &old);
	if (!ret)
		ret = form_insn(addr, to, &new);
	if (!ret)
		ret = ulsm_txn_code(t, stage, addr, &old, &new);
	return ret;
}

static bool holds(uintptr_t addr, const struct ulsm_insn *insn)
{
	return !memcmp((const void *)addr, insn->bytes, insn->len);
}

int ulsm_site_holds(uintptr_t addr, struct ulsm_form f)
{
	struct ulsm_insn insn;
	int ret = form_insn(addr, f, &insn);

	return ret ? ret : holds(addr, &insn) ? 0 : -EILSEQ;
}

bool ulsm_site_reaches(uintptr_t addr, struct ulsm_form f)
{
	struct ulsm_insn insn;

	return !form_insn(addr, f, &insn);
}

int ulsm_site_callee(uintptr_t addr, uintptr_t *callee)
{
	return arch_decode_call(addr, callee) ? -EILSEQ : 0;
}

int ulsm_find_jump(uintptr_t label, uintptr_t to, uintptr_t *site)
{
	struct ulsm_insn j;

	/* The jump's length, from the back end's own encoding. */
	if (arch_encode_branch(label, label, true, &j) ||
	    ulsm_site_holds(label - j.len, ulsm_form(ULSM_OP_JUMP, to)))
		return -EILSEQ;
	*site = label - j.len;
	return 0;
}

/*
 * Whether the PLT entry @stub ends in @callee: its GOT slot holds @callee
 * already (bound), or its jump slot names a symbol that the process binds
 * to @callee: the global definition (dlsym(RTLD_DEFAULT)), or, with none,
 * the slot's own object's (a plug-in loaded RTLD_LOCAL).
 */
static bool plt_reaches(uintptr_t stub, uintptr_t callee)
{
	uintptr_t slot, here;
	char name[256];
	void *global;

	if (arch_decode_plt(stub, &slot))
		return false;
	if (__atomic_load_n((const uintptr_t *)slot, __ATOMIC_RELAXED) == callee)
		return true;
	if (ulsm_plt_slot_symbol(slot, name, sizeof(name), &here))
		return false;
	global = dlsym(RTLD_DEFAULT, name);
	return global ? (uintptr_t)global == callee : here == callee;
}

int ulsm_find_call(uintptr_t label, uintptr_t callee, uintptr_t *site,
		   uintptr_t *via)
{
	if (!arch_find_call(label, callee, site)) {
		*via = callee;
		return 0;
	}
	if (arch_find_call(label, 0, site) || arch_decode_call(*site, via) ||
	    !plt_reaches(*via, callee))
		return -EILSEQ;
	return 0;
}

int ulsm_tramp_form(uintptr_t tramp, enum ulsm_static_call_form *form)
{
	struct ulsm_insn cur;

	return arch_read_tramp(tramp, &cur, form) ? -EILSEQ : 0;
}

int ulsm_txn_tramp_adopt(struct ulsm_txn *t, uintptr_t tramp, uintptr_t slot,
			 const void *func)
{
	enum ulsm_static_call_form form;
	struct ulsm_insn cur, want;
	int ret;

	if (arch_read_tramp(tramp, &cur, &form))
		return -EILSEQ;
	ret = arch_encode_tramp(tramp, (uintptr_t)func, slot, &want, &form);
	if (ret)
		return ret;
	return ulsm_txn_code(t, ULSM_STAGE_TARGETS, tramp, &cur, &want);
}

int ulsm_txn_tramp(struct ulsm_txn *t, uintptr_t tramp, uintptr_t slot,
		   const void *from, const void *to, bool *reads_slot)
{
	enum ulsm_static_call_form old_form, new_form;
	struct ulsm_insn old, new;
	int ret;

	ret = arch_encode_tramp(tramp, (uintptr_t)from, slot, &old, &old_form);
	if (!ret)
		ret = arch_encode_tramp(tramp, (uintptr_t)to, slot, &new,
					&new_form);
	if (ret)
		return ret;
	*reads_slot = new_form == ULSM_SC_FORM_INDIRECT;
	/* Indirect to indirect: a store is enough, if the code is right. */
	if (!memcmp(old.bytes, new.bytes, old.len) && !holds(tramp, &old))
		return -EILSEQ;
	return ulsm_txn_code(t, ULSM_STAGE_TARGETS, tramp, &old, &new);
}
