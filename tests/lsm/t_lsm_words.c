// SPDX-License-Identifier: MIT
/*
 * What the patching back end really wrote, read back from the code:
 *  - static-call trampolines: the instruction of each form (direct, RET0,
 *    NULL, indirect for a target out of reach) and the target it names;
 *  - hook slots' call sites: a direct call to the module's callback when
 *    it is in reach, else a call to the slot's trampoline, and calls reach
 *    the right function either way;
 *  - on aarch64 and riscv64, the write path chosen under an emulator.
 * Static-key sites are read back in t_key_semantics and t_write_fail.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sites.h"
#include "tap.h"
#include "test_lsm.h"

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end writes no code");
}
#else

#define SLOT0_KEY	(&tl_lsm_sealed.calls.file_open[0])
#define SLOT0_TRAMP	((uintptr_t)tl_lsm_sealed.table.file_open[0].trampoline)

static int near_a(int x) { return x + 1; }
void void_fn(int x);
void void_fn(int x) { (void)x; }

DEFINE_STATIC_CALL(wc, near_a);
DEFINE_STATIC_CALL_NULL(wc_null, void_fn);

static uintptr_t tramp_of(void *t) { return (uintptr_t)t; }

/*
 * Where the trampolines are words of one size: the branch of the direct
 * form, what RET0 returns through, and the landing pad every trampoline
 * starts with.
 */
#if defined(ULSM_ARCH_AARCH64)
#define TRAMP_BRANCH		"B"
#define TRAMP_RET0		"mov x0, #0; ret"
#define TRAMP_LANDING		0xd503245f
#define TRAMP_LANDING_NAME	"BTI c"
#elif defined(ULSM_ARCH_RISCV64)
#define TRAMP_BRANCH		"jal"
#define TRAMP_RET0		"li a0, 0; ret"
#define TRAMP_LANDING		0x00000017
#define TRAMP_LANDING_NAME	"lpad 0"
#endif

/* The trampoline's instruction: its target, or 0 for the indirect form. */
static uintptr_t tramp_target(uintptr_t t)
{
#if defined(ULSM_ARCH_AARCH64)
	uint32_t w = word_at(t + 4);

	if (w == A64_NOP)
		return 0;
	return (w & 0xfc000000u) == 0x14000000u ? a64_branch_target(w, t + 4) : 1;
#elif defined(ULSM_ARCH_RISCV64)
	uint32_t w = word_at(t + 4);

	if (w == RV_NOP)
		return 0;
	return (w & 0xfffu) == 0x06fu ? rv_jal_target(w, t + 4) : 1;
#else
	int32_t rel;

	if (*(const uint8_t *)t == 0xff)
		return 0;
	if (*(const uint8_t *)t == 0xc3)
		return t;	/* ret: "returns from the trampoline itself" */
	memcpy(&rel, (const void *)(t + 1), 4);
	return t + 5 + (uintptr_t)(intptr_t)rel;
#endif
}

static int far_from(uintptr_t a, uintptr_t b)
{
	uintptr_t d = a > b ? a - b : b - a;

	return d >= ((uintptr_t)1 << 27);	/* +-128 MiB, more than any reach */
}

/*
 * The recorded call sites of slot 0 of file_open: the labels just after
 * the calls (the call may be followed by a few register moves).
 */
static size_t slot0_sites(uintptr_t *out, size_t max)
{
	size_t k = 0;

	for (const struct ulsm_call_site *e = __start_ulsm_call_sites;
	     e < __stop_ulsm_call_sites; e++) {
		const void *const *kref = (const void *const *)rel_field(&e->kref);

		if (*kref == (const void *)SLOT0_KEY && k < max)
			out[k++] = rel_field(&e->ret);
	}
	return k;
}

static int all_call(const uintptr_t *s, size_t n, uintptr_t target)
{
	for (size_t i = 0; i < n; i++)
		if (!calls_before(s[i], target))
			return 0;
	return n > 0;
}

/*
 * A function that returns 42, placed at least 4 GiB away from @near
 * (out of reach of both B/BL and rel32): the far target of the tests.
 * Libraries may be in reach (qemu-user maps them next to the program).
 */
