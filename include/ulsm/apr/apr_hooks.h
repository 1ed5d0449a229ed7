/* SPDX-License-Identifier: MIT */
/*
 * ulsm/apr/apr_hooks.h - the shadow of APR's <apr_hooks.h>.
 *
 * `pkg-config --cflags ulsm-apr` puts this directory before APR's, so that
 * a program's #include <apr_hooks.h> (or "apr_hooks.h") lands here: the
 * real header first, then ulsm's dispatch (<ulsm/apr_hooks.h>).
 */
#ifndef ULSM_APR_SHADOW_APR_HOOKS_H
#define ULSM_APR_SHADOW_APR_HOOKS_H

#include_next <apr_hooks.h>
#include <ulsm/apr_hooks.h>

#endif
