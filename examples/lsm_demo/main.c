// SPDX-License-Identifier: MIT
/*
 * lsm_demo - a host program with security hooks and three stacked modules.
 *
 * The host (this file) stands for a server that acts for several users:
 * before it opens a file, signals a task or hands out memory, it asks
 * security_*() (security.c), which runs the hooks of the active modules
 * in order:
 *
 *   capability  (mod_capability.c, always first)  the classic Unix rules
 *   labels      (mod_labels.c, placed by ORDER)   user/admin, public/secret
 *   audit       (mod_audit.c, always last)        logs what reaches it
 *
 * The program initialises the hook set in a chosen module order, shows
 * which module sits in which slot, seals the tables, runs a fixed list of
 * requests and prints who decided each one. It knows what every request
 * should give with the modules that are active, and exits 1 if anything
 * else happened, so "make demo" is also a smoke test.
 *
 * Usage: lsm_demo [--lsm ORDER]
 *
 * ORDER is the kernel's lsm= list; without it $ULSM_LSM, else the built-in
 * order ("labels"). capability and audit place themselves and need not be
 * listed; "!name" removes a module. A list names every module it wants:
 *
 *   lsm_demo --lsm labels              the default
 *   lsm_demo --lsm 'labels,!audit'     no audit log
 *   lsm_demo --lsm '!capability,labels'  labels alone decides
 *   lsm_demo --lsm '!audit'            the default order without audit
 *   ULSM_LSM=labels ULSM_DEBUG=1 lsm_demo   the library explains itself
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/ulsm.h>

#include "demo_lsm.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- the host's world ------------------------------------------------- */

struct user {
	const char *name;
	struct demo_cred cred;
};

enum { ROOT, ALICE, BOB };

static struct user users[] = {
	[ROOT]	= { "root",  { .uid = 0,    .label = "admin" } },
	[ALICE]	= { "alice", { .uid = 1000, .label = "admin" } },
	[BOB]	= { "bob",   { .uid = 1001, .label = "user" } },
};

enum { MOTD, SECRET, TODO };

/* What the host copies into a new struct demo_file when it opens one. */
static const struct demo_file files[] = {
	[MOTD]		= { .path = "/etc/motd", .owner = 0, .mode = 0644 },
	[SECRET]	= { .path = "/etc/secret", .owner = 0, .mode = 0644 },
	[TODO]		= { .path = "/home/bob/todo", .owner = 1001,
			    .mode = 0600 },
};

/* ---- the scenario ----------------------------------------------------- */

enum op { OP_OPEN, OP_READ, OP_WRITE, OP_KILL, OP_MEM };

/* A module that refuses a request, and its error. */
struct refusal {
	const char *lsm;
	int rc;
};

/*
 * A request, and the modules that would refuse it, in the order they are
 * asked (open before read/write, then slot order). The first of them
 * that is active decides; if none is, the request is allowed.
 */
struct request {
	int user;
	enum op op;
	int arg;			/* a file, a user, or pages */
	struct refusal refusals[2];
};

#define ALLOWED			{ { NULL, 0 }, { NULL, 0 } }
#define DENIED(lsm, rc)		{ { lsm, rc }, { NULL, 0 } }
#define DENIED2(lsm, rc, lsm2, rc2) { { lsm, rc }, { lsm2, rc2 } }

static const struct request scenario[] = {
	{ ROOT,  OP_OPEN,  SECRET, ALLOWED },
	{ ALICE, OP_OPEN,  SECRET, ALLOWED },
	{ BOB,   OP_OPEN,  MOTD,   ALLOWED },
	{ BOB,   OP_OPEN,  SECRET, DENIED("labels", -EACCES) },
	{ BOB,   OP_WRITE, TODO,   ALLOWED },
	{ BOB,   OP_WRITE, MOTD,   DENIED("capability", -EACCES) },
	{ ROOT,  OP_WRITE, MOTD,   DENIED("labels", -EACCES) },
	{ ALICE, OP_WRITE, MOTD,   DENIED2("capability", -EACCES,
					   "labels", -EACCES) },
	{ ALICE, OP_READ,  TODO,   DENIED("capability", -EACCES) },
	{ ROOT,  OP_READ,  TODO,   ALLOWED },
	{ BOB,   OP_KILL,  ALICE,  DENIED2("capability", -EPERM,
					   "labels", -EACCES) },
	{ ALICE, OP_KILL,  BOB,    DENIED("capability", -EPERM) },
	{ ROOT,  OP_KILL,  BOB,    ALLOWED },
	{ BOB,   OP_MEM,   100,    ALLOWED },
	{ BOB,   OP_MEM,   900,    DENIED("capability", -ENOMEM) },
	{ ROOT,  OP_MEM,   900,    ALLOWED },
};

