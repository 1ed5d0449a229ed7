/* SPDX-License-Identifier: MIT */
/*
 * ulsm/tracepoint.h - tracepoints that are a NOP while off and a direct
 * call of the probe while one is attached, as the kernel's.
 *
 *	// in a header
 *	DECLARE_TRACEPOINT(req_start, TP_PROTO(int fd, long len), TP_ARGS(fd, len));
 *	// in exactly one .c file of the object (program or shared object),
 *	// after the declaration (the header)
 *	DEFINE_TRACEPOINT(req_start, TP_PROTO(int fd, long len), TP_ARGS(fd, len));
 *
 *	trace_req_start(fd, len);		// a 5-byte NOP while no probe
 *
 *	static void on_start(void *data, int fd, long len) { ... }
 *	register_trace_req_start(on_start, cookie);	// 0 or -errno
 *	unregister_trace_req_start(on_start, cookie);	// no thread is still
 *							// inside on_start
 *
 * A tracepoint's site is a static key. With one probe attached, the site
 * calls it through the tracepoint's static call (on x86-64 the call site
 * itself is patched to call the probe), with the probe's data as first
 * argument. With several, the static call targets the tracepoint's
 * iterator, which calls each in the order they were attached. The call
 * is inside a read-side section (<ulsm/grace.h>): unregistering returns
 * only when no thread is still inside the probe, whatever it does (it may
 * sleep). Probes are attached and detached from any thread, at any time,
 * while other threads hit the tracepoint; not from inside a probe, nor
 * from any read-side section (-EDEADLK, and nothing changes). Inside one,
 * the rest (ulsm_tracepoint_find(), ulsm_trace_write(), loading and
 * unloading objects with tracepoints) works, also while another thread
 * waits for a grace period. A child of fork() inherits every tracepoint
 * and probe, and may attach, detach and record.
 *
 * Every tracepoint of every loaded object is known by name (a constructor
 * adds it, a destructor removes it at dlclose): ulsm_trace_attach() takes
 * a glob and attaches to the tracepoints that match, now and those that
 * appear later, until ulsm_trace_detach(); ulsm_dump() lists them all
 * with their state and probes. A tracepoint has a probe (with its data)
 * once, however many globs attach it, and keeps it while one of them is
 * attached.
 *
 * The built-in recorder is a probe: ulsm_trace_enable("req_*") attaches
 * it; it writes, per thread and with no lock and no system call, the time,
 * the tracepoint and its first six arguments into a ring buffer: each as
 * an integer (at most 8 bytes of it), but a `char *` or `const char *`
 * parameter as its text (up to 256 bytes; a longer string is cut, and
 * marked so). When a ring is full its oldest events are overwritten and
 * counted as lost, per thread. ulsm_trace_write() saves every ring, with
 * the process's pid and each thread's name, to a file that the ulsm-trace
 * tool turns into text or into Chrome trace-event JSON (which Perfetto
 * and speedscope open); ulsm_trace_clear() empties the rings, from any
 * thread. ULSM_TRACE=glob,... enables it at start-up and writes
 * ULSM_TRACE_FILE (default ulsm-trace.<pid>.bin) at exit. A child of
 * fork() keeps the buffers as they were at the fork, and records into
 * buffers of its own.
 *
 * Limits: a tracepoint has one to six parameters (TP_PROTO(void) is not
 * supported), of types that fit the recorder's words or not (wider ones
 * are recorded by their first 8 bytes). A string parameter must be NULL
 * or point to a string (the recorder reads up to 257 bytes of it). The
 * file that DEFINE_TRACEPOINT() is in must be C (C11 _Generic tells the
 * strings apart); DECLARE_TRACEPOINT() and the sites compile as C++ too.
 * A probe attached by glob must have the prototype of every tracepoint
 * the glob matches: nothing can check it. A probe's object must stay
 * loaded while it is attached.
 */
#ifndef ULSM_TRACEPOINT_H
#define ULSM_TRACEPOINT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <ulsm/compiler.h>
#include <ulsm/grace.h>
#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/usdt.h>

ULSM__EXTERN_C_BEGIN

struct ulsm_tp_probe {
	void *func;
	void *data;
};

