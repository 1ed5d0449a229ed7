// SPDX-License-Identifier: MIT
/*
 * Every stage's writes are followed by its core sync (docs/patching-
 * protocol.md, "One transaction" and "The riscv64 contract"), read from
 * what the library did, in order: its own numbered log of the system
 * calls it makes (src/base/sys.h) and its test hook after each write of
 * text, whose address says which stage the write belongs to.
 *
 * An emulator cannot show a missing sync: qemu-user drops its
 * translations of a page on every store to it, so code runs new without
 * any sync, and every other test passes. This one fails instead when a
 * run of writes of one stage is not followed by a sync before the writes
 * of another stage or before the update returns, or when a stage has not
 * exactly the syncs of its protocol (x86-64: two, after steps 1 and 2,
 * none after the first bytes of step 3; aarch64 and riscv64: one). The sync is the method's call: membarrier, a signal round (its
 * start: the lseek that rewinds /proc/self/task, since a round signals
 * no thread in a process of one), or the back end's fetch sync (riscv64:
 * riscv_flush_icache, which a forced signal round also makes first
 * there).
 *
 * One update of three stages (a key turned off, a call retargeted, a key
 * turned on), and back, in each sync method that works here; then the
 * same update with the sync of its last stage failed, whose undo must
 * follow the rule as well, and leave everything as it was.
 */
#include <errno.h>
#include <string.h>

#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>
#include <ulsm/update.h>

#include "runtime.h"
#include "sites.h"
#include "tap.h"

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end writes no code and syncs no core");
}
#else

static int one(int x) { return x + 1; }
static int two(int x) { return x + 2; }

DEFINE_STATIC_KEY_TRUE(closing);	/* turned off: stage 1 */
DEFINE_STATIC_KEY_FALSE(opening);	/* turned on: stage 3 */
DEFINE_STATIC_CALL(sc, one);		/* retargeted: stage 2 */

__attribute__((noinline)) static int run_closing(void)
{
	return static_branch_likely(&closing) ? 1 : 0;
}

__attribute__((noinline)) static int run_opening(void)
{
	return static_branch_unlikely(&opening) ? 1 : 0;
}

__attribute__((noinline)) static int run_call(int x)
{
	return static_call_inline(sc, x);
}

enum { STAGES = 3 };
static const char *const stage_name[STAGES] = {
	"stage 1 (keys turned off)", "stage 2 (targets)",
	"stage 3 (keys turned on)",
};

/* Where each stage writes: [lo, hi) ranges. */
struct range {
	uintptr_t lo, hi;
	int stage;
};
static struct range ranges[16];
static size_t nranges;

static void add_range(uintptr_t lo, uintptr_t hi, int stage)
{
	if (nranges < sizeof(ranges) / sizeof(ranges[0]))
		ranges[nranges++] = (struct range){ lo, hi, stage };
}

static int stage_of(uintptr_t addr)
{
	for (size_t i = 0; i < nranges; i++)
		if (addr >= ranges[i].lo && addr < ranges[i].hi)
			return ranges[i].stage;
	return -1;
}

/* The writes of text, by the number of the library's call they follow. */
struct write {
	unsigned long pos;
	uintptr_t addr;
};
static struct write writes[256];
static size_t nwrites;
static int fail_stage = -1;	/* fail the call after its first write */

static void on_write(uintptr_t addr)
{
	unsigned long pos = __atomic_load_n(&ulsm_fault.calls, __ATOMIC_RELAXED);

	if (nwrites < sizeof(writes) / sizeof(writes[0]))
		writes[nwrites++] = (struct write){ pos, addr };
	if (fail_stage >= 0 && stage_of(addr) == fail_stage) {
		fail_stage = -1;
		ulsm_fault.err = EIO;
		ulsm_fault.fail_to = 0;
		__atomic_store_n(&ulsm_fault.fail_from, pos + 1,
				 __ATOMIC_SEQ_CST);
	}
}

static void start_log(void)
{
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	ulsm_fault.kinds = 0;
	ulsm_fault.calls = 0;
	ulsm_fault.failed = 0;
	ulsm_fault.err = 0;
	nwrites = 0;
}

