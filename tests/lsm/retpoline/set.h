/* SPDX-License-Identifier: MIT */
/*
 * The hook set "rp" of t_retpoline, and what its plug-ins (plugin.c)
 * export besides their modules. Host and plug-ins are built with the
 * compiler's retpolines and ULSM_RETPOLINE (the Makefile's RP_CFLAGS).
 *
 * rp_int and rp_void are dispatched by their entries; rp_walk by the C
 * walk (ULSM_LSM_C_WALK_rp_walk), whose slot calls go through the slots'
 * trampolines when the callback is out of reach.
 */
#ifndef RP_SET_H
#define RP_SET_H
#define ULSM_LSM_SET		rp
#define ULSM_LSM_HOOK_DEFS	"retpoline/hook_defs.h"
#define MAX_LSM_COUNT		4
#define ULSM_LSM_C_WALK_rp_walk	1
#include <ulsm/lsm_hooks.h>

/*
 * The same hooks in set "ru", which allows unloading: a plug-in's module
 * is called through its slot's guard (rp_int and rp_void; rp_walk is one
 * read-side section). Then back to "rp" for the short names.
 */
#undef ULSM_LSM_SET
#define ULSM_LSM_SET		ru
#define ULSM_LSM_UNLOADABLE
#include <ulsm/lsm_hooks.h>
#undef ULSM_LSM_UNLOADABLE
#undef ULSM_LSM_SET
#define ULSM_LSM_SET		rp

/*
 * No sanitizer code in the functions whose instructions are stepped: a
 * plug-in's call into a sanitizer runtime goes through its PLT (an
 * indirect jump that is the dynamic linker's, not ulsm's).
 */
#define RP_NOSAN	__attribute__((noinline, no_sanitize("address", "thread", "undefined")))

/* Exported by each plug-in: a static call's target, a probe, APR's. */
int rp_target(int x);
void rp_probe(void *data, int x);
int rp_apr_all(int x);
int rp_apr_first(int x);

/* The APR hooks' unit (apr.c), when APR is installed. */
int rp_apr_setup(int (*all1)(int), int (*all2)(int), int (*first)(int));
int rp_apr_run_all(int x);
int rp_apr_run_first(int x);
int rp_apr_run_first2(int x);
int rp_apr_slots(const char *hook);
#endif
