// SPDX-License-Identifier: MIT
/*
 * The breakpoint handler:
 *  - a thread that meets the breakpoint mid-patch continues as the new
 *    instruction (the test hook runs the site between the steps, in the
 *    patching thread itself, so the trap is certain);
 *  - a trap at a registered site whose breakpoint is gone (late delivery)
 *    re-executes the site; anything else is not ours;
 *  - traps that are not ours reach the program's own handler, also when it
 *    was installed after ulsm's; with no handler they take the default
 *    action (the process dies of SIGTRAP); SIG_IGN ignores them.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "sites.h"
#include "tap.h"

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end has no breakpoint handler");
}
#elif !BREAKPOINT_PROTOCOL
int main(void)
{
	skip_all(ULSM_ARCH_NAME " stores one word per site: no breakpoint, "
		 "no handler");
}
#else

DEFINE_STATIC_KEY_FALSE(tk);
DEFINE_STATIC_KEY_FALSE(other);

__attribute__((noinline)) static int site_unlikely(void)
{
	return static_branch_unlikely(&tk) ? 11 : 22;
}

__attribute__((noinline)) static int site_likely(void)
{
	return static_branch_likely(&tk) ? 11 : 22;
}

/* A site for the other key, so that flipping it really patches. */
__attribute__((noinline, used)) static int site_other(void)
{
	return static_branch_unlikely(&other);
}

static int seen_in_step[3][2];

static void run_sites_mid_patch(int step)
{
	seen_in_step[step][0] = site_unlikely();
	seen_in_step[step][1] = site_likely();
}

static volatile sig_atomic_t program_traps;

static void program_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	program_traps++;
}

static void install_program_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = program_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
}

static int flip_other(void)
{
	int ret = static_branch_enable(&other) | static_branch_disable(&other);

	return ret ? ret : site_other();
}

/* In a child: flip (so ulsm's handler is installed), then execute int3. */
static int child_int3_status(void (*setup)(void))
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		setup();
		if (flip_other())
			_exit(3);
		__asm__ __volatile__("int3");
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return status;
}

static void setup_default(void) { signal(SIGTRAP, SIG_DFL); }
static void setup_ignore(void) { signal(SIGTRAP, SIG_IGN); }

int main(void)
{
	struct ulsm_stats st0, st1;
	uintptr_t sites[4] = { 0 }, resume = 0, link = 0;
	int status;

	/* Mid-patch emulation, in both directions. */
	ulsm_get_stats(&st0);
	ulsm_test_step_hook = run_sites_mid_patch;
	is_int(static_branch_enable(&tk), 0, "enable with sites run mid-patch");
	ulsm_test_step_hook = NULL;
	for (int step = 1; step <= 2; step++) {
		is_int(seen_in_step[step][0], 11, "step %d: unlikely site runs the new path", step);
		is_int(seen_in_step[step][1], 11, "step %d: likely site runs the new path", step);
	}
	ulsm_get_stats(&st1);
	is_int(st1.traps_emulated - st0.traps_emulated, 4, "four traps emulated");
	ulsm_test_step_hook = run_sites_mid_patch;
	is_int(static_branch_disable(&tk), 0, "disable with sites run mid-patch");
	ulsm_test_step_hook = NULL;
	for (int step = 1; step <= 2; step++)
		ok(seen_in_step[step][0] == 22 && seen_in_step[step][1] == 22,
		   "step %d of disable: both sites run the new (disabled) path", step);
	is_int(site_unlikely(), 22, "after: disabled");

	/* Late delivery and foreign traps, decided by the lookup. */
	is_int(find_sites(&tk, sites, NULL, 4), 2, "two sites of the key");
	is_int(ulsm_trap_lookup(sites[0], &resume, &link), TRAP_REWIND,
	       "registered site without breakpoint: rewind (late trap)");
	{
		/*
		 * The race found by the hook benchmark: the handler read the
		 * batch pointer (none), then a batch was published and wrote
		 * its breakpoint. A registered site with a breakpoint and no
		 * batch must be re-executed, not passed on (which killed the
		 * process).
		 */
		uint8_t saved = *(const uint8_t *)sites[0], bp = 0xcc;

		is_int(poke_text(sites[0], &bp, 1), 0, "a breakpoint, no batch");
		is_int(ulsm_trap_lookup(sites[0], &resume, &link), TRAP_REWIND,
		       "registered site, breakpoint, no batch: rewind");
		is_int(poke_text(sites[0], &saved, 1), 0, "restored");
	}
	is_int(ulsm_trap_lookup(sites[0] + 1, &resume, &link), TRAP_NOT_OURS,
	       "inside a site: not ours");
	is_int(ulsm_trap_lookup((uintptr_t)main, &resume, &link), TRAP_NOT_OURS,
	       "other code: not ours");

	/* The program's own handler, installed before ulsm's. */
	install_program_handler();
	is_int(flip_other(), 0, "flip a key (installs ulsm's handler)");
	ulsm_get_stats(&st0);
	__asm__ __volatile__("int3");
	is_int(program_traps, 1, "the program's int3 reaches its handler");
	raise(SIGTRAP);
	is_int(program_traps, 2, "a sent SIGTRAP reaches it too");
	ulsm_get_stats(&st1);
	is_int(st1.traps_passed - st0.traps_passed, 2, "both passed on by ulsm");

	/* ... and installed after ulsm's: ulsm re-installs and chains. */
	install_program_handler();
	is_int(flip_other(), 0, "flip again (ulsm re-installs its handler)");
	__asm__ __volatile__("int3");
	is_int(program_traps, 3, "the replacing handler still gets its traps");
	ulsm_test_step_hook = run_sites_mid_patch;
	is_int(static_branch_enable(&tk), 0, "and our traps are still ours");
	ulsm_test_step_hook = NULL;
	is_int(seen_in_step[1][0], 11, "mid-patch emulation still works");
	is_int(program_traps, 3, "the program saw none of ulsm's traps");

	/* Default action and SIG_IGN, in children. */
	status = child_int3_status(setup_default);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTRAP,
	   "no handler: the process dies of SIGTRAP as without ulsm (status %#x)",
	   status);
	status = child_int3_status(setup_ignore);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "SIG_IGN: the trap is ignored (status %#x)", status);
	return done_testing();
}
#endif /* ULSM_ARCH_GENERIC */
