/* SPDX-License-Identifier: MIT */
/*
 * The hook set of the framework tests ("tl"), MAX_LSM_COUNT 3, and the
 * test modules in test_lsm.c:
 *
 *   capa   LSM_ORDER_FIRST   all hooks it has return what the test says
 *   alpha  mutable           blobs (file 16, cred 8), most hooks
 *   beta   mutable           blobs (file 4)
 *   gamma  mutable, exclusive
 *   delta  mutable, exclusive
 *   omega  LSM_ORDER_LAST
 *   offmod mutable, enabled = 0 (disabled by default)
 *
 * Each callback records "<module>:<hook>" in a trace, and returns the
 * value in ret[module][hook index] (default: the hook's DEFAULT).
 */
#ifndef ULSM_TEST_LSM_H
#define ULSM_TEST_LSM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <ulsm/ulsm.h>

#ifndef ENOPARAM
# define ENOPARAM 519
#endif

struct t_file {
	void *security;
	int id;
};

/* A hook with a double parameter: dispatched by the C walk (no entry). */
#define ULSM_LSM_C_WALK_scaled	1

#define ULSM_LSM_SET		tl
#define ULSM_LSM_HOOK_DEFS	"test_hook_defs.h"
#define MAX_LSM_COUNT		3
#include <ulsm/lsm_hooks.h>

enum { M_CAPA, M_ALPHA, M_BETA, M_GAMMA, M_DELTA, M_OMEGA, M_OFF, M_N };

extern const char *const tl_module_names[M_N];
extern const struct lsm_id tl_ids[M_N];
extern int tl_ret[M_N][tl_nhooks];	/* what each callback returns
					   (for the hooks after noargs: 0
					   means the hook's DEFAULT) */
extern int tl_init_ret[M_N];		/* what each init returns */
extern struct lsm_blob_sizes tl_blobs_alpha, tl_blobs_beta;

/* The trace of callbacks, "alpha:file_open beta:file_open ...". */
extern __thread char tl_trace[4096];
void tl_trace_reset(void);
/*
 * What the library reported (ulsm_set_log) since the last reset, each
 * message on its own line: the tests route its messages here, and print
 * them as TAP comments, so that a module that does not come up on
 * purpose leaves no stray line in make check, and a test can check that
 * it was reported.
 */
extern char tl_log[8192];
void tl_log_reset(void);
void tl_defaults(void);

#endif