/*
 * The probes attached to a tracepoint, replaced as a whole (RCU). A
 * flexible array member, which C++ has only as an extension.
 */
__extension__ struct ulsm_tp_funcs {
	int n;
	struct ulsm_tp_probe probes[];
};

/*
 * A parameter's type, as the recorder writes it (docs/tracepoints.md,
 * "The file"): its kind in the high four bits, its size in bytes in the
 * low four (a string's is 0). Decided at compile time from the C type: an
 * enum has the signedness of the integer type the compiler gave it, a
 * char that of the platform's char, an array is its pointer.
 */
enum ulsm_tp_type {
	ULSM_TP_SIGNED		= 0x10,	/* | 1, 2, 4, 8 */
	ULSM_TP_UNSIGNED	= 0x20,
	ULSM_TP_BOOL		= 0x30,
	ULSM_TP_ENUM_SIGNED	= 0x40,
	ULSM_TP_ENUM_UNSIGNED	= 0x50,
	ULSM_TP_POINTER		= 0x60,
	ULSM_TP_FLOAT		= 0x70,	/* | 4 (float), 8 (double) */
	ULSM_TP_STRING		= 0x80,	/* char *, const char *: its text */
	ULSM_TP_OTHER		= 0x90,	/* anything else: its first bytes */
};

/*
 * How many probes the iterator calls through static calls of their own
 * (its slots), each patched to a direct call of its probe as the site's
 * is; with more, it calls them through pointers.
 */
#define ULSM_TP_SLOTS		4

/*
 * A tracepoint (made by DEFINE_TRACEPOINT).
 * @size:    sizeof(struct ulsm_tracepoint) in the object that defines it:
 *           the library reads no field beyond it (a later release may
 *           add fields at the end)
 * @types:   each parameter's enum ulsm_tp_type
 * @key:     on while a probe is attached
 * @call:    the static call the site makes: NULL, the single probe, or
 *           @iter
 * @data:    the single probe's data, which the site passes
 * @funcs:   every probe, in the order of attachment (read by @iter)
 * @record:  the recorder's probe for this prototype
 * @usdt:    the probe with the USDT probe in it (<ulsm/usdt.h>), which
 *           also counts its hits in the unsigned long its data points at
 * @usdt_sema: that USDT probe's semaphore
 * @slot_call, @slot_tramp: @iter's static calls, one per probe
 * @slotted: the array whose probes the slots call (NULL: none; @iter
 *           then calls through pointers)
 */
struct ulsm_tracepoint {
	unsigned int size;
	const char *name;
	const char *args;		/* the parameters' names, "fd, len" */
	int nargs;
	const unsigned char *types;
	struct static_key_false *key;
	struct static_call_key *call;
	void *tramp;
	void *iter;
	void *record;
	void *usdt;
	volatile unsigned short *usdt_sema;
	void *data;
	struct ulsm_tp_funcs *funcs;
	struct static_call_key *slot_call[ULSM_TP_SLOTS];
	void *slot_tramp[ULSM_TP_SLOTS];
	struct ulsm_tp_funcs *slotted;	/* the library's */
	unsigned int id;		/* the library's: for the recorder */
	unsigned int gen;		/* the library's: changes of @funcs */
	bool was_on;			/* the library's: a probe was attached */
	struct ulsm_tracepoint *next;	/* the library's: every tracepoint */
};

/**
 * tracepoint_probe_register - attach @probe, with @data, to @tp
 *
 * Return: 0, -EEXIST (the same probe and data are attached), -EDEADLK
 * (called from a read-side section: a probe), -ENOMEM, or the error of
 * the update; on an error nothing changed.
 */
int tracepoint_probe_register(struct ulsm_tracepoint *tp, void *probe,
			      void *data);
/**
 * tracepoint_probe_unregister - detach @probe and @data from @tp; when it
 * returns 0, no thread is inside the probe any more
 *
 * Return: 0, -ENOENT (not attached), -EDEADLK (called from a read-side
 * section: a probe), -ENOMEM or the error of the update (these three:
 * still attached, nothing changed), or the error of the grace period
 * (ulsm_synchronize(): detached, but a thread may still be inside it).
 */
int tracepoint_probe_unregister(struct ulsm_tracepoint *tp, void *probe,
				void *data);