static unsigned int checks, mismatches;
static const char *toggled_off;		/* a module switched off at run time */

static const char *errname(int rc)
{
	static const struct { int err; const char *name; } names[] = {
		{ EACCES, "-EACCES" }, { EPERM, "-EPERM" },
		{ ENOMEM, "-ENOMEM" }, { EOPNOTSUPP, "-EOPNOTSUPP" },
		{ ENOENT, "-ENOENT" }, { ENOSPC, "-ENOSPC" },
		{ EINVAL, "-EINVAL" }, { EALREADY, "-EALREADY" },
		{ E2BIG, "-E2BIG" },
	};
	static char other[16];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (rc == -names[i].err)
			return names[i].name;
	snprintf(other, sizeof(other), "%d", rc);
	return other;
}

/* Is @name in the active list (and not switched off)? */
static bool active(const char *name)
{
	const char *p = ulsm_lsm_list(&demo_hook_set);
	size_t len = strlen(name);

	if (toggled_off && !strcmp(name, toggled_off))
		return false;
	for (; *p; p += strcspn(p, ","), p += !!*p)
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

static void check(bool ok, const char *what)
{
	checks++;
	if (!ok) {
		mismatches++;
		printf("    ^ MISMATCH: expected %s\n", what);
	}
}

/* Run one request through the hooks, as the host would. */
static int run(const struct request *r)
{
	const struct demo_cred *cred = &users[r->user].cred;
	struct demo_file file;
	int rc;

	demo_verdict_reset();
	switch (r->op) {
	case OP_OPEN:
	case OP_READ:
	case OP_WRITE:
		file = files[r->arg];
		rc = security_file_alloc(&file);
		if (rc)
			return rc;
		rc = security_file_open(cred, &file);
		if (!rc && r->op != OP_OPEN)
			rc = security_file_permission(cred, &file,
				r->op == OP_READ ? DEMO_MAY_READ :
						   DEMO_MAY_WRITE);
		security_file_free(&file);
		return rc;
	case OP_KILL:
		return security_task_kill(cred, &users[r->arg].cred, SIGTERM);
	case OP_MEM:
		return security_vm_enough_memory(cred, r->arg);
	}
	return -EINVAL;
}

static void describe(const struct request *r, char *buf, size_t len)
{
	static const char *const verbs[] = {
		[OP_OPEN] = "open ", [OP_READ] = "read ",
		[OP_WRITE] = "write", [OP_KILL] = "kill ", [OP_MEM] = "mem  ",
	};

	if (r->op == OP_KILL)
		snprintf(buf, len, "%s %s", verbs[r->op], users[r->arg].name);
	else if (r->op == OP_MEM)
		snprintf(buf, len, "%s %d pages", verbs[r->op], r->arg);
	else
		snprintf(buf, len, "%s %s", verbs[r->op], files[r->arg].path);
}

static void request(const struct request *r)
{
	struct refusal want = { NULL, 0 };
	const struct demo_verdict *v;
	char what[40], expect[64];
	int rc;

	for (size_t i = 0; i < ARRAY_SIZE(r->refusals); i++)
		if (r->refusals[i].lsm && active(r->refusals[i].lsm)) {
			want = r->refusals[i];
			break;
		}
	rc = run(r);
	v = demo_verdict();
	describe(r, what, sizeof(what));
	printf("  %-5s %-20s -> ", users[r->user].name, what);
	if (!rc)
		printf("allowed\n");
	else
		printf("DENIED (%s) by %s: %s\n", errname(rc),
		       v->lsm ? v->lsm : "(unnamed)", v->why ? v->why : "?");
	if (want.lsm)
		snprintf(expect, sizeof(expect), "DENIED (%s) by %s",
			 errname(want.rc), want.lsm);
	else
		snprintf(expect, sizeof(expect), "allowed");
	check(rc == want.rc &&
	      (!rc || (v->lsm && !strcmp(v->lsm, want.lsm))), expect);
}

/* ---- the parts of the demo -------------------------------------------- */

/* What the library knows: the modules, their order and the slot table. */
static void show_slots(void)
{
	printf("\nThe library's own view (ulsm_dump(); ULSM_DUMP=1 prints it at "
	       "exit):\n");
	fflush(stdout);
	ulsm_dump(stdout);
}

/* The attribute queries: every module answers, or the first that knows. */
static void queries(void)
{
	const struct demo_cred *bob = &users[BOB].cred;
	char buf[128], want[128];
	uint32_t secid;
	int rc;

	rc = security_getselfattr(bob, buf, sizeof(buf));
	printf("  bob   %-20s -> %s\n", "getselfattr",
	       rc < 0 ? errname(rc) : buf);
	snprintf(want, sizeof(want), "%s%s%s",
		 active("labels") ? "labels=user" : "",
		 active("labels") && active("audit") ? " " : "",
		 active("audit") ? "audit=session:3" : "");
	check(*want ? rc > 0 && !strcmp(buf, want) : rc == -EOPNOTSUPP,
	      *want ? want : "-EOPNOTSUPP");

	security_cred_getsecid(bob, &secid);
	rc = security_secid_to_secctx(secid, buf, sizeof(buf));
	snprintf(want, sizeof(want), "secid_to_secctx(%u)", secid);
	printf("  bob   %-20s -> %s\n", want, rc ? errname(rc) : buf);
	if (active("labels"))
		check(!rc && !strcmp(buf, "user"), "user");
	else
		check(rc == -EOPNOTSUPP, "-EOPNOTSUPP");
}

/* A module that comes after sealing: refused, nothing changes. */
static int late_file_open(const struct demo_cred *cred,
			  struct demo_file *file)
{
	(void)cred;
	(void)file;
	return 0;
}

static struct demo_hook_list late_hooks[] = {
	LSM_HOOK_INIT(file_open, late_file_open),
};

static const struct lsm_id late_lsmid = { .name = "late", .id = 9999 };

static void late_module(void)
{
	int rc = security_add_hooks(late_hooks, (int)ARRAY_SIZE(late_hooks),
				    &late_lsmid);

	printf("  a module registering now: security_add_hooks() -> %s\n",
	       errname(rc));
	check(rc == -EPERM, "-EPERM");
}

static void toggle(const char *name, bool enable)
{
	const char *onoff = enable ? "on" : "off";
	struct ulsm_stats before, after;
	int rc;

	ulsm_get_stats(&before);
	rc = ulsm_lsm_toggle(&demo_hook_set, name, enable);
	ulsm_get_stats(&after);
	if (rc)
		printf("  %s %s: %s\n", name, onoff, errname(rc));
	else if (!strcmp(ulsm_backend(), "generic"))
		printf("  %s %s (generic back end: its slots' keys are data)\n",
		       name, onoff);
	else
		printf("  %s %s: %lu batch rewrote %lu sites (its slots' "
		       "keys, the hooks'\n    tail keys%s)\n", name, onoff,
		       after.batches - before.batches,
		       after.sites_patched - before.sites_patched,
		       strcmp(ulsm_backend(), "x86_64") ? "" :
		       " and the sites of their entries");
	check(!rc, "the toggle to work");
	toggled_off = enable ? NULL : name;
}

static void toggle_demo(void)
{
	static const struct request bob_secret = {
		BOB, OP_OPEN, SECRET, DENIED("labels", -EACCES)
	};

	printf("\nRun-time toggle (opted in before sealing, so the slot keys "
	       "stayed writable):\nlabels off and on again.\n");
	if (!active("labels")) {
		printf("  labels is not active: nothing to toggle\n");
		return;
	}
	toggle("labels", false);
	request(&bob_secret);
	toggle("labels", true);
	request(&bob_secret);
}

static void show_audit_log(void)
{
	unsigned int n = audit_log_count();

	printf("\nAudit log: what reached audit, i.e. what nobody refused "
	       "before it.\n");
	if (!active("audit"))
		printf("  (audit is not active)\n");
	for (unsigned int i = 0; i < n; i++)
		printf("  %2u %s\n", i + 1, audit_log_entry(i));
}

static void usage(FILE *f)
{
	fprintf(f, "usage: lsm_demo [--lsm ORDER]\n"
		"  ORDER: modules in order, e.g. labels, 'labels,!audit', "
		"'!capability,labels'\n"
		"  without it: $ULSM_LSM, else the built-in order\n");
}

int main(int argc, char **argv)
{
	const char *order = NULL, *order_shown, *origin;
	struct ulsm_stats st;
	int rc;

	/* Keep our lines in order with the library's ULSM_DEBUG=1 ones. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--lsm") && i + 1 < argc) {
			order = order_shown = argv[++i];
		} else if (!strncmp(argv[i], "--lsm=", 6)) {
			order = order_shown = argv[i] + 6;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	/*
	 * Where ulsm_lsm_init() will take the order from, to show it: an
	 * empty --lsm '' means the built-in order, not $ULSM_LSM.
	 */
	if (order && *order) {
		origin = "--lsm";
	} else if (!order && getenv("ULSM_LSM") && *getenv("ULSM_LSM")) {
		origin = "$ULSM_LSM";
		order_shown = getenv("ULSM_LSM");
	} else {
		origin = "built-in";
		order_shown = demo_hook_set.builtin_order;
	}

	printf("lsm_demo: three security modules stacked on one hook set\n"
	       "Before each request the host calls security_*(), which runs "
	       "the active\nmodules' hooks in slot order: each slot is a "
	       "direct (static) call behind a\nstatic key. The first module "
	       "that refuses decides.\n\n");

	/* NULL: $ULSM_LSM, else the built-in order (security.c). */
	rc = ulsm_lsm_init(&demo_hook_set, order);
	if (rc) {
		fprintf(stderr, "ulsm_lsm_init: %s\n", errname(rc));
		return 1;
	}
	printf("Modules (order: %s \"%s\"):\n  active: %s\n", origin,
	       order_shown ? order_shown : "",
	       *ulsm_lsm_list(&demo_hook_set) ? ulsm_lsm_list(&demo_hook_set) :
						"(none)");
	printf("  blobs:  cred %d bytes, file %d bytes (one allocation per "
	       "object, shared)\n",
	       ulsm_lsm_blob_size(&demo_hook_set, ULSM_BLOB_CRED),
	       ulsm_lsm_blob_size(&demo_hook_set, ULSM_BLOB_FILE));
	if (!strcmp(origin, "built-in"))
		check(!strcmp(ulsm_lsm_list(&demo_hook_set),
			      "capability,labels,audit"),
		      "capability,labels,audit");
	show_slots();

	/*
	 * Seal: the tables become read-only, so a stray write cannot
	 * redirect a hook. Toggling must be allowed first; it keeps the
	 * slots' keys (not the tables) writable.
	 */
	rc = ulsm_lsm_allow_toggle(&demo_hook_set);
	if (!rc)
		rc = ulsm_lsm_seal(&demo_hook_set);
	if (rc) {
		fprintf(stderr, "sealing: %s\n", errname(rc));
		return 1;
	}
	printf("\nSealed: hook tables read-only.\n");
	late_module();

	for (size_t i = 0; i < ARRAY_SIZE(users); i++) {
		rc = security_cred_alloc(&users[i].cred);
		if (rc) {
			fprintf(stderr, "credentials of %s: %s\n",
				users[i].name, errname(rc));
			return 1;
		}
	}

	printf("\nRequests (files: /etc/motd and /etc/secret 0644 root, "
	       "/home/bob/todo 0600 bob;\nroot and alice are labelled "
	       "admin, bob user):\n");
	for (size_t i = 0; i < ARRAY_SIZE(scenario); i++)
		request(&scenario[i]);
	queries();
	toggle_demo();
	show_audit_log();

	for (size_t i = 0; i < ARRAY_SIZE(users); i++)
		security_cred_free(&users[i].cred);

	ulsm_get_stats(&st);
	printf("\nLibrary: %s back end, core sync %s\n  %lu batches, "
	       "%lu core syncs, %lu sites patched\n", ulsm_backend(),
	       ulsm_sync_method(), st.batches, st.core_syncs,
	       st.sites_patched);
	if (mismatches) {
		printf("FAILED: %u of %u outcomes differ from what this module "
		       "order should give.\n", mismatches, checks);
		return 1;
	}
	printf("OK: all %u outcomes are what this module order should "
	       "give.\n", checks);
	return 0;
}
