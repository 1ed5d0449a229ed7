// SPDX-License-Identifier: MIT
/*
 * Quiescence for the breakpoint handler: a counter of handlers that may be
 * reading a snapshot. See src/engine/engine.h for the ordering argument.
 */
#include <sched.h>

#include "engine/engine.h"

struct ulsm_quiesce ulsm_trap_quiesce;

void ulsm_handler_enter(struct ulsm_quiesce *q)
{
	/*
	 * Pairs with the SEQ_CST stores of published (ulsm_patch_open(),
	 * patch.c), current (registry.c) and active_round (chunk_round(),
	 * sync_core.c), then the load in ulsm_wait_for_handlers(): the handler
	 * sees the new pointer, or the waiter sees it inside.
	 */
	__atomic_fetch_add(&q->inside, 1, __ATOMIC_SEQ_CST);
}

void ulsm_handler_leave(struct ulsm_quiesce *q)
{
	/*
	 * Pairs with the load in ulsm_wait_for_handlers() (this file): the
	 * handler's reads of the old snapshot are over before the waiter frees
	 * it.
	 */
	__atomic_fetch_sub(&q->inside, 1, __ATOMIC_SEQ_CST);
}

void ulsm_wait_for_handlers(struct ulsm_quiesce *q)
{
	/*
	 * Handlers are short and never block: a yield loop is enough.
	 * Pairs with ulsm_handler_enter() and ulsm_handler_leave() (this file),
	 * after the caller's SEQ_CST store of the new pointer: a handler not
	 * seen here sees that pointer.
	 */
	while (__atomic_load_n(&q->inside, __ATOMIC_SEQ_CST))
		sched_yield();
}