/**
 * ulsm_trace_attach - attach @probe to every tracepoint whose name
 * matches @glob (fnmatch), now and when objects that define more load
 *
 * Return: how many tracepoints it attached to now (0 or more: those that
 * had the probe with @data already are not counted), or a negative errno,
 * and then nothing changed: -EEXIST (this glob, probe and data are
 * attached already), -EDEADLK (from a read-side section), -EINVAL,
 * -ENOMEM, or the error of the update.
 */
int ulsm_trace_attach(const char *glob, void *probe, void *data);
/**
 * ulsm_trace_detach - undo ulsm_trace_attach() with the same arguments;
 * the tracepoints that another attached glob of the same probe and data
 * matches keep it
 *
 * Return: how many tracepoints it was detached from, or a negative errno:
 * -ENOENT (no such glob, probe and data attached), -EDEADLK, -EINVAL,
 * -ENOMEM or the error of the update (nothing changed), or the error of
 * the grace period (detached, as for tracepoint_probe_unregister()).
 */
int ulsm_trace_detach(const char *glob, void *probe, void *data);

/**
 * ulsm_trace_enable - attach the recorder to the tracepoints of @glob
 * (as ulsm_trace_attach(), also -EEXIST for a glob enabled already, by
 * this or by ULSM_TRACE)
 */
int ulsm_trace_enable(const char *glob);
/**
 * ulsm_trace_disable - detach the recorder from them (as
 * ulsm_trace_detach(): -ENOENT for a glob not enabled)
 */
int ulsm_trace_disable(const char *glob);
/**
 * ulsm_trace_write - write every thread's recorded events to @path, with
 * the process's pid, each thread's name (as it is now) and the events
 * each thread lost (its ring overwrote them) since the rings were cleared
 *
 * It may be called while threads record: it reads the rings without a
 * lock, and an event being overwritten as it is read counts as lost.
 *
 * Return: how many events it wrote, or a negative errno.
 */
long ulsm_trace_write(const char *path);

/**
 * ulsm_trace_clear - forget every event recorded so far, in every thread
 *
 * From any thread, while threads record: it takes no lock, and threads
 * that record take none either. The events recorded while it runs may be
 * kept or forgotten.
 *
 * Return: 0.
 */
int ulsm_trace_clear(void);

/**
 * ulsm_trace_clock_name - the clock the recorder stamps events with
 *
 * Chosen once, before the process's first event (or this call):
 * "counter", the CPU's counter (rdtsc, cntvct_el0), converted to
 * CLOCK_MONOTONIC when the events are read out, where it runs at one rate
 * on every CPU and ULSM_TRACE_CLOCK does not say "monotonic"; else
 * "monotonic", CLOCK_MONOTONIC read at each event (slower: a clock_gettime
 * call). On x86-64 the counter is used only where the TSC is invariant
 * and the kernel's clocksource is "tsc".
 *
 * Return: "counter" or "monotonic", a static string.
 */
const char *ulsm_trace_clock_name(void);

/**
 * ulsm_trace_usdt_poll - look at the USDT semaphores now: attach each
 * tracepoint's USDT probe where a tracer (perf, bpftrace) listens, and
 * detach it where none does any more
 *
 * The kernel adds one to a probe's semaphore while a tracer is attached
 * to it, and nothing tells the process: the library looks every 100 ms
 * while the control endpoint runs (ulsm_control_start(), ULSM_CONTROL=1)
 * or ULSM_USDT=1 is set; a program that has neither may call this from
 * a loop of its own. Not from inside a probe (-EDEADLK).
 *
 * Return: 0, or a negative errno (nothing changed).
 */
int ulsm_trace_usdt_poll(void);

/**
 * ulsm_tracepoint_find - the loaded tracepoint called @name, or NULL
 */
struct ulsm_tracepoint *ulsm_tracepoint_find(const char *name);

/*
 * CLOCK_MONOTONIC in nanoseconds: what a traced hook dispatch takes the
 * time of each module with (<ulsm/lsm_hooks.h>).
 */
unsigned long long ulsm__trace_ns(void);

