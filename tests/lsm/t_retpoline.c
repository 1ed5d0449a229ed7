// SPDX-License-Identifier: MIT
/*
 * No bare indirect branch on any dispatch path of a retpoline build.
 *
 * Host and plug-ins are built with the compiler's retpolines
 * (-mindirect-branch=thunk or -mretpoline, and -mfunction-return=thunk
 * where the compiler has it) and ULSM_RETPOLINE (the Makefile's
 * RP_CFLAGS). The plug-ins are shared objects, so the loader maps them
 * far from the program (a PIE's text and the libraries are some 40 TiB
 * apart on x86-64 Linux): out of rel32 reach, every dispatch to them
 * takes a far form (a trampoline's, a hook entry's stub). The test checks
 * that they are out of reach, and that the far forms are in use.
 *
 * A child sets everything up, then asks to be traced and runs each case
 * between two int3 markers; the parent single-steps it (PTRACE_SINGLESTEP)
 * from one marker to the next and decodes every instruction executed: an
 * FF /2, /3, /4 or /5 (call or jmp through a register or memory, whatever
 * its prefixes) is a bare indirect branch, which a retpoline build must
 * not make. Each case must also reach its callee's object, and pass
 * through a retpoline (a "mov %reg, (%rsp)" followed by "ret": what the
 * thunks of gcc, clang and ulsm do), so that a path that skipped the far
 * form cannot pass for a clean one.
 *
 * The cases: hook entries (int and void hooks, one module: the entry's
 * tail call; two: a call and a tail call), the same in a set that allows
 * unloading (each plug-in called through its slot's guard, a read-side
 * section around a static call), the C walk (a slot's call of
 * its trampoline), static_call() and static_call_inline() to a plug-in
 * and to __static_call_return0 (libulsm), a tracepoint with one probe, and
 * APR's drop-in (RUN_ALL with two functions, RUN_FIRST with one and with
 * two) where APR is installed. Two controls show that the test sees: a function
 * pointer called by compiled code (the compiler's thunk: clean) and a
 * hand-written "call *%rax" (bare: detected).
 *
 * Skipped without a retpoline option, under an emulator, and under
 * ThreadSanitizer (main() says why); under AddressSanitizer it runs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define ULSM_LSM_DEFINE
#define ULSM_LSM_BUILTIN_ORDER "p1,p2"
#include "retpoline/set.h"

#include <ulsm/static_call.h>
#include <ulsm/tracepoint.h>
#include <ulsm/ulsm.h>

#include "runtime.h"
#include "tap.h"

#ifndef RP_FLAGS
# define RP_FLAGS	""
#endif

#if defined(__x86_64__)

/* --- what the child dispatches ----------------------------------------- */

RP_NOSAN static int host_fn(int x)
{
	return x;
}

DEFINE_STATIC_CALL(rp_sc, host_fn);
DEFINE_STATIC_CALL_RET0(rp_ret0, host_fn);

DECLARE_TRACEPOINT(rp_tp, TP_PROTO(int x), TP_ARGS(x));
DEFINE_TRACEPOINT(rp_tp, TP_PROTO(int x), TP_ARGS(x));

/* The controls' target, and the compiled control's pointer to it. */
static int (*volatile rp_fp)(int);

/*
 * The hand-written control: a bare "call *%rax" (FF /2), which the
 * compiler never sees. The push keeps the stack 16-byte aligned.
 */
__asm__(".pushsection .text, \"ax\"\n\t"
	".balign 16\n\t"
	".type rp_bare_call, @function\n"
	"rp_bare_call:\n\t"
	"push %rbx\n\t"
	"mov %rdi, %rax\n\t"
	"mov %esi, %edi\n\t"
	"call *%rax\n\t"
	"pop %rbx\n\t"
	"ret\n\t"
	".size rp_bare_call, . - rp_bare_call\n\t"
	".popsection");
int rp_bare_call(int (*fn)(int), int x) __attribute__((visibility("hidden")));

/*
 * The markers between which the parent steps, once the child is traced
 * (before, a case runs once without them).
 */
