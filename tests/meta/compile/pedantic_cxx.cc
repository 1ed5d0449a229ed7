// SPDX-License-Identifier: MIT
/*
 * Must compile with -std=c++17 -Wall -Wextra -Wpedantic -Werror (g++ and
 * clang++): what C++ may use of ulsm's public headers, as a user writes
 * it: keys, calls, switches, updates, a tracepoint's sites and probes and
 * a hook set's declarations (a hook set's and a tracepoint's definitions
 * are C).
 */
#include <ulsm/compiler.h>
#include <ulsm/arch.h>
#include <ulsm/control.h>
#include <ulsm/grace.h>
#include <ulsm/jump_label.h>
#include <ulsm/object.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>
#include <ulsm/unroll.h>
#include <ulsm/update.h>
#include <ulsm/usdt.h>

#include "compile/pedantic_hooks.h"

DECLARE_TRACEPOINT(ped_req, TP_PROTO(int id, long size), TP_ARGS(id, size));

DEFINE_STATIC_KEY_FALSE(cxx_off);
DEFINE_STATIC_KEY_TRUE(cxx_on);
DEFINE_STATIC_SWITCH(cxx_verbose, "a switch defined in C++");

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
static void notify(int event) { (void)event; }

DEFINE_STATIC_CALL(cxx_step, twice);
DEFINE_STATIC_CALL_NULL(cxx_notify, notify);
DEFINE_STATIC_CALL_RET0(cxx_zero, twice);

static unsigned long hits;

static void on_req(void *data, int id, long size)
{
	(void)data;
	hits += static_cast<unsigned long>(id + size);
}

/* The sites in a function of their own, as tests/meta/cxx_headers.cc's. */
__attribute__((noinline)) static int cxx_sites()
{
	int n = 0;

	if (static_branch_unlikely(&cxx_off))
		n |= 1;
	if (static_branch_likely(&cxx_on))
		n |= 2;
	if (static_branch_unlikely(&cxx_verbose))
		n |= 4;
	return n;
}

int cxx_use();
int cxx_use()
{
	struct ulsm_update *u = ulsm_update_new();
	int n = cxx_sites(), err = 0;

	err |= static_branch_enable(&cxx_off);
	n += static_call(cxx_step)(2) + static_call_inline(cxx_step, 3);
	static_call_cond(cxx_notify)(1);
	n += static_call(cxx_zero)(1);
	err |= static_call_update(cxx_step, thrice);
	err |= static_call_update(cxx_notify, notify);
	if (u) {
		err |= ulsm_update_branch(u, &cxx_on, false);
		err |= ulsm_update_static_call(u, cxx_step, twice);
		err |= ulsm_update_commit(u);
		ulsm_update_free(u);
	}
	err |= register_trace_ped_req(on_req, nullptr);
	trace_ped_req(n, 2);
	err |= unregister_trace_ped_req(on_req, nullptr);
	ulsm_read_lock();
	n += ped_hook_set.nhooks != ped_nhooks;
	ulsm_read_unlock();
	return err | ulsm_synchronize() | n;
}