/*
 * The rule, over the log of one update: each run of writes of one stage
 * is followed by a call of kind @sync before a write of another stage
 * and before the end. With @exact, also: a stage has @per_stage such
 * calls from its first write to the next stage's. 0 if it holds; else
 * -1, with what was wrong said once.
 */
/*
 * The breakpoint protocol's last writes (step 3, each site's first byte)
 * are followed by no sync of their own (docs/patching-protocol.md, "Why
 * no sync after step 3"): once stage @s has had its syncs, its writes may
 * be followed by another stage's, or by the update's return.
 */
static bool last_writes_unsynced(int s, const int *syncs, int per_stage)
{
	return BREAKPOINT_PROTOCOL &&
	       syncs[s] >= (per_stage ? per_stage : SYNCS_PER_BATCH);
}

static int check_rule(enum ulsm_sys sync, bool exact, int per_stage,
		      const char *what)
{
	unsigned long calls = ulsm_fault.calls;
	int pending = -1, syncs[STAGES] = { 0 }, last = -1, bad = 0;
	bool seen[STAGES] = { false };
	size_t w = 0;

	if (calls > ULSM_FAULT_LOG) {
		diag("%s: %lu calls, more than the log holds", what, calls);
		return -1;
	}
	for (unsigned long k = 1; k <= calls && !bad; k++) {
		if (ulsm_fault.log[k - 1] == sync) {
			pending = -1;
			if (last >= 0)
				syncs[last]++;
		}
		for (; w < nwrites && writes[w].pos == k; w++) {
			int s = stage_of(writes[w].addr);

			if (s < 0) {
				diag("%s: a write at %#lx, no site of the test",
				     what, (unsigned long)writes[w].addr);
				bad = 1;
				break;
			}
			if (pending >= 0 && pending != s &&
			    !last_writes_unsynced(pending, syncs, per_stage)) {
				diag("%s: call %lu writes %s, and no %s came "
				     "after the writes of %s", what, k,
				     stage_name[s], ulsm_sys_name(sync),
				     stage_name[pending]);
				bad = 1;
				break;
			}
			pending = s;
			if (!seen[s])
				last = s;
			seen[s] = true;
		}
	}
	if (!bad && pending >= 0 &&
	    !last_writes_unsynced(pending, syncs, per_stage)) {
		diag("%s: no %s came after the last writes of %s: the "
		     "update returned unsynchronised", what,
		     ulsm_sys_name(sync), stage_name[pending]);
		bad = 1;
	}
	for (int s = 0; s < STAGES && !bad && exact; s++) {
		if (!seen[s]) {
			diag("%s: no write of %s", what, stage_name[s]);
			bad = 1;
		} else if (syncs[s] != per_stage) {
			diag("%s: %s had %d %s, not %d", what,
			     stage_name[s], syncs[s], ulsm_sys_name(sync),
			     per_stage);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

/* The call that is each stage's sync in the method in use. */
static enum ulsm_sys sync_kind(void)
{
	const char *m = ulsm_sync_method();

	if (!strcmp(m, "membarrier"))
		return ULSM_SYS_MEMBARRIER;
	if (!strcmp(m, "signal"))
		return ULSM_SYS_LSEEK;	/* a round begins by listing threads */
	return ULSM_SYS_FLUSH_ICACHE;	/* the back end's fetch sync */
}

/*
 * The update, forward (closing off, sc to two, opening on) or back; its
 * result, and the rule checked on what it did.
 */
static int update(bool forward, const char *mode)
{
	struct ulsm_update *u = ulsm_update_new();
	char what[96];
	int ret;

	if (!u)
		return -ENOMEM;
	ulsm_update_branch(u, &closing, !forward);
	ulsm_update_static_call(u, sc, forward ? two : one);
	ulsm_update_branch(u, &opening, forward);
	start_log();
	ret = ulsm_update_commit(u);
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	ulsm_update_free(u);
	snprintf(what, sizeof(what), "%s, %s", mode, forward ? "forward" : "back");
	if (!ret) {
		ok(!check_rule(sync_kind(), true, SYNCS_PER_BATCH, what),
		   "%s: each stage's writes followed by its %s (%d per stage)",
		   what, ulsm_sys_name(sync_kind()), SYNCS_PER_BATCH);
#ifdef ULSM_ARCH_RISCV64
		if (sync_kind() == ULSM_SYS_LSEEK)
			ok(!check_rule(ULSM_SYS_FLUSH_ICACHE, true, 1, what),
			   "%s: and by riscv_flush_icache, which makes the "
			   "signal round a sync on riscv64", what);
#endif
	}
	return ret;
}

/* Keys, call and code as the forward update leaves them (or not). */
static bool state_is(bool forward)
{
	return run_closing() == !forward && run_opening() == forward &&
	       run_call(10) == (forward ? 12 : 11) &&
	       static_key_enabled(&closing) == !forward &&
	       static_key_enabled(&opening) == forward &&
	       static_call_query(sc) == (forward ? two : one);
}

static void both_ways(const char *mode)
{
	is_int(update(true, mode), 0, "%s (sync: %s): the update", mode,
	       ulsm_sync_method());
	ok(state_is(true), "  every site new");
	is_int(update(false, mode), 0, "%s: the update back", mode);
	ok(state_is(false), "  every site as before");
}

int main(void)
{
	uintptr_t s[4], tramp = (uintptr_t)STATIC_CALL_TRAMP_ADDR(sc);
	bool membarrier = false;
	size_t n;
	int ret;

	/* Where each stage writes. */
	n = find_sites(&closing.key, s, NULL, 4);
	for (size_t i = 0; i < n; i++)
		add_range(s[i], s[i] + SITE_LEN, 0);
	is_int(n, 1, "one site of the key turned off");
	add_range(tramp, tramp + 16, 1);
	for (const struct ulsm_call_site *e = __start_ulsm_call_sites;
	     e < __stop_ulsm_call_sites; e++) {
		const void *const *kref = (const void *const *)rel_field(&e->kref);

		if (*kref == (const void *)&STATIC_CALL_KEY(sc))
			add_range(rel_field(&e->ret) - 16, rel_field(&e->ret), 1);
	}
	n = find_sites(&opening.key, s, NULL, 4);
	for (size_t i = 0; i < n; i++)
		add_range(s[i], s[i] + SITE_LEN, 2);
	is_int(n, 1, "one site of the key turned on");
	ok(state_is(false), "as compiled");

	ulsm_test_write_hook = on_write;
	both_ways("auto");
	membarrier = !ulsm_set_sync_mode(ULSM_SYNC_MEMBARRIER);
	if (membarrier)
		both_ways("membarrier");
	else
		ok(1, "# SKIP no membarrier SYNC_CORE here");
	if (signal_sync_usable()) {
		is_int(ulsm_set_sync_mode(ULSM_SYNC_SIGNAL), 0, "signal sync");
		both_ways("signal");
	} else {
		ok(1, "# SKIP the signal sync cannot work here");
	}

	/* The last stage's sync fails: the undo follows the rule too. */
	is_int(ulsm_set_sync_mode(ULSM_SYNC_AUTO), 0, "auto again");
	diag("sync: %s", ulsm_sync_method());
	{
		enum ulsm_sys kind = sync_kind();

		fail_stage = 2;
		ret = update(true, "failing");
		fail_stage = -1;
		ok(ret < 0 && ulsm_fault.failed == 1,
		   "the update fails (%d) at the call after the last stage's "
		   "write (%s)", ret, ulsm_last_error());
		ok(!check_rule(kind, false, 0, "undo"),
		   "  its undo's writes, stage by stage, each followed by a %s",
		   ulsm_sys_name(kind));
		ok(state_is(false), "  every site, key and target as before");
	}
	/* A failed membarrier sends auto to the signal sync, for good. */
	if (membarrier)
		ulsm_set_sync_mode(ULSM_SYNC_MEMBARRIER);
	is_int(update(true, "after"), 0, "the next update works");
	ok(state_is(true), "  every site new");
	ulsm_test_write_hook = NULL;
	return done_testing();
}
#endif