/* The defining unit's constructor and destructor. */
void ulsm__tracepoint_add(struct ulsm_tracepoint *tp);
void ulsm__tracepoint_remove(struct ulsm_tracepoint *tp);
/* The recorder's entry: @n words of arguments. */
void ulsm__trace_record(const struct ulsm_tracepoint *tp, int n,
			const uint64_t *words);
/* The same, where the words of @strs (a bit each) are C strings. */
void ulsm__trace_record_str(const struct ulsm_tracepoint *tp, int n,
			    const uint64_t *words, unsigned int strs);

ULSM__EXTERN_C_END

#define TP_PROTO(...)	__VA_ARGS__
#define TP_ARGS(...)	__VA_ARGS__

/* A parameter as a recorder's word: its first 8 bytes, zero-extended. */
#define ULSM__TP_WORD(x)						\
__extension__ ({							\
	uint64_t ulsm__tw = 0;						\
	memcpy(&ulsm__tw, &(x), sizeof(x) < 8 ? sizeof(x) : 8);		\
	ulsm__tw;							\
})
#define ULSM__TP_W1(a)			ULSM__TP_WORD(a)
#define ULSM__TP_W2(a, ...)		ULSM__TP_WORD(a), ULSM__TP_W1(__VA_ARGS__)
#define ULSM__TP_W3(a, ...)		ULSM__TP_WORD(a), ULSM__TP_W2(__VA_ARGS__)
#define ULSM__TP_W4(a, ...)		ULSM__TP_WORD(a), ULSM__TP_W3(__VA_ARGS__)
#define ULSM__TP_W5(a, ...)		ULSM__TP_WORD(a), ULSM__TP_W4(__VA_ARGS__)
#define ULSM__TP_W6(a, ...)		ULSM__TP_WORD(a), ULSM__TP_W5(__VA_ARGS__)
#define ULSM__TP_NARGS(...)						\
	ULSM__TP_NARGS_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define ULSM__TP_NARGS_(a1, a2, a3, a4, a5, a6, N, ...)	N
#define ULSM__TP_WORDS_(n, ...)		ULSM__TP_W##n(__VA_ARGS__)
#define ULSM__TP_WORDS(n, ...)		ULSM__TP_WORDS_(n, __VA_ARGS__)

/*
 * Which parameters the recorder copies as text: those of type char * or
 * const char *, a bit each, decided at compile time (C11 _Generic, so a
 * defining unit is C). A prototype without one costs what it always did.
 */
#define ULSM__TP_ISSTR(x)						\
	(__extension__ _Generic((x), char *: 1u, const char *: 1u,	\
				default: 0u))
#define ULSM__TP_S1(a)		ULSM__TP_ISSTR(a)
#define ULSM__TP_S2(a, ...)	(ULSM__TP_ISSTR(a) | ULSM__TP_S1(__VA_ARGS__) << 1)
#define ULSM__TP_S3(a, ...)	(ULSM__TP_ISSTR(a) | ULSM__TP_S2(__VA_ARGS__) << 1)
#define ULSM__TP_S4(a, ...)	(ULSM__TP_ISSTR(a) | ULSM__TP_S3(__VA_ARGS__) << 1)
#define ULSM__TP_S5(a, ...)	(ULSM__TP_ISSTR(a) | ULSM__TP_S4(__VA_ARGS__) << 1)
#define ULSM__TP_S6(a, ...)	(ULSM__TP_ISSTR(a) | ULSM__TP_S5(__VA_ARGS__) << 1)
#define ULSM__TP_STRS_(n, ...)		ULSM__TP_S##n(__VA_ARGS__)
#define ULSM__TP_STRS(n, ...)		ULSM__TP_STRS_(n, __VA_ARGS__)

/*
 * The parameters as the members of a structure ("int fd, long len" as
 * "int fd; long len;"), so that their types are known at file scope: in
 * the type of a member, in sizeof and the classification below, which
 * evaluate nothing.
 */
