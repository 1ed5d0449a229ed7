// SPDX-License-Identifier: MIT
/*
 * The engine's capabilities: what the back end needs, decided once
 * (docs/patching-protocol.md, "Capabilities"). This file and the back
 * ends are the only readers of arch_protocol, arch_has_sync_fetch and
 * arch_calls_patchable: the commit (src/engine/txn.c, patch.c), the
 * writer and the sync ask here, and no layer above the engine asks which
 * back end it runs on.
 */
#include <pthread.h>

#include "engine/engine.h"

static struct ulsm_caps caps;
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;
/* What the back end said of the emulator (ulsm_caps_fetch_misses_procmem). */
enum emulated {
	EMU_UNASKED = -1,	/* until the first /proc/self/mem descriptor */
	EMU_NO = 0,
	EMU_YES = 1,
	EMU_ASSUMED = 2,	/* it could not tell (a failed write): ask again */
};
static int emulated = EMU_UNASKED;

/*
 * Once, for every thread: pthread_once() orders these stores before any
 * caller's return from it, so the threads that race into ulsm_caps()
 * neither write caps twice nor read it half-made.
 */
static void caps_decide(void)
{
	caps.patches_code = arch_protocol != ULSM_PROTO_NONE;
	caps.breakpoints = arch_protocol == ULSM_PROTO_BREAKPOINT;
	caps.one_word = arch_protocol == ULSM_PROTO_ATOMIC_WORD;
	caps.sync_fetch = caps.patches_code && arch_has_sync_fetch;
	/*
	 * A process turns its shadow stack on at start-up (the dynamic
	 * loader), before it registers objects and sites.
	 */
	caps.calls_patchable = caps.patches_code && arch_calls_patchable();
}

const struct ulsm_caps *ulsm_caps(void)
{
	pthread_once(&caps_once, caps_decide);
	return &caps;
}

/*
 * Whether instruction fetch misses writes through /proc/self/mem (qemu-
 * user): asked of the back end with the first descriptor the writer
 * opens (patch lock held), and never again once it answers. From then on
 * every batch follows the answer: the writer reprotects each page it
 * writes, and each membarrier round is followed by a signal round
 * (src/engine/sync_core.c). While it cannot tell, the worst is assumed,
 * batch by batch: one failed write must not make every later update of
 * a real machine take the emulator's slow path.
 */
bool ulsm_caps_fetch_misses_procmem(int fd)
{
	if ((emulated == EMU_UNASKED || emulated == EMU_ASSUMED) &&
	    ulsm_caps()->patches_code) {
		int v = arch_fetch_misses_procmem(fd);

		__atomic_store_n(&emulated, v < 0 ? EMU_ASSUMED :
				 v ? EMU_YES : EMU_NO, __ATOMIC_RELAXED);
	}
	return emulated == EMU_YES || emulated == EMU_ASSUMED;
}

bool ulsm_caps_emulated(void)
{
	int e = __atomic_load_n(&emulated, __ATOMIC_RELAXED);

	return e == EMU_YES || e == EMU_ASSUMED;
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
