/* SPDX-License-Identifier: MIT */
/*
 * The hook list of bench_hooks, in the kernel's form (no include guard: it
 * is expanded many times, by <ulsm/lsm_hooks.h> and by the baseline).
 *
 *   file_permission     the int hook timed; default 0, so a module that
 *                       returns anything else stops the walk
 *   file_free_security  the void hook timed: every module runs
 *   upd_00 .. upd_99    int hooks that only the update-cost test uses: a
 *                       module can have 1, 10 or 100 hooks only if the
 *                       list has that many
 *
 * The hundred are spelled by a macro rather than one line each;
 * HK_FOR_EACH_UPD(X) is X(upd_00) X(upd_01) ... X(upd_99), and the
 * benchmark uses it too, to dispatch or fill all of them.
 */
LSM_HOOK(int, 0, file_permission, int mask)
LSM_HOOK(void, LSM_RET_VOID, file_free_security, int x)

#ifndef HK_FOR_EACH_UPD
# define HK_UPD_ROW(X, d)						\
	X(upd_##d##0) X(upd_##d##1) X(upd_##d##2) X(upd_##d##3)	\
	X(upd_##d##4) X(upd_##d##5) X(upd_##d##6) X(upd_##d##7)	\
	X(upd_##d##8) X(upd_##d##9)
# define HK_FOR_EACH_UPD(X)						\
	HK_UPD_ROW(X, 0) HK_UPD_ROW(X, 1) HK_UPD_ROW(X, 2)		\
	HK_UPD_ROW(X, 3) HK_UPD_ROW(X, 4) HK_UPD_ROW(X, 5)		\
	HK_UPD_ROW(X, 6) HK_UPD_ROW(X, 7) HK_UPD_ROW(X, 8)		\
	HK_UPD_ROW(X, 9)
# define HK_UPD_LSM_HOOK(NAME)	LSM_HOOK(int, 0, NAME, int x)
#endif

HK_FOR_EACH_UPD(HK_UPD_LSM_HOOK)
