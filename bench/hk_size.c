// SPDX-License-Identifier: MIT
/*
 * bench_hooks: sizes (bench/hk_driver.h). Data bytes per hook from the
 * types of the set (sizeof in the variant's objects, hk_ulsm.c); text
 * bytes of each dispatch function and of the hooks' entries and
 * trampolines from this program's own symbol table (st_size, .cold parts
 * included).
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ulsm/lsm.h>
#include <ulsm/object.h>

#include "hk_driver.h"

struct text_sizes text[V_COUNT];
long tramp_bytes;
bool have_symtab;
static long entry_bytes;	/* the int hook's entry; 0: none */

/* This program's symbol table, to read the sizes of functions. */
struct symtab {
	void *map;
	size_t len;
	const ElfW(Sym) *syms;
	size_t nsyms;
	const char *strs;
	size_t strs_len;
};

static int symtab_open(struct symtab *st)
{
	const ElfW(Ehdr) *eh;
	const ElfW(Shdr) *sh;
	struct stat sb;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	memset(st, 0, sizeof(*st));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb)) {
		close(fd);
		return -errno;
	}
	st->len = (size_t)sb.st_size;
	st->map = mmap(NULL, st->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (st->map == MAP_FAILED) {
		st->map = NULL;
		return -errno;
	}
	eh = st->map;
	if (st->len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > st->len)
		return -ENOEXEC;
	sh = (const ElfW(Shdr) *)((const char *)st->map + eh->e_shoff);
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		const ElfW(Shdr) *strsh;

		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		strsh = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > st->len ||
		    strsh->sh_offset + strsh->sh_size > st->len)
			return -ENOEXEC;
		st->syms = (const ElfW(Sym) *)((const char *)st->map +
					       sh[i].sh_offset);
		st->nsyms = sh[i].sh_size / sizeof(ElfW(Sym));
		st->strs = (const char *)st->map + strsh->sh_offset;
		st->strs_len = strsh->sh_size;
		return 0;
	}
	return -ENOENT;		/* stripped */
}

static long symtab_size(const struct symtab *st, const char *name)
{
	for (size_t i = 0; i < st->nsyms; i++) {
		const ElfW(Sym) *s = &st->syms[i];

		if (s->st_name < st->strs_len &&
		    !strcmp(st->strs + s->st_name, name))
			return (long)s->st_size;
	}
	return -1;
}

/* A function's bytes, its .cold part (if the compiler split one) included. */
static long fn_size(const struct symtab *st, const char *what, const char *v)
{
	char name[128];
	long n, cold;

	snprintf(name, sizeof(name), "hk_%s_%s", what, v);
	n = symtab_size(st, name);
	snprintf(name, sizeof(name), "hk_%s_%s.cold", what, v);
	cold = symtab_size(st, name);
	return n < 0 ? -1 : n + (cold > 0 ? cold : 0);
}

void measure_sizes(void)
{
	struct symtab st;
	char kmax[32];

	if (symtab_open(&st)) {
		if (st.map)
			munmap(st.map, st.len);
		return;
	}
	have_symtab = true;
	snprintf(kmax, sizeof(kmax), "k%u", HK_MAX);
	for (int v = 0; v < V_COUNT; v++) {
		char p[64];

		if (!present(v))
			continue;
		text[v].base_int = fn_size(&st, "sec_base_int", vname[v]);
		text[v].base_void = fn_size(&st, "sec_base_void", vname[v]);
		text[v].ulsm_int = fn_size(&st, "sec_ulsm_int", vname[v]);
		text[v].ulsm_void = fn_size(&st, "sec_ulsm_void", vname[v]);
		text[v].limit_int_k2 = fn_size(&st, "sec_limit_int_k2",
					       vname[v]);
		snprintf(p, sizeof(p), "sec_limit_int_%s", kmax);
		text[v].limit_int_kmax = fn_size(&st, p, vname[v]);
		snprintf(p, sizeof(p), "sec_limit_void_%s", kmax);
		text[v].limit_void_kmax = fn_size(&st, p, vname[v]);
	}
	tramp_bytes = symtab_size(&st, "__SCT__hk_set_plain_file_permission_0");
	if (tramp_bytes < 0)
		tramp_bytes = 0;	/* the generic back end has none */
	entry_bytes = symtab_size(&st,
				  "hk_set_plain_lsm_entry_file_permission");
	if (entry_bytes < 0)
		entry_bytes = 0;
	munmap(st.map, st.len);
}

long entry_text_bytes(void)
{
	return entry_bytes;
}

void data_sizes(struct data_sizes *d)
{
	const struct hk_variant *vd = variant[V_PLAIN];
	bool patching = tramp_bytes > 0;
	bool entries = entry_bytes > 0;

	d->slots = vd->sizes->table;
	d->calls = vd->sizes->calls;
	d->keys = vd->sizes->keys;
	/*
	 * A hook with an entry: its struct ulsm_hook_entry, the entry's map
	 * (2 + 5 per slot offsets of 4 bytes) and its site records (1 + 2
	 * per slot, 8 bytes each, <ulsm/arch/x86_64.h>).
	 */
	d->entry = entries ? sizeof(struct ulsm_hook_entry) +
			     (2 + 5 * HK_MAX) * 4 +
			     (1 + 2 * HK_MAX) * sizeof(struct ulsm_call_site) : 0;
	/* On x86-64 each slot's trampoline has a call-table entry. */
	d->call_entries = patching ?
			  HK_MAX * sizeof(struct ulsm_call_entry) : 0;
	/*
	 * A dispatch site of a hook with an entry is one call: no table.
	 * The unrolled C walk (the generic back end here) has per slot a
	 * jump-table entry and a key pointer for each of its two keys on
	 * x86-64, and none on the generic back end.
	 */
	d->site = entries || !patching ? 0 :
		  2 * HK_MAX * (sizeof(struct ulsm_jump_entry) + sizeof(void *));
	d->ulsm_module = vd->sizes->hook_list;
	d->base_head = vd->base_sizes->head;
	d->base_module = vd->base_sizes->hook_list;
}
