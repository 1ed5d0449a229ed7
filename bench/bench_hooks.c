// SPDX-License-Identifier: MIT
/*
 * Does dispatching LSM-style hooks through static calls remove the cost of
 * the indirect calls it replaced, and does it cost what hard-coded calls
 * cost? The kernel change's claim, measured side by side.
 *
 * The same two hooks (bench_hook_defs.h: file_permission, an int hook, and
 * file_free_security, a void hook), the same callbacks (m0 .. m7), four
 * dispatchers (bench/hk_bench.h):
 *
 *   baseline  per-hook linked lists walked with indirect calls, as before
 *             the kernel change
 *   limit     hard-coded chains of direct calls to the callbacks
 *   ulsm      the hook's entry of <ulsm/lsm_hooks.h>, as the security_*
 *             function itself
 *   ulsm_c    the same, called from a C function around call_int_hook
 *
 * each compiled three times, with no mitigation, with retpolines and with
 * retpolines and return thunks (bench/sc_bench.h; a variant whose flags the
 * compiler lacks is left out and said so). Measured:
 *
 *   dispatch  ns per dispatch with 0, 1, 2, 3 and HK_MAX modules active,
 *             every callback returning the default (the whole walk), and
 *             with HK_MAX active and the first denying (the walk stops);
 *             all cases in one run, interleaved rounds, medians
 *             (hk_cases.c); under callgrind, the exact instructions per
 *             dispatch (hk_callgrind.c)
 *   update    what enabling a module with 1, 10 and 100 hooks costs, with
 *             no thread and with two threads dispatching those hooks all
 *             the while (hk_update.c)
 *   size      bytes per hook of tables and text (hk_size.c)
 *
 * Every timed run is checked: the sum of what the dispatches returned, and
 * per module the sum of the arguments its callbacks saw. The update test
 * checks every switch, and its threads every dispatch. Any mismatch:
 * exit 1. The output (hk_report.c) puts a legend before each table; the
 * JSON (hk_json.c) and the chart (hk_plot.c) hold the same numbers.
 *
 * Usage: bench_hooks [--quick] [--json FILE] [--plot PREFIX]
 *                    [--workload FILE] [--no-callgrind]
 *                    [--callgrind-exe PROGRAM]
 *        bench_hooks --update-stress N
 *        bench_hooks --dump-entry K FILE
 */
#include <stdlib.h>
#include <string.h>

#include <ulsm/ulsm.h>

#include "hk_driver.h"

/*
 * --dump-entry K FILE: the plain variant's int hook's entry (its
 * security_* function) with m0 .. m(K-1) on, as the process runs it, to
 * FILE, for objdump -D -b binary -m i386:x86-64 --adjust-vma=ADDRESS FILE
 * (docs/performance-journal.md, "The dispatch", shows one).
 */
static int dump_entry(unsigned int k, const char *path)
{
	const void *fn = (const void *)(uintptr_t)hk_sec_ulsm_int_plain;
	long len;
	FILE *f;

	measure_sizes();
	len = entry_text_bytes();
	if (len <= 0 || ulsm_set_modules(V_PLAIN, k))
		return 1;
	f = fopen(path, "w");
	if (!f || fwrite(fn, 1, (size_t)len, f) != (size_t)len) {
		perror(path);
		return 1;
	}
	if (bench_close(f, "bench_hooks", path))
		return 1;
	printf("hk_sec_ulsm_int_plain with %u module(s) on: %ld bytes at %p; "
	       "objdump -D -b binary\n-m i386:x86-64 --adjust-vma=%p %s\n", k,
	       len, fn, fn, path);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_hooks [--quick] [--json FILE] [--plot PREFIX] "
		"[--workload FILE]\n"
		"                   [--no-callgrind] [--callgrind-exe PROGRAM]\n"
		"       bench_hooks --update-stress N\n"
		"  --quick         fewer and shorter rounds (a few seconds)\n"
		"  --json FILE     also write the results to FILE as JSON\n"
		"  --plot PREFIX   write PREFIX.dat and PREFIX.gp (gnuplot "
		"PREFIX.gp draws\n"
		"                  PREFIX.png)\n"
		"  --workload FILE add bench_workload's data (its --plot "
		"PREFIX.dat) to the chart\n"
		"  --no-callgrind  do not count instructions under callgrind\n"
		"  --callgrind-exe PROGRAM  run PROGRAM, a copy of this one, "
		"under callgrind\n"
		"                  (default: this program)\n"
		"  --update-stress N  only the update test, N times, with no "
		"pause between\n"
		"                  batches on the same sites (a reproducer)\n"
		"  --dump-entry K FILE  write the plain int hook's entry, K "
		"modules on, to FILE\n");
}

