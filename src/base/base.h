/* SPDX-License-Identifier: MIT */
/*
 * src/base/base.h - the bottom of the library, which every layer may use:
 * errors and diagnostics, configuration, statistics, and (src/base/sys.h)
 * every system call and allocation. Nothing here knows of sites, keys,
 * calls or hooks, but for one table (src/base/hook_sets.h) through which
 * the hook framework answers the layers beside it. Never installed.
 *
 * The layers above, each using only those below it (README, "Layout"):
 *
 *   src/base/     this: errors, configuration, statistics, system calls
 *   src/engine/   the patching engine and its back ends (arch/)
 *   src/static/   static keys and static calls, kinds of site of the engine
 *   src/lsm/      the hook framework, a client of keys and calls
 *   src/trace/    tracepoints, beside src/lsm/, on keys, calls, updates
 *                 and grace periods
 *   src/init.c, src/dump.c   start-up and the dump, which may use all
 *
 * Every function here has hidden visibility (the whole library is built
 * with -fvisibility=hidden; public functions are marked ULSM_API).
 */
#ifndef ULSM_SRC_BASE_H
#define ULSM_SRC_BASE_H

/* The Makefile defines it for the library's files (no object constructor). */
#ifndef ULSM_BUILDING_LIBRARY
# define ULSM_BUILDING_LIBRARY 1
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <ulsm/ulsm.h>

#include "base/sys.h"

#define ULSM_API	__attribute__((visibility("default")))

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* --- errors and diagnostics (src/base/error.c) ------------------------- */

/* Record @err with a message for ulsm_last_error(); print it if debugging. */
int ulsm_error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ulsm_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A broken internal invariant: print and abort. Never for caller mistakes. */
_Noreturn void ulsm_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void ulsm_clear_error(void);
/*
 * A message the library gives whatever the debug switch (a module that
 * could not come up, an object left pending): to the program's handler
 * (ulsm_set_log), else standard error, as "ulsm: <message>".
 */
void ulsm_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether ulsm_error() and ulsm_debug() print (ULSM_DEBUG); set once. */
extern bool ulsm_debugging;

/* --- time (src/base/sys.c) -------------------------------------------- */

/*
 * CLOCK_MONOTONIC in nanoseconds: the lock's waits, the recorder's events
 * (inline: the vDSO's call, no other), the counts' timestamps.
 */
static inline uint64_t ulsm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in milliseconds: for deadlines, timeouts and backoff. */
uint64_t ulsm_now_ms(void);

/* --- threads (src/base/thread.c) --------------------------------------- */

/*
 * One of the library's threads: every asynchronous signal blocked in it
 * but the sync signal, named @name. 0 or a negative errno.
 */
int ulsm_thread_start(pthread_t *t, bool detached, void *(*fn)(void *),
		      void *arg, const char *name);

/* --- configuration (src/base/config.c) --------------------------------- */

struct ulsm_config {
	enum ulsm_sync_mode sync_mode;
	enum ulsm_write_mode write_mode;
	int sync_signal;
	unsigned int sync_timeout_ms;
};

#define ULSM_SYNC_TIMEOUT_MS_DEFAULT	2000

extern struct ulsm_config ulsm_config;

/*
 * Read the environment into ulsm_config, once; every public entry point
 * calls it first, since a program's constructors may run before the
 * library's (static linking).
 */
void ulsm_config_init(void);
/*
 * What ulsm_config_init() reads (ULSM_DEBUG, ULSM_SYNC, ULSM_WRITE,
 * ULSM_SYNC_TIMEOUT_MS, ULSM_SYNC_SIGNAL), through @env (getenv there;
 * the fuzzing harness's own lookup in tests/fuzz/fuzz_env.c), into @c and
 * *@debugging; nothing else is read or written. Its complaints go through
 * ulsm_debug(), which ulsm_debugging (not *@debugging) governs.
 */
typedef const char *ulsm_env_fn(const char *name);
void ulsm_config_parse(struct ulsm_config *c, bool *debugging,
		       ulsm_env_fn *env);
/*
 * A switch in the environment (ULSM_CONTROL, ULSM_USDT): 0 unset, empty
 * or "0"; 1 for "1"; -EINVAL for anything else, which the caller reports
 * and ignores.
 */
int ulsm_env_flag(const char *v);
/* Switch @name read from the environment: 1 on, 0 off or reported. */
bool ulsm_env_switch(const char *name);

/* --- statistics (src/base/config.c) ------------------------------------ */

