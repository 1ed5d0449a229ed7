// SPDX-License-Identifier: MIT
/*
 * What an update costs in system calls, per write method
 * (docs/patching-protocol.md, "Choosing the method by batch size"),
 * counted by the library itself: every call it makes goes through
 * src/base/sys.c and is numbered in ulsm_fault, with its kind (close,
 * getpid and gettid are not fault points, so not numbered).
 *
 *  - a warm 1-site flip through /proc/self/mem (procmem, and auto):
 *    sigaction (x86), open, a pwrite per protocol write and a membarrier
 *    per sync (x86: three and two), then close: eight in all; no read,
 *    no mprotect, no probe of the page (the first write is the probe);
 *  - through the windows: /proc/self/maps, two mprotect, no pwrite;
 *  - auto with a batch of 24 sites: the windows, one run of pages;
 *  - no /proc/self/mem descriptor is left open when an update returns
 *    (design rule: a writable view of the text lives for one batch), for
 *    every method, after a success and after a failure injected at each
 *    call the update makes.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "base/sys.h"
#include "maps.h"
#include "runtime.h"
#include "sites.h"
#include "tap.h"

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end writes no code");
}
#else

DEFINE_STATIC_KEY_FALSE(one);
DEFINE_STATIC_KEY_FALSE(many);

__attribute__((noinline)) static int one_site(void)
{
	return static_branch_unlikely(&one) ? 1 : 0;
}

/* 24 sites of @many, each in a function of its own, none alike. */
#define MANY(id)							\
	__attribute__((noinline, used)) static int many_##id(void)	\
	{								\
		return static_branch_unlikely(&many) ? 1##id : 0;	\
	}
