/* SPDX-License-Identifier: MIT */
/* The blob types of pedantic_unload.c's set. */
LSM_BLOB(request)
LSM_BLOB(session)
