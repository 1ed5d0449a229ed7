/* SPDX-License-Identifier: MIT */
/*
 * ulsm/arch/generic.h - inline fast paths of the generic (data-only) back end.
 *
 * No code is patched: a site loads the key's count. The load is relaxed: the
 * updater stores the new count with release semantics after its own work, so
 * a thread that has observed the update's completion (acquire) sees the new
 * count by coherence. Include <ulsm/static_key.h>, not this file.
 */
#ifndef ULSM_ARCH_GENERIC_H
#define ULSM_ARCH_GENERIC_H

#define ulsm__arch_static_branch(keyp, branch)				\
__extension__ ({							\
	ULSM__KEY_REF(ulsm__kref, keyp, __attribute__((unused)));	\
	(__atomic_load_n(&(keyp)->enabled, __ATOMIC_RELAXED) > 0) != !!(branch); \
})

#define ulsm__arch_static_branch_jump(keyp, branch)			\
	ulsm__arch_static_branch(keyp, branch)

#endif /* ULSM_ARCH_GENERIC_H */
