// SPDX-License-Identifier: MIT
/*
 * Dispatch semantics with three modules in slots 0..2 (capa, alpha, beta):
 * per-hook defaults, the early stop of call_int_hook, the order of
 * call_void_hook, each special rule the kernel has (written here with
 * lsm_for_each_hook as security.c writes them), slot owners, blob offsets
 * and the allocation rollback.
 */
#include <stdio.h>

#include "tap.h"
#include "test_lsm.h"
#include "tl_dispatch.h"

#define RET(m, hook)	tl_ret[m][tl_hook_idx_##hook]

/* security_vm_enough_memory_mm: every module must agree. */
static int vm_enough_memory(long pages)
{
	struct lsm_static_call *scall;
	int cap_sys_admin = 1;

	lsm_for_each_hook(scall, vm_enough_memory) {
		if (lsm_hook_fn(scall, vm_enough_memory)(pages) <= 0) {
			cap_sys_admin = 0;
			break;
		}
	}
	return cap_sys_admin;
}

/* security_fs_context_parse_param: consume, or pass to the next. */
static int parse_param(const char *param)
{
	struct lsm_static_call *scall;
	int trc, rc = -ENOPARAM;

	lsm_for_each_hook(scall, fs_context_parse_param) {
		trc = lsm_hook_fn(scall, fs_context_parse_param)(param);
		if (trc == 0)
			rc = 0;
		else if (trc != -ENOPARAM)
			return trc;
	}
	return rc;
}

/* security_getprocattr / setselfattr: the module with this id only. */
static int getprocattr(uint64_t id, const char *name, char *buf, size_t len)
{
	struct lsm_static_call *scall;

	lsm_for_each_hook(scall, getprocattr) {
		if (id != 0 && scall->hl->lsmid->id != id)
			continue;
		return lsm_hook_fn(scall, getprocattr)(name, buf, len);
	}
	return tl_lsm_default_getprocattr;
}

static int setselfattr(uint64_t id, const char *value)
{
	struct lsm_static_call *scall;

	lsm_for_each_hook(scall, setselfattr) {
		if (scall->hl->lsmid->id == id)
			return lsm_hook_fn(scall, setselfattr)(value);
	}
	return tl_lsm_default_setselfattr;
}

/* security_getselfattr: collect every module's answer. */
static int getselfattr(char *out, size_t len)
{
	struct lsm_static_call *scall;
	int count = 0;

	out[0] = '\0';
	lsm_for_each_hook(scall, getselfattr) {
		char one[32];
		size_t n = strlen(out);

		if (lsm_hook_fn(scall, getselfattr)(one, sizeof(one)))
			continue;
		snprintf(out + n, len - n, "%s%s", count ? "," : "", one);
		count++;
	}
	return count;
}

/*
 * seven_args dispatched: its result, then the modules that ran (tl_trace),
 * each with its own description.
 */
static void seven_args_is(int want, const char *what, const char *ran,
			  const char *ran_what)
{
	tl_trace_reset();
	is_int(call_int_hook(seven_args, 1, 2, 3, 4, 5, 6, 7), want, "%s", what);
	ok(!strcmp(tl_trace, ran), "%s: %s", ran_what, tl_trace);
}

/* security_file_alloc: blob, alloc hooks, and on failure every free hook. */
static int file_alloc(struct t_file *f)
{
	return lsm_alloc_blob_hooks(ULSM_BLOB_FILE, &f->security,
				    file_alloc_security, file_free_security, f);
}

