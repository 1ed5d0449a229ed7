// SPDX-License-Identifier: MIT
/*
 * The loaded objects (the program and its shared objects), as the dynamic
 * linker lists them (dl_iterate_phdr): which one holds an address, and
 * the writable memory of all of them. Keys and calls live there (they are
 * globals or statics), so a layer that holds pointers to them for later
 * (a recorded update) can tell one whose object was unloaded meanwhile
 * from a live one before it dereferences it; the hook framework finds a
 * module's object to pin it, or to keep it mapped.
 */
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

struct find_arg {
	uintptr_t addr;
	struct ulsm_loaded *out;
	int index;
	bool found;
};

static int find_one(struct dl_phdr_info *info, size_t size, void *argp)
{
	struct find_arg *arg = argp;
	struct ulsm_loaded *o = arg->out;
	bool hit = false;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum && !hit; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		hit = ph->p_type == PT_LOAD && arg->addr >= lo &&
		      arg->addr < lo + ph->p_memsz;
		if (hit)
			o->writable = ph->p_flags & PF_W;
	}
	if (!hit) {
		arg->index++;
		return 0;
	}
	o->name = info->dlpi_name ? info->dlpi_name : "";
	/* The program comes first (glibc names it "", musl not). */
	o->program = arg->index == 0 || !*o->name;
	o->nsegs = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || o->nsegs == ULSM_LOADED_SEGS)
			continue;
		o->seg[o->nsegs].lo = info->dlpi_addr + ph->p_vaddr;
		o->seg[o->nsegs].hi = o->seg[o->nsegs].lo + ph->p_memsz;
		o->nsegs++;
	}
	arg->found = true;
	return 1;
}

int ulsm_loaded_find(const void *addr, struct ulsm_loaded *out)
{
	struct find_arg arg = { (uintptr_t)addr, out, 0, false };

	memset(out, 0, sizeof(*out));
	dl_iterate_phdr(find_one, &arg);
	return arg.found ? 0 : -ENOENT;
}

struct ranges_arg {
	struct ulsm_range *v;
	size_t n, cap;
	bool count_only;
};

static int add_writable(struct dl_phdr_info *info, size_t size, void *argp)
{
	struct ranges_arg *arg = argp;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		if (!arg->count_only && arg->n < arg->cap) {
			arg->v[arg->n].lo = info->dlpi_addr + ph->p_vaddr;
			arg->v[arg->n].hi = arg->v[arg->n].lo + ph->p_memsz;
		}
		arg->n++;
	}
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct ulsm_range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

int ulsm_loaded_writable(struct ulsm_ranges *r)
{
	struct ranges_arg arg = { NULL, 0, 0, true };

	r->v = NULL;
	r->n = 0;
	/* Counted first: an object loaded between the passes is left out. */
	dl_iterate_phdr(add_writable, &arg);
	arg.v = ulsm_calloc(arg.n + 1, sizeof(*arg.v));
	if (!arg.v)
		return -ENOMEM;
	arg.cap = arg.n;
	arg.n = 0;
	arg.count_only = false;
	dl_iterate_phdr(add_writable, &arg);
	r->v = arg.v;
	r->n = arg.n < arg.cap ? arg.n : arg.cap;
	qsort(r->v, r->n, sizeof(*r->v), cmp_range);
	return 0;
}

bool ulsm_ranges_hold(const struct ulsm_ranges *r, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a < r->v[mid].lo)
			hi = mid;
		else if (a >= r->v[mid].hi)
			lo = mid + 1;
		else
			return len <= r->v[mid].hi - a;
	}
	return false;
}

void ulsm_ranges_free(struct ulsm_ranges *r)
{
	ulsm_free(r->v);
	r->v = NULL;
	r->n = 0;
}

/* The program's own program headers say whether it has an interpreter. */
static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	bool *linked = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP)
			*linked = true;
	return 1;	/* the first object is the program: stop there */
}

bool ulsm_program_is_static(void)
{
	bool linked = false;

	dl_iterate_phdr(first_object, &linked);
	return !linked;
}
