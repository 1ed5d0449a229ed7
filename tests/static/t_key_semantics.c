// SPDX-License-Identifier: MIT
/*
 * The kernel's static-key semantics, one by one: true and false keys,
 * likely and unlikely sites, before and after enable, disable, inc and dec,
 * and the errors ulsm returns where the kernel would WARN. Built twice, as
 * a PIE and as a non-PIE executable.
 *
 * Each site sits in its own noinline function, so what is checked is the
 * code that runs, and on a patching back end the instruction at the site is
 * checked too (NOP or JMP).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "sites.h"
#include "tap.h"

DEFINE_STATIC_KEY_TRUE(key_t1);
DEFINE_STATIC_KEY_FALSE(key_f1);
static DEFINE_STATIC_KEY_FALSE(key_static);	/* internal linkage */
DEFINE_STATIC_KEY_FALSE(key_unused);		/* no site at all */

struct holder {
	int before;
	struct static_key_false member;		/* a key inside a struct */
};
static struct holder holder = { 7, STATIC_KEY_FALSE_INIT };

#define SITE_FN(name, how, key)						\
	__attribute__((noinline)) static int name(void)			\
	{								\
		if (how(key))						\
			return 1;					\
		return 0;						\
	}

SITE_FN(t_likely, static_branch_likely, &key_t1)
SITE_FN(t_unlikely, static_branch_unlikely, &key_t1)
SITE_FN(f_likely, static_branch_likely, &key_f1)
SITE_FN(f_unlikely, static_branch_unlikely, &key_f1)
SITE_FN(s_unlikely, static_branch_unlikely, &key_static)
SITE_FN(m_unlikely, static_branch_unlikely, &holder.member)

/* All four site kinds of key_t1 / key_f1 agree with the key. */
static void check_all(const char *when, int t, int f)
{
	is_int(t_likely(), t, "%s: likely(true key) == %d", when, t);
	is_int(t_unlikely(), t, "%s: unlikely(true key) == %d", when, t);
	is_int(f_likely(), f, "%s: likely(false key) == %d", when, f);
	is_int(f_unlikely(), f, "%s: unlikely(false key) == %d", when, f);
	is_int(static_key_enabled(&key_t1), t, "%s: static_key_enabled(true key)", when);
	is_int(static_key_enabled(&key_f1), f, "%s: static_key_enabled(false key)", when);
}

/* An update: its result, then every site of both keys (check_all()). */
static void step(int ret, int want, const char *what, int t, int f)
{
	is_int(ret, want, "%s", what);
	check_all(what, t, f);
}

#if defined(ULSM_ARCH_AARCH64) || defined(ULSM_ARCH_RISCV64)
/* The target that this program's jump table records for the site at @u. */
static uintptr_t table_target(uintptr_t u)
{
	const struct ulsm_jump_entry *e;

	for (e = __start_ulsm_jump_table; e < __stop_ulsm_jump_table; e++)
		if ((uintptr_t)&e->code + (intptr_t)e->code == u)
			return (uintptr_t)&e->target + (intptr_t)e->target;
	return 0;
}
#endif

