/* SPDX-License-Identifier: MIT */
/* The second hook set of t_lsm_two_sets (no include guard). */
LSM_HOOK(int, 0, socket_connect, int port)
LSM_HOOK(void, LSM_RET_VOID, socket_close, int fd)
