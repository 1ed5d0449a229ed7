// SPDX-License-Identifier: MIT
/*
 * The default: no fetch sync (src/engine/arch.h). Where one CPU's
 * serialisation, or the cache maintenance broadcast by the store's own
 * CPU (aarch64: IC IVAU to the Inner Shareable domain), makes every CPU
 * fetch the new word, the engine's core sync (membarrier, or a signal
 * round) is enough. riscv64 has its own (riscv_flush_icache).
 */
#include <errno.h>

#include "engine/arch.h"

const bool arch_has_sync_fetch = false;
const char arch_sync_fetch_name[] = "";

int arch_sync_fetch(void)
{
	return -ENOSYS;
}
