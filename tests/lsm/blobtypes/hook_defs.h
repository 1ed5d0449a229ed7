/* SPDX-License-Identifier: MIT */
/* The hooks of set "bt" (t_lsm_blob_types). */
LSM_HOOK(int, 0, request_alloc, void *blob)
LSM_HOOK(void, LSM_RET_VOID, request_free, void *blob)
