/* SPDX-License-Identifier: MIT */
/*
 * ulsm/apr/apr_optional_hooks.h - the shadow of APR's <apr_optional_hooks.h>.
 *
 * APR's header includes "apr_hooks.h" from its own directory, which would
 * skip the shadow; this one includes the shadow first. The optional hooks
 * themselves stay APR's (a lookup by name, then APR's array).
 */
#ifndef ULSM_APR_SHADOW_APR_OPTIONAL_HOOKS_H
#define ULSM_APR_SHADOW_APR_OPTIONAL_HOOKS_H

#include <apr_hooks.h>
#include_next <apr_optional_hooks.h>

#endif
