/* SPDX-License-Identifier: MIT */
/*
 * tests/apr/reload.h - the hooks of t_apr_reload: one the program defines
 * (handle), two its module defines (ask, note), as an httpd module with
 * hooks of its own (mod_proxy's, mod_ssl's) does.
 */
#ifndef ULSM_TESTS_APR_RELOAD_H
#define ULSM_TESTS_APR_RELOAD_H

#include <apr_hooks.h>

#define HO_DECLARE(type)	type
#define PL_DECLARE(type)	type

APR_DECLARE_EXTERNAL_HOOK(ho, HO, int, handle, (int x))
APR_DECLARE_EXTERNAL_HOOK(pl, PL, int, ask, (int x))
APR_DECLARE_EXTERNAL_HOOK(pl, PL, void, note, (long *acc, int x))

/* The module's entry points (dlsym). */
typedef void rl_register_fn(int round);
typedef int rl_call_fn(int x, long *acc);

#endif
