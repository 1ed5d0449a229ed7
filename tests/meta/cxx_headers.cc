// SPDX-License-Identifier: MIT
/*
 * Every public header compiles as C++ (and the static-key API works there).
 */
#include <ulsm/compiler.h>
#include <ulsm/arch.h>
#include <ulsm/jump_label.h>
#include <ulsm/object.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>
#include <ulsm/unroll.h>
#include <ulsm/lsm.h>
#include <ulsm/control.h>

/* A hook set's declarations (its defining unit must be C). */
#define ULSM_LSM_SET		cxxnet
#define ULSM_LSM_HOOK_DEFS	"lsm/net_hook_defs.h"
#define MAX_LSM_COUNT		2
#include <ulsm/lsm_hooks.h>

#include <cstdio>

DEFINE_STATIC_KEY_FALSE(cxx_false);
DEFINE_STATIC_KEY_TRUE(cxx_true);
DEFINE_STATIC_SWITCH(cxx_switch, "a switch defined in C++");

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
DEFINE_STATIC_CALL(cxx_call, twice);

static int checks, failed;

static void check(bool cond, const char *what)
{
	checks++;
	if (!cond)
		failed++;
	std::printf("%sok %d - %s\n", cond ? "" : "not ", checks, what);
}

__attribute__((noinline)) static int sites()
{
	int n = 0;

	if (static_branch_unlikely(&cxx_false))
		n |= 1;
	if (static_branch_likely(&cxx_false))
		n |= 2;
	if (static_branch_unlikely(&cxx_true))
		n |= 4;
	if (static_branch_likely(&cxx_true))
		n |= 8;
	return n;
}

int main()
{
	check(sites() == (4 | 8), "initial state from C++");
	check(static_branch_enable(&cxx_false) == 0, "enable from C++");
	check(static_branch_dec(&cxx_true) == 0, "dec from C++");
	check(sites() == (1 | 2), "both keys flipped");
	check(static_key_enabled(&cxx_false) && !static_key_enabled(&cxx_true),
	      "static_key_enabled from C++");
	check(static_call(cxx_call)(2) == 4, "static_call from C++");
	check(static_call_update(cxx_call, thrice) == 0, "static_call_update from C++");
	check(static_call(cxx_call)(2) == 6, "the new target");
	check(static_call_inline(cxx_call, 2) == 6,
	      "static_call_inline from C++ (through the trampoline)");
	check(static_branch_enable(&cxx_switch) == 0 &&
	      static_key_enabled(&cxx_switch), "a switch from C++");
	check(cxxnet_nhooks == 2, "a hook set's declarations compile in C++");
	std::printf("1..%d\n", checks);
	return failed != 0;
}
