// SPDX-License-Identifier: MIT
/*
 * The registry by key, for whoever lists it (ulsm_dump(), the control
 * endpoint's show): copied, grouped and summed up once under the patch
 * lock, so that each only formats it. Nothing here names an address:
 * dladdr() takes the dynamic linker's lock, which must not be waited for
 * under the patch lock (src/dump.c).
 */
#include <errno.h>

#include "static/static.h"

/*
 * The summary of the key whose sites start at @s (the sites up to @end
 * are in key order); how many they are in *@nsites.
 */
static struct ulsm_key_summary summarize(const struct ulsm_site *s,
					 const struct ulsm_site *end,
					 size_t *nsites)
{
	struct ulsm_key_summary k = { .key = s->key };
	const struct ulsm_site *p;

	for (p = s; p < end && p->key == s->key; p++) {
		k.key_sites += p->kind == &ulsm_kind_key_site;
		if (p->kind == &ulsm_kind_trampoline && !k.tramps++)
			k.tramp = p->addr;
	}
	*nsites = (size_t)(p - s);
	if (k.key_sites) {
		const struct static_key *key = k.key;

		k.count = __atomic_load_n(&key->enabled, __ATOMIC_RELAXED);
	}
	if (k.tramps) {
		const struct static_call_key *call = k.key;

		k.target = call->func;
		k.call_sites = ulsm_call_sites_count(call, &k.direct);
	}
	return k;
}

int ulsm_keys_snapshot_take(struct ulsm_keys_snapshot *snap)
{
	size_t n = ulsm_registry_snapshot_by_key(NULL, 0);

	*snap = (struct ulsm_keys_snapshot){ .nsites = n };
	/* n + 1: an empty registry is no failure. */
	snap->sites = ulsm_calloc(n + 1, sizeof(*snap->sites));
	snap->keys = ulsm_calloc(n + 1, sizeof(*snap->keys));
	if (!snap->sites || !snap->keys) {
		ulsm_keys_snapshot_free(snap);
		snap->nsites = n;
		return -ENOMEM;
	}
	snap->nsites = ulsm_registry_snapshot_by_key(snap->sites, n);
	for (size_t i = 0, len; i < snap->nsites; i += len)
		snap->keys[snap->nkeys++] = summarize(&snap->sites[i],
						      &snap->sites[snap->nsites],
						      &len);
	return 0;
}

void ulsm_keys_snapshot_free(struct ulsm_keys_snapshot *snap)
{
	ulsm_free(snap->sites);
	ulsm_free(snap->keys);
	*snap = (struct ulsm_keys_snapshot){ .sites = NULL };
}