#define ULSM__TP_M1(a)			a;
#define ULSM__TP_M2(a, ...)		a; ULSM__TP_M1(__VA_ARGS__)
#define ULSM__TP_M3(a, ...)		a; ULSM__TP_M2(__VA_ARGS__)
#define ULSM__TP_M4(a, ...)		a; ULSM__TP_M3(__VA_ARGS__)
#define ULSM__TP_M5(a, ...)		a; ULSM__TP_M4(__VA_ARGS__)
#define ULSM__TP_M6(a, ...)		a; ULSM__TP_M5(__VA_ARGS__)
#define ULSM__TP_MEMBERS_(n, ...)	ULSM__TP_M##n(__VA_ARGS__)
#define ULSM__TP_MEMBERS(n, ...)	ULSM__TP_MEMBERS_(n, __VA_ARGS__)

/* A parameter's enum ulsm_tp_type (<ulsm/usdt.h> classifies). */
#define ULSM__TP_SIZE(x)	((unsigned int)sizeof(ULSM__USDT_V(x)))
#define ULSM__TP_TYPE(x)						\
	(__extension__ _Generic(ULSM__USDT_V(x), char *: 1, const char *: 1, \
		  default: 0) ? ULSM_TP_STRING :			\
	 __extension__ _Generic(ULSM__USDT_V(x), _Bool: 1, default: 0) || \
	 ULSM__USDT_CLASS(x) == 4 ? ULSM_TP_BOOL | ULSM__TP_SIZE(x) :	\
	 ULSM__USDT_CLASS(x) == 3 ?					\
		(ULSM__USDT_SIGNED(x) ? ULSM_TP_ENUM_SIGNED :		\
		 ULSM_TP_ENUM_UNSIGNED) | ULSM__TP_SIZE(x) :		\
	 ULSM__USDT_IS_INT(x) ?						\
		(ULSM__USDT_SIGNED(x) ? ULSM_TP_SIGNED :		\
		 ULSM_TP_UNSIGNED) | ULSM__TP_SIZE(x) :			\
	 ULSM__USDT_CLASS(x) == 5 ? ULSM_TP_POINTER | ULSM__TP_SIZE(x) : \
	 ULSM__USDT_IS_REAL(x) &&					\
	 (ULSM__TP_SIZE(x) == 4 || ULSM__TP_SIZE(x) == 8) ?		\
		ULSM_TP_FLOAT | ULSM__TP_SIZE(x) :			\
	 ULSM_TP_OTHER | (ULSM__TP_SIZE(x) < 8 ? ULSM__TP_SIZE(x) : 8))
#define ULSM__TP_T(S, a)		ULSM__TP_TYPE(((struct S *)0)->a)
#define ULSM__TP_T1(S, a)		ULSM__TP_T(S, a)
#define ULSM__TP_T2(S, a, ...)		ULSM__TP_T(S, a), ULSM__TP_T1(S, __VA_ARGS__)
#define ULSM__TP_T3(S, a, ...)		ULSM__TP_T(S, a), ULSM__TP_T2(S, __VA_ARGS__)
#define ULSM__TP_T4(S, a, ...)		ULSM__TP_T(S, a), ULSM__TP_T3(S, __VA_ARGS__)
#define ULSM__TP_T5(S, a, ...)		ULSM__TP_T(S, a), ULSM__TP_T4(S, __VA_ARGS__)
#define ULSM__TP_T6(S, a, ...)		ULSM__TP_T(S, a), ULSM__TP_T5(S, __VA_ARGS__)
#define ULSM__TP_TYPES_(n, S, ...)	ULSM__TP_T##n(S, __VA_ARGS__)
#define ULSM__TP_TYPES(n, S, ...)	ULSM__TP_TYPES_(n, S, __VA_ARGS__)

#define ULSM__TP_STR(...)	#__VA_ARGS__
#define ULSM__TP_UNPAREN(...)	__VA_ARGS__
#define ULSM__TP(name)		__tracepoint_##name
#define ULSM__TP_KEY(name)	__tracepoint_key_##name
#define ULSM__TP_CALL(name)	__tracepoint_call_##name
#define ULSM__TP_FN(name)	__tracepoint_fn_##name
#define ULSM__TP_SLOT(name, i)	__tracepoint_slot_##name##_##i
#define ULSM__TP_ARGS_T(name)	__tracepoint_args_##name

/*
 * The call: on a patching back end the site's own call is patched (a NULL
 * target is a trampoline that returns); on the generic one, the key and
 * the pointer are two loads that may be seen out of step, and a NULL
 * target calls a function that does nothing.
 */
