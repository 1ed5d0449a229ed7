/* SPDX-License-Identifier: MIT */
/*
 * Hooks built with APR's probe macros (apr_hooks.h, "Hook probe
 * capability": define APR_HOOK_PROBES_ENABLED and the four probes before
 * the IMPLEMENT macros, as httpd does for DTrace). The probes print where
 * each is called, the module of the callback and the results, and check
 * that the user data set at entry reaches the other three. A translation
 * unit of its own: probes are chosen per unit, and so is _hooks.
 */
#define APR_HOOK_PROBES_ENABLED 1
#include <apr_hooks.h>
#include "apr_diff.h"

static void *probe_entry(const char *hook, const char *args);
static void probe_event(void *ud, const char *what, const char *src, long long rv);

#define APR_HOOK_PROBE_ENTRY(ud, ns, name, args) \
	((ud) = probe_entry(#ns "_" #name, #args))
#define APR_HOOK_PROBE_RETURN(ud, ns, name, rv, args) \
	probe_event(ud, "ret", NULL, (long long)(rv))
#define APR_HOOK_PROBE_INVOKE(ud, ns, name, src, args) \
	probe_event(ud, "inv", src, 0)
#define APR_HOOK_PROBE_COMPLETE(ud, ns, name, src, rv, args) \
	probe_event(ud, "done", src, (long long)(rv))

/* The user data: the thread's counters, or this for the main thread. */
static char probe_main;

static void *probe_entry(const char *hook, const char *args)
{
	if (td_tls) {
		td_tls->probes++;
		return td_tls;
	}
	printf(" {%s%s", hook, args);
	return &probe_main;
}

static void probe_event(void *ud, const char *what, const char *src, long long rv)
{
	if (td_tls) {
		td_tls->probes += ud == td_tls ? 1 : 1000000;
		return;
	}
	printf(" %s%s", ud == &probe_main ? "" : "!ud:", what);
	if (src) {
		putchar(':');
		td_print_name(src);
	}
	if (src == NULL || *what == 'd')
		printf("=%lld", rv);
	if (*what == 'r')
		putchar('}');
}

APR_DECLARE_EXTERNAL_HOOK(td, TD, int, p0, (int a, void *p))
APR_DECLARE_EXTERNAL_HOOK(td, TD, void, p1, (long x))
APR_DECLARE_EXTERNAL_HOOK(td, TD, long long, p2, (long long v))

APR_HOOK_STRUCT(
	APR_HOOK_LINK(p0)
	APR_HOOK_LINK(p1)
	APR_HOOK_LINK(p2)
)

/* APR passes the callback's module to the probes as (char *), casting
 * away the const of szName. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcast-qual"
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_ALL(td, TD, int, p0, (int a, void *p), (a, p), 0, -1)
APR_IMPLEMENT_EXTERNAL_HOOK_VOID(td, TD, p1, (long x), (x))
APR_IMPLEMENT_EXTERNAL_HOOK_RUN_FIRST(td, TD, long long, p2, (long long v), (v),
				      -(1LL << 33))
#pragma GCC diagnostic pop

TD_POOL(p0, int, (int a, void *p),
	return (int)td_hit(P_P0, id, "%d,%d", a, td_pidx(p));)
TD_POOL(p1, void, (long x), td_hit(P_P1, id, "%ld", x);)
TD_POOL(p2, long long, (long long v), return td_hit(P_P2, id, "%lld", v);)

#define SAY(...) do { if (!quiet) printf(__VA_ARGS__); } while (0)

static long long run_p0(struct td_rng *r, int quiet)
{
	int a = (int)td_int(r), rv;
	void *p = td_pcode(td_rnd(r, 65) - 1);

	SAY("run p0(%d,%d):", a, td_pidx(p));
	rv = td_run_p0(a, p);
	SAY(" -> %d\n", rv);
	return rv;
}

static long long run_p1(struct td_rng *r, int quiet)
{
	long x = (long)td_int(r);

	SAY("run p1(%ld):", x);
	td_run_p1(x);
	SAY("\n");
	return 0;
}

static long long run_p2(struct td_rng *r, int quiet)
{
	long long v = td_int(r), rv;

	SAY("run p2(%lld):", v);
	rv = td_run_p2(v);
	SAY(" -> %lld\n", rv);
	return rv;
}

/* Any unit may sort or deregister, this one too: the same calls, from a
 * unit whose apr_hooks.h was read with probes enabled. */
void td_probe_sort_all(void)
{
	apr_hook_sort_all();
}

void td_probe_deregister_all(void)
{
	apr_hook_deregister_all();
}

TD_GLUE(p0) TD_GLUE(p1) TD_GLUE(p2)

const struct td_slot td_probe_slots[3] = {
	TD_SLOT(p0, P_P0), TD_SLOT(p1, P_P1), TD_SLOT(p2, P_P2),
};
