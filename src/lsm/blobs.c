// SPDX-License-Identifier: MIT
/*
 * Blobs: a module's per-object storage. As in the kernel, each module asks
 * for some bytes per object type; ulsm_lsm_init() turns the requests into
 * offsets, so that the application makes one allocation per object for
 * every module, of the size ulsm_lsm_blob_size() reports.
 */
#include <errno.h>

#include "lsm_internal.h"

/*
 * A module's requests, and after ulsm_lsm_init() its offsets: one int per
 * type of the set, in the order of its types. struct lsm_blob_sizes is
 * the kernel's four ints, in the order of enum ulsm_blob_type; a set's
 * own struct S_blob_sizes has one int per LSM_BLOB line.
 */
static int *blob_field(void *b, int type)
{
	return &((int *)b)[type];
}

static const char *const kernel_blob_names[ULSM_BLOB_TYPES] = {
	"cred", "file", "inode", "task",
};

int ulsm_lsm_blob_types(const struct ulsm_hook_set *set)
{
	return set->nblobs ? (int)set->nblobs : ULSM_BLOB_TYPES;
}

const char *ulsm_lsm_blob_name(const struct ulsm_hook_set *set, int type)
{
	return set->nblobs ? set->blob_names[type] : kernel_blob_names[type];
}

/*
 * The kernel's lsm_set_blob_size, for every type of @m at once: each
 * request becomes an offset, aligned to a pointer, and the total grows.
 * Sizes are ints (the kernel's struct lsm_blob_sizes, and
 * ulsm_lsm_blob_size() returns one), so a total past INT_MAX, alignment
 * included, cannot be represented: such a module is refused, as is a
 * negative request (its "offset" would point before the blob). A refused
 * module changes nothing, neither its requests nor the totals, so that it
 * may stay off while the others keep their offsets; all types are checked
 * before any is changed.
 */
int ulsm_lsm_prepare_blobs(struct ulsm_lsm_state *st, struct lsm_info *m)
{
	const int align = (int)sizeof(void *), types = ulsm_lsm_blob_types(m->set);
	int offset[ULSM_BLOB_TYPES_MAX], total[ULSM_BLOB_TYPES_MAX];

	if (!m->blobs)
		return 0;
	for (int t = 0; t < types; t++) {
		int need = *blob_field(m->blobs, t), at;

		total[t] = st->blob_sizes[t];
		offset[t] = -1;
		if (need < 0)
			return ulsm_error(-EINVAL, "module %s: negative %s blob "
					  "size %d (-EINVAL); module off",
					  m->name, ulsm_lsm_blob_name(m->set, t),
					  need);
		if (!need)
			continue;
		if (__builtin_add_overflow(total[t], align - 1, &at) ||
		    __builtin_add_overflow(at & ~(align - 1), need, &total[t]))
			return ulsm_error(-EOVERFLOW, "module %s: a %s blob of %d "
					  "bytes after the other modules' %d "
					  "would pass INT_MAX (-EOVERFLOW); "
					  "module off", m->name,
					  ulsm_lsm_blob_name(m->set, t), need,
					  st->blob_sizes[t]);
		offset[t] = at & ~(align - 1);
	}
	for (int t = 0; t < types; t++) {
		if (offset[t] < 0)
			continue;
		*blob_field(m->blobs, t) = offset[t];
		st->blob_sizes[t] = total[t];
	}
	return 0;
}

int ulsm_lsm_blob_asked(const struct ulsm_hook_set *set,
			const struct lsm_info *m)
{
	const int types = ulsm_lsm_blob_types(set);

	for (int t = 0; m->blobs && t < types; t++)
		if (*blob_field(m->blobs, t))
			return t;
	return -1;
}

ULSM_API int ulsm_lsm_blob_size(struct ulsm_hook_set *set, int type)
{
	if (!set || type < 0 || type >= ulsm_lsm_blob_types(set))
		return ulsm_error(-EINVAL, "ulsm_lsm_blob_size: %s%s has no "
				  "blob type %d", set ? "set " : "no set",
				  set ? set->name : "", type);
	return set->state ? set->state->blob_sizes[type] : 0;
}

ULSM_API int ulsm_lsm_blob_alloc(struct ulsm_hook_set *set, int type,
				 void **blob)
{
	int size = ulsm_lsm_blob_size(set, type);

	if (size < 0 || !blob)
		return ulsm_error(-EINVAL, "ulsm_lsm_blob_alloc: bad arguments");
	*blob = NULL;
	if (!size)
		return 0;
	*blob = ulsm_calloc(1, (size_t)size);
	return *blob ? 0 : -ENOMEM;
}

ULSM_API void ulsm_lsm_blob_free(void **blob)
{
	if (!blob)
		return;
	ulsm_free(*blob);
	*blob = NULL;
}