#ifdef ULSM__ARCH_HAS_SC_TRAMP
# define ULSM__TP_CALL_SITE(call, ...)	static_call_inline(call, __VA_ARGS__)
/*
 * The empty asm keeps a compiler from hoisting the tail call and the call
 * of the same slot for the next count into one call (clang does), whose
 * site record would then follow no call: that slot's call would go
 * through its trampoline for good.
 */
# define ULSM__TP_TAIL_SITE(call, ...)					\
	__extension__ ({ __asm__ __volatile__("");			\
		static_call(call)(__VA_ARGS__); })
#else
# define ULSM__TP_CALL_SITE(call, ...)	static_call_cond(call)(__VA_ARGS__)
# define ULSM__TP_TAIL_SITE(call, ...)	static_call_cond(call)(__VA_ARGS__)
#endif

/*
 * The site: a static key; while it is on, a read-side section around the
 * call of the static call, with the single probe's data (which @iter
 * ignores). DECLARE_TRACEPOINT and DEFINE_TRACEPOINT are written with a
 * ';' after them, as declarations (ULSM__END_DECL takes it).
 */
#define DECLARE_TRACEPOINT(NAME, PROTO, ARGS)				\
	typedef void ULSM__TP_FN(NAME)(void *ulsm__data, PROTO);	\
	extern struct ulsm_tracepoint ULSM__TP(NAME);			\
	extern struct static_key_false ULSM__TP_KEY(NAME);		\
	DECLARE_STATIC_CALL(ULSM__TP_CALL(NAME), ULSM__TP_FN(NAME));	\
	static inline __attribute__((always_inline, unused)) void	\
	trace_##NAME(PROTO)						\
	{								\
		if (static_branch_unlikely(&ULSM__TP_KEY(NAME))) {	\
			ulsm__read_lock_inline();			\
			ULSM__TP_CALL_SITE(ULSM__TP_CALL(NAME),		\
				__atomic_load_n(&ULSM__TP(NAME).data,	\
						__ATOMIC_RELAXED),	\
				ARGS);					\
			ulsm__read_unlock_inline();			\
		}							\
	}								\
	static inline __attribute__((unused)) int			\
	register_trace_##NAME(						\
		void (*probe)(void *ulsm__data, PROTO), void *data)	\
	{								\
		return tracepoint_probe_register(&ULSM__TP(NAME),	\
			(void *)(uintptr_t)probe, data);		\
	}								\
	static inline __attribute__((unused)) int			\
	unregister_trace_##NAME(					\
		void (*probe)(void *ulsm__data, PROTO), void *data)	\
	{								\
		return tracepoint_probe_unregister(&ULSM__TP(NAME),	\
			(void *)(uintptr_t)probe, data);		\
	}								\
	ULSM__END_DECL

/*
 * One slot of the iterator: a static call of the slot's probe, with its
 * data from the array the slots were patched for (src/trace/tracepoint.c).
 */
#define ULSM__TP_SLOT_CALL(NAME, i, ...)				\
	ULSM__TP_CALL_SITE(ULSM__TP_SLOT(NAME, i),			\
			   ulsm__f->probes[i].data, __VA_ARGS__)
/* The last slot: a tail call (through the slot's trampoline). */
#define ULSM__TP_SLOT_TAIL(NAME, i, ...)				\
	ULSM__TP_TAIL_SITE(ULSM__TP_SLOT(NAME, i),			\
			   ulsm__f->probes[i].data, __VA_ARGS__)

/*
 * The USDT probe (<ulsm/usdt.h>): provider "ulsm", the tracepoint's name,
 * its arguments typed, in a probe of the tracepoint's own that the
 * library attaches while a tracer listens (its semaphore is not 0) or
 * hits are counted (@ulsm__data: the counter); a disabled tracepoint
 * stays a NOP. Where ELF notes cannot be made, the probe only counts.
 */
