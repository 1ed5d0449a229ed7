// SPDX-License-Identifier: MIT
/*
 * Hook entries (docs/hook-framework.md, "Dispatch"): the sites of a hook's
 * entry, read back after each change of its slots, and a dispatch made in
 * the middle of each change (the test hook runs it between the protocol's
 * steps, in the patching thread, so every site of the batch holds its
 * breakpoint and the handler must continue as the new instruction):
 *  - R: ret (no slot on), jmp to the callback (one), NOP (more), and each
 *    change between them;
 *  - X<i>: NOP (call the slot), jmp to the callback (the last: the tail
 *    call), jmp over the slot (off), and each change between them;
 *  - C<i>: the call, retargeted, emulated by pushing the return address
 *    (it must return exactly where the real call does) and through the
 *    entry's stub (as under a shadow stack);
 *  - the return-thunk form of R (gcc, -mfunction-return=thunk), and
 *    DEFINE_LSM_HOOK_ENTRY.
 * x86-64 only: other back ends have no entries.
 */
#include <stdlib.h>

#include "sites.h"
#include "tap.h"
#include "test_lsm.h"
#include "tl_dispatch.h"

#ifndef ULSM_LSM_HAS_ENTRIES
int main(void)
{
	skip_all("this back end has no hook entries");
}
#else

extern bool ulsm_test_hook_call_stubs;

#define FO	tl_hook_idx_file_open

/* The address element @i of a hook's map refers to. */
static uintptr_t map_at(int hook, unsigned int i)
{
	const int32_t *map = tl_lsm_sealed.entry[hook].map;

	return (uintptr_t)&map[i] + (intptr_t)map[i];
}

static uintptr_t slot_at(int hook, unsigned int slot, unsigned int what)
{
	return map_at(hook, ULSM__HOOK_MAP_SLOT +
		      ULSM__HOOK_MAP_PER_SLOT * slot + what);
}

#define R(h)		map_at(h, ULSM__HOOK_MAP_RET)
#define X(h, i)		slot_at(h, i, ULSM__HOOK_MAP_X)
#define C(h, i)		slot_at(h, i, ULSM__HOOK_MAP_C)
#define N(h, i)		slot_at(h, i, ULSM__HOOK_MAP_N)
#define I(h, i)		slot_at(h, i, ULSM__HOOK_MAP_I)
#define M(h, i)		slot_at(h, i, ULSM__HOOK_MAP_M)

/* Where the rel32 instruction at @site goes, if its opcode is @op. */
static uintptr_t rel32_to(uintptr_t site, uint8_t op)
{
	const uint8_t *p = (const uint8_t *)site;
	int32_t rel;

	if (p[0] != op)
		return 0;
	memcpy(&rel, p + 1, 4);
	return site + 5 + (intptr_t)rel;
}

#define JMP_TO(site)	rel32_to(site, 0xe9)
#define CALL_TO(site)	rel32_to(site, 0xe8)

static int is_ret5(uintptr_t site)
{
	static const uint8_t ret5[5] = { 0xc3, 0xcc, 0xcc, 0xcc, 0xcc };

	return !memcmp((const void *)site, ret5, 5);
}

/* The callback in slot @slot of @hook. */
static uintptr_t cb(int hook, int slot)
{
	return (uintptr_t)tl_hook_set.table[hook * 3 + slot].key->func;
}

static int toggle(const char *name, bool on)
{
	return ulsm_lsm_toggle(&tl_hook_set, name, on);
}

/* What file_open dispatched: its result and the trace, in this thread. */
static char mid_trace[3][4096];
static int mid_rc[3];

static int file_open(void)
{
	struct t_file f = { NULL, 0 };

	return call_int_hook(file_open, &f);
}

static void dispatch_mid_patch(int step)
{
	if (step < 1 || step > 2)
		return;
	tl_trace_reset();
	mid_rc[step] = file_open();
	snprintf(mid_trace[step], sizeof(mid_trace[step]), "%s", tl_trace);
}

/*
 * Change the slots with @change while dispatching mid-patch; the two
 * dispatches must behave as the new slots do, through the handler.
 */
