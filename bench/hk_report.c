// SPDX-License-Identifier: MIT
/*
 * bench_hooks: the text tables (bench/hk_driver.h). Each table comes after
 * a legend that says what every column is, so that the output reads on its
 * own; numbers have two decimals, ns have two or three.
 */
#include <math.h>
#include <string.h>

#include <ulsm/ulsm.h>

#include "hk_driver.h"

struct bench_machine machine;

/* Index of module counts in counts[]. */
#define KI_0	0
#define KI_1	1
#define KI_2	2
#define KI_3	3

/* The rows of the summary tables: every configuration timed. */
struct row {
	int hook, ki;
};

static int rows(struct row *r)
{
	int n = 0;

	for (int h = H_INT; h <= H_VOID; h++)
		for (int ki = 0; ki < HK_NCOUNTS; ki++)
			r[n++] = (struct row){ h, ki };
	r[n++] = (struct row){ H_DENY, KI_MAX };
	return n;
}

static void row_label(char *buf, size_t len, const struct row *r)
{
	unsigned int k = counts[r->ki];

	snprintf(buf, len, "%s, %u module%s",
		 r->hook == H_VOID ? "file_free_security" : "file_permission",
		 k, k == 1 ? "" : "s");
	if (r->hook == H_DENY)
		snprintf(buf + strlen(buf), len - strlen(buf), ", m0 denies");
}

/* What the implementations are: before the first table. */
static void print_legend(void)
{
	printf("Implementations (the same callbacks, the same flags; "
	       "bench/hk_bench.h):\n"
	       "  baseline  the design the kernel change replaced: per hook a list of "
	       "entries, walked\n"
	       "            with one indirect call per module\n"
	       "  limit     hard-coded direct calls to the first k callbacks, "
	       "the last one a\n"
	       "            tail call: what no dispatcher can beat (with 0 "
	       "modules, an empty\n"
	       "            function)\n"
	       "  ulsm      the hook's entry, patched to call the modules' "
	       "callbacks, made the\n"
	       "            security_* function itself "
	       "(DEFINE_LSM_HOOK_ENTRY)\n"
	       "  ulsm_c    the same entry, called from a C function "
	       "\"return call_int_hook(...)\"\n"
	       "            (the compiler's jmp to the entry is the "
	       "difference)\n"
	       "Variants: plain (no mitigation), retpoline (indirect branches "
	       "through a thunk),\n"
	       "rethunk (retpolines, and every return through a return "
	       "thunk).\n"
	       "\"k modules\": m0 .. m(k-1) on; in ulsm the others are toggled "
	       "off.\n\n");
}

/*
 * The kernel change's table: Delta(%) is the throughput gained by ulsm over the
 * baseline, (baseline ns / ulsm ns - 1) * 100, as Unixbench's scores are
 * throughputs; the index is the geometric mean of a variant's rows.
 */
void print_seed_table(void)
{
	struct row r[2 * HK_NCOUNTS + 1];
	int n = rows(r);

	print_legend();
	printf("ulsm against the baseline, the kernel change's table. Delta(%%): the "
	       "throughput ulsm gains\nover the baseline, (baseline ns / ulsm "
	       "ns - 1) x 100, from this run's medians;\n+ is better. Hook "
	       "Dispatch Index: per variant, the geometric mean of the rows'\n"
	       "throughput ratios, as a Delta(%%): what Unixbench's System "
	       "Benchmarks Index does\nwith its scores, so that no single row "
	       "weighs more than another.\n\n");
	bench_delta_head();
	for (int v = 0; v < V_COUNT; v++) {
		double logsum = 0;
		char label[96];

		if (!present(v))
			continue;
		for (int i = 0; i < n; i++) {
			row_label(label, sizeof(label), &r[i]);
			bench_delta_row(vname[v], label,
					ratio4(v, r[i].hook, r[i].ki, I_BASE,
					       I_ULSM), &logsum);
		}
		bench_delta_index(vname[v], logsum, n);
	}
	printf("\n");
}

