// SPDX-License-Identifier: MIT
/*
 * Blobs: a module's per-object storage. As in the kernel, each module asks
 * for some bytes per object type; ulsm_lsm_init() turns the requests into
 * offsets, so that the application makes one allocation per object for
 * every module, of the size ulsm_lsm_blob_size() reports.
 */
#include <errno.h>

#include "lsm_internal.h"

static int *blob_field(struct lsm_blob_sizes *b, int type)
{
	switch (type) {
	case ULSM_BLOB_CRED:
		return &b->lbs_cred;
	case ULSM_BLOB_FILE:
		return &b->lbs_file;
	case ULSM_BLOB_INODE:
		return &b->lbs_inode;
	default:
		return &b->lbs_task;
	}
}

/* The kernel's lsm_set_blob_size: the request becomes an offset. */
void ulsm_lsm_prepare_blobs(struct ulsm_lsm_state *st, struct lsm_info *m)
{
	if (!m->blobs)
		return;
	for (int t = 0; t < ULSM_BLOB_TYPES; t++) {
		int *need = blob_field(m->blobs, t);
		int offset;

		if (*need <= 0)
			continue;
		offset = (st->blob_sizes[t] + (int)sizeof(void *) - 1) &
			 ~((int)sizeof(void *) - 1);
		st->blob_sizes[t] = offset + *need;
		*need = offset;
	}
}

ULSM_API int ulsm_lsm_blob_size(struct ulsm_hook_set *set,
				enum ulsm_blob_type type)
{
	if (!set || (int)type < 0 || type >= ULSM_BLOB_TYPES)
		return ulsm_error(-EINVAL, "ulsm_lsm_blob_size: bad arguments");
	return set->state ? set->state->blob_sizes[type] : 0;
}

ULSM_API int ulsm_lsm_blob_alloc(struct ulsm_hook_set *set,
				 enum ulsm_blob_type type, void **blob)
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
