// SPDX-License-Identifier: MIT
/*
 * Quiescence for the breakpoint handler: a counter of handlers that may be
 * reading a snapshot. See src/internal.h for the ordering argument.
 */
#include <sched.h>

#include "internal.h"

static unsigned long handlers_inside;

void ulsm_handler_enter(void)
{
	__atomic_fetch_add(&handlers_inside, 1, __ATOMIC_SEQ_CST);
}

void ulsm_handler_leave(void)
{
	__atomic_fetch_sub(&handlers_inside, 1, __ATOMIC_SEQ_CST);
}

void ulsm_wait_for_handlers(void)
{
	/* Handlers are short and never block: a yield loop is enough. */
	while (__atomic_load_n(&handlers_inside, __ATOMIC_SEQ_CST))
		sched_yield();
}