#if ULSM__USDT
# define ULSM__TP_USDT(NAME, PROTO, ARGS)				\
	ULSM__USDT_DEFINE_SEMA(NAME);					\
	static void __traceusdt_##NAME(void *ulsm__data,		\
				       ULSM__TP_UNPAREN PROTO)		\
	{								\
		if (ulsm__data)						\
			__atomic_add_fetch((unsigned long *)ulsm__data, 1, \
					   __ATOMIC_RELAXED);		\
		ULSM__USDT_PROBE(ulsm, NAME,				\
				 ULSM__TP_NARGS(ULSM__TP_UNPAREN ARGS),	\
				 ULSM__TP_UNPAREN ARGS);		\
	}
# define ULSM__TP_USDT_FIELDS(NAME)					\
		.usdt = (void *)(uintptr_t)__traceusdt_##NAME,		\
		.usdt_sema = &ULSM__USDT_SEMA(NAME),
#else
# define ULSM__TP_USDT(NAME, PROTO, ARGS)				\
	static void __traceusdt_##NAME(void *ulsm__data,		\
				       ULSM__TP_UNPAREN PROTO)		\
	{								\
		if (ulsm__data)						\
			__atomic_add_fetch((unsigned long *)ulsm__data, 1, \
					   __ATOMIC_RELAXED);		\
	}
# define ULSM__TP_USDT_FIELDS(NAME)					\
		.usdt = (void *)(uintptr_t)__traceusdt_##NAME,
#endif

/*
 * The tracepoint itself: its key, its static call, the iterator over
 * several probes (its slots, while they are patched for the array it
 * reads; else through pointers), the recorder's probe, and the
 * constructor that makes it known (and the destructor, for an object
 * that is unloaded). The iterator's counts are "expected" so that each
 * count's tail call follows its test in line, as clang lays it out
 * anyway: with gcc's own layout and the tail sites' empty asm, three
 * probes cost 0.3 ns more (docs/performance-journal.md, 2026-12-04 sixth
 * run, "Several probes built with clang").
 */
