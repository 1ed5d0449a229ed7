/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/emu_crash.h - under an emulator (ULSM_EMU set), a test that
 * takes SIGSEGV, SIGBUS or SIGILL in its own process says where, on
 * stderr, before it dies of it as it would have:
 *
 *   # guest signal 11 (code 1), thread 4242:
 *   #   pc 0x5500012345 (libulsm.so.1: ulsm_foo+0x1c)
 *   #   lr 0x55000010e0 (t_tracepoint.t+0x10e0)
 *   #   address 0x8
 *
 * (an offset without a name is a static function's: addr2line -e).
 *
 * qemu-user's own message says only which signal, and its core cannot
 * be read without the guest's mappings; tests/lib/test_exec.sh shows
 * these lines when the emulator dies (tests/README.md, "Under an
 * emulator"). Forked children stay silent (some die on purpose), and a
 * test's own handler replaces this one. Native runs install nothing:
 * the sanitizers print better.
 */
#ifndef ULSM_TESTS_EMU_CRASH_H
#define ULSM_TESTS_EMU_CRASH_H

#if defined(__linux__) && (defined(__aarch64__) || defined(__riscv))
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

static pid_t emu_crash_pid;

static void emu_crash_name(const char *what, uintptr_t a)
{
	Dl_info di;

	if (dladdr((void *)a, &di) && di.dli_fname) {
		const char *obj = strrchr(di.dli_fname, '/');

		obj = obj ? obj + 1 : di.dli_fname;
		/* A static function has no symbol: its offset, for addr2line. */
		if (di.dli_sname)
			fprintf(stderr, "#   %s 0x%lx (%s: %s+0x%lx)\n", what,
				(unsigned long)a, obj, di.dli_sname,
				(unsigned long)(a - (uintptr_t)di.dli_saddr));
		else
			fprintf(stderr, "#   %s 0x%lx (%s+0x%lx)\n", what,
				(unsigned long)a, obj,
				(unsigned long)(a - (uintptr_t)di.dli_fbase));
	} else {
		fprintf(stderr, "#   %s 0x%lx (in no loaded object)\n", what,
			(unsigned long)a);
	}
}

/* Reset to the default by SA_RESETHAND: returning faults again, and dies. */
static void emu_crash_say(int sig, siginfo_t *si, void *ctx)
{
	const ucontext_t *uc = ctx;
	uintptr_t pc, lr;

#if defined(__aarch64__)
	pc = (uintptr_t)uc->uc_mcontext.pc;
	lr = (uintptr_t)uc->uc_mcontext.regs[30];
#else
	pc = (uintptr_t)uc->uc_mcontext.__gregs[REG_PC];
	lr = (uintptr_t)uc->uc_mcontext.__gregs[REG_RA];
#endif
	if (getpid() != emu_crash_pid)
		return;
	fprintf(stderr, "# guest signal %d (code %d), thread %ld:\n", sig,
		si->si_code, (long)gettid());
	emu_crash_name("pc", pc);
	emu_crash_name("lr", lr);
	fprintf(stderr, "#   address 0x%lx\n", (unsigned long)si->si_addr);
	fflush(stderr);
}

__attribute__((constructor)) static void emu_crash_install(void)
{
	struct sigaction sa;
	const char *emu = getenv("ULSM_EMU");

	if (!emu || !*emu)
		return;
	emu_crash_pid = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emu_crash_say;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
}
#endif

#endif /* ULSM_TESTS_EMU_CRASH_H */