static volatile int rp_marks;
#define MARK()								\
	do {								\
		if (rp_marks)						\
			__asm__ __volatile__("int3" ::: "memory");	\
	} while (0)

#define CASE(fname, stmt)						\
	RP_NOSAN static int fname(int x)				\
	{								\
		int r = 0;						\
		MARK();							\
		stmt;							\
		MARK();							\
		return r;						\
	}

CASE(c_int, r = call_int_hook(rp_int, x))
CASE(c_void, call_void_hook(rp_void, x))
CASE(c_uint, r = ulsm_call_int_hook(ru, rp_int, x))
CASE(c_uvoid, ulsm_call_void_hook(ru, rp_void, x))
CASE(c_walk, r = call_int_hook(rp_walk, x))
CASE(c_sc, r = static_call(rp_sc)(x))
CASE(c_sc_inline, r = static_call_inline(rp_sc, x))
CASE(c_ret0, r = static_call(rp_ret0)(x))
CASE(c_ret0_inline, r = static_call_inline(rp_ret0, x))
CASE(c_tp, trace_rp_tp(x))
CASE(c_fp, r = rp_fp(x))
CASE(c_bare, r = rp_bare_call(rp_fp, x))
#ifdef RP_APR
CASE(c_apr_all, r = rp_apr_run_all(x))
CASE(c_apr_first, r = rp_apr_run_first(x))
CASE(c_apr_first2, r = rp_apr_run_first2(x))
#endif

/*
 * The child's records, for the parent to read once it has exited: "S"
 * a check of the set-up, "C" a stepped case (its name, the objects it
 * must reach, whether it must be clean, and whether its result was
 * right), in the order of the cases.
 */
static FILE *rec;

