/* SPDX-License-Identifier: MIT */
/* usdt_server's hook set (no include guard). */
LSM_HOOK(int, 0, req_check, int req)
