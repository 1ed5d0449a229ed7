// SPDX-License-Identifier: MIT
/*
 * Must compile with -std=c11 -Wall -Wextra -Wpedantic -Werror (and
 * -std=c99, and clang's): static keys, static calls, switches, the batch
 * API, grace periods and every other public header, as a user writes
 * them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <ulsm/compiler.h>
#include <ulsm/arch.h>
#include <ulsm/control.h>
#include <ulsm/grace.h>
#include <ulsm/jump_label.h>
#include <ulsm/object.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>
#include <ulsm/unroll.h>
#include <ulsm/update.h>
#include <ulsm/usdt.h>

DEFINE_STATIC_KEY_FALSE(ped_off);
DEFINE_STATIC_KEY_TRUE(ped_on);
DECLARE_STATIC_KEY_FALSE(ped_ro);
DEFINE_STATIC_KEY_FALSE_RO(ped_ro);
static struct static_key ped_plain = STATIC_KEY_INIT_FALSE;

DEFINE_STATIC_SWITCH(ped_verbose, "log every request");

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
static void notify(int event) { (void)event; }

DECLARE_STATIC_CALL(ped_step, twice);
DEFINE_STATIC_CALL(ped_step, twice);
DEFINE_STATIC_CALL_NULL(ped_notify, notify);
DEFINE_STATIC_CALL_RET0(ped_zero, twice);

#define PED_ADD(i, x)	x += i;

static int sites(void)
{
	int n = 0;

	if (static_branch_unlikely(&ped_off))
		n |= 1;
	if (static_branch_likely(&ped_on))
		n |= 2;
	if (static_branch_unlikely(&ped_verbose))
		n |= 4;
	if (static_branch_likely(&ped_ro))
		n |= 8;
	UNROLL(3, PED_ADD, n)
	return n + static_key_count(&ped_plain) + static_key_enabled(&ped_on);
}

int ped_keys(void);
int ped_keys(void)
{
	struct ulsm_update *u;
	struct ulsm_stats st;
	int err, r;

	err = static_branch_enable(&ped_off);
	err |= static_branch_disable(&ped_on);
	err |= static_branch_inc(&ped_verbose);
	err |= static_branch_dec(&ped_verbose);
	err |= static_key_slow_inc(&ped_plain);
	err |= static_key_slow_dec(&ped_plain);

	r = static_call(ped_step)(2) + static_call_inline(ped_step, 3);
	static_call_cond(ped_notify)(42);
	static_call_inline(ped_notify, 43);
	r += static_call(ped_zero)(1);
	err |= static_call_update(ped_step, thrice);
	err |= static_call_update(ped_notify, notify);
	err |= static_call_update(ped_notify, NULL);
	err |= static_call_update(ped_zero, twice);
	r += static_call_query(ped_step) == thrice;

	u = ulsm_update_new();
	if (u) {
		err |= ulsm_update_branch(u, &ped_off, false);
		err |= ulsm_update_branch(u, &ped_on, true);
		err |= ulsm_update_static_call(u, ped_step, twice);
		err |= ulsm_update_static_call(u, ped_notify, notify);
		err |= ulsm_update_commit(u);
		r += (int)ulsm_update_count(u);
		ulsm_update_free(u);
	}

	ulsm_read_lock();
	r += sites();
	ulsm_read_unlock();
	err |= ulsm_synchronize();

	ulsm_get_stats(&st);
	err |= ulsm_control_start();
	ulsm_control_stop();
	printf("%s %s %s %d %lu\n", ulsm_version(), ulsm_backend(),
	       ulsm_sync_method(), r, st.batches);
	return err;
}