static void check_change(const char *what, int (*change)(void),
			 const char *want_trace)
{
	struct ulsm_stats a, b;
	char now[4096];
	int rc;

	memset(mid_trace, 0, sizeof(mid_trace));
	ulsm_get_stats(&a);
	ulsm_test_step_hook = dispatch_mid_patch;
	rc = change();
	ulsm_test_step_hook = NULL;
	ulsm_get_stats(&b);
	is_int(rc, 0, "%s", what);
	tl_trace_reset();
	file_open();
	snprintf(now, sizeof(now), "%s", tl_trace);
	ok(!strcmp(now, want_trace), "  then: %s", now);
	ok(!strcmp(mid_trace[1], want_trace) && !strcmp(mid_trace[2], want_trace),
	   "  mid-patch, after steps 1 and 2: as the new slots (%s; %s)",
	   mid_trace[1], mid_trace[2]);
	ok(b.traps_emulated > a.traps_emulated,
	   "  through the breakpoint handler (%lu traps)",
	   b.traps_emulated - a.traps_emulated);
}

static int alpha_off(void) { return toggle("alpha", false); }
static int omega_off(void) { return toggle("omega", false); }
static int capa_off(void) { return toggle("capa", false); }
static int omega_on(void) { return toggle("omega", true); }
static int capa_on(void) { return toggle("capa", true); }
static int alpha_on(void) { return toggle("alpha", true); }

/* --- the call C<i>, retargeted ----------------------------------------- */

static void *ret_c_from;

__attribute__((noinline)) static int ret_c(struct t_file *f)
{
	(void)f;
	ret_c_from = __builtin_return_address(0);
	tl_trace_reset();
	return 0;
}

static void *mid_from[3];

static void call_mid_patch(int step)
{
	if (step < 1 || step > 2)
		return;
	ret_c_from = NULL;
	dispatch_mid_patch(step);
	mid_from[step] = ret_c_from;
}

static void check_retarget(const char *what, uintptr_t want_from)
{
	struct static_call_key *key = &tl_lsm_sealed.calls.file_open[1];
	void *tramp = tl_lsm_sealed.table.file_open[1].trampoline;
	void *alpha = (void *)cb(FO, 1);

	memset(mid_from, 0, sizeof(mid_from));
	ulsm_test_step_hook = call_mid_patch;
	is_int(__static_call_update(key, tramp, (void *)ret_c), 0,
	       "retarget slot 1 (alpha) to ret_c, %s", what);
	ulsm_test_step_hook = NULL;
	is_int((int)(CALL_TO(C(FO, 1)) == (uintptr_t)ret_c), 1,
	       "  C1 calls ret_c");
	ok(!strcmp(mid_trace[1], "omega:file_open") &&
	   !strcmp(mid_trace[2], "omega:file_open"),
	   "  mid-patch: ret_c ran and the entry went on to omega (%s; %s)",
	   mid_trace[1], mid_trace[2]);
	ok(mid_from[1] == (void *)want_from && mid_from[2] == (void *)want_from,
	   "  ret_c returned to %p, %p (want %p)", mid_from[1], mid_from[2],
	   (void *)want_from);
	ret_c_from = NULL;
	file_open();
	ok(ret_c_from == (void *)(C(FO, 1) + 5),
	   "  the real call returns right after C1");
	is_int(__static_call_update(key, tramp, alpha), 0, "  back to alpha");
}

static void rt_tests(void);

/*
 * A callback out of rel32 reach (in another shared object: libc's abs, as
 * odd_default's slot 0): the entry calls it through the slot's stub I0,
 * which jumps through the slot's key, and tail-calls the stub.
 */
#define OD	tl_hook_idx_odd_default

static int od_mid[3];

static void od_mid_patch(int step)
{
	if (step >= 1 && step <= 2)
		od_mid[step] = call_int_hook(odd_default, -5);
}