int main(void)
{
	struct ulsm_stats st0, st1;

	diag("back end %s", ulsm_backend());

	/* Initial state: TRUE keys start enabled with count 1. */
	check_all("initially", 1, 0);
	is_int(static_key_count(&key_t1), 1, "true key starts with count 1");
	is_int(static_key_count(&key_f1), 0, "false key starts with count 0");

	/* enable / disable are boolean. */
	ulsm_get_stats(&st0);
	step(static_branch_enable(&key_f1), 0, "enable false key", 1, 1);
	ulsm_get_stats(&st1);
	if (!strcmp(ulsm_backend(), "generic")) {
		is_int(st1.batches - st0.batches, 0, "generic: no batch");
	} else {
		is_int(st1.batches - st0.batches, 1, "one batch for one key");
		is_int(st1.sites_patched - st0.sites_patched, 2,
		       "both sites of the key patched");
		is_int(st1.core_syncs - st0.core_syncs, SYNCS_PER_BATCH,
		       "%d core sync(s) per batch", SYNCS_PER_BATCH);
	}
	is_int(static_branch_enable(&key_f1), 0, "enable again: no-op");
	is_int(static_key_count(&key_f1), 1, "count stays 1 after second enable");
	step(static_branch_disable(&key_t1), 0, "disable true key", 0, 1);
	is_int(static_branch_disable(&key_t1), 0, "disable again: no-op");
	step(static_branch_disable(&key_f1), 0, "disable false key", 0, 0);
	step(static_branch_enable(&key_t1), 0, "re-enable true key", 1, 0);

	/* inc / dec count references; only 0 <-> 1 changes code. */
	ulsm_get_stats(&st0);
	is_int(static_branch_inc(&key_f1), 0, "inc 0 -> 1");
	is_int(static_branch_inc(&key_f1), 0, "inc 1 -> 2");
	is_int(static_key_count(&key_f1), 2, "count is 2");
	check_all("count 2", 1, 1);
	step(static_branch_disable(&key_f1), -EBUSY,
	     "disable of a counted key (count 2) is refused", 1, 1);
	step(static_branch_dec(&key_f1), 0, "dec 2 -> 1", 1, 1);
	step(static_branch_dec(&key_f1), 0, "dec 1 -> 0", 1, 0);
	ulsm_get_stats(&st1);
	if (strcmp(ulsm_backend(), "generic"))
		is_int(st1.batches - st0.batches, 2,
		       "only the 0->1 and 1->0 transitions patch");
	is_int(static_branch_dec(&key_f1), -EINVAL, "unbalanced dec refused");
	ok(strstr(ulsm_last_error(), "unbalanced") != NULL,
	   "and explained: \"%s\"", ulsm_last_error());
	is_int(static_key_count(&key_f1), 0, "count still 0 after refused dec");
	check_all("after refused dec", 1, 0);

	/* The true key also counts from its initial 1. */
	is_int(static_branch_inc(&key_t1), 0, "inc true key 1 -> 2");
	step(static_branch_dec(&key_t1), 0, "dec true key 2 -> 1", 1, 0);
	step(static_branch_dec(&key_t1), 0, "dec true key 1 -> 0", 0, 0);
	is_int(static_branch_inc(&key_t1), 0, "inc true key 0 -> 1");

	/* Keys with internal linkage and keys inside structures. */
	is_int(s_unlikely(), 0, "static key: off");
	is_int(static_branch_enable(&key_static), 0, "static key: enable");
	is_int(s_unlikely(), 1, "static key: on");
	is_int(m_unlikely(), 0, "member key: off");
	is_int(static_branch_enable(&holder.member), 0, "member key: enable");
	is_int(m_unlikely(), 1, "member key: on");
	is_int(holder.before, 7, "neighbouring member untouched");

	/* A key without sites still counts. */
	is_int(static_branch_enable(&key_unused), 0, "key with no site: enable");
	ok(static_key_enabled(&key_unused), "key with no site: enabled");

	/* Bad input. */
	is_int(static_branch_enable((struct static_key_false *)NULL), -EINVAL,
	       "NULL key: enable -> -EINVAL");
	is_int(static_branch_inc((struct static_key_true *)NULL), -EINVAL,
	       "NULL key: inc -> -EINVAL");
	is_int(static_key_disable((struct static_key *)NULL), -EINVAL,
	       "NULL key: disable -> -EINVAL");
	{
		struct static_key bogus = { -5, 0 };

		is_int(static_key_enable(&bogus), -EINVAL,
		       "negative count -> -EINVAL");
		is_int(bogus.enabled, -5, "and the key is left alone");
	}
	is_int(ulsm_set_sync_mode((enum ulsm_sync_mode)42), -EINVAL,
	       "unknown sync mode -> -EINVAL");
	is_int(ulsm_set_write_mode((enum ulsm_write_mode)42), -EINVAL,
	       "unknown write mode -> -EINVAL");

	/*
	 * The patched code really is a NOP or a jump (x86: the 5-byte NOP or
	 * jmp rel32; aarch64: NOP or B to the site's target; riscv64: NOP or
	 * jal x0 to it), read back.
	 */
	if (strcmp(ulsm_backend(), "generic")) {
		uintptr_t sites[2];
		int branch[2];
		size_t n = find_sites(&key_f1, sites, branch, 2);
		uintptr_t u = n == 2 ? sites[branch[0] ? 1 : 0] : 0;

		ok(n == 2 && branch[0] != branch[1],
		   "key_f1 has a likely and an unlikely site");
		ok(u && is_nop_site(u), "disabled unlikely site is the NOP");
		static_branch_enable(&key_f1);
		ok(u && is_jump_site(u), "enabled unlikely site is a jump");
#ifdef ULSM_ARCH_AARCH64
		{
			uintptr_t target = table_target(u);

			ok(target && a64_branch_target(word_at(u), u) == target,
			   "  a B to the site's own target (%#lx)",
			   (unsigned long)target);
		}
#endif
#ifdef ULSM_ARCH_RISCV64
		{
			uintptr_t target = table_target(u);

			ok(target && rv_jal_target(word_at(u), u) == target,
			   "  a jal x0 to the site's own target (%#lx)",
			   (unsigned long)target);
			ok(!(u & 3), "  aligned to 4: one naturally aligned word");
		}
#endif
		static_branch_disable(&key_f1);
		ok(u && is_nop_site(u), "disabled again: NOP");
	}
	return done_testing();
}
