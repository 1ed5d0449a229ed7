/* SPDX-License-Identifier: MIT */
/*
 * ulsm/ulsm.h - ulsm's own interface: options, introspection, errors.
 *
 * The kernel-named APIs live in <ulsm/static_key.h>, <ulsm/static_call.h>
 * and <ulsm/lsm.h>; this header holds what the kernel has no name for.
 * Nothing here is needed for ordinary use: the library sets itself up on
 * first use and reads these environment variables then:
 *
 *   ULSM_DEBUG=1            report refused sites and failed updates on stderr
 *   ULSM_SYNC=membarrier|signal       force a core-sync method
 *   ULSM_WRITE=procmem|mprotect       force a text write method
 *   ULSM_SYNC_SIGNAL=N      the real-time signal used by the signal fallback
 *                           (default SIGRTMAX - 3)
 *   ULSM_SYNC_TIMEOUT_MS=N  how long a signal-sync round waits for the
 *                           threads to answer (default 2000)
 *   ULSM_DUMP=1|path        ulsm_dump() at exit, to stderr or a file
 *
 * Example:
 *
 *	struct ulsm_stats st;
 *	ulsm_get_stats(&st);
 *	printf("%lu batches, %lu core syncs\n", st.batches, st.core_syncs);
 */
#ifndef ULSM_ULSM_H
#define ULSM_ULSM_H

#include <stdio.h>

#include <ulsm/compiler.h>

ULSM__EXTERN_C_BEGIN

enum ulsm_sync_mode {
	ULSM_SYNC_AUTO = 0,	/* membarrier if the kernel has it, else signal;
				   riscv64: riscv_flush_icache, else those */
	ULSM_SYNC_MEMBARRIER,	/* membarrier SYNC_CORE only */
	ULSM_SYNC_SIGNAL,	/* signal every thread, which serialises
				   (riscv64: after riscv_flush_icache) */
};

enum ulsm_write_mode {
	ULSM_WRITE_AUTO = 0,	/* /proc/self/mem, else an mprotect window */
	ULSM_WRITE_PROCMEM,	/* /proc/self/mem only */
	ULSM_WRITE_MPROTECT,	/* mprotect window only */
};

/**
 * ulsm_set_sync_mode - choose how other threads are made to serialise
 * @mode: one of enum ulsm_sync_mode
 *
 * Return: 0, -EINVAL for an unknown mode, -ENOSYS if the kernel lacks
 * membarrier SYNC_CORE and @mode is ULSM_SYNC_MEMBARRIER (or, on riscv64,
 * riscv_flush_icache is refused and @mode is ULSM_SYNC_SIGNAL: a signal
 * round alone cannot synchronise instruction fetch there).
 */
int ulsm_set_sync_mode(enum ulsm_sync_mode mode);

/**
 * ulsm_set_sync_timeout - bound the wait of a signal-sync round
 * @ms: milliseconds, at least 1; the default is 2000 (ULSM_SYNC_TIMEOUT_MS)
 *
 * A round of the signal fallback that has not heard from every thread
 * after @ms fails the update with -ETIMEDOUT, and nothing changes.
 *
 * Return: 0 or -EINVAL.
 */
int ulsm_set_sync_timeout(unsigned int ms);

/**
 * ulsm_set_write_mode - choose how text is written
 * @mode: one of enum ulsm_write_mode
 *
 * Return: 0 or -EINVAL.
 */
int ulsm_set_write_mode(enum ulsm_write_mode mode);

/**
 * struct ulsm_stats - counters since the process started
 * @batches:        batches applied successfully
 * @batches_failed: batches that failed (nothing left changed)
 * @sites_patched:  sites rewritten
 * @core_syncs:     core synchronisations performed
 * @traps_emulated: breakpoint traps that continued as the new instruction
 * @traps_rewound:  late breakpoint traps that re-executed the site
 * @traps_passed:   traps that were not ulsm's, passed on
 * @call_sites:     call sites registered to call a static call's target
 *                  directly (ulsm_static_call_sites())
 * @call_sites_skipped: call sites left calling their trampoline (not a
 *                  direct call to it as compiled, or a shadow stack)
 * @lock_waits:     updates that had to wait for another's (the patch lock)
 * @lock_wait_max_ns: the longest such wait, in nanoseconds
 * @syncs_failed:   core syncs that failed while rolling a batch back
 * @batches_stranded: batches whose rollback could not finish at once
 *                  (docs/patching-protocol.md, "Failures")
 */
