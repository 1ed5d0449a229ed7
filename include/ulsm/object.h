/* SPDX-License-Identifier: MIT */
/*
 * ulsm/object.h - per-object registration of patch tables.
 *
 * Every executable and shared object has its own "ulsm_jump_table" section:
 * the linker's __start_ and __stop_ symbols resolve inside each linked
 * object. So each object must hand its own range to the library, and take it
 * back when it is unloaded (dlclose). This header does that for you: every
 * translation unit that includes a ulsm header gets a small static
 * constructor and destructor; the library counts them per table, so an
 * object with many such units registers once and unregisters with its last
 * destructor. The symbols are hidden, so a shared object never picks up the
 * executable's table.
 *
 * An empty contribution to the section makes sure it exists in every object
 * that includes this header, so the __start_/__stop_ symbols are always
 * defined (a weak undefined hidden symbol cannot be addressed in a PIE).
 *
 * You never call these functions yourself, except to build a loader of your
 * own. Define ULSM_NO_AUTO_REGISTER before including any ulsm header to
 * suppress the constructor in a translation unit.
 */
#ifndef ULSM_OBJECT_H
#define ULSM_OBJECT_H

#include <stddef.h>
#include <stdint.h>
#include <ulsm/compiler.h>

ULSM__EXTERN_C_BEGIN

/*
 * One entry per site, in section "ulsm_jump_table", written by the arch
 * header's asm. Offsets are relative to the field that holds them.
 * @code:   the site
 * @target: where the site jumps when it is a JMP
 * @kref:   a const pointer to the key (see arch/x86_64.h for why)
 * @flags:  ULSM_JUMP_BRANCH (the kernel's "branch" bit),
 *          ULSM_JUMP_COMPILED_JUMP (the site was compiled as a JMP)
 */
struct ulsm_jump_entry {
	int32_t code;
	int32_t target;
	int32_t kref;
	uint32_t flags;
};

#define ULSM_JUMP_BRANCH	1u
#define ULSM_JUMP_COMPILED_JUMP	2u

struct static_call_key;

/*
 * One entry per trampoline, in section "ulsm_call_table", emitted by
 * DEFINE_STATIC_CALL*; absolute pointers, relocated by the dynamic linker.
 */
struct ulsm_call_entry {
	struct static_call_key *key;
	void *tramp;
};

/*
 * One entry per call site of a static call that may be patched to call the
 * target directly (the kernel's inline static calls; <ulsm/lsm_hooks.h>
 * records the hook slots' calls), in section "ulsm_call_sites", written by
 * the arch header's asm just after the call. Offsets are relative to the
 * field that holds them.
 * @ret:  the address just after the call instruction
 * @kref: a const pointer to the static call's key
 */
struct ulsm_call_site {
	int32_t ret;
	int32_t kref;
};

/**
 * struct ulsm_object_tables - the patch tables of one loaded object
 * @size:       sizeof(struct ulsm_object_tables), for later growth
 * @jump_start: first struct ulsm_jump_entry
 * @jump_stop:  one past the last
 * @call_start: first struct ulsm_call_entry (static-call trampolines)
 * @call_stop:  one past the last
 * @site_start: first struct ulsm_call_site (call sites that may be
 *              patched to call their target directly, and the hook
 *              entries' sites)
 * @site_stop:  one past the last
 *
 * The library reads the fields that @size covers: tables of an object
 * built with an older header, without the call or site tables, register
 * their keys' sites only.
 */
struct ulsm_object_tables {
	size_t size;
	const struct ulsm_jump_entry *jump_start;
	const struct ulsm_jump_entry *jump_stop;
	const struct ulsm_call_entry *call_start;
	const struct ulsm_call_entry *call_stop;
	const struct ulsm_call_site *site_start;
	const struct ulsm_call_site *site_stop;
};

/**
 * ulsm_object_register - make an object's sites known to the library
 * @tables: the object's tables; identified by @tables->jump_start
 *
 * Checks every site against the instruction it was compiled with and brings
 * it in line with its key's current state. Sites that fail the check are
 * left alone and reported (ULSM_DEBUG=1). Registering the same tables again
 * only counts a reference.
 *
 * Return: 0, or a negative errno (-EINVAL, -ENOMEM, -EILSEQ if some sites
 * were refused, or an error from patching).
 */
int ulsm_object_register(const struct ulsm_object_tables *tables);

/**
 * ulsm_object_unregister - forget an object's sites (dlclose)
 * @tables: the same tables as given to ulsm_object_register()
 *
 * Return: 0, or -ENOENT if the tables were not registered.
 */
int ulsm_object_unregister(const struct ulsm_object_tables *tables);

#if !defined(ULSM_ARCH_GENERIC) && !defined(ULSM_BUILDING_LIBRARY) && \
	!defined(ULSM_NO_AUTO_REGISTER)

__asm__(".pushsection ulsm_jump_table, \"aR\"\n\t.popsection\n\t"
	".pushsection ulsm_call_table, \"aw\"\n\t.popsection\n\t"
	".pushsection ulsm_call_sites, \"aR\"\n\t.popsection");

extern const struct ulsm_jump_entry __start_ulsm_jump_table[] ULSM__HIDDEN;
extern const struct ulsm_jump_entry __stop_ulsm_jump_table[] ULSM__HIDDEN;
extern const struct ulsm_call_entry __start_ulsm_call_table[] ULSM__HIDDEN;
extern const struct ulsm_call_entry __stop_ulsm_call_table[] ULSM__HIDDEN;
extern const struct ulsm_call_site __start_ulsm_call_sites[] ULSM__HIDDEN;
extern const struct ulsm_call_site __stop_ulsm_call_sites[] ULSM__HIDDEN;

static const struct ulsm_object_tables ulsm__this_object = {
	sizeof(struct ulsm_object_tables),
	__start_ulsm_jump_table,
	__stop_ulsm_jump_table,
	__start_ulsm_call_table,
	__stop_ulsm_call_table,
	__start_ulsm_call_sites,
	__stop_ulsm_call_sites,
};

/*
 * Weak references: a unit that includes ulsm's headers in a program that
 * does not link libulsm has nothing that could change its sites, and must
 * still link. (httpd's support tools include <apr_hooks.h> through
 * httpd.h; with the APR drop-in that is ulsm's, and they are linked
 * without the server's libraries.) In a program that links libulsm, any
 * other use of it brings it in, and the constructor registers.
 */
#pragma weak ulsm_object_register
#pragma weak ulsm_object_unregister

__attribute__((constructor, used)) static void ulsm__object_ctor(void)
{
	if (ulsm_object_register)
		(void)ulsm_object_register(&ulsm__this_object);
}

__attribute__((destructor, used)) static void ulsm__object_dtor(void)
{
	if (ulsm_object_unregister)
		(void)ulsm_object_unregister(&ulsm__this_object);
}

#endif

ULSM__EXTERN_C_END

#endif /* ULSM_OBJECT_H */
