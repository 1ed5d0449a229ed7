// SPDX-License-Identifier: MIT
/*
 * The defining unit of the test set "tl", and its modules. Every callback
 * traces itself and returns what the test put in tl_ret.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ULSM_LSM_DEFINE
#define ULSM_LSM_BUILTIN_ORDER "alpha,beta,gamma"
#include "test_lsm.h"

const char *const tl_module_names[M_N] = {
	"capa", "alpha", "beta", "gamma", "delta", "omega", "offmod",
};
const struct lsm_id tl_ids[M_N] = {
	{ "capa", 100 }, { "alpha", 101 }, { "beta", 102 }, { "gamma", 103 },
	{ "delta", 104 }, { "omega", 105 }, { "offmod", 106 },
};
int tl_ret[M_N][tl_nhooks];
int tl_init_ret[M_N];
__thread char tl_trace[4096];	/* per thread: stress tests dispatch in many */

void tl_trace_reset(void)
{
	tl_trace[0] = '\0';
}

char tl_log[8192];

void tl_log_reset(void)
{
	tl_log[0] = '\0';
}

static void log_message(const char *msg, void *arg)
{
	size_t n = strlen(tl_log);

	(void)arg;
	snprintf(tl_log + n, sizeof(tl_log) - n, "%s\n", msg);
	printf("# ulsm: %s\n", msg);
	fflush(stdout);
}

/* ULSM_DEBUG asks for the library's own output, on standard error. */
__attribute__((constructor)) static void log_to_tap(void)
{
	if (!getenv("ULSM_DEBUG"))
		ulsm_set_log(log_message, NULL);
}

static void trace(int m, const char *hook)
{
	size_t n = strlen(tl_trace);

	snprintf(tl_trace + n, sizeof(tl_trace) - n, "%s%s:%s", n ? " " : "",
		 tl_module_names[m], hook);
}

void tl_defaults(void)
{
	for (int m = 0; m < M_N; m++) {
		tl_ret[m][tl_hook_idx_file_open] = tl_lsm_default_file_open;
		tl_ret[m][tl_hook_idx_file_alloc_security] = 0;
		tl_ret[m][tl_hook_idx_vm_enough_memory] = 1;
		tl_ret[m][tl_hook_idx_fs_context_parse_param] = -ENOPARAM;
		tl_ret[m][tl_hook_idx_secid_to_secctx] = -EOPNOTSUPP;
		tl_ret[m][tl_hook_idx_getprocattr] = -EINVAL;
		tl_ret[m][tl_hook_idx_setselfattr] = -EOPNOTSUPP;
		tl_ret[m][tl_hook_idx_getselfattr] = -EOPNOTSUPP;
		tl_ret[m][tl_hook_idx_odd_default] = 7;
		tl_ret[m][tl_hook_idx_noargs] = 0;
	}
}

/*
 * The hooks added after noargs: trace, and return tl_ret (0: the hook's
 * DEFAULT; yes_default returns false for any other value). Their
 * parameters are not looked at.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define ANSWER(mod, M, RET, HOOK, ...)					\
static RET mod##_##HOOK(__VA_ARGS__)					\
{									\
	trace(M, #HOOK);						\
	return tl_ret[M][tl_hook_idx_##HOOK] ?				\
	       (RET)tl_ret[M][tl_hook_idx_##HOOK] : tl_lsm_default_##HOOK; \
}

/* One set of callbacks per module, generated: M is the module index. */
#define CALLBACKS(mod, M)						\
static int mod##_file_open(struct t_file *f)				\
{ (void)f; trace(M, "file_open"); return tl_ret[M][tl_hook_idx_file_open]; } \
static int mod##_file_alloc(struct t_file *f)				\
{ (void)f; trace(M, "file_alloc_security");				\
  return tl_ret[M][tl_hook_idx_file_alloc_security]; }			\
static void mod##_file_free(struct t_file *f)				\
{ (void)f; trace(M, "file_free_security"); }				\
static void mod##_trace(int e)						\
{ (void)e; trace(M, "trace"); }						\
static int mod##_vm(long pages)						\
{ (void)pages; trace(M, "vm_enough_memory");				\
  return tl_ret[M][tl_hook_idx_vm_enough_memory]; }			\
static int mod##_param(const char *p)					\
{ (void)p; trace(M, "fs_context_parse_param");				\
  return tl_ret[M][tl_hook_idx_fs_context_parse_param]; }		\
static int mod##_secctx(uint32_t id, char *buf, size_t len)		\
{ trace(M, "secid_to_secctx");						\
  snprintf(buf, len, "%s:%u", tl_module_names[M], id);			\
  return tl_ret[M][tl_hook_idx_secid_to_secctx]; }			\
static int mod##_getprocattr(const char *name, char *buf, size_t len)	\
{ trace(M, "getprocattr");						\
  snprintf(buf, len, "%s.%s", tl_module_names[M], name);		\
  return tl_ret[M][tl_hook_idx_getprocattr]; }				\
