// SPDX-License-Identifier: MIT
/*
 * The SIGTRAP handler of the breakpoint protocol.
 *
 * A thread that meets a breakpoint we wrote continues as the new
 * instruction would (mid-patch) or re-executes the site (the signal came
 * after the patch finished); everything else goes to the handler that was
 * installed before ours, or gets the default action. The decision is made
 * by the lookup function the patcher installs with the handler (src/engine/patch.c
 * depends on this file, never the other way round); the back end supplies
 * the program counter. See docs/patching-protocol.md.
 *
 * The previous handler is kept in one of two slots and the handler reads the
 * slot an atomic index names, so re-installing (someone replaced ours) never
 * changes a slot a running handler may be reading.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "engine/engine.h"

static struct sigaction chained[2];
static int chained_idx;
static ulsm_trap_lookup_fn lookup;

static void pass_on(int sig, siginfo_t *si, void *uc)
{
	/*
	 * Pairs with the release store of chained_idx in ulsm_trap_install()
	 * (this file): the handler reads the slot written before the index
	 * named it.
	 */
	const struct sigaction *old =
		&chained[__atomic_load_n(&chained_idx, __ATOMIC_ACQUIRE)];

	ulsm_stat_add(traps_passed, 1);
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, si, uc);
	} else if (old->sa_handler == SIG_IGN) {
		return;
	} else if (old->sa_handler == SIG_DFL) {
		/*
		 * Returning would continue after the int3. Take the default
		 * action instead, as if we had never been here: the signal is
		 * blocked while we run, so it is delivered when we return.
		 */
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(sig, &dfl, NULL);	/* in a handler: not a fault point */
		raise(sig);
	} else {
		old->sa_handler(sig);
	}
}

static void trap_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (arch_trap_is_breakpoint(si->si_code)) {
		uintptr_t site = arch_context_pc(uc) - arch_breakpoint_len;
		uintptr_t resume = 0, link = 0;
		/*
		 * Pairs with the release store of lookup in ulsm_trap_install()
		 * (this file).
		 */
		ulsm_trap_lookup_fn fn = __atomic_load_n(&lookup,
							 __ATOMIC_ACQUIRE);

		switch (fn ? fn(site, &resume, &link) : ULSM_TRAP_NOT_OURS) {
		case ULSM_TRAP_EMULATE:
			if (link)
				arch_context_link(uc, link);
			arch_context_set_pc(uc, resume);
			ulsm_stat_add(traps_emulated, 1);
			errno = saved;
			return;
		case ULSM_TRAP_REWIND:
			arch_context_set_pc(uc, site);
			ulsm_stat_add(traps_rewound, 1);
			errno = saved;
			return;
		case ULSM_TRAP_NOT_OURS:
			break;
		}
	}
	errno = saved;
	pass_on(sig, si, uc);
}

int ulsm_trap_install(ulsm_trap_lookup_fn fn)
{
	struct sigaction cur, sa;
	int next, ret;

	/*
	 * Pairs with the acquire load in trap_handler() (this file): a handler
	 * that finds the function sees what the patcher set up before.
	 */
	__atomic_store_n(&lookup, fn, __ATOMIC_RELEASE);
	ret = ulsm_sys_sigaction(SIGTRAP, NULL, &cur);
	if (ret)
		return ulsm_error(ret, "cannot read the SIGTRAP handler");
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler)
		return 0;

	next = !__atomic_load_n(&chained_idx, __ATOMIC_RELAXED);
	chained[next] = cur;
	/*
	 * Pairs with the acquire load in pass_on() (this file): a handler that
	 * reads the new index sees the slot written just above.
	 */
	__atomic_store_n(&chained_idx, next, __ATOMIC_RELEASE);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	ret = ulsm_sys_sigaction(SIGTRAP, &sa, NULL);
	if (ret)
		return ulsm_error(ret, "cannot install the SIGTRAP handler");
	if (cur.sa_handler != SIG_DFL)
		ulsm_debug("SIGTRAP handler installed, chaining to the previous one");
	return 0;
}
