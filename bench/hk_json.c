// SPDX-License-Identifier: MIT
/*
 * bench_hooks: the JSON file (bench/hk_driver.h): every case's medians,
 * minimums, iterations and instruction counts, the ratios the targets are
 * about, the update test and the sizes, with the machine and the flags.
 */
#include <errno.h>
#include <string.h>

#include <ulsm/ulsm.h>

#include "hk_driver.h"

int write_json(const char *path, bool quick, unsigned int rounds,
		      const struct data_sizes *d)
{
	FILE *f = bench_open("bench_hooks", path);
	bool first = true;

	if (!f)
		return -1;
	fprintf(f, "{\n  \"benchmark\": \"hooks\",\n  \"backend\": ");
	bench_json_string(f, ulsm_backend());
	fprintf(f, ",\n  \"sync_method\": ");
	bench_json_string(f, ulsm_sync_method());
	fprintf(f, ",\n  \"compiler\": ");
	bench_json_string(f, BENCH_COMPILER);
	fprintf(f, ",\n  \"cpu\": ");
	bench_json_string(f, machine.cpu);
	fprintf(f, ",\n  \"cpus\": %ld,\n  \"kernel\": ", machine.ncpus);
	bench_json_string(f, machine.kernel);
	fprintf(f, ",\n  \"quick\": %s,\n  \"max_lsm_count\": %d,\n",
		quick ? "true" : "false", HK_MAX);
	fprintf(f, "  \"rounds\": %u,\n  \"variants\": {", rounds);
	for (int v = 0; v < V_COUNT; v++) {
		fprintf(f, "%s\n    \"%s\": ", v ? "," : "", vname[v]);
		if (present(v))
			bench_json_string(f, variant[v]->flags);
		else
			fprintf(f, "null");
	}
	fprintf(f, "\n  },\n  \"instructions\": ");
	bench_json_string(f, instr_note);
	fprintf(f, ",\n  \"cases\": [");
	for (size_t i = 0; i < ncases; i++) {
		const struct hk_case *c = &cases[i];

		fprintf(f, "%s\n    { \"variant\": \"%s\", \"hook\": \"%s\", "
			"\"modules\": %u, \"impl\": \"%s\", "
			"\"median_ns\": %.4f, \"min_ns\": %.4f, "
			"\"iterations_per_run\": %lu, \"verified_runs\": %lu",
			i ? "," : "", vname[c->v], hkey[c->hook],
			counts[c->ki], iname[c->impl], c->median_ns, c->min_ns,
			c->iters, c->verified);
		if (c->instr >= 0)
			fprintf(f, ", \"instructions_per_iteration\": %.2f",
				c->instr);
		fprintf(f, " }");
	}
	fprintf(f, "\n  ],\n  \"ratios\": {");
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v))
			continue;
		fprintf(f, "%s\n    \"%s\": { "
			"\"ulsm_vs_limit_int_1_module\": %.4f, "
			"\"ulsm_vs_limit_int_2_modules\": %.4f, "
			"\"ulsm_vs_limit_int_3_modules\": %.4f, "
			"\"ulsm_c_vs_limit_int_2_modules\": %.4f, "
			"\"empty_hook_vs_empty_function\": %.4f, "
			"\"baseline_vs_ulsm_int_2_modules\": %.4f, "
			"\"baseline_vs_ulsm_int_%d_modules\": %.4f, "
			"\"baseline_vs_ulsm_void_%d_modules\": %.4f }",
			first ? "" : ",", vname[v],
			ratio4(v, H_INT, 1, I_ULSM, I_LIMIT),
			ratio4(v, H_INT, 2, I_ULSM, I_LIMIT),
			ratio4(v, H_INT, 3, I_ULSM, I_LIMIT),
			ratio4(v, H_INT, 2, I_ULSM_C, I_LIMIT),
			ratio4(v, H_INT, 0, I_ULSM, I_LIMIT),
			ratio4(v, H_INT, 2, I_BASE, I_ULSM),
			HK_MAX, ratio4(v, H_INT, KI_MAX, I_BASE, I_ULSM),
			HK_MAX, ratio4(v, H_VOID, KI_MAX, I_BASE, I_ULSM));
		first = false;
	}
	fprintf(f, "\n  },\n  \"update\": [");
	for (int u = 0; u < HK_NU; u++)
		for (int t = 0; t < 2; t++) {
			const struct upd_cost *uc = &upd[u][t];

			fprintf(f, "%s\n    { \"module\": \"%s\", "
				"\"hooks\": %d, \"threads\": %d, "
				"\"enables\": %u, "
				"\"median_us\": %.3f, \"min_us\": %.3f, "
				"\"batches_per_enable\": %.3f, "
				"\"core_syncs_per_enable\": %.3f, "
				"\"sites_patched_per_enable\": %.3f, "
				"\"traps_per_enable\": %.3f, "
				"\"thread_rounds\": %lu }", u + t ? "," : "",
				u_name[u], u_hooks[u], t ? 2 : 0, uc->reps,
				uc->median_us, uc->min_us, uc->batches,
				uc->core_syncs, uc->sites_patched, uc->traps,
				uc->thread_rounds);
		}
	fprintf(f, "\n  ],\n  \"first_registration\": [");
	for (int u = 0; u < HK_NU; u++) {
		const struct hk_reg *r = &variant[V_PLAIN]->reg[u];

		fprintf(f, "%s\n    { \"module\": \"%s\", \"hooks\": %d, "
			"\"us\": %.3f, \"batches\": %lu, \"core_syncs\": %lu, "
			"\"sites_patched\": %lu }", u ? "," : "", u_name[u],
			u_hooks[u], (double)r->ns / 1000.0, r->batches,
			r->core_syncs, r->sites_patched);
	}
	fprintf(f, "\n  ],\n  \"baseline_add_us\": [%.4f, %.4f, %.4f],\n",
		base_add_us[0], base_add_us[1], base_add_us[2]);
	fprintf(f, "  \"size\": { \"ulsm_tables_per_hook\": %lu, "
		"\"ulsm_tables_per_site\": %lu, "
		"\"ulsm_per_module_per_hook\": %lu, "
		"\"ulsm_trampolines_per_hook\": %ld, "
		"\"baseline_tables_per_hook\": %lu, "
		"\"baseline_per_module_per_hook\": %lu, \"text\": {",
		d->slots + d->calls + d->keys + d->entry + d->call_entries,
		d->site,
		d->ulsm_module, HK_MAX * tramp_bytes, d->base_head,
		d->base_module);
	first = true;
	for (int v = 0; v < V_COUNT; v++) {
		if (!present(v) || !have_symtab)
			continue;
		fprintf(f, "%s \"%s\": { \"baseline_int\": %ld, "
			"\"baseline_void\": %ld, \"ulsm_int\": %ld, "
			"\"ulsm_void\": %ld, \"limit_int_2\": %ld, "
			"\"limit_int_%d\": %ld }", first ? "" : ",", vname[v],
			text[v].base_int, text[v].base_void, text[v].ulsm_int,
			text[v].ulsm_void, text[v].limit_int_k2, HK_MAX,
			text[v].limit_int_kmax);
		first = false;
	}
	fprintf(f, " } }\n}\n");
	return bench_close(f, "bench_hooks", path);
}
