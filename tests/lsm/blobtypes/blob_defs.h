/* SPDX-License-Identifier: MIT */
/* The object types of set "bt": a server's, not the kernel's. */
LSM_BLOB(request)
LSM_BLOB(connection)