void print_detail_table(bool instr)
{
	struct row r[2 * HK_NCOUNTS + 1];
	int n = rows(r);

	printf("Every case. baseline, limit, ulsm, ulsm_c: ns per dispatch, "
	       "median of the run's\nrounds, the loop and the call of the "
	       "security_* function included; u/lim:\nulsm / limit; c/lim: "
	       "ulsm_c / limit; b/u: baseline / ulsm (above 1: ulsm is\n"
	       "faster)%s.\n\n", instr ? "; Ir b, Ir lim, Ir u, Ir c: "
	       "instructions per iteration\n(callgrind, exact), in the same "
	       "order" : "");
	printf("%-9s %-34s %8s %7s %7s %7s %6s %6s %6s", "variant",
	       "hook, modules", "baseline", "limit", "ulsm", "ulsm_c", "u/lim",
	       "c/lim", "b/u");
	if (instr)
		printf(" %5s %6s %5s %5s", "Ir b", "Ir lim", "Ir u", "Ir c");
	printf("\n");
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			continue;
		for (int i = 0; i < n; i++) {
			char label[96];
			int h = r[i].hook, ki = r[i].ki;

			row_label(label, sizeof(label), &r[i]);
			printf("%-9s %-34s %8.2f %7.2f %7.2f %7.2f %6.2f %6.2f "
			       "%6.2f", vname[v], label,
			       med(v, h, ki, I_BASE), med(v, h, ki, I_LIMIT),
			       med(v, h, ki, I_ULSM), med(v, h, ki, I_ULSM_C),
			       ratio4(v, h, ki, I_ULSM, I_LIMIT),
			       ratio4(v, h, ki, I_ULSM_C, I_LIMIT),
			       ratio4(v, h, ki, I_BASE, I_ULSM));
			if (instr)
				printf(" %5.0f %6.0f %5.0f %5.0f",
				       case_of(v, h, ki, I_BASE)->instr,
				       case_of(v, h, ki, I_LIMIT)->instr,
				       case_of(v, h, ki, I_ULSM)->instr,
				       case_of(v, h, ki, I_ULSM_C)->instr);
			printf("\n");
		}
	}
	printf("\n");
}

/* One target line: ulsm / limit of one case, with both medians. */
static void target(int v, int hook, int ki, int impl, const char *what,
		   double limit)
{
	double q = ratio4(v, hook, ki, impl, I_LIMIT);

	printf("  %-9s %-38s %5.2f (%6.2f vs %6.2f ns)", vname[v], what, q,
	       med(v, hook, ki, impl), med(v, hook, ki, I_LIMIT));
	if (limit > 0) {
		char t[160];

		printf("  %s %.2f", q <= limit ? "met, <=" : "NOT met, >",
		       limit);
		snprintf(t, sizeof(t), "%s %s: ulsm / limit <= %.2f", vname[v],
			 what, limit);
		bench_target("bench_hooks", t, q <= limit, "%.2f (%.2f vs "
			     "%.2f ns)", q, med(v, hook, ki, impl),
			     med(v, hook, ki, I_LIMIT));
	}
	printf("\n");
}

void print_targets(void)
{
	/* The targets are the patching back end's: entries, direct calls. */
	bool patching = strcmp(ulsm_backend(), "generic") != 0;

	printf("Dispatch against the hard-coded chain: ulsm / limit "
	       "(ulsm_c / limit where\nsaid), medians of this run, both "
	       "medians beside; the targets are the issue's\n"
	       "\"dispatch at the cost of hard-coded calls\" (int hook with "
	       "1-3 modules <= 1.10,\nempty hook <= 1.02, rethunk with 2 "
	       "modules <= 1.15); other lines for scale.\n");
	if (!patching)
		printf("(generic back end: no hook entries, a slot is a load "
		       "and an indirect call;\n the targets are the patching "
		       "back end's)\n");
	for (int v = 0; v < V_COUNT; v++) {
		bool plain = v == V_PLAIN && patching;
		bool rt = v == V_RETHUNK && patching;

		if (!present(v))
			continue;
		target(v, H_INT, KI_0, I_ULSM,
		       "empty hook / empty function", plain ? 1.02 : 0);
		target(v, H_INT, KI_1, I_ULSM, "int hook, 1 module",
		       plain ? 1.10 : 0);
		target(v, H_INT, KI_2, I_ULSM, "int hook, 2 modules",
		       plain ? 1.10 : rt ? 1.15 : 0);
		target(v, H_INT, KI_3, I_ULSM, "int hook, 3 modules",
		       plain ? 1.10 : 0);
		target(v, H_INT, KI_2, I_ULSM_C,
		       "int hook, 2 modules, ulsm_c / limit", 0);
		target(v, H_VOID, KI_2, I_ULSM, "void hook, 2 modules", 0);
	}
	printf("\n");
}