#define DEFINE_TRACEPOINT(NAME, PROTO, ARGS)				\
	struct static_key_false ULSM__TP_KEY(NAME) = STATIC_KEY_FALSE_INIT; \
	DEFINE_STATIC_CALL_NULL(ULSM__TP_CALL(NAME), ULSM__TP_FN(NAME)); \
	DEFINE_STATIC_CALL_NULL(ULSM__TP_SLOT(NAME, 0), ULSM__TP_FN(NAME)); \
	DEFINE_STATIC_CALL_NULL(ULSM__TP_SLOT(NAME, 1), ULSM__TP_FN(NAME)); \
	DEFINE_STATIC_CALL_NULL(ULSM__TP_SLOT(NAME, 2), ULSM__TP_FN(NAME)); \
	DEFINE_STATIC_CALL_NULL(ULSM__TP_SLOT(NAME, 3), ULSM__TP_FN(NAME)); \
	__attribute__((noinline, cold)) static void			\
	__traceptrs_##NAME(struct ulsm_tp_funcs *ulsm__f, PROTO)	\
	{								\
		for (int ulsm__i = 0; ulsm__f && ulsm__i < ulsm__f->n;	\
		     ulsm__i++)						\
			(__extension__ (ULSM__TP_FN(NAME) *)		\
			 ulsm__f->probes[ulsm__i].func)(		\
				ulsm__f->probes[ulsm__i].data, ARGS);	\
	}								\
	static void __traceiter_##NAME(void *ulsm__data, PROTO)		\
	{								\
		/*							\
		 * Pairs with the release stores of funcs and slotted	\
		 * in store_word() (src/engine/txn.c), slotted first:	\
		 * the new array comes with its probes and this		\
		 * slotted or a later one.				\
		 */							\
		struct ulsm_tp_funcs *ulsm__f = __atomic_load_n(	\
			&ULSM__TP(NAME).funcs, __ATOMIC_ACQUIRE);	\
		(void)ulsm__data;					\
		/*							\
		 * Pairs with the release store of slotted in		\
		 * store_word() (src/engine/txn.c), before funcs'.	\
		 */							\
		if (__builtin_expect(!ulsm__f || ulsm__f !=		\
				     __atomic_load_n(&ULSM__TP(NAME).slotted, \
						     __ATOMIC_ACQUIRE), 0)) { \
			__traceptrs_##NAME(ulsm__f, ARGS);		\
			return;						\
		}							\
		ULSM__TP_SLOT_CALL(NAME, 0, ARGS);			\
		if (__builtin_expect(ulsm__f->n == 2, 1)) {		\
			ULSM__TP_SLOT_TAIL(NAME, 1, ARGS);		\
			return;						\
		}							\
		ULSM__TP_SLOT_CALL(NAME, 1, ARGS);			\
		if (__builtin_expect(ulsm__f->n == 3, 1)) {		\
			ULSM__TP_SLOT_TAIL(NAME, 2, ARGS);		\
			return;						\
		}							\
		ULSM__TP_SLOT_CALL(NAME, 2, ARGS);			\
		ULSM__TP_SLOT_TAIL(NAME, 3, ARGS);			\
	}								\
	ULSM__TP_USDT(NAME, (PROTO), (ARGS))				\
	static void __tracerec_##NAME(void *ulsm__data, PROTO)		\
	{								\
		const uint64_t ulsm__w[] = {				\
			ULSM__TP_WORDS(ULSM__TP_NARGS(ARGS), ARGS)	\
		};							\
		const unsigned int ulsm__s =				\
			ULSM__TP_STRS(ULSM__TP_NARGS(ARGS), ARGS);	\
		(void)ulsm__data;					\
		if (ulsm__s)						\
			ulsm__trace_record_str(&ULSM__TP(NAME),		\
				(int)(sizeof(ulsm__w) / 8), ulsm__w,	\
				ulsm__s);				\
		else							\
			ulsm__trace_record(&ULSM__TP(NAME),		\
				(int)(sizeof(ulsm__w) / 8), ulsm__w);	\
	}								\
	struct ULSM__TP_ARGS_T(NAME) {					\
		ULSM__TP_MEMBERS(ULSM__TP_NARGS(PROTO), PROTO)		\
	};								\
	static const unsigned char __tracetypes_##NAME[] = {		\
		ULSM__TP_TYPES(ULSM__TP_NARGS(ARGS),			\
			       ULSM__TP_ARGS_T(NAME), ARGS)		\
	};								\
	struct ulsm_tracepoint ULSM__TP(NAME) = {			\
		.size = sizeof(struct ulsm_tracepoint),			\
		.name = #NAME,						\
		.args = ULSM__TP_STR(ARGS),				\
		.nargs = ULSM__TP_NARGS(ARGS),				\
		.types = __tracetypes_##NAME,				\
		.key = &ULSM__TP_KEY(NAME),				\
		.call = &STATIC_CALL_KEY(ULSM__TP_CALL(NAME)),		\
		.tramp = STATIC_CALL_TRAMP_ADDR(ULSM__TP_CALL(NAME)),	\
		.iter = (void *)(uintptr_t)__traceiter_##NAME,		\
		.slot_call = {						\
			&STATIC_CALL_KEY(ULSM__TP_SLOT(NAME, 0)),	\
			&STATIC_CALL_KEY(ULSM__TP_SLOT(NAME, 1)),	\
			&STATIC_CALL_KEY(ULSM__TP_SLOT(NAME, 2)),	\
			&STATIC_CALL_KEY(ULSM__TP_SLOT(NAME, 3)),	\
		},							\
		.slot_tramp = {						\
			STATIC_CALL_TRAMP_ADDR(ULSM__TP_SLOT(NAME, 0)),	\
			STATIC_CALL_TRAMP_ADDR(ULSM__TP_SLOT(NAME, 1)),	\
			STATIC_CALL_TRAMP_ADDR(ULSM__TP_SLOT(NAME, 2)),	\
			STATIC_CALL_TRAMP_ADDR(ULSM__TP_SLOT(NAME, 3)),	\
		},							\
		.record = (void *)(uintptr_t)__tracerec_##NAME,		\
		ULSM__TP_USDT_FIELDS(NAME)				\
	};								\
	__attribute__((constructor)) static void __tpadd_##NAME(void)	\
	{								\
		ulsm__tracepoint_add(&ULSM__TP(NAME));			\
	}								\
	__attribute__((destructor)) static void __tpremove_##NAME(void)	\
	{								\
		ulsm__tracepoint_remove(&ULSM__TP(NAME));		\
	}								\
	ULSM__END_DECL

#endif /* ULSM_TRACEPOINT_H */