static void *far_fn(uintptr_t near)
{
#if defined(ULSM_ARCH_AARCH64)
	static const uint32_t code[] = {
		0xd503245f,	/* bti c */
		0x52800540,	/* mov w0, #42 */
		0xd65f03c0,	/* ret */
	};
#elif defined(ULSM_ARCH_RISCV64)
	static const uint32_t code[] = {
		0x00000017,	/* lpad 0 */
		0x02a00513,	/* li a0, 42 */
		0x00008067,	/* ret */
	};
#else
	static const uint8_t code[] = { 0xb8, 0x2a, 0, 0, 0, 0xc3 };
#endif
	for (uintptr_t d = (uintptr_t)8 << 30; d <= (uintptr_t)64 << 30; d <<= 1) {
		uintptr_t hint = (near + d) & ~(uintptr_t)0xfff;
		void *p = mmap((void *)hint, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			       -1, 0);

		if (p == MAP_FAILED)
			continue;
		memcpy(p, code, sizeof(code));
		if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
			return NULL;
		__builtin___clear_cache((char *)p, (char *)p + sizeof(code));
		return p;
	}
	return NULL;
}

static int file_open(void)
{
	struct t_file f = { NULL, 0 };

	return call_int_hook(file_open, &f);
}

static int ret_7(struct t_file *f)
{
	(void)f;
	return 7;
}

int main(void)
{
	uintptr_t t = tramp_of(STATIC_CALL_TRAMP_ADDR(wc)), sites[16], cb;
	void *far = far_fn(t);
	size_t n;

	/* Trampolines. */
	ok(tramp_target(t) == (uintptr_t)near_a,
	   "direct: the trampoline branches to near_a");
	is_int(static_call(wc)(1), 2, "  and calls it");
	is_int(static_call_update(wc, (void *)__static_call_return0), 0,
	       "update to RET0");
	is_int(static_call(wc)(1), 0, "  returns 0");
#ifdef TRAMP_LANDING
	ok(tramp_target(t) == t + 28, "  a %s to the trampoline's %s",
	   TRAMP_BRANCH, TRAMP_RET0);
	ok(tramp_target(tramp_of(STATIC_CALL_TRAMP_ADDR(wc_null))) ==
	   tramp_of(STATIC_CALL_TRAMP_ADDR(wc_null)) + 32,
	   "NULL: a %s to the trampoline's own ret", TRAMP_BRANCH);
	is_int(word_at(t), TRAMP_LANDING, "every trampoline starts with %s",
	       TRAMP_LANDING_NAME);
#endif
	ok(far && far_from((uintptr_t)far, t),
	   "a function 8 GiB or more away (%p)", far);
	if (!far)
		return done_testing();
	is_int(static_call_update(wc, far), 0, "update to the far function");
	is_int(static_call(wc)(1), 42, "  and calls it");
	ok(tramp_target(t) == 0, "  out of reach: the indirect form");
	is_int(ulsm_static_call_form(&STATIC_CALL_KEY(wc)),
	       ULSM_SC_FORM_INDIRECT, "  reported as indirect");
	is_int(static_call_update(wc, near_a), 0, "back to near_a");
	ok(tramp_target(t) == (uintptr_t)near_a, "  direct again");
	is_int(static_call(wc)(1), 2, "  and calls it");

	/* Call sites of a hook slot. */
#ifdef ULSM_LSM_HAS_ENTRIES
	/* x86-64: they are the hooks' entries' sites, read back by t_lsm_entry. */
	diag("hook slots' calls are in the hooks' entries here (t_lsm_entry)");
	(void)sites;
	(void)cb;
	(void)n;
	(void)file_open;
	(void)ret_7;
	return done_testing();
#endif
	tl_defaults();
	is_int(ulsm_lsm_init(&tl_hook_set, "alpha"), 0, "hook set up");
	cb = (uintptr_t)tl_lsm_sealed.table.file_open[0].hl->hook.lsm_callback;
	n = slot0_sites(sites, 16);
	ok(n >= 1, "slot 0 of file_open has recorded call sites (%zu)", n);
	ok(all_call(sites, n, cb), "  each holds a direct call to the callback");
	is_int(__static_call_update(SLOT0_KEY, (void *)SLOT0_TRAMP,
				    (void *)ret_7), 0, "retarget to ret_7");
	ok(all_call(sites, n, (uintptr_t)ret_7), "  each calls ret_7");
	is_int(file_open(), 7, "  file_open returns its value");
	is_int(__static_call_update(SLOT0_KEY, (void *)SLOT0_TRAMP, far), 0,
	       "retarget to the far function");
	ok(all_call(sites, n, SLOT0_TRAMP),
	   "  out of reach: each calls the slot's trampoline");
	is_int(file_open(), 42, "  file_open reaches the far function");
	is_int(__static_call_update(SLOT0_KEY, (void *)SLOT0_TRAMP,
				    (void *)cb), 0, "back to the callback");
	ok(all_call(sites, n, cb), "  direct calls again");
	return done_testing();
}
#endif
