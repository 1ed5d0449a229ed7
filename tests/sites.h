/* SPDX-License-Identifier: MIT */
/*
 * tests/sites.h - find the sites of a key in this executable's jump table,
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

#include "sys.h"		/* the library's fault injection (src/) */

extern void (*ulsm_test_step_hook)(int step);
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

static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

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

__attribute__((unused)) static int is_nop5(uintptr_t site)
{
	return !memcmp((const void *)site, nop5, 5);
}

__attribute__((unused)) static int is_jmp5(uintptr_t site)
{
	return *(const uint8_t *)site == 0xe9;
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