static void setup_check(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void setup_check(int cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(rec, "S\t%d\t", !!cond);
	va_start(ap, fmt);
	vfprintf(rec, fmt, ap);
	va_end(ap);
	fputc('\n', rec);
}

struct rp_case {
	const char *name;
	int (*run)(int);
	int arg, want;		/* want < -100: any result */
	const char *reach;	/* what the path must reach */
	int bare;		/* 1: must be detected (the control) */
};

static void run_case(const struct rp_case *c)
{
	int got = c->run(c->arg);

	fprintf(rec, "C\t%s\t%s\t%d\t%d\t%d\n", c->name, c->reach, c->bare,
		c->want < -100 || got == c->want, got);
}

static void *plugin(const char *name)
{
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	char path[PATH_MAX];
	void *h;

	snprintf(path, sizeof(path), "%s/rp_%s.so", dir ? dir : ".", name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	setup_check(h != NULL, "plug-in %s loaded (%s)", name,
		    h ? path : dlerror());
	return h;
}

static uintptr_t dist(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x > y ? x - y : y - x;
}

static void child(void)
{
	void *p1, *p2;
	int (*target)(int);
	void (*probe)(void *, int);
	int form, sites, direct = -1;
	bool patching = ulsm_static_call_form(&STATIC_CALL_KEY(rp_sc)) !=
			ULSM_SC_FORM_POINTER;

	setup_check(ulsm_lsm_init(&rp_hook_set, NULL) == 0 &&
		    ulsm_lsm_init(&ru_hook_set, NULL) == 0,
		    "sets rp and ru (unloadable): init");
	p1 = plugin("p1");
	if (!p1)
		return;
	target = (int (*)(int))(uintptr_t)dlsym(p1, "rp_target");
	probe = (void (*)(void *, int))(uintptr_t)dlsym(p1, "rp_probe");
	setup_check(target && probe, "its functions found");
	if (!target || !probe)
		return;
	rp_fp = target;
	/* The program's text: its trampolines, entries and call sites. */
	setup_check(dist((void *)(uintptr_t)target,
			 (void *)(uintptr_t)host_fn) > (2ul << 30) &&
		    dist((void *)(uintptr_t)__static_call_return0,
			 (void *)(uintptr_t)host_fn) > (2ul << 30),
		    "the plug-in and libulsm are out of rel32 reach of the "
		    "program (%p, %p; program %p)", (void *)(uintptr_t)target,
		    (void *)(uintptr_t)__static_call_return0,
		    (void *)(uintptr_t)host_fn);
	setup_check(static_call_update(rp_sc, target) == 0,
		    "static call rp_sc -> rp_target (plug-in)");
	form = ulsm_static_call_form(&STATIC_CALL_KEY(rp_sc));
	setup_check(!patching || form == ULSM_SC_FORM_INDIRECT,
		    "  in the far form (%s)", ulsm_static_call_form_name(form));
	sites = ulsm_static_call_sites(&STATIC_CALL_KEY(rp_sc), &direct);
	setup_check(!patching || (sites >= 1 && direct == 0),
		    "  its inline site calls the trampoline (%d sites, %d direct)",
		    sites, direct);
	form = ulsm_static_call_form(&STATIC_CALL_KEY(rp_ret0));
	setup_check(!patching || form == ULSM_SC_FORM_INDIRECT,
		    "static call rp_ret0 (__static_call_return0, libulsm): "
		    "the far form (%s)", ulsm_static_call_form_name(form));
	setup_check(register_trace_rp_tp(probe, NULL) == 0,
		    "tracepoint rp_tp: one probe (plug-in)");
#ifdef RP_APR
	{
		int (*all)(int) = (int (*)(int))(uintptr_t)dlsym(p1, "rp_apr_all");
		int (*first)(int) = (int (*)(int))(uintptr_t)dlsym(p1, "rp_apr_first");

		setup_check(all && first && rp_apr_setup(all, all, first) == 0,
			    "APR hooks: two functions on all, one on first, "
			    "two on first2");
		setup_check(rp_apr_slots("all") == 2 &&
			    rp_apr_slots("first") == 1 &&
			    rp_apr_slots("first2") == 2,
			    "  dispatched by their slots (%d, %d, %d)",
			    rp_apr_slots("all"), rp_apr_slots("first"),
			    rp_apr_slots("first2"));
	}
#endif

	const struct rp_case one[] = {
		{ "int hook, 1 module (the entry's tail call)", c_int, 5, 0,
		  "rp_p1.so", 0 },
		{ "void hook, 1 module", c_void, 5, 0, "rp_p1.so", 0 },
		{ "unloadable set: int hook, 1 plug-in (its guard)", c_uint,
		  5, 0, "rp_p1.so", 0 },
		{ "unloadable set: void hook, 1 plug-in (its guard)", c_uvoid,
		  5, 0, "rp_p1.so", 0 },
		{ "C-walk hook, 1 module", c_walk, 5, 0, "rp_p1.so", 0 },
		{ "static_call()", c_sc, 5, 6, "rp_p1.so", 0 },
		{ "static_call_inline()", c_sc_inline, 5, 6, "rp_p1.so", 0 },
		{ "static_call() of __static_call_return0", c_ret0, 5, 0,
		  "libulsm.so", 0 },
		{ "static_call_inline() of __static_call_return0",
		  c_ret0_inline, 5, 0, "libulsm.so", 0 },
		{ "tracepoint, one probe", c_tp, 5, 0, "rp_p1.so", 0 },
#ifdef RP_APR
		{ "APR RUN_ALL hook, 2 functions", c_apr_all, 5, 0,
		  "rp_p1.so", 0 },
		{ "APR RUN_FIRST hook, 1 function (a tail call)", c_apr_first,
		  5, 7, "rp_p1.so", 0 },
		{ "APR RUN_FIRST hook, 2 functions (a call, then a tail call)",
		  c_apr_first2, 5, 7, "rp_p1.so", 0 },
#endif
		{ "control: a function pointer called by compiled code", c_fp,
		  5, 6, "rp_p1.so", 0 },
		{ "control: a hand-written call *%rax", c_bare, 5, 6,
		  "rp_p1.so", 1 },
	};
	const struct rp_case two[] = {
		{ "int hook, 2 modules (a call, then the tail call)", c_int, 5,
		  0, "rp_p1.so,rp_p2.so", 0 },
		{ "void hook, 2 modules", c_void, 5, 0, "rp_p1.so,rp_p2.so", 0 },
		{ "unloadable set: int hook, 2 plug-ins", c_uint, 5, 0,
		  "rp_p1.so,rp_p2.so", 0 },
		{ "C-walk hook, 2 modules", c_walk, 5, 0, "rp_p1.so,rp_p2.so",
		  0 },
	};
	size_t n1 = sizeof(one) / sizeof(one[0]), n2 = sizeof(two) / sizeof(two[0]);

	/* Each case once untraced: nothing resolved lazily while stepped. */
	for (size_t i = 0; i < n1; i++)
		(void)one[i].run(one[i].arg);
	fflush(rec);

	/*
	 * From here on nothing is patched: every SIGTRAP is a marker or a
	 * step, which the parent takes.
	 */
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL)) {
		setup_check(0, "PTRACE_TRACEME: %s", strerror(errno));
		return;
	}
	raise(SIGSTOP);
	rp_marks = 1;
	for (size_t i = 0; i < n1; i++)
		run_case(&one[i]);
	fflush(rec);
	/* The second module: the parent lets the child run untraced. */
	rp_marks = 0;
	raise(SIGUSR2);
	p2 = plugin("p2");
	setup_check(p2 && !strcmp(ulsm_lsm_list(&rp_hook_set), "p1,p2"),
		    "then p2: modules %s", ulsm_lsm_list(&rp_hook_set));
	for (size_t i = 0; i < n2; i++)
		(void)two[i].run(two[i].arg);
	fflush(rec);
	raise(SIGUSR2);
	rp_marks = 1;
	for (size_t i = 0; i < n2; i++)
		run_case(&two[i]);
	fflush(rec);
}

