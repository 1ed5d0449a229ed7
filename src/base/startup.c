// SPDX-License-Identifier: MIT
/*
 * Objects the dynamic linker never unloads: the program and every object
 * its DT_NEEDED entries bring in, directly or not (the program holds a
 * reference to each for its whole life), and any object linked with
 * `-z nodelete` (DF_1_NODELETE), and under glibc every object preloaded
 * (LD_PRELOAD, /etc/ld.so.preload), with what it needs. Code in them is
 * never unmapped: the hook framework calls their modules as the
 * program's (src/lsm/guard.c, src/base/kept.c). An object opened by
 * dlopen() with RTLD_NODELETE may be kept for good too, but nothing in
 * it says so: the answer errs on the side of "may be unmapped".
 *
 * Preloaded objects are known by their place in the list that
 * dl_iterate_phdr() walks. glibc's list of the first namespace is in the
 * order of loading: the program, then (with the vDSO) the preloaded
 * objects, then the program's DT_NEEDED objects and theirs; dlopen()
 * only ever appends, and other namespaces (dlmopen, LD_AUDIT) are walked
 * after the first. So every object listed before the first one that the
 * program names in a DT_NEEDED entry was loaded at start-up, and glibc
 * never unloads those (only what dlopen() loaded can go). Nothing in a
 * preloaded object is read for this: a name alone could be a later
 * object's of the same name.
 */
#include <link.h>
#include <string.h>

#include "base/base.h"
#include "base/sys.h"

#define MAX_OBJECTS	1024

struct object {
	uintptr_t base;
	const ElfW(Phdr) *phdr;
	int phnum;
	const char *name;	/* as the dynamic linker gives it */
	const ElfW(Dyn) *dyn;
	bool startup;		/* or linked -z nodelete */
};

struct objects {
	struct object *v;
	size_t n;
	bool overflow;
};

static int add_object(struct dl_phdr_info *info, size_t size, void *argp)
{
	struct objects *o = argp;
	struct object *x;

	(void)size;
	if (o->n == MAX_OBJECTS) {
		o->overflow = true;
		return 1;
	}
	x = &o->v[o->n++];
	memset(x, 0, sizeof(*x));
	x->base = info->dlpi_addr;
	x->phdr = info->dlpi_phdr;
	x->phnum = info->dlpi_phnum;
	x->name = info->dlpi_name ? info->dlpi_name : "";
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			x->dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
						    info->dlpi_phdr[i].p_vaddr);
	return 0;
}

/*
 * An address the dynamic section gives: glibc relocates it in place
 * where that section is writable, not where it is read-only (riscv64,
 * the vDSO); an unrelocated one is below the object's base.
 */
static uintptr_t dyn_addr(const struct object *x, uintptr_t v)
{
	return v < x->base ? x->base + v : v;
}

static const char *strtab(const struct object *x)
{
	for (const ElfW(Dyn) *d = x->dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			return (const char *)dyn_addr(x, d->d_un.d_ptr);
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Whether @x is the object that DT_NEEDED entry @needed names. */
static bool is_needed(const struct object *x, const char *needed)
{
	const char *str = strtab(x);

	for (const ElfW(Dyn) *d = x->dyn; str && d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_SONAME)
			return !strcmp(str + d->d_un.d_val, needed);
	return *x->name && !strcmp(base_name(x->name), needed);
}

/* Whether @x was linked with -z nodelete. */
static bool nodelete(const struct object *x)
{
	for (const ElfW(Dyn) *d = x->dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_FLAGS_1)
			return d->d_un.d_val & DF_1_NODELETE;
	return false;
}

/* Mark every object that a start-up object needs; true if any was new. */
static bool mark_needed(struct objects *o)
{
	bool more = false;

	for (size_t i = 0; i < o->n; i++) {
		const struct object *x = &o->v[i];
		const char *str = strtab(x);

		if (!x->startup || !str)
			continue;
		for (const ElfW(Dyn) *d = x->dyn; d->d_tag != DT_NULL; d++) {
			if (d->d_tag != DT_NEEDED)
				continue;
			for (size_t j = 0; j < o->n; j++)
				if (!o->v[j].startup &&
				    is_needed(&o->v[j], str + d->d_un.d_val)) {
					o->v[j].startup = true;
					more = true;
				}
		}
	}
	return more;
}

/*
 * Where the objects loaded before the program's own libraries end: the
 * index of the first object that the program names in a DT_NEEDED entry
 * (above). 1 (none) where the order is not glibc's, or the program needs
 * nothing.
 */
static size_t preloaded_end(const struct objects *o)
{
#ifdef __GLIBC__
	const struct object *prog = &o->v[0];
	const char *str = strtab(prog);

	for (size_t j = 1; str && j < o->n; j++)
		for (const ElfW(Dyn) *d = prog->dyn; d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_NEEDED &&
			    is_needed(&o->v[j], str + d->d_un.d_val))
				return j;
#endif
	(void)o;
	return 1;
}

static bool holds(const struct object *x, uintptr_t addr)
{
	for (int i = 0; i < x->phnum; i++) {
		uintptr_t lo = x->base + x->phdr[i].p_vaddr;

		if (x->phdr[i].p_type == PT_LOAD && addr >= lo &&
		    addr < lo + x->phdr[i].p_memsz)
			return true;
	}
	return false;
}

bool ulsm_loaded_for_good(const void *addr)
{
	struct objects o = { ulsm_calloc(MAX_OBJECTS, sizeof(struct object)),
			     0, false };
	bool found = false;

	if (!o.v)
		return false;
	dl_iterate_phdr(add_object, &o);
	if (!o.overflow && o.n) {
		size_t preloaded = preloaded_end(&o);

		o.v[0].startup = true;	/* the program comes first */
		for (size_t i = 1; i < o.n; i++)
			o.v[i].startup = i < preloaded || nodelete(&o.v[i]);
		while (mark_needed(&o))
			;
		for (size_t i = 0; i < o.n && !found; i++)
			found = o.v[i].startup && holds(&o.v[i], (uintptr_t)addr);
	}
	ulsm_free(o.v);
	return found;
}