struct ulsm_stats {
	unsigned long batches;
	unsigned long batches_failed;
	unsigned long sites_patched;
	unsigned long core_syncs;
	unsigned long traps_emulated;
	unsigned long traps_rewound;
	unsigned long traps_passed;
	unsigned long call_sites;
	unsigned long call_sites_skipped;
	unsigned long lock_waits;
	unsigned long lock_wait_max_ns;
	unsigned long syncs_failed;
	unsigned long batches_stranded;
	unsigned long grace_periods;	/* ulsm_synchronize() that waited */
};

/**
 * ulsm_get_stats - read the counters
 * @stats: filled in
 *
 * A macro: it passes the size of the program's struct ulsm_stats, so that
 * a program built against this header keeps working with a later library
 * whose structure has more counters (it gets those it knows of).
 */
#define ulsm_get_stats(stats)	ulsm_get_stats_size((stats), sizeof(*(stats)))
/**
 * ulsm_get_stats_size - ulsm_get_stats() with the structure's size
 * @stats: filled in, up to @size bytes
 * @size:  sizeof the caller's struct ulsm_stats; the counters past the
 *         library's are zeroed
 */
void ulsm_get_stats_size(struct ulsm_stats *stats, size_t size);

/**
 * ulsm_version - the library's version, "0.2.0" (what ULSM_VERSION says
 * for the headers a program was built with: the two differ when a
 * program runs with another release's library)
 */
const char *ulsm_version(void);

/**
 * ulsm_backend - the back end the library was built with
 *
 * Return: "x86_64", "aarch64", "riscv64" or "generic".
 */
const char *ulsm_backend(void);

/**
 * ulsm_sync_method - the core-sync method in use
 *
 * The method is chosen by the first batch (or ulsm_set_sync_mode()).
 * Return: "membarrier", "signal", "riscv_flush_icache" (riscv64), "unused"
 * (nothing patched yet), or "none" (generic back end).
 */
const char *ulsm_sync_method(void);

/**
 * ulsm_pending_objects - objects whose sites could not be registered yet
 *
 * An executable or shared object registers its sites when it is loaded.
 * If that fails for want of a resource (memory, a descriptor, a sync), the
 * object is kept pending: its sites run as compiled, and every update
 * first retries it (and fails while it cannot bring it in line). There
 * is no limit on their number but memory: an object that cannot even be
 * kept pending (no memory for the table) is counted here too, and every
 * update fails with -ENOMEM until that object is unloaded.
 *
 * Return: the number of pending objects.
 */
int ulsm_pending_objects(void);

/**
 * ulsm_retry_pending - register the pending objects now, and finish the
 * departures of plug-in modules that could not leave when their object
 * was unloaded (docs/hook-framework.md, "A departure that cannot finish")
 *
 * Return: 0 when nothing is left pending, or the negative errno of the
 * first object that still cannot be registered, or else of the first
 * departure that still cannot finish (ulsm_last_error() explains).
 */
int ulsm_retry_pending(void);

/**
 * ulsm_dump - print everything the library knows, for a person to read
 * @f: where to (stderr, a file)
 *
 * The registered objects (and pending ones), every static key with its
 * state and number of sites, every static call with its target, form and
 * call sites (how many call the target directly), and every initialised
 * hook set: its modules with their state and order, and which module sits
 * in which slot of each hook that has one. Names come from the dynamic
 * symbol table; a static or hidden key shows as its address. ULSM_DUMP=1
 * prints this on standard error at exit (ULSM_DUMP=path appends it to a
 * file). Takes the library's locks: not from a signal handler.
 */
void ulsm_dump(FILE *f);

/**
 * ulsm_last_error - what went wrong in this thread's last failed update
 *
 * Return: a message, or "" if none; valid until the thread's next ulsm call.
 */
const char *ulsm_last_error(void);

/**
 * ulsm_set_log - where the library's messages go
 * @fn:  called with each message (one line, no newline, no "ulsm: "
 *       prefix), serialised by the library; NULL: standard error
 * @arg: passed to @fn
 *
 * The library prints a few messages whatever ULSM_DEBUG says, because a
 * host must not lose them: a module that could not come up (ulsm_lsm(3)),
 * an object whose sites are left pending, a page whose protection could
 * not be restored. With ULSM_DEBUG=1 it also prints every error and its
 * decisions. By default each goes to standard error as "ulsm: <message>";
 * a host with a log of its own (a server's error log) routes them there.
 * @fn must not call the library.
 */
void ulsm_set_log(void (*fn)(const char *msg, void *arg), void *arg);

ULSM__EXTERN_C_END

#endif /* ULSM_ULSM_H */