/* --- the parent: the tracer -------------------------------------------- */

#define MAX_STEPS	200000
#define MAX_MAPS	512

struct map {
	uintptr_t lo, hi;
	char path[160];
};

static struct map maps[MAX_MAPS];
static int nmaps;

static void read_maps(pid_t pid)
{
	char name[64], line[512];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	nmaps = 0;
	f = fopen(name, "r");
	if (!f)
		return;
	while (nmaps < MAX_MAPS && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[8], path[256] = "";

		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo, &hi,
			   perm, path) < 3 || perm[2] != 'x')
			continue;
		maps[nmaps].lo = lo;
		maps[nmaps].hi = hi;
		snprintf(maps[nmaps].path, sizeof(maps[nmaps].path), "%s",
			 strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		nmaps++;
	}
	fclose(f);
}

static const struct map *map_of(uintptr_t pc)
{
	for (int i = 0; i < nmaps; i++)
		if (pc >= maps[i].lo && pc < maps[i].hi)
			return &maps[i];
	return NULL;
}

/* Where @pc is, for a message: a symbol of the parent's copy, or a map. */
static void where(uintptr_t pc, char *buf, size_t len)
{
	const struct map *m = map_of(pc);
	Dl_info di;

	if (dladdr((void *)pc, &di) && di.dli_sname && di.dli_saddr)
		snprintf(buf, len, "%s+%#lx", di.dli_sname,
			 (unsigned long)(pc - (uintptr_t)di.dli_saddr));
	else if (m)
		snprintf(buf, len, "%.64s+%#lx", strrchr(m->path, '/') ?
			 strrchr(m->path, '/') + 1 : m->path,	/* its name */
			 (unsigned long)(pc - m->lo));
	else
		snprintf(buf, len, "%#lx", (unsigned long)pc);
}

/*
 * Whether the instruction at @p is an indirect call or jump: opcode FF
 * with ModRM.reg 2 (call near), 3 (call far), 4 (jmp near) or 5 (jmp
 * far), after any legacy prefixes (notrack's 3e, bnd's f2, ...) and a
 * REX prefix (Intel SDM vol. 2A, 2.1 "Instruction format", and the
 * one-byte opcode map's group 5).
 */