extern struct ulsm_stats ulsm_stats;
#define ulsm_stat_add(field, n)						\
	__atomic_fetch_add(&ulsm_stats.field, (n), __ATOMIC_RELAXED)

/* --- loaded objects (src/base/loaded.c) -------------------------------- */

struct ulsm_range {
	uintptr_t lo, hi;
};

#define ULSM_LOADED_SEGS	16

/*
 * The loaded object whose segment holds an address (ulsm_loaded_find):
 * its name as the dynamic linker gives it, whether it is the program,
 * whether that segment is writable, and its loadable segments.
 */
struct ulsm_loaded {
	const char *name;
	bool program;
	bool writable;
	int nsegs;
	struct ulsm_range seg[ULSM_LOADED_SEGS];
};

/* Fill @out for the object that holds @addr; 0 or -ENOENT (none does). */
int ulsm_loaded_find(const void *addr, struct ulsm_loaded *out);

/*
 * Whether @addr is in an object the dynamic linker never unloads: the
 * program, one that its DT_NEEDED entries bring in, one linked with
 * `-z nodelete`, or one those need (src/base/startup.c). False when in
 * doubt (no memory, too many objects, none holds it).
 */
bool ulsm_loaded_for_good(const void *addr);

/*
 * Whether the program is linked statically (-static, -static-pie): it
 * has no dynamic linker of its own (no PT_INTERP), exports no symbols,
 * and a plug-in it loads cannot find its hook sets.
 */
bool ulsm_program_is_static(void);

/*
 * Keep the object that holds @addr loaded for good (RTLD_NODELETE) and
 * remember it (src/base/kept.c): 0 (also for the program), -ENOENT (in
 * no object), or -ELIBACC (the dynamic linker refused; its message).
 */
int ulsm_loaded_keep(const void *addr);

/*
 * A reference to a loaded object (dlopen RTLD_NOLOAD): while it is held,
 * no dlclose() unloads the object. Taken and dropped without the hook
 * framework's lock: a constructor or destructor that registers or
 * unregisters a module takes the dynamic linker's lock first, then the
 * framework's, so taking them the other way round deadlocks.
 */
struct ulsm_hold {
	void *handle;			/* NULL: nothing held */
	unsigned int at;		/* its ranges in the kept table, or ~0u */
	struct ulsm_loaded obj;
};

/*
 * Hold the object that holds @addr: 0, with @h->handle NULL when there is
 * nothing to hold (an object kept already, whose segments @h still
 * knows; the program or code in no object, which it does not); or
 * -ELIBACC (the dynamic linker refused; its message).
 */
int ulsm_loaded_hold(const void *addr, struct ulsm_hold *h);

/*
 * Count @h's object as kept (ulsm_loaded_kept) while it is held, or no
 * longer. Lock-free; false when the table is full (its modules keep
 * their guards).
 */
bool ulsm_loaded_publish(struct ulsm_hold *h);
void ulsm_loaded_unpublish(struct ulsm_hold *h);

/* Whether @addr is in @h's object (held, or kept already). */
bool ulsm_loaded_holds(const struct ulsm_hold *h, const void *addr);

/* Drop the reference (dlclose); not under the framework's lock. */
void ulsm_loaded_release(struct ulsm_hold *h);

/*
 * Whether the code at @addr stays mapped for good: an object the linker
 * never unloads (ulsm_loaded_for_good), one kept by ulsm_loaded_keep(),
 * one held and published, or, under musl (whose dlclose() unmaps
 * nothing), any loaded object.
 */
bool ulsm_loaded_kept(const void *addr);

/*
 * The symbol that the jump-slot relocation of GOT slot @slot names
 * (src/base/plt.c): its name into @name (@len bytes), and in *@here its
 * address if the slot's own object defines it, else 0. 0, or -ENOENT (no
 * such relocation, or a name longer than @len), -EINVAL.
 */
int ulsm_plt_slot_symbol(uintptr_t slot, char *name, size_t len,
			 uintptr_t *here);

/* The writable segments of every loaded object, sorted. */
struct ulsm_ranges {
	struct ulsm_range *v;
	size_t n;
};

/* 0 or -ENOMEM; ulsm_ranges_free() after. */
int ulsm_loaded_writable(struct ulsm_ranges *r);
/* Whether [@p, @p + @len) lies in one of @r's ranges. */
bool ulsm_ranges_hold(const struct ulsm_ranges *r, const void *p, size_t len);
void ulsm_ranges_free(struct ulsm_ranges *r);

#endif /* ULSM_SRC_BASE_H */
