// SPDX-License-Identifier: MIT
/*
 * What a real machine may refuse, simulated where the machine running the
 * test would not refuse it (CI's kernel, qemu-user), through the library's
 * fault injection (src/base/sys.h):
 *  - no membarrier SYNC_CORE (old kernels, seccomp): with the membarrier
 *    method forced, the update fails with -ENOSYS (t_sync_fallback tests
 *    the signal fallback, where it can work);
 *  - no way to write the text (proc_mem.force_override=never refuses the
 *    /proc/self/mem write, PR_SET_MDWE or SELinux execmod the mprotect
 *    window): -EPERM.
 * Each time nothing changes: every site holds its old instruction (read
 * back), the key keeps its count, the code runs the old path; and the
 * next update without a fault succeeds.
 */
#include <errno.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "key_sites.h"
#include "tap.h"

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end writes no code and syncs no core");
}
#else

DEFINE_STATIC_KEY_FALSE(rk);

__attribute__((noinline)) static int r1(void) { return static_branch_unlikely(&rk); }
__attribute__((noinline)) static int r2(void) { return static_branch_likely(&rk); }

static struct key_sites ks = { &rk, { r1, r2 } };

static int unchanged(int on)
{
	return key_sites_follow(&ks, on) && static_key_count(&rk) == on;
}

/* Every call of the kinds in @mask fails with @err from now on (0: none). */
static void refuse(unsigned int mask, int err)
{
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	ulsm_fault.kinds = mask;
	ulsm_fault.calls = 0;
	ulsm_fault.fail_to = ~0ul;
	ulsm_fault.err = err;
	ulsm_fault.failed = 0;
	__atomic_store_n(&ulsm_fault.fail_from, mask ? 1 : 0, __ATOMIC_SEQ_CST);
}

int main(void)
{
	is_int(key_sites_find(&ks), 2, "two sites of the key");
	ok(unchanged(0), "disabled: both sites as compiled");

	/* Neither write method may write. */
	is_int(static_branch_enable(&rk), 0, "enable");
	ok(unchanged(1), "  every site jumps");
	refuse((1u << ULSM_SYS_PWRITE) | (1u << ULSM_SYS_MPROTECT), EACCES);
	is_int(static_branch_disable(&rk), -EPERM,
	       "text not writable: disable -> -EPERM");
	refuse(0, 0);
	ok(strstr(ulsm_last_error(), "may not write") != NULL,
	   "  explained: \"%s\"", ulsm_last_error());
	ok(unchanged(1), "  nothing written, key still on");
	is_int(static_branch_disable(&rk), 0, "writable again: disable works");
	ok(unchanged(0), "  every site as compiled");

	/*
	 * No membarrier. The library falls back to signals for good once
	 * membarrier failed (docs/patching-protocol.md), and under qemu-user
	 * signals are refused (-EDEADLK: qemu's own thread blocks them), so
	 * the method is forced.
	 */
	is_int(ulsm_set_sync_mode(ULSM_SYNC_MEMBARRIER), 0,
	       "force the membarrier sync");
	refuse(1u << ULSM_SYS_MEMBARRIER, ENOSYS);
	is_int(static_branch_enable(&rk), -ENOSYS,
	       "membarrier missing: enable -> -ENOSYS");
	refuse(0, 0);
	ok(unchanged(0), "  nothing written, key still off");
	is_int(static_branch_enable(&rk), 0, "membarrier back: enable works");
	ok(unchanged(1), "  every site jumps");
	return done_testing();
}
#endif