static bool bare_branch(const uint8_t *p)
{
	static const uint8_t legacy[] = { 0xf0, 0xf2, 0xf3, 0x2e, 0x36, 0x3e,
					  0x26, 0x64, 0x65, 0x66, 0x67 };
	size_t i = 0;
	unsigned int reg;

	while (i < 8 && memchr(legacy, p[i], sizeof(legacy)))
		i++;
	if ((p[i] & 0xf0) == 0x40)
		i++;
	if (p[i] != 0xff)
		return false;
	reg = (p[i + 1] >> 3) & 7;
	return reg >= 2 && reg <= 5;
}

/* "mov %reg, (%rsp)" (REX.W 89 /r, ModRM mod 00 rm 100, SIB 24). */
static bool stores_target(const uint8_t *p)
{
	return (p[0] == 0x48 || p[0] == 0x4c) && p[1] == 0x89 &&
	       (p[2] & 0xc7) == 0x04 && p[3] == 0x24;
}

struct region {
	long steps;
	int bare, retpolines;
	char bare_at[4][160];
	char reached[256];	/* the objects the path ran in, comma separated */
	bool complete;
};

#define MAX_REGIONS	32
static struct region regions[MAX_REGIONS];
static int nregions;

static bool peek(pid_t pid, uintptr_t pc, uint8_t out[16])
{
	for (int i = 0; i < 2; i++) {
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(pc + 8 * i), NULL);
		if (errno)
			return false;
		memcpy(out + 8 * i, &w, 8);
	}
	return true;
}

static uintptr_t pc_of(pid_t pid)
{
	return (uintptr_t)ptrace(PTRACE_PEEKUSER, pid,
				 (void *)offsetof(struct user_regs_struct, rip),
				 NULL);
}

static void note_reached(struct region *r, const char *path)
{
	size_t n = strlen(r->reached), k = strlen(path);
	const char *s = r->reached;

	while ((s = strstr(s, path))) {
		if ((s == r->reached || s[-1] == ',') &&
		    (s[k] == ',' || !s[k]))
			return;
		s += k;
	}
	if (n + k + 2 < sizeof(r->reached))
		snprintf(r->reached + n, sizeof(r->reached) - n, "%s%s",
			 n ? "," : "", path);
}

/* Step from a marker to the next; the child stands after the first. */
static bool step_region(pid_t pid, struct region *r)
{
	bool after_store = false;
	int status;

	memset(r, 0, sizeof(*r));
	read_maps(pid);
	for (r->steps = 0; r->steps < MAX_STEPS; r->steps++) {
		uintptr_t pc = pc_of(pid);
		const struct map *m = map_of(pc);
		uint8_t insn[16];
		siginfo_t si;

		if (!peek(pid, pc, insn))
			return false;
		if (m)
			note_reached(r, m->path);
		if (bare_branch(insn)) {
			if (r->bare < 4) {
				char at[100];

				where(pc, at, sizeof(at));
				snprintf(r->bare_at[r->bare],
					 sizeof(r->bare_at[0]),
					 "%s (%02x %02x %02x %02x)", at, insn[0],
					 insn[1], insn[2], insn[3]);
			}
			r->bare++;
		}
		if (after_store && insn[0] == 0xc3)
			r->retpolines++;
		after_store = stores_target(insn);
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) ||
		    waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
		    WSTOPSIG(status) != SIGTRAP ||
		    ptrace(PTRACE_GETSIGINFO, pid, NULL, &si))
			return false;
		if (si.si_code == SI_KERNEL) {
			/* The next marker: the int3 just executed. */
			r->complete = true;
			return true;
		}
	}
	return false;
}