static int mod##_setselfattr(const char *v)				\
{ (void)v; trace(M, "setselfattr");					\
  return tl_ret[M][tl_hook_idx_setselfattr]; }				\
static int mod##_getselfattr(char *buf, size_t len)			\
{ trace(M, "getselfattr");						\
  snprintf(buf, len, "%s", tl_module_names[M]);				\
  return tl_ret[M][tl_hook_idx_getselfattr]; }				\
static int mod##_odd(int x)						\
{ (void)x; trace(M, "odd_default"); return tl_ret[M][tl_hook_idx_odd_default]; } \
static int mod##_noargs(void)						\
{ trace(M, "noargs"); return tl_ret[M][tl_hook_idx_noargs]; }		\
ANSWER(mod, M, long, long_result, long x)				\
ANSWER(mod, M, uint64_t, big_default, int x)				\
ANSWER(mod, M, unsigned, all_ones, int x)				\
static bool mod##_yes_default(int x)					\
{ (void)x; trace(M, "yes_default");					\
  return !tl_ret[M][tl_hook_idx_yes_default]; }				\
ANSWER(mod, M, int, seven_args, int a, int b, int c, int d, int e,	\
       int f, int g)							\
ANSWER(mod, M, int, scaled, double factor)				\
static struct tl_hook_list mod##_hooks[] = {				\
	LSM_HOOK_INIT(file_open, mod##_file_open),			\
	LSM_HOOK_INIT(file_alloc_security, mod##_file_alloc),		\
	LSM_HOOK_INIT(file_free_security, mod##_file_free),		\
	LSM_HOOK_INIT(trace, mod##_trace),				\
	LSM_HOOK_INIT(vm_enough_memory, mod##_vm),			\
	LSM_HOOK_INIT(fs_context_parse_param, mod##_param),		\
	LSM_HOOK_INIT(secid_to_secctx, mod##_secctx),			\
	LSM_HOOK_INIT(getprocattr, mod##_getprocattr),			\
	LSM_HOOK_INIT(setselfattr, mod##_setselfattr),			\
	LSM_HOOK_INIT(getselfattr, mod##_getselfattr),			\
	LSM_HOOK_INIT(odd_default, mod##_odd),				\
	LSM_HOOK_INIT(noargs, mod##_noargs),				\
	LSM_HOOK_INIT(long_result, mod##_long_result),			\
	LSM_HOOK_INIT(big_default, mod##_big_default),			\
	LSM_HOOK_INIT(all_ones, mod##_all_ones),			\
	LSM_HOOK_INIT(yes_default, mod##_yes_default),			\
	LSM_HOOK_INIT(seven_args, mod##_seven_args),			\
	LSM_HOOK_INIT(scaled, mod##_scaled),				\
};									\
static int mod##_init(void)						\
{									\
	if (tl_init_ret[M])						\
		return tl_init_ret[M];					\
	return security_add_hooks(mod##_hooks,				\
		(int)(sizeof(mod##_hooks) / sizeof(mod##_hooks[0])),	\
		&tl_ids[M]);						\
}

CALLBACKS(capa, M_CAPA)
CALLBACKS(alpha, M_ALPHA)
CALLBACKS(beta, M_BETA)
CALLBACKS(gamma, M_GAMMA)
CALLBACKS(delta, M_DELTA)
CALLBACKS(omega, M_OMEGA)
CALLBACKS(offmod, M_OFF)

struct lsm_blob_sizes tl_blobs_alpha = { .lbs_cred = 8, .lbs_file = 16 };
struct lsm_blob_sizes tl_blobs_beta = { .lbs_file = 4 };
static int off_enabled;

DEFINE_LSM(capa) = {
	.name = "capa", .order = LSM_ORDER_FIRST, .init = capa_init,
	.id = &tl_ids[M_CAPA],
};
DEFINE_LSM(alpha) = {
	.name = "alpha", .init = alpha_init, .blobs = &tl_blobs_alpha,
	.id = &tl_ids[M_ALPHA],
};
DEFINE_LSM(beta) = {
	.name = "beta", .init = beta_init, .blobs = &tl_blobs_beta,
	.id = &tl_ids[M_BETA],
};
DEFINE_LSM(gamma) = {
	.name = "gamma", .flags = LSM_FLAG_EXCLUSIVE, .init = gamma_init,
	.id = &tl_ids[M_GAMMA],
};
DEFINE_LSM(delta) = {
	.name = "delta", .flags = LSM_FLAG_EXCLUSIVE, .init = delta_init,
	.id = &tl_ids[M_DELTA],
};
DEFINE_LSM(omega) = {
	.name = "omega", .order = LSM_ORDER_LAST, .init = omega_init,
	.id = &tl_ids[M_OMEGA],
};
DEFINE_LSM(offmod) = {
	.name = "offmod", .enabled = &off_enabled, .init = offmod_init,
	.id = &tl_ids[M_OFF],
};
