// SPDX-License-Identifier: MIT
/*
 * The built-in targets of static calls (<ulsm/static_call.h>):
 * DEFINE_STATIC_CALL_RET0's and the no-op. Here, in the engine, because
 * a back end encodes a call to __static_call_return0 in its own way
 * (aarch64's trampoline returns 0 itself), and a back end uses only its
 * own layer and those below.
 */
#include <ulsm/static_call.h>

#include "engine/engine.h"

ULSM_API long ulsm_static_call_return0(void)
{
	return 0;
}

ULSM_API void ulsm_static_call_nop(void)
{
}