static void report(const char *name, const char *reach, int bare,
		   int result_ok, int got, const struct region *r)
{
	char want[128], have[300], *tok, *save;
	bool reached = true;

	/* Each object named (a prefix: libulsm.so.0.2.0 is libulsm.so). */
	snprintf(want, sizeof(want), "%s", reach);
	snprintf(have, sizeof(have), ",%s", r->reached);
	for (tok = strtok_r(want, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char with[140];

		snprintf(with, sizeof(with), ",%s", tok);
		if (!strstr(have, with))
			reached = false;
	}
	if (bare) {
		ok(r->complete && r->bare >= 1 && reached,
		   "%s: detected (%d bare branch%s in %ld instructions)", name,
		   r->bare, r->bare == 1 ? "" : "es", r->steps);
	} else {
		ok(r->complete && r->bare == 0 && reached && r->retpolines >= 1 &&
		   result_ok,
		   "%s: %ld instructions, %d bare indirect branch%s, "
		   "%d retpoline%s", name, r->steps, r->bare,
		   r->bare == 1 ? "" : "es", r->retpolines,
		   r->retpolines == 1 ? "" : "s");
	}
	for (int i = 0; i < r->bare && i < 4; i++)
		diag("  bare indirect branch at %s", r->bare_at[i]);
	if (!r->complete)
		diag("  the path did not reach the next marker");
	if (!reached)
		diag("  it ran in %s, not in all of %s", r->reached, reach);
	if (!result_ok)
		diag("  wrong result %d", got);
}

static int parent(pid_t pid, FILE *f)
{
	char line[512];
	int status, region = 0;
	bool stepping = true, first = true;

	/*
	 * Stops: the first SIGSTOP (traced from here on); SIGUSR2, which
	 * switches between stepping and passing every signal on (p2
	 * arrives meanwhile: the engine's breakpoints are the child's); and
	 * while stepping, a marker: step to the next one.
	 */
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status);

		if (sig == SIGSTOP && first) {
			ptrace(PTRACE_SETOPTIONS, pid, NULL,
			       (void *)(uintptr_t)PTRACE_O_EXITKILL);
			first = false;
			sig = 0;
		} else if (sig == SIGUSR2) {
			stepping = !stepping;
			sig = 0;
		} else if (stepping && sig == SIGTRAP) {
			if (nregions == MAX_REGIONS ||
			    !step_region(pid, &regions[nregions++])) {
				kill(pid, SIGKILL);
				break;
			}
			sig = 0;
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(uintptr_t)sig);
	}
	waitpid(pid, &status, 0);

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char *fld[6], *save = NULL;
		int n = 0;

		line[strcspn(line, "\n")] = '\0';
		for (char *t = strtok_r(line, "\t", &save); t && n < 6;
		     t = strtok_r(NULL, "\t", &save))
			fld[n++] = t;
		if (n == 3 && !strcmp(fld[0], "S")) {
			ok(atoi(fld[1]), "%s", fld[2]);
		} else if (n == 6 && !strcmp(fld[0], "C")) {
			if (region >= nregions) {
				ok(0, "%s: not stepped", fld[1]);
				continue;
			}
			report(fld[1], fld[2], atoi(fld[3]), atoi(fld[4]),
			       atoi(fld[5]), &regions[region++]);
		}
	}
	ok(region == nregions && region > 0,
	   "every stepped region is a case (%d of %d)", region, nregions);
	return done_testing();
}

int main(void)
{
	pid_t pid;
	FILE *f;

	if (!*RP_FLAGS)
		skip_all("the compiler has no retpoline option");
	if (under_emulator())
		skip_all("ptrace under an emulator");
#ifdef UNDER_TSAN
	/*
	 * gcc does not inline the headers' helpers into a no_sanitize
	 * function, and the instrumented copies call the runtime
	 * (libtsan.so) through the PLT: a bare jump of the dynamic linker's
	 * on every hook's path, which says nothing of ulsm's forms.
	 */
	skip_all("ThreadSanitizer calls its runtime on the stepped path");
#endif
	diag("built with %s", RP_FLAGS);
	f = tmpfile();
	if (!f)
		skip_all("no temporary file");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		skip_all("fork failed");
	if (!pid) {
		rec = f;
		child();
		fflush(f);
		_exit(0);
	}
	alarm(120);
	return parent(pid, f);
}

#else /* !__x86_64__ */

int main(void)
{
	skip_all("retpolines are x86-64's");
}

#endif
