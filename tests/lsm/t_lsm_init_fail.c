// SPDX-License-Identifier: MIT
/*
 * ulsm_lsm_init() is all or nothing for what is the set's own: an
 * allocation that fails before any module is initialised leaves the set
 * uninitialised (-ENOMEM), and a retry works; one that fails inside a
 * module's init only turns that module off (0). It used to build the
 * module list after every init had run: a failure there returned -ENOMEM
 * with the modules up, the set initialised, an empty list, and every
 * retry -EALREADY.
 *
 * Each allocation of one ulsm_lsm_init() is failed in turn (the library's
 * fault injection, src/base/sys.h), each time in a child, until an init meets
 * no failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/sys.h"	/* the library's fault injection (src/base/) */
#include "child.h"
#include "tap.h"
#include "test_lsm.h"

struct result {
	int ret, retry;
	unsigned long failed;
	bool consistent;	/* the list names exactly the active modules */
	char list[256], retry_list[256];
};

static void fail_nth_alloc(unsigned long n)
{
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	ulsm_fault.kinds = n ? 1u << ULSM_SYS_ALLOC : 0;
	ulsm_fault.calls = 0;
	ulsm_fault.fail_to = 0;
	ulsm_fault.err = 0;
	ulsm_fault.failed = 0;
	__atomic_store_n(&ulsm_fault.fail_from, n, __ATOMIC_SEQ_CST);
}

static bool list_consistent(void)
{
	const char *list = ulsm_lsm_list(&tl_hook_set);
	char want[256] = "";

	for (int m = 0; m < M_N; m++)
		if (ulsm_lsm_module_active(&tl_hook_set, tl_module_names[m]) == 1)
			snprintf(want + strlen(want), sizeof(want) - strlen(want),
				 "%s%s", want[0] ? "," : "", tl_module_names[m]);
	/* The test modules are defined in their order: capa, alpha, beta... */
	return !strcmp(list, want);
}

static void init_fail_child(void *arg)
{
	unsigned long n = *(unsigned long *)arg;
	struct result r;

	memset(&r, 0, sizeof(r));
	tl_defaults();
	fail_nth_alloc(n);
	r.ret = ulsm_lsm_init(&tl_hook_set, "alpha,beta");
	r.failed = ulsm_fault.failed;
	fail_nth_alloc(0);
	snprintf(r.list, sizeof(r.list), "%s", ulsm_lsm_list(&tl_hook_set));
	r.consistent = list_consistent();
	if (r.ret) {
		r.retry = ulsm_lsm_init(&tl_hook_set, "alpha,beta");
		snprintf(r.retry_list, sizeof(r.retry_list), "%s",
			 ulsm_lsm_list(&tl_hook_set));
	}
	child_send(&r, sizeof(r));
}

/* ulsm_lsm_init() in a child, its @n-th allocation failing. */
static struct result run(unsigned long n)
{
	struct result r;

	if (in_child("init", init_fail_child, &n, &r, sizeof(r)) != sizeof(r)) {
		memset(&r, 0, sizeof(r));
		r.ret = -9999;
	}
	return r;
}

int main(void)
{
	unsigned long n, enomem = 0, off = 0;
	bool all_good = true;

	for (n = 1; n < 1000; n++) {
		struct result r = run(n);
		bool good;

		if (r.ret == -9999) {
			ok(0, "allocation %lu failed: the child died", n);
			all_good = false;
			break;
		}
		if (!r.failed) {
			ok(r.ret == 0 && !strcmp(r.list, "capa,alpha,beta"),
			   "no allocation failed from the %luth on: capa,alpha,beta "
			   "(%s, %d)", n, r.list, r.ret);
			break;
		}
		if (r.ret) {
			/* Nothing of the set changed: a retry brings it up. */
			good = r.ret == -ENOMEM && !r.list[0] && r.retry == 0 &&
			       !strcmp(r.retry_list, "capa,alpha,beta");
			enomem++;
		} else {
			/* A module's init failed: it is off, the list says so. */
			good = r.consistent;
			off++;
		}
		if (!good) {
			ok(0, "allocation %lu failed: init %d, list \"%s\", retry "
			   "%d \"%s\"", n, r.ret, r.list, r.retry, r.retry_list);
			all_good = false;
		}
	}
	ok(all_good, "every failed allocation: -ENOMEM with the set untouched "
	   "(%lu), or 0 with the module whose init failed off (%lu)",
	   enomem, off);
	ok(enomem > 0 && off > 0, "  both kinds of failure were met");
	return done_testing();
}
