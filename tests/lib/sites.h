/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/sites.h - find the sites of a key in this executable's jump table,
 * and declarations of the library's test hooks (reachable because tests
 * link the static library; they are hidden in the shared one).
 */
#ifndef ULSM_TESTS_SITES_H
#define ULSM_TESTS_SITES_H

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <ulsm/static_key.h>

#include "base/sys.h"	/* the library's fault injection (src/base/) */

extern void (*ulsm_test_step_hook)(int step);
extern void (*ulsm_test_write_hook)(uintptr_t addr);
int ulsm_trap_lookup(uintptr_t addr, uintptr_t *resume, uintptr_t *link);
enum { TRAP_NOT_OURS, TRAP_EMULATE, TRAP_REWIND };

/* Make the @n-th text write from now fail with @err (0: stop failing). */
__attribute__((unused))
static void fault_nth_write(unsigned long n, int err)
{
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	ulsm_fault.kinds = n ? (1u << ULSM_SYS_PWRITE) | (1u << ULSM_SYS_STORE) : 0;
	ulsm_fault.calls = 0;
	ulsm_fault.fail_to = 0;
	ulsm_fault.err = err;
	__atomic_store_n(&ulsm_fault.fail_from, n, __ATOMIC_SEQ_CST);
}

/*
 * What the back end writes, for tests that read the code back:
 * SITE_LEN        bytes of a static-branch site
 * WRITES_PER_SITE text writes that change one site in a batch
 * SYNCS_PER_BATCH core syncs of a batch
 * TRAMP_SIG       offset of a trampoline's signature (a byte that
 *                 update checks; changing it must give -EILSEQ)
 * BREAKPOINT_PROTOCOL  sites go through a breakpoint (and the test hook
 *                 runs between the steps), so "mid-patch" means something
 * OTHER_NOP       another encoding that does nothing, to tamper with a
 *                 NOP site
 */
#if defined(ULSM_ARCH_AARCH64)
# define SITE_LEN		4
# define WRITES_PER_SITE	1
# define SYNCS_PER_BATCH	1
# define TRAMP_SIG		36
# define BREAKPOINT_PROTOCOL	0
# define A64_NOP		0xd503201fu
static const uint8_t OTHER_NOP[4] = { 0xf1, 0x03, 0x11, 0xaa };	/* mov x17, x17 */
#elif defined(ULSM_ARCH_RISCV64)
# define SITE_LEN		4
# define WRITES_PER_SITE	1
# define SYNCS_PER_BATCH	1
# define TRAMP_SIG		36
# define BREAKPOINT_PROTOCOL	0
# define RV_NOP			0x00000013u
static const uint8_t OTHER_NOP[4] = { 0x93, 0x8f, 0x0f, 0x00 };	/* mv t6, t6 */
#else
# define SITE_LEN		5
# define WRITES_PER_SITE	3
# define SYNCS_PER_BATCH	2	/* none after step 3: late traps rewind */
# define TRAMP_SIG		8
# define BREAKPOINT_PROTOCOL	1
static const uint8_t OTHER_NOP[5] = { 0x66, 0x0f, 0x1f, 0x40, 0x00 };
#endif

static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* The instruction word at @addr (aarch64, riscv64). */
__attribute__((unused)) static uint32_t word_at(uintptr_t addr)
{
	uint32_t w;

	memcpy(&w, (const void *)addr, sizeof(w));
	return w;
}

/* The target of the aarch64 B or BL word @w at @pc. */
__attribute__((unused)) static uintptr_t a64_branch_target(uint32_t w,
							   uintptr_t pc)
{
	return pc + (uintptr_t)(((intptr_t)(int32_t)(w << 6) >> 6) * 4);
}

/* The target of the riscv64 JAL word @w at @pc (J-type immediate). */
__attribute__((unused)) static uintptr_t rv_jal_target(uint32_t w,
						       uintptr_t pc)
{
	uint32_t imm = ((w >> 31) & 1u) << 20 | ((w >> 21) & 0x3ffu) << 1 |
		       ((w >> 20) & 1u) << 11 | ((w >> 12) & 0xffu) << 12;

	return pc + (uintptr_t)(intptr_t)((int32_t)(imm << 11) >> 11);
}

static uintptr_t rel_field(const int32_t *f)
{
	return (uintptr_t)f + (intptr_t)*f;
}

/*
 * Addresses of the sites of @key, in table order, and their branch bits
 * (@branch may be NULL); returns the count. A site jumps when
 * (key enabled) ^ branch.
 */
