/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/runtime.h - what the tests need to know about where they run.
 *
 * Under ThreadSanitizer and under qemu-user a thread of the runtime blocks
 * every signal, so the signal sync (rightly) refuses every update with
 * -EDEADLK, and ThreadSanitizer delivers asynchronous signals only at the
 * calls it intercepts. ULSM_EMU is set by make check when EMU= is.
 */
#ifndef ULSM_TESTS_RUNTIME_H
#define ULSM_TESTS_RUNTIME_H

#include <stdbool.h>
#include <stdlib.h>

#if defined(__has_feature)
# if __has_feature(thread_sanitizer)
#  define UNDER_TSAN 1
# endif
#endif
#ifdef __SANITIZE_THREAD__
# define UNDER_TSAN 1
#endif

/* Under an emulator (make check EMU=...). */
__attribute__((unused)) static bool under_emulator(void)
{
	const char *emu = getenv("ULSM_EMU");

	return emu && *emu;
}

/* Whether the signal sync can synchronise every thread here. */
__attribute__((unused)) static bool signal_sync_usable(void)
{
#ifdef UNDER_TSAN
	return false;
#else
	return !under_emulator();
#endif
}

#endif /* ULSM_TESTS_RUNTIME_H */