#define MANY8(p) MANY(p##0) MANY(p##1) MANY(p##2) MANY(p##3)		\
		 MANY(p##4) MANY(p##5) MANY(p##6) MANY(p##7)
MANY8(1)
MANY8(2)
MANY8(3)

struct count {
	unsigned long n[ULSM_SYS_KINDS];
	unsigned long syscalls;		/* all but stores and allocations */
	char list[512];
};

static int flip(struct static_key_false *k)
{
	return static_key_enabled(k) ? static_branch_disable(k) :
				       static_branch_enable(k);
}

/* The library's calls in one flip of @k. */
static int count_flip(struct static_key_false *k, struct count *c)
{
	size_t at = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	ulsm_fault.kinds = 0;
	ulsm_fault.calls = 0;
	ret = flip(k);
	for (unsigned long i = 0; i < ulsm_fault.calls && i < ULSM_FAULT_LOG;
	     i++) {
		enum ulsm_sys kind = (enum ulsm_sys)ulsm_fault.log[i];

		c->n[kind]++;
		if (kind == ULSM_SYS_STORE || kind == ULSM_SYS_ALLOC)
			continue;
		c->syscalls++;
		at += (size_t)snprintf(c->list + at, sizeof(c->list) - at,
				       " %s", ulsm_sys_name(kind));
	}
	return ret;
}

/* A warm 1-site flip through /proc/self/mem, with @mode. */
static void check_procmem(enum ulsm_write_mode mode, const char *name)
{
	/* sigaction (x86), open, a pwrite per write, a sync per step */
	const unsigned long want = BREAKPOINT_PROTOCOL + 1 +
				   WRITES_PER_SITE + SYNCS_PER_BATCH;
	struct count c;

	ulsm_set_write_mode(mode);
	flip(&one);
	is_int(count_flip(&one, &c), 0, "%s: a 1-site flip", name);
	diag("  %s: %lu calls:%s close", name, c.syscalls, c.list);
	is_int(c.syscalls + 1, want + 1, "%s: %lu system calls, the close "
	       "included", name, want + 1);
	is_int(c.n[ULSM_SYS_OPEN], 1, "%s: /proc/self/mem opened for the batch",
	       name);
	is_int(c.n[ULSM_SYS_PWRITE], WRITES_PER_SITE,
	       "%s: one pwrite per protocol write, no probe", name);
	is_int(c.n[ULSM_SYS_MEMBARRIER], SYNCS_PER_BATCH,
	       "%s: one membarrier per step", name);
	ok(!c.n[ULSM_SYS_READ] && !c.n[ULSM_SYS_MPROTECT],
	   "%s: no read, no mprotect", name);
	is_int(one_site(), static_key_enabled(&one), "%s: the site follows", name);
}

/*
 * No /proc/self/mem descriptor outlives an update of @k with @mode: after
 * a success, and after a failure injected at each call N of the update
 * (only N fails; the update fails or copes, and returns).
 */
static void check_no_view(enum ulsm_write_mode mode, struct static_key_false *k,
			  const char *name)
{
	unsigned long calls, failed = 0, left = 0, first_left = 0;
	int before;

	ulsm_set_write_mode(mode);
	before = mem_fds();
	is_int(before, 0, "%s: no /proc/self/mem descriptor before", name);
	ulsm_fault.kinds = 0;
	ulsm_fault.calls = 0;
	is_int(flip(k), 0, "%s: a flip", name);
	calls = ulsm_fault.calls;
	is_int(mem_fds(), before, "%s: none left after it (%lu calls)", name,
	       calls);
	for (unsigned long n = 1; n <= calls; n++) {
		int ret;

		ulsm_fault.calls = 0;
		ulsm_fault.failed = 0;
		ulsm_fault.fail_to = 0;
		ulsm_fault.fail_from = n;
		ret = flip(k);
		ulsm_fault.fail_from = 0;
		failed += ret != 0;
		if (mem_fds() != before && !left++)
			first_left = n;
	}
	ok(failed > 0, "%s: %lu of %lu injected failures failed the update",
	   name, failed, calls);
	ok(!left, "%s: none left after any injected failure (%lu left one, "
	   "the first at call %lu)", name, left, first_left);
}

int main(void)
{
	struct count c;

	if (under_emulator())
		skip_all("under an emulator the writes are followed by "
			 "protection changes and signal rounds");
	if (ulsm_set_sync_mode(ULSM_SYNC_MEMBARRIER))
		skip_all("no membarrier SYNC_CORE here");

	check_procmem(ULSM_WRITE_PROCMEM, "procmem");
	check_procmem(ULSM_WRITE_AUTO, "auto");

	ulsm_set_write_mode(ULSM_WRITE_MPROTECT);
	flip(&one);
	is_int(count_flip(&one, &c), 0, "mprotect: a 1-site flip");
	diag("  mprotect: %lu calls:%s", c.syscalls, c.list);
	ok(c.n[ULSM_SYS_OPEN] == 1 && c.n[ULSM_SYS_READ] >= 1 &&
	   c.n[ULSM_SYS_MPROTECT] == 2 && !c.n[ULSM_SYS_PWRITE],
	   "mprotect: /proc/self/maps, one window opened and closed, no pwrite");
	is_int(c.n[ULSM_SYS_MEMBARRIER], SYNCS_PER_BATCH,
	       "mprotect: one membarrier per step");

	ulsm_set_write_mode(ULSM_WRITE_AUTO);
	is_int(count_flip(&many, &c), 0, "auto: a 24-site flip");
	diag("  auto, 24 sites: %lu calls:%s", c.syscalls, c.list);
	if (BREAKPOINT_PROTOCOL)
		ok(c.n[ULSM_SYS_MPROTECT] == 2 && !c.n[ULSM_SYS_PWRITE] &&
		   c.n[ULSM_SYS_STORE] == 24 * WRITES_PER_SITE,
		   "auto, 24 sites: windows (one run of pages), stores, no pwrite");
	else
		ok(!c.n[ULSM_SYS_MPROTECT] &&
		   c.n[ULSM_SYS_PWRITE] == 24 * WRITES_PER_SITE,
		   "auto, 24 sites: /proc/self/mem (no window on aarch64: BTI)");
	is_int(many_10(), 110, "  the sites follow");

	check_no_view(ULSM_WRITE_PROCMEM, &one, "procmem");
	check_no_view(ULSM_WRITE_MPROTECT, &one, "mprotect");
	check_no_view(ULSM_WRITE_AUTO, &one, "auto, 1 site");
	check_no_view(ULSM_WRITE_AUTO, &many, "auto, 24 sites");
	return done_testing();
}
#endif /* ULSM_ARCH_GENERIC */