void print_updates(void)
{
	printf("Enabling a module: ulsm_lsm_toggle() on the plain set, %u "
	       "times each, disabled\nagain between (untimed); threads: 0, or "
	       "2 threads dispatching every upd_* hook\nall the while. median "
	       "us, min us: the time of one enable; core syncs, sites: per\n"
	       "batch (each enable is %.2f batch); traps: breakpoints the "
	       "threads met mid-patch\nand the library carried them over, per "
	       "enable. Core sync: %s.\n\n", upd[0][0].reps,
	       upd[0][0].batches, ulsm_sync_method());
	printf("  %-6s %5s %8s %10s %10s %11s %11s %8s\n", "module", "hooks",
	       "threads", "median us", "min us", "core syncs", "sites",
	       "traps");
	for (int u = 0; u < HK_NU; u++)
		for (int t = 0; t < 2; t++) {
			const struct upd_cost *uc = &upd[u][t];
			double nb = uc->batches > 0 ? uc->batches : 1;

			printf("  %-6s %5d %8d %10.2f %10.2f %11.2f %11.2f "
			       "%8.2f\n", u_name[u], u_hooks[u], t ? 2 : 0,
			       uc->median_us, uc->min_us, uc->core_syncs / nb,
			       uc->sites_patched / nb, uc->traps);
		}
	printf("  (the threads dispatched all %d upd_* hooks %lu, %lu and %lu "
	       "times while u1,\n   u10, u100 were measured%s)\n",
	       U_ALL_HOOKS, upd[0][1].thread_rounds, upd[1][1].thread_rounds,
	       upd[2][1].thread_rounds,
	       thread_stalls ? "; a thread stalled" : "");
	printf("First registration: security_add_hooks() at initialisation, "
	       "once, no thread\n(targets, trampolines and entries):\n");
	for (int u = 0; u < HK_NU; u++) {
		const struct hk_reg *r = &variant[V_PLAIN]->reg[u];

		printf("  %-6s %5d hooks: %8.2f us, %lu batch(es), %lu core "
		       "syncs, %lu sites\n", u_name[u], u_hooks[u],
		       (double)r->ns / 1000.0, r->batches, r->core_syncs,
		       r->sites_patched);
	}
	printf("The baseline, the same modules onto its lists "
	       "(hlist_add_tail, no thread, the\nclock read included):\n");
	for (int u = 0; u < HK_NU; u++)
		printf("  %-6s %5d hooks: %8.2f us\n", u_name[u], u_hooks[u],
		       base_add_us[u]);
	printf("\n");
}

void print_sizes(const struct data_sizes *d)
{
	unsigned long ulsm_hook = d->slots + d->calls + d->keys + d->entry +
				  d->call_entries;
	long entry = entry_text_bytes();

	printf("Size per hook (%d slots; back end %s), bytes. baseline: the "
	       "list head, and one\nlist entry per module; ulsm: the slot "
	       "table, the slots' static-call keys and\nstatic keys, the "
	       "entry's descriptor, map and site records, the trampolines'\n"
	       "call-table entries; text from this program's symbol table.\n\n",
	       HK_MAX, ulsm_backend());
	printf("  %-46s %9s %9s\n", "", "baseline", "ulsm");
	printf("  %-46s %7lu B %7lu B\n", "tables per hook", d->base_head,
	       ulsm_hook);
	printf("    (ulsm: slots %lu, static-call keys %lu, static keys %lu, "
	       "entry %lu,\n     call-table %lu)\n", d->slots, d->calls,
	       d->keys, d->entry, d->call_entries);
	printf("  %-46s %7d B %7lu B\n", "tables per dispatch site", 0,
	       d->site);
	printf("  %-46s %7lu B %7lu B\n", "per module on the hook",
	       d->base_module, d->ulsm_module);
	printf("  %-46s %7d B %7ld B\n", "trampolines per hook (text)", 0,
	       HK_MAX * tramp_bytes);
	printf("  %-46s %7d B %7ld B\n", "entry per hook (text)", 0, entry);
	if (!have_symtab) {
		printf("  (text of the dispatch functions: no symbol "
		       "table)\n\n");
		return;
	}
	for (int v = 0; v < V_COUNT; v++) {
		char what[64];

		if (!present(v))
			continue;
		snprintf(what, sizeof(what), "dispatch function, int hook, %s",
			 vname[v]);
		printf("  %-46s %7ld B %7ld B\n", what, text[v].base_int,
		       text[v].ulsm_int);
		snprintf(what, sizeof(what), "dispatch function, void hook, %s",
			 vname[v]);
		printf("  %-46s %7ld B %7ld B\n", what, text[v].base_void,
		       text[v].ulsm_void);
	}
	printf("  (ulsm's dispatch function is the entry itself; limit, %s: "
	       "int hook with 2\n   calls %ld B, with %d calls %ld B)\n\n",
	       vname[V_PLAIN], text[V_PLAIN].limit_int_k2, HK_MAX,
	       text[V_PLAIN].limit_int_kmax);
}