__attribute__((unused))
static size_t find_sites(const void *key, uintptr_t *out, int *branch,
			 size_t max)
{
	size_t n = 0;

#ifdef ULSM_ARCH_GENERIC
	/* No jump table: sites are plain loads. */
	(void)key;
	(void)out;
	(void)branch;
	(void)max;
	(void)rel_field;
#else
	for (const struct ulsm_jump_entry *e = __start_ulsm_jump_table;
	     e < __stop_ulsm_jump_table; e++) {
		const void *const *kref = (const void *const *)rel_field(&e->kref);

		if (*kref == key && n < max) {
			if (branch)
				branch[n] = !!(e->flags & ULSM_JUMP_BRANCH);
			out[n++] = rel_field(&e->code);
		}
	}
#endif
	return n;
}

/*
 * The site holds the back end's NOP: x86 0f 1f 44 00 00, aarch64 NOP,
 * riscv64 addi x0, x0, 0.
 */
__attribute__((unused)) static int is_nop_site(uintptr_t site)
{
#if defined(ULSM_ARCH_AARCH64)
	return word_at(site) == A64_NOP;
#elif defined(ULSM_ARCH_RISCV64)
	return word_at(site) == RV_NOP;
#else
	return !memcmp((const void *)site, nop5, 5);
#endif
}

/*
 * The site holds a jump: x86 jmp rel32 (e9), aarch64 B (000101 imm26),
 * riscv64 jal x0.
 */
__attribute__((unused)) static int is_jump_site(uintptr_t site)
{
#if defined(ULSM_ARCH_AARCH64)
	return (word_at(site) & 0xfc000000u) == 0x14000000u;
#elif defined(ULSM_ARCH_RISCV64)
	return (word_at(site) & 0xfffu) == 0x06fu;
#else
	return *(const uint8_t *)site == 0xe9;
#endif
}

/*
 * Whether each of @n sites (find_sites()'s @out and @branch) holds what its
 * key being @on makes it: the jump where a likely site's key is off or an
 * unlikely site's on, else the NOP.
 */
__attribute__((unused))
static int sites_follow(const uintptr_t *sites, const int *branch, size_t n,
			int on)
{
	for (size_t i = 0; i < n; i++)
		if ((on ^ branch[i]) ? !is_jump_site(sites[i]) :
				       !is_nop_site(sites[i]))
			return 0;
	return 1;
}

/*
 * Whether @site holds a direct call to @target (x86 call rel32, BL;
 * riscv64 jal ra, or the jalr ra of an auipc ra / jalr ra pair).
 */
__attribute__((unused)) static int is_call_to(uintptr_t site, uintptr_t target)
{
#if defined(ULSM_ARCH_AARCH64)
	uint32_t w = word_at(site);

	return (w & 0xfc000000u) == 0x94000000u &&
	       a64_branch_target(w, site) == target;
#elif defined(ULSM_ARCH_RISCV64)
	uint32_t w = word_at(site), hi = word_at(site - 4);

	if ((w & 0xfffu) == 0x0efu)
		return rv_jal_target(w, site) == target;
	return (w & 0x000fffffu) == 0x000080e7u &&
	       (hi & 0xfffu) == 0x097u &&
	       site - 4 + (uintptr_t)(intptr_t)(int32_t)(hi & 0xfffff000u) +
	       (uintptr_t)(intptr_t)((int32_t)w >> 20) == target;
#else
	int32_t rel;

	memcpy(&rel, (const void *)(site + 1), 4);
	return *(const uint8_t *)site == 0xe8 &&
	       site + 5 + (uintptr_t)(intptr_t)rel == target;
#endif
}

/*
 * A direct call to @target ends at @label (a recorded call site) or a few
 * register moves before it (an instrumented build puts some there; the
 * library checked those at registration).
 */
__attribute__((unused))
static int calls_before(uintptr_t label, uintptr_t target)
{
#if defined(ULSM_ARCH_AARCH64)
	for (uintptr_t gap = 0; gap <= 3; gap++)
		if (is_call_to(label - 4 * (gap + 1), target))
			return 1;
#elif defined(ULSM_ARCH_RISCV64)
	/* moves of 2 (compressed) or 4 bytes, at most three */
	for (uintptr_t gap = 0; gap <= 12; gap += 2)
		if (is_call_to(label - gap - 4, target))
			return 1;
#else
	for (uintptr_t gap = 0; gap <= 12; gap++)
		if (is_call_to(label - gap - 5, target))
			return 1;
#endif
	return 0;
}

/* Write text behind the library's back, as a debugger or another JIT would. */
__attribute__((unused))
static int poke_text(uintptr_t addr, const void *bytes, size_t len)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pwrite(fd, bytes, len, (off_t)addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

#endif /* ULSM_TESTS_SITES_H */