static void far_tests(void)
{
	struct static_call_key *key = &tl_lsm_sealed.calls.odd_default[0];
	void *tramp = tl_lsm_sealed.table.odd_default[0].trampoline;
	void *capa_cb = key->func;
	int (*far)(int) = abs;
	intptr_t d = (intptr_t)((uintptr_t)far - C(OD, 0));

	if (d == (int32_t)d) {
		diag("libc's abs is within rel32 reach: no far callback here");
		return;
	}
	memset(od_mid, 0, sizeof(od_mid));
	ulsm_test_step_hook = od_mid_patch;
	is_int(__static_call_update(key, tramp, (void *)far), 0,
	       "odd_default's slot 0 to libc's abs (out of reach), mid-patch");
	ulsm_test_step_hook = NULL;
	ok(CALL_TO(C(OD, 0)) == I(OD, 0), "  C0 calls the slot's stub I0");
	ok(od_mid[1] == 5 && od_mid[2] == 5, "  mid-patch: abs(-5) (%d, %d)",
	   od_mid[1], od_mid[2]);
	tl_trace_reset();
	is_int(call_int_hook(odd_default, -5), 5, "  dispatch: abs(-5) = 5");
	ok(!strcmp(tl_trace, ""), "  and nothing after it ran: %s", tl_trace);
	is_int(toggle("alpha", false) | toggle("omega", false), 0,
	       "alpha, omega off: capa's slot alone");
	ok(JMP_TO(R(OD)) == I(OD, 0), "  R tail-calls the stub I0");
	is_int(call_int_hook(odd_default, -9), 9, "  dispatch: abs(-9) = 9");
	is_int(toggle("alpha", true) | toggle("omega", true), 0,
	       "alpha, omega on");
	is_int(__static_call_update(key, tramp, capa_cb), 0, "  back to capa");
	ok(CALL_TO(C(OD, 0)) == (uintptr_t)capa_cb, "  C0 calls capa again");
}

