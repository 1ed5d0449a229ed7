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
	__atomic_fetch_add(&q->inside, 1, __ATOMIC_SEQ_CST);
}

void ulsm_handler_leave(struct ulsm_quiesce *q)
{
	__atomic_fetch_sub(&q->inside, 1, __ATOMIC_SEQ_CST);
}

void ulsm_wait_for_handlers(struct ulsm_quiesce *q)
{
	/* Handlers are short and never block: a yield loop is enough. */
	while (__atomic_load_n(&q->inside, __ATOMIC_SEQ_CST))
		sched_yield();
}