int main(int argc, char **argv)
{
	const char *json = NULL, *plot = NULL, *cg_exe = NULL, *wl = NULL;
	const char *cg_prefix = NULL, *cg_tsv = NULL, *dump_path = NULL;
	int dump_k = -1;
	unsigned int stress = 0, rounds;
	bool quick = false, callgrind = true;
	struct data_sizes ds;
	struct ulsm_stats total;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strcmp(argv[i], "--plot") && i + 1 < argc) {
			plot = argv[++i];
		} else if (!strcmp(argv[i], "--workload") && i + 1 < argc) {
			wl = argv[++i];
		} else if (!strcmp(argv[i], "--no-callgrind")) {
			callgrind = false;
		} else if (!strcmp(argv[i], "--callgrind-exe") &&
			   i + 1 < argc) {
			cg_exe = argv[++i];
		} else if (!strcmp(argv[i], "--update-stress") &&
			   i + 1 < argc) {
			stress = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--dump-entry") && i + 2 < argc) {
			dump_k = (int)strtol(argv[++i], NULL, 0);
			dump_path = argv[++i];
		} else if (!strcmp(argv[i], "--callgrind-child") &&
			   i + 2 < argc) {
			cg_prefix = argv[++i];
			cg_tsv = argv[++i];
		} else if (!strcmp(argv[i], "--help") ||
			   !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}

	build_cases();
	if (setup_sets())
		return 1;
	if (cg_prefix)
		return callgrind_child(cg_prefix, cg_tsv) ? 1 : 0;
	if (stress)
		return update_stress(stress);
	if (dump_path)
		return dump_entry((unsigned int)dump_k, dump_path);

	bench_read_machine(&machine);
	printf("ulsm hook benchmark: back end %s, %s, MAX_LSM_COUNT %d%s\n",
	       ulsm_backend(), BENCH_COMPILER, HK_MAX,
	       quick ? ", --quick" : "");
	printf("machine: %s, %ld CPUs, %s\n", machine.cpu, machine.ncpus,
	       machine.kernel);
	printf("dispatch code and callbacks compiled per variant with:\n");
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			printf("  %-10s left out: %s\n", vname[v],
			       variant_missing[v]);
		else
			printf("  %-10s %s\n", vname[v], *variant[v]->flags ?
			       variant[v]->flags : "(no extra flags)");
	}
	if (!strcmp(ulsm_backend(), "generic"))
		printf("(generic back end: no entries; a slot is a load of its "
		       "key and of its\n function pointer, and an indirect "
		       "call)\n");
	printf("\n");

	if (!callgrind)
		snprintf(instr_note, sizeof(instr_note), "skipped "
			 "(--no-callgrind)");
	else if (run_callgrind(cg_exe))
		return 1;
	printf("instruction counts: %s\n", instr_note);

	if (time_cases(quick, &rounds))
		return 1;
	if (measure_updates(quick ? 11 : 51))
		return 1;
	measure_sizes();
	data_sizes(&ds);

	print_seed_table();
	print_detail_table(cases[0].instr >= 0);
	print_targets();
	print_updates();
	print_sizes(&ds);

	ulsm_get_stats(&total);
	printf("library totals: %lu batches (%lu failed), %lu core syncs, "
	       "%lu sites patched, %lu traps emulated, %lu rewound\n",
	       total.batches, total.batches_failed, total.core_syncs,
	       total.sites_patched, total.traps_emulated, total.traps_rewound);
	printf("call sites: %lu patched to call module callbacks directly, "
	       "%lu left calling\ntheir trampoline\n", total.call_sites,
	       total.call_sites_skipped);

	if (json && write_json(json, quick, rounds, &ds))
		return 1;
	if (plot && write_plot(plot, quick, wl))
		return 1;
	return 0;
}
