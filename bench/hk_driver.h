/* SPDX-License-Identifier: MIT */
/*
 * bench/hk_driver.h - what the files of bench_hooks' driver share.
 *
 * The driver is the part of bench_hooks compiled once (the variants'
 * objects are described in hk_bench.h), one job per file:
 *
 *   bench_hooks.c   options, and the order of the jobs
 *   hk_cases.c      the cases (variant x hook x modules x implementation),
 *                   the sets, preparing and checking one timed run, timing
 *   hk_callgrind.c  instruction counts: this program again, under callgrind
 *   hk_update.c     what enabling a module costs, with and without threads
 *                   dispatching meanwhile
 *   hk_size.c       table and text sizes
 *   hk_report.c     the text tables, each after a legend
 *   hk_json.c       the JSON file
 *   hk_plot.c       the chart's data and gnuplot script
 */
#ifndef ULSM_BENCH_HK_DRIVER_H
#define ULSM_BENCH_HK_DRIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "bench.h"
#include "hk_bench.h"

/* --- variants, hooks, implementations, module counts (hk_cases.c) ------ */

enum { V_PLAIN, V_RETPOLINE, V_RETHUNK, V_COUNT };
enum { H_INT, H_VOID, H_DENY, H_COUNT };
enum { I_BASE, I_LIMIT, I_ULSM, I_ULSM_C, I_COUNT };

extern const char *const vname[V_COUNT];
extern const char *const variant_missing[V_COUNT];
extern const struct hk_variant *const variant[V_COUNT];
extern const char *const hname[H_COUNT];
extern const char *const hkey[H_COUNT];
extern const char *const iname[I_COUNT];
extern const unsigned int counts[HK_NCOUNTS];

#define KI_MAX		(HK_NCOUNTS - 1)	/* HK_MAX modules */

/* Whether the compiler had the flags of variant @v. */
bool present(int v);

/*
 * One case: a variant, a hook, a module count (index into counts) and an
 * implementation. @iters is the case's own iteration count; one timed run
 * is divided by it.
 */
struct hk_case {
	int v, hook, ki, impl;
	void (*loop)(unsigned long n);
	unsigned long iters;
	unsigned long verified;
	double median_ns, min_ns;	/* per dispatch */
	double instr;			/* per iteration; < 0: none */
	char name[48];
};

extern struct hk_case cases[];
extern size_t ncases;

void build_cases(void);
const struct hk_case *case_of(int v, int hook, int ki, int impl);
double med(int v, int hook, int ki, int impl);
double ratio4(int v, int hook, int ki, int a, int b);

/* Initialise every present variant's set and check where modules went. */
int setup_sets(void);
/* Turn m0 .. m(k-1) of variant @v's set on and the others off. */
int ulsm_set_modules(int v, unsigned int k);
/* Set case @i up (modules, returns), and check what its run of @n did. */
int prepare_case(int i);
int check_run(int i, unsigned long n);
/*
 * Calibrate and time every case in interleaved rounds, every run checked.
 * Return 0, or nonzero with a message.
 */
int time_cases(bool quick, unsigned int *rounds);

/* --- instruction counts (hk_callgrind.c) ------------------------------ */

/* What instruction counts were measured, for the output. */
extern char instr_note[160];

int run_callgrind(const char *exe);
int callgrind_child(const char *prefix, const char *tsv);

/* --- enabling a module (hk_update.c) ---------------------------------- */

/* The u-modules of the update test. */
extern const char *const u_name[HK_NU];
extern const int u_hooks[HK_NU];
#define U_ALL_HOOKS	111

struct upd_cost {
	unsigned int reps;
	double median_us, min_us;
	double batches, core_syncs, sites_patched;	/* per enable */
	double traps;					/* per enable */
	unsigned long thread_rounds;	/* dispatches of all upd_* hooks */
};

extern struct upd_cost upd[HK_NU][2];	/* [module][0 or 2 threads] */
extern double base_add_us[HK_NU];
extern unsigned long thread_stalls;

int measure_updates(unsigned int reps);
int update_stress(unsigned int n);

/* --- sizes (hk_size.c) ------------------------------------------------- */

struct text_sizes {
	long base_int, base_void, ulsm_int, ulsm_void;
	long limit_int_k2, limit_int_kmax, limit_void_kmax;
};

/* Data bytes per hook and per dispatch site, from the types. */
struct data_sizes {
	unsigned long slots, calls, keys, entry, call_entries;	/* per hook */
	unsigned long site;	/* per dispatch site of one hook */
	unsigned long ulsm_module, base_head, base_module;
};

extern struct text_sizes text[V_COUNT];
extern long tramp_bytes;	/* one slot's trampoline; 0: none */
extern bool have_symtab;

void measure_sizes(void);
void data_sizes(struct data_sizes *d);
long entry_text_bytes(void);	/* the int hook's entry; 0: none */

/* --- output (hk_report.c, hk_json.c, hk_plot.c) ----------------------- */

extern struct bench_machine machine;

void print_seed_table(void);
void print_detail_table(bool instr);
void print_targets(void);
void print_updates(void);
void print_sizes(const struct data_sizes *d);

int write_json(const char *path, bool quick, unsigned int rounds,
	       const struct data_sizes *d);
int write_plot(const char *prefix, bool quick, const char *workload_dat);

#endif /* ULSM_BENCH_HK_DRIVER_H */