int main(void)
{
	struct t_file f = { NULL, 1 };
	char buf[64];

	tl_defaults();
	is_int(ulsm_lsm_init(&tl_hook_set, "alpha,beta,!omega"), 0, "init");
	ok(!strcmp(ulsm_lsm_list(&tl_hook_set), "capa,alpha,beta"), "modules: %s",
	   ulsm_lsm_list(&tl_hook_set));

	/* call_int_hook: defaults and the early stop. */
	file_open_is(0, "all return the default: default",
		     "capa:file_open alpha:file_open beta:file_open",
		     "  and all three ran, in order");
	RET(M_ALPHA, file_open) = -EACCES;
	file_open_is(-EACCES, "alpha denies: -EACCES",
		     "capa:file_open alpha:file_open", "  beta was not called");
	RET(M_CAPA, file_open) = -EPERM;
	file_open_is(-EPERM, "capa denies first: -EPERM", "capa:file_open",
		     "  nobody else ran");
	RET(M_CAPA, file_open) = RET(M_ALPHA, file_open) = 0;

	tl_trace_reset();
	is_int(call_int_hook(odd_default, 1), 7, "a hook whose default is 7");
	ok(!strcmp(tl_trace, "capa:odd_default alpha:odd_default beta:odd_default"),
	   "  7 from everyone means walk on: %s", tl_trace);
	RET(M_ALPHA, odd_default) = 0;
	tl_trace_reset();
	is_int(call_int_hook(odd_default, 1), 0, "  0 differs from 7: stop at alpha");
	ok(!strcmp(tl_trace, "capa:odd_default alpha:odd_default"), "  %s", tl_trace);
	tl_trace_reset();
	is_int(call_int_hook(noargs), 0, "a hook without arguments");
	ok(!strcmp(tl_trace, "capa:noargs alpha:noargs beta:noargs"), "  %s", tl_trace);

	/* Other return types and defaults (each entry encodes its own). */
	tl_trace_reset();
	ok(call_int_hook(long_result, 1L) == -EOPNOTSUPP &&
	   !strcmp(tl_trace, "capa:long_result alpha:long_result beta:long_result"),
	   "long hook, default -EOPNOTSUPP: all ran, default (%s)", tl_trace);
	RET(M_ALPHA, long_result) = -2;
	tl_trace_reset();
	ok(call_int_hook(long_result, 1L) == -2L &&
	   !strcmp(tl_trace, "capa:long_result alpha:long_result"),
	   "  alpha returns -2: stop there (%s)", tl_trace);
	tl_trace_reset();
	ok(call_int_hook(big_default, 1) == 4294967296ULL &&
	   !strcmp(tl_trace, "capa:big_default alpha:big_default beta:big_default"),
	   "uint64_t hook, default 2^32: all ran, default (%s)", tl_trace);
	RET(M_BETA, big_default) = 9;
	ok(call_int_hook(big_default, 1) == 9, "  beta returns 9: 9");
	RET(M_CAPA, big_default) = -1;
	tl_trace_reset();
	ok(call_int_hook(big_default, 1) == ~0ULL &&
	   !strcmp(tl_trace, "capa:big_default"),
	   "  capa returns 2^64 - 1: stop at capa (%s)", tl_trace);
	ok(call_int_hook(all_ones, 1) == 4294967295U,
	   "unsigned hook, default 2^32 - 1: default");
	RET(M_ALPHA, all_ones) = 5;
	ok(call_int_hook(all_ones, 1) == 5, "  alpha returns 5: 5");
	tl_trace_reset();
	ok(call_int_hook(yes_default, 1) == true &&
	   !strcmp(tl_trace, "capa:yes_default alpha:yes_default beta:yes_default"),
	   "bool hook, default true: all ran, true (%s)", tl_trace);
	RET(M_ALPHA, yes_default) = 1;
	tl_trace_reset();
	ok(call_int_hook(yes_default, 1) == false &&
	   !strcmp(tl_trace, "capa:yes_default alpha:yes_default"),
	   "  alpha says false: stop there (%s)", tl_trace);

	/* Hooks the unrolled C walk dispatches: the same rules. */
	ok(!tl_lsm_has_entry_seven_args && !tl_lsm_has_entry_scaled,
	   "seven parameters, or a double: no entry, the C walk");
#ifdef ULSM_LSM_HAS_ENTRIES
	ok(tl_lsm_has_entry_file_open && tl_lsm_has_entry_noargs,
	   "the other hooks have entries");
#else
	ok(!tl_lsm_has_entry_file_open, "no entries on this back end");
#endif
	seven_args_is(0, "seven_args: default",
		      "capa:seven_args alpha:seven_args beta:seven_args",
		      "  all ran");
	RET(M_ALPHA, seven_args) = 3;
	seven_args_is(3, "  alpha returns 3: 3",
		      "capa:seven_args alpha:seven_args", "  and beta did not run");
	RET(M_BETA, scaled) = 4;
	tl_trace_reset();
	is_int(call_int_hook(scaled, 0.5), 4, "scaled (double): beta returns 4");
	ok(!strcmp(tl_trace, "capa:scaled alpha:scaled beta:scaled"),
	   "  after capa and alpha: %s", tl_trace);

	/* call_void_hook: every slot, in order. */
	tl_trace_reset();
	call_void_hook(trace, 42);
	ok(!strcmp(tl_trace, "capa:trace alpha:trace beta:trace"),
	   "call_void_hook runs every module in order: %s", tl_trace);

	/* The special rules. */
	is_int(vm_enough_memory(10), 1, "vm_enough_memory: all agree -> 1");
	RET(M_ALPHA, vm_enough_memory) = 0;
	tl_trace_reset();
	is_int(vm_enough_memory(10), 0, "  alpha disagrees -> 0");
	ok(!strstr(tl_trace, "beta"), "  and beta is not asked: %s", tl_trace);

	is_int(parse_param("x"), -ENOPARAM, "parse_param: nobody consumes -> -ENOPARAM");
	RET(M_CAPA, fs_context_parse_param) = 0;
	tl_trace_reset();
	is_int(parse_param("x"), 0, "  capa consumes -> 0");
	ok(strstr(tl_trace, "beta:fs_context_parse_param") != NULL,
	   "  and the others still see it: %s", tl_trace);
	RET(M_ALPHA, fs_context_parse_param) = -EINVAL;
	is_int(parse_param("x"), -EINVAL, "  alpha rejects -> -EINVAL at once");

	tl_trace_reset();
	is_int(call_int_hook(secid_to_secctx, 5, buf, sizeof(buf)), -EOPNOTSUPP,
	       "secid_to_secctx: no provider -> -EOPNOTSUPP");
	RET(M_ALPHA, secid_to_secctx) = 0;
	RET(M_BETA, secid_to_secctx) = 0;
	tl_trace_reset();
	is_int(call_int_hook(secid_to_secctx, 5, buf, sizeof(buf)), 0,
	       "  alpha and beta provide: 0");
	ok(!strcmp(buf, "alpha:5") && !strstr(tl_trace, "beta"),
	   "  the first provider only: %s (%s)", buf, tl_trace);

	RET(M_BETA, getprocattr) = 3;
	is_int(getprocattr(tl_ids[M_BETA].id, "current", buf, sizeof(buf)), 3,
	       "getprocattr by id: beta's answer");
	ok(!strcmp(buf, "beta.current"), "  from beta: %s", buf);
	is_int(getprocattr(999, "current", buf, sizeof(buf)), -EINVAL,
	       "  an unknown id -> the default");
	RET(M_ALPHA, setselfattr) = 0;
	is_int(setselfattr(tl_ids[M_ALPHA].id, "v"), 0, "setselfattr by id: alpha");
	is_int(setselfattr(tl_ids[M_BETA].id, "v"), -EOPNOTSUPP, "  beta declines");

	RET(M_CAPA, getselfattr) = RET(M_BETA, getselfattr) = 0;
	is_int(getselfattr(buf, sizeof(buf)), 2, "getselfattr collects from all");
	ok(!strcmp(buf, "capa,beta"), "  %s", buf);

	/* Which module sits where. */
	{
		const struct lsm_id *a = ulsm_lsm_slot_owner(&tl_hook_set, "trace", 0);
		const struct lsm_id *b = ulsm_lsm_slot_owner(&tl_hook_set, "trace", 1);
		const struct lsm_id *c = ulsm_lsm_slot_owner(&tl_hook_set, "trace", 2);

		ok(a && b && c && a->id == 100 && b->id == 101 && c->id == 102,
		   "slot owners of trace: capa, alpha, beta");
		ok(!ulsm_lsm_slot_owner(&tl_hook_set, "trace", 3), "no slot 3");
		ok(!ulsm_lsm_slot_owner(&tl_hook_set, "nosuch", 0), "no such hook");
	}

	/* Blobs: sizes became offsets, aligned to pointers. */
	is_int(tl_blobs_alpha.lbs_file, 0, "alpha's file blob at offset 0");
	is_int(tl_blobs_beta.lbs_file, 16, "beta's file blob at offset 16");
	is_int(ulsm_lsm_blob_size(&tl_hook_set, ULSM_BLOB_FILE), 20, "file blob: 20 bytes");
	is_int(tl_blobs_alpha.lbs_cred, 0, "alpha's cred blob at offset 0");
	is_int(ulsm_lsm_blob_size(&tl_hook_set, ULSM_BLOB_CRED), 8, "cred blob: 8 bytes");
	is_int(ulsm_lsm_blob_size(&tl_hook_set, ULSM_BLOB_TASK), 0, "no task blob");
	is_int(ulsm_lsm_blob_size(&tl_hook_set, (enum ulsm_blob_type)9), -EINVAL,
	       "bad blob type -> -EINVAL");

	is_int(file_alloc(&f), 0, "file_alloc: every module agrees");
	ok(f.security != NULL, "  the blob is there");
	tl_trace_reset();
	lsm_free_blob_hooks(&f.security, file_free_security, &f);
	ok(f.security == NULL && strstr(tl_trace, "beta:file_free_security"),
	   "  freed, after every free hook: %s", tl_trace);
	RET(M_BETA, file_alloc_security) = -ENOMEM;
	tl_trace_reset();
	is_int(file_alloc(&f), -ENOMEM, "file_alloc: beta fails -> -ENOMEM");
	ok(strstr(tl_trace, "capa:file_free_security alpha:file_free_security "
			    "beta:file_free_security") != NULL,
	   "  every free hook ran: %s", tl_trace);
	ok(f.security == NULL, "  and the blob is gone");

	/* Bad registrations. */
	{
		static const struct lsm_id bogus_id = { "bogus", 9 };
		struct tl_hook_list bogus[] = { LSM_HOOK_INIT(trace, NULL) };

		is_int(security_add_hooks(bogus, 1, &bogus_id), -EINVAL,
		       "a hook without a callback -> -EINVAL");
		bogus[0].scalls = (struct lsm_static_call *)&f;
		is_int(security_add_hooks(bogus, 1, &bogus_id), -EINVAL,
		       "a hook outside the set -> -EINVAL");
		is_int(security_add_hooks(bogus, 1, NULL), -EINVAL,
		       "no lsm_id -> -EINVAL");
	}
	return done_testing();
}
