// SPDX-License-Identifier: MIT
/*
 * Objects that hold modules and may not go: a set that does not allow
 * unloading has no read-side sections to wait for, and a sealed set's
 * tables can no longer be written. Such an object is kept mapped for good
 * (RTLD_NODELETE): a dlclose() of it then leaves it in place, with its
 * module, as musl's dlclose() always does.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "lsm_internal.h"

struct find_object {
	uintptr_t addr;
	const char *name;
	bool found, program;
	int index;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_object *f = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= lo &&
		    f->addr < lo + ph->p_memsz) {
			f->name = info->dlpi_name ? info->dlpi_name : "";
			f->found = true;
			/* The program comes first (glibc names it "", musl not). */
			f->program = f->index == 0 || !*f->name;
			return 1;
		}
	}
	f->index++;
	return 0;
}

void ulsm_lsm_pin_object(struct ulsm_hook_set *set, struct lsm_info *m)
{
	struct find_object f = { (uintptr_t)m, NULL, false, false, 0 };
	void *h;

	dl_iterate_phdr(find_object, &f);
	/* The program itself, or a static one: never unloaded. */
	if (!f.found || f.program)
		return;
	h = dlopen(f.name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
	if (!h) {
		const char *err = dlerror();

		ulsm_report("set %s: module %s: its object %s cannot be kept "
			    "loaded (%s): do not unload it", set->name,
			    m->name, f.name, err ? err : "not found");
		return;
	}
	/* The reference is dropped; the object stays (NODELETE). */
	dlclose(h);
}
