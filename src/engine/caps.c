// SPDX-License-Identifier: MIT
/*
 * The engine's capabilities: what the back end needs, decided once
 * (docs/patching-protocol.md, "Capabilities"). This file and the back
 * ends are the only readers of arch_protocol, arch_has_sync_fetch and
 * arch_calls_patchable: the commit (src/engine/txn.c, patch.c), the
 * writer and the sync ask here, and no layer above the engine asks which
 * back end it runs on.
 */
#include "engine/engine.h"

static struct ulsm_caps caps;
static int caps_ready;		/* 0, then 1 once decided */
static int emulated = -1;	/* -1 until the first /proc/self/mem descriptor */

const struct ulsm_caps *ulsm_caps(void)
{
	/*
	 * Pairs with the release store of caps_ready below: a thread that sees
	 * it set sees every field of caps.
	 */
	if (!__atomic_load_n(&caps_ready, __ATOMIC_ACQUIRE)) {
		/*
		 * Constants of the back end: every thread that races here
		 * computes the same values, so no lock is needed.
		 */
		caps.patches_code = arch_protocol != ULSM_PROTO_NONE;
		caps.breakpoints = arch_protocol == ULSM_PROTO_BREAKPOINT;
		caps.one_word = arch_protocol == ULSM_PROTO_ATOMIC_WORD;
		caps.sync_fetch = caps.patches_code && arch_has_sync_fetch;
		/*
		 * A process turns its shadow stack on at start-up (the
		 * dynamic loader), before it registers objects and sites.
		 */
		caps.calls_patchable = caps.patches_code &&
				       arch_calls_patchable();
		/*
		 * Pairs with the acquire load of caps_ready above: the fields,
		 * then the flag.
		 */
		__atomic_store_n(&caps_ready, 1, __ATOMIC_RELEASE);
	}
	return &caps;
}

/*
 * Whether instruction fetch misses writes through /proc/self/mem (qemu-
 * user): asked of the back end with the first descriptor the writer
 * opens (patch lock held), and never again. From then on every batch
 * follows the answer: the writer reprotects each page it writes, and each
 * membarrier round is followed by a signal round (src/engine/sync_core.c).
 */
bool ulsm_caps_fetch_misses_procmem(int fd)
{
	if (emulated < 0 && ulsm_caps()->patches_code)
		__atomic_store_n(&emulated, arch_fetch_misses_procmem(fd) ? 1 : 0,
				 __ATOMIC_RELAXED);
	return emulated > 0;
}

bool ulsm_caps_emulated(void)
{
	return __atomic_load_n(&emulated, __ATOMIC_RELAXED) > 0;
}

/*
 * A constant of the machine, as the capabilities above: threads that race
 * here ask the same question and store the same answer.
 */
bool ulsm_counter_usable(void)
{
	static int usable = -1;
	int v = __atomic_load_n(&usable, __ATOMIC_RELAXED);

	if (v < 0) {
		v = arch_counter_usable();
		__atomic_store_n(&usable, v, __ATOMIC_RELAXED);
	}
	return v;
}