int main(void)
{
	struct t_file f = { NULL, 0 };
	void *alpha_cb;

	tl_defaults();
	is_int(ulsm_lsm_init(&tl_hook_set, "alpha"), 0, "init: capa, alpha, omega");
	is_int(ulsm_lsm_allow_toggle(&tl_hook_set), 0, "allow toggling");
	ok(tl_lsm_sealed.entry[FO].map != NULL, "file_open has an entry");
	ok(tl_lsm_sealed.entry[tl_hook_idx_seven_args].map == NULL,
	   "seven_args has none (the C walk)");

	/* Three slots on: R and X0, X1 NOPs, X2 the tail call, C<i> calls. */
	ok(is_nop_site(R(FO)), "3 on: R is a NOP");
	ok(is_nop_site(X(FO, 0)) && is_nop_site(X(FO, 1)), "  X0, X1 are NOPs");
	ok(JMP_TO(X(FO, 2)) == cb(FO, 2), "  X2 jumps to omega's callback");
	ok(CALL_TO(C(FO, 0)) == cb(FO, 0) && CALL_TO(C(FO, 1)) == cb(FO, 1) &&
	   CALL_TO(C(FO, 2)) == cb(FO, 2), "  C<i> call the callbacks directly");
	file_open_is(0, "  dispatch: the default",
		     "capa:file_open alpha:file_open omega:file_open",
		     "  all three ran");

	/* X1: NOP -> skip. */
	check_change("alpha off (X1: NOP -> jmp N1)", alpha_off,
		     "capa:file_open omega:file_open");
	ok(JMP_TO(X(FO, 1)) == N(FO, 1), "  X1 skips the slot");
	ok(is_nop_site(R(FO)) && JMP_TO(X(FO, 2)) == cb(FO, 2), "  R, X2 unchanged");

	/* R: NOP -> jmp cb; X0: NOP -> tail call; X2: tail call -> skip. */
	check_change("omega off (R: NOP -> jmp capa; X2 -> skip)", omega_off,
		     "capa:file_open");
	ok(JMP_TO(R(FO)) == cb(FO, 0), "  R jumps to capa's callback");
	ok(JMP_TO(X(FO, 0)) == cb(FO, 0), "  X0 is the tail call");
	ok(JMP_TO(X(FO, 2)) == N(FO, 2), "  X2 skips the slot");

	/* R: jmp cb -> ret. */
	check_change("capa off (R: jmp -> ret)", capa_off, "");
	ok(is_ret5(R(FO)), "  R is ret, padded with int3");
	ok(JMP_TO(X(FO, 0)) == N(FO, 0), "  X0 skips the slot");
	is_int(call_int_hook(file_open, &f), 0, "  dispatch returns the default");

	/* R: ret -> jmp cb (the last slot alone). */
	check_change("omega on (R: ret -> jmp omega)", omega_on,
		     "omega:file_open");
	ok(JMP_TO(R(FO)) == cb(FO, 2), "  R jumps to omega's callback");

	/* R: jmp -> NOP; X0: skip -> NOP. */
	check_change("capa on (R: jmp -> NOP; X0: skip -> NOP)", capa_on,
		     "capa:file_open omega:file_open");
	ok(is_nop_site(R(FO)) && is_nop_site(X(FO, 0)), "  R, X0 are NOPs");

	/* X1: skip -> NOP. */
	check_change("alpha on (X1: skip -> NOP)", alpha_on,
		     "capa:file_open alpha:file_open omega:file_open");

	/* X2 -> ... R via a toggle of the last one and back: tail call moves. */
	check_change("omega off (X1: NOP -> tail call)", omega_off,
		     "capa:file_open alpha:file_open");
	ok(JMP_TO(X(FO, 1)) == cb(FO, 1), "  X1 is the tail call");
	check_change("omega on (X1: tail call -> NOP)", omega_on,
		     "capa:file_open alpha:file_open omega:file_open");

	/* An early stop, mid-patch: alpha denies, omega is not called. */
	tl_ret[M_ALPHA][FO] = -EACCES;
	file_open_is(-EACCES, "alpha denies: -EACCES",
		     "capa:file_open alpha:file_open", "  omega did not run");
	check_change("capa off, alpha denying", capa_off, "alpha:file_open");
	is_int(mid_rc[1], -EACCES, "  mid-patch: -EACCES");
	is_int(capa_on(), 0, "capa on");
	tl_ret[M_ALPHA][FO] = 0;

	/* C1, retargeted: the emulated call returns where the real one does. */
	check_retarget("emulated by pushing the return address", C(FO, 1) + 5);
	ulsm_test_hook_call_stubs = true;
	check_retarget("emulated through the entry's stub", M(FO, 1) + 5);
	ulsm_test_hook_call_stubs = false;

	/* NULL: C1 calls its stub I1, which returns the default. */
	alpha_cb = (void *)cb(FO, 1);
	is_int(__static_call_update(&tl_lsm_sealed.calls.file_open[1],
				    tl_lsm_sealed.table.file_open[1].trampoline,
				    NULL), 0, "slot 1 to NULL");
	ok(CALL_TO(C(FO, 1)) == I(FO, 1), "  C1 calls its stub");
	tl_trace_reset();
	is_int(file_open(), 0, "  which returns the default");
	ok(!strcmp(tl_trace, "capa:file_open omega:file_open"),
	   "  and the entry goes on: %s", tl_trace);
	is_int(__static_call_update(&tl_lsm_sealed.calls.file_open[1],
				    tl_lsm_sealed.table.file_open[1].trampoline,
				    alpha_cb), 0, "  back to alpha");

	far_tests();
	rt_tests();
	return done_testing();
}

/*
 * A second set, defined here: entries that return through the return
 * thunk (when gcc can make one), and a function that is an entry itself.
 */
#undef ULSM_LSM_SET
#undef ULSM_LSM_HOOK_DEFS
#define ULSM_LSM_SET		rt
#define ULSM_LSM_HOOK_DEFS	"net_hook_defs.h"
#define ULSM_LSM_DEFINE
#if defined(__GNUC__) && !defined(__clang__)
# define ULSM_RETURN_THUNK	1
/* Any function with a thunked return makes gcc emit __x86_return_thunk. */
__attribute__((function_return("thunk"), noinline, used))
static int rt_thunked(int x)
{
	return x + 1;
}
#endif
#include <ulsm/lsm_hooks.h>

DEFINE_LSM_HOOK_ENTRY(rt_security_socket_connect, socket_connect);

static int rt_ports[2];

static int r1_connect(int port)
{
	rt_ports[0] = port;
	return port == 23 ? -EACCES : 0;
}

static int r2_connect(int port)
{
	rt_ports[1] = port;
	return 0;
}

static struct rt_hook_list r1_hooks[] = {
	LSM_HOOK_INIT(socket_connect, r1_connect),
};
static struct rt_hook_list r2_hooks[] = {
	LSM_HOOK_INIT(socket_connect, r2_connect),
};
static const struct lsm_id r1_id = { "r1", 1 }, r2_id = { "r2", 2 };

