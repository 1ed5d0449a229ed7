// SPDX-License-Identifier: MIT
/*
 * Which function a PLT entry calls: the symbol that its GOT slot's
 * relocation (a jump slot, in the object's DT_JMPREL table) names, read
 * from the dynamic section of the object that holds the slot. A call
 * site compiled as "call f@PLT" (a tracepoint or static call in a -fPIC
 * shared object) is patched only once the library knows that the PLT
 * entry ends in the trampoline it expects (src/static/static_call.c).
 *
 * The dynamic section's addresses are the object's own, or already
 * relocated: glibc adds the load address in place where the section is
 * writable (x86-64, aarch64), musl never does; an address below the
 * load address is taken as an offset.
 */
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

#if UINTPTR_MAX > 0xffffffffu
# define R_SYM(info)	ELF64_R_SYM(info)
#else
# define R_SYM(info)	ELF32_R_SYM(info)
#endif

struct slot_arg {
	uintptr_t slot;
	char *name;
	size_t len;
	uintptr_t here;
	int ret;
};

static uintptr_t dyn_addr(const struct dl_phdr_info *info, uintptr_t v)
{
	return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

static bool holds(const struct dl_phdr_info *info, uintptr_t a)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz)
			return true;
	}
	return false;
}

static const ElfW(Dyn) *dynamic_of(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			return (const ElfW(Dyn) *)(info->dlpi_addr +
						   info->dlpi_phdr[i].p_vaddr);
	return NULL;
}

static int find_slot(struct dl_phdr_info *info, size_t size, void *argp)
{
	struct slot_arg *arg = argp;
	const ElfW(Dyn) *d = dynamic_of(info);
	uintptr_t jmprel = 0, symtab = 0, strtab = 0;
	size_t relsz = 0, strsz = 0;
	long pltrel = 0;

	(void)size;
	if (!holds(info, arg->slot))
		return 0;
	arg->ret = -ENOENT;
	for (; d && d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_JMPREL: jmprel = d->d_un.d_ptr; break;
		case DT_PLTRELSZ: relsz = d->d_un.d_val; break;
		case DT_PLTREL: pltrel = (long)d->d_un.d_val; break;
		case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
		case DT_STRTAB: strtab = d->d_un.d_ptr; break;
		case DT_STRSZ: strsz = d->d_un.d_val; break;
		}
	}
	/* RELA: the jump slots of x86-64, aarch64 and riscv64. */
	if (!jmprel || !symtab || !strtab || pltrel != DT_RELA)
		return 1;
	jmprel = dyn_addr(info, jmprel);
	symtab = dyn_addr(info, symtab);
	strtab = dyn_addr(info, strtab);
	for (size_t i = 0; i < relsz / sizeof(ElfW(Rela)); i++) {
		const ElfW(Rela) *r = (const ElfW(Rela) *)jmprel + i;
		const ElfW(Sym) *sym;
		const char *name;

		if (info->dlpi_addr + r->r_offset != arg->slot)
			continue;
		sym = (const ElfW(Sym) *)symtab + R_SYM(r->r_info);
		if (sym->st_name >= strsz)
			return 1;
		name = (const char *)strtab + sym->st_name;
		if (strnlen(name, arg->len) == arg->len)
			return 1;
		strcpy(arg->name, name);
		arg->here = sym->st_shndx != SHN_UNDEF ?
			    info->dlpi_addr + sym->st_value : 0;
		arg->ret = 0;
		return 1;
	}
	return 1;
}

int ulsm_plt_slot_symbol(uintptr_t slot, char *name, size_t len,
			 uintptr_t *here)
{
	struct slot_arg arg = { slot, name, len, 0, -ENOENT };

	if (!len)
		return -EINVAL;
	dl_iterate_phdr(find_slot, &arg);
	*here = arg.here;
	return arg.ret;
}
