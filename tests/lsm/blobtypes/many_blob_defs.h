/* SPDX-License-Identifier: MIT */
/* The object types of set "bm": more than the kernel's four. */
LSM_BLOB(request)
LSM_BLOB(connection)
LSM_BLOB(session)
LSM_BLOB(user)
LSM_BLOB(upload)
LSM_BLOB(cache)