static int r1_init(void) { return security_add_hooks(r1_hooks, 1, &r1_id); }
static int r2_init(void) { return security_add_hooks(r2_hooks, 1, &r2_id); }

DEFINE_LSM(r1) = { .name = "r1", .init = r1_init, .id = &r1_id };
DEFINE_LSM(r2) = { .name = "r2", .init = r2_init, .id = &r2_id };

#define SC	rt_hook_idx_socket_connect

static int rt_mid_rc[3];

static void rt_mid(int step)
{
	if (step >= 1 && step <= 2)
		rt_mid_rc[step] = rt_security_socket_connect(80) + 100;
}

static void rt_tests(void)
{
	const int32_t *map = rt_lsm_sealed.entry[SC].map;
	uintptr_t r = (uintptr_t)&map[ULSM__HOOK_MAP_RET] +
		      (intptr_t)map[ULSM__HOOK_MAP_RET];
	uintptr_t thunk = map[ULSM__HOOK_MAP_THUNK] ?
			  (uintptr_t)&map[ULSM__HOOK_MAP_THUNK] +
			  (intptr_t)map[ULSM__HOOK_MAP_THUNK] : 0;

#ifdef ULSM_RETURN_THUNK
	ok(thunk != 0, "set rt returns through __x86_return_thunk (%d)",
	   rt_thunked(0));
	ok(JMP_TO(r) == thunk, "  R, compiled: jmp to the thunk");
#else
	ok(thunk == 0 && is_ret5(r), "set rt returns with ret (no thunk)");
#endif
	is_int(ulsm_lsm_init(&rt_hook_set, "r1,r2"), 0, "init rt: r1, r2");
	is_int(ulsm_lsm_allow_toggle(&rt_hook_set), 0, "  allow toggling");
	ok(is_nop_site(r), "  R is a NOP");
	is_int(rt_security_socket_connect(23), -EACCES,
	       "DEFINE_LSM_HOOK_ENTRY: the function dispatches (r1 denies 23)");
	is_int(rt_security_socket_connect(443), 0, "  443 allowed");
	ok(rt_ports[0] == 443 && rt_ports[1] == 443, "  both modules saw it");
	{
		/* Through volatiles: clang folds distinct functions to !=. */
		volatile uintptr_t fn = (uintptr_t)rt_security_socket_connect;
		volatile uintptr_t entry =
			(uintptr_t)rt_lsm_entry_socket_connect;

		ok(fn == entry, "  and is the hook's entry itself");
	}
	is_int(ulsm_lsm_toggle(&rt_hook_set, "r2", false), 0, "r2 off");
	ok(JMP_TO(r) == (uintptr_t)r1_connect, "  R jumps to r1's callback");
	ulsm_test_step_hook = rt_mid;
	is_int(ulsm_lsm_toggle(&rt_hook_set, "r1", false), 0,
	       "r1 off, dispatching mid-patch");
	ulsm_test_step_hook = NULL;
#ifdef ULSM_RETURN_THUNK
	ok(JMP_TO(r) == thunk, "  R jumps to the return thunk");
#else
	ok(is_ret5(r), "  R is ret");
#endif
	ok(rt_mid_rc[1] == 100 && rt_mid_rc[2] == 100,
	   "  mid-patch: returned the default (%d, %d)", rt_mid_rc[1] - 100,
	   rt_mid_rc[2] - 100);
	is_int(rt_security_socket_connect(23), 0, "  no module: the default");
	ulsm_test_step_hook = rt_mid;
	is_int(ulsm_lsm_toggle(&rt_hook_set, "r1", true), 0,
	       "r1 on, dispatching mid-patch");
	ulsm_test_step_hook = NULL;
	ok(rt_mid_rc[1] == 100 && rt_mid_rc[2] == 100 && rt_ports[0] == 80,
	   "  mid-patch: r1 ran (%d, %d)", rt_mid_rc[1] - 100,
	   rt_mid_rc[2] - 100);
	is_int(rt_security_socket_connect(23), -EACCES, "  r1 denies again");
}
#endif
