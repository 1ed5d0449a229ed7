// SPDX-License-Identifier: MIT
/*
 * Modules that arrive after ulsm_lsm_init() (docs/hook-framework.md,
 * "Placement" and "Arrival"), and the one bring-up that init and a late
 * arrival share: each case initialises set "ar" (MAX_LSM_COUNT 6; hooks
 * req_check, req_done and req_open) in a child with its own order, then
 * registers a module the way a plug-in's constructor does.
 *
 * The modules of the program (DEFINE_LSM): base and block have req_check
 * only, s1 and s2 req_done only, stats both, o1..o4 req_open only. The
 * late ones, count (req_check and req_done) and tail (LSM_ORDER_LAST,
 * req_done), are registered by hand after init. Each callback notes its
 * module's name.
 *
 * Reported: with the order "base,block,count,stats", stats went to slot 0
 * of req_done with no gap kept before it (it has no predecessor in that
 * hook), so count was refused with "no free slot for hook req_done
 * (MAX_LSM_COUNT 6)", five slots being free.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define ULSM_LSM_SET		ar
#define ULSM_LSM_HOOK_DEFS	"arrival_hook_defs.h"
#define MAX_LSM_COUNT		6
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>
#include <ulsm/ulsm.h>

#include "base/sys.h"	/* the library's fault injection (src/base/) */
#include "tap.h"

static __thread char trace[256];

static void note(const char *who)
{
	size_t n = strlen(trace);

	snprintf(trace + n, sizeof(trace) - n, "%s%s", n ? " " : "", who);
}

/* What each module's init was called, per module (by id). */
static int inits[16];

#define CALLBACKS(m)							\
	__attribute__((unused)) static int m##_check(int r)		\
	{ (void)r; note(#m); return 0; }				\
	__attribute__((unused)) static void m##_done(int r)		\
	{ (void)r; note(#m); }						\
	__attribute__((unused)) static void m##_open(int r)		\
	{ (void)r; note(#m); }

#define MODULE_HOOKS(m, nr, ...)					\
	static const struct lsm_id m##_id = { #m, nr };			\
	static struct ar_hook_list m##_hooks[] = { __VA_ARGS__ };	\
	static int m##_init(void)					\
	{								\
		inits[nr]++;						\
		return security_add_hooks(m##_hooks,			\
			(int)(sizeof(m##_hooks) / sizeof(m##_hooks[0])), \
			&m##_id);					\
	}

#define CHECK(m)	LSM_HOOK_INIT(req_check, m##_check)
#define DONE(m)		LSM_HOOK_INIT(req_done, m##_done)
#define OPEN(m)		LSM_HOOK_INIT(req_open, m##_open)

#define HOST_MODULE(m, nr, ...)						\
	CALLBACKS(m)							\
	MODULE_HOOKS(m, nr, __VA_ARGS__)				\
	DEFINE_LSM(m) = { .name = #m, .init = m##_init, .id = &m##_id };

HOST_MODULE(base, 1, CHECK(base))
HOST_MODULE(block, 2, CHECK(block))
HOST_MODULE(stats, 3, CHECK(stats), DONE(stats))
HOST_MODULE(s1, 4, DONE(s1))
HOST_MODULE(s2, 5, DONE(s2))
HOST_MODULE(o1, 6, OPEN(o1))
HOST_MODULE(o2, 7, OPEN(o2))
HOST_MODULE(o3, 8, OPEN(o3))
HOST_MODULE(o4, 9, OPEN(o4))

/* The late modules, registered as a plug-in's constructor would. */
CALLBACKS(count)
MODULE_HOOKS(count, 10, CHECK(count), DONE(count))
static struct lsm_info count_info = {
	.name = "count", .init = count_init, .id = &count_id,
};

CALLBACKS(tail)
MODULE_HOOKS(tail, 11, DONE(tail))
static struct lsm_info tail_info = {
	.name = "tail", .order = LSM_ORDER_LAST, .init = tail_init,
	.id = &tail_id,
};

static const char *done_trace(void)
{
	trace[0] = '\0';
	call_void_hook(req_done, 1);
	return trace;
}

static const char *check_trace(void)
{
	trace[0] = '\0';
	(void)call_int_hook(req_check, 1);
	return trace;
}

/* The owners of req_done's slots, "-" for a free one: "count,stats,-,...". */
static const char *done_slots(void)
{
	static char s[128];

	s[0] = '\0';
	for (unsigned int i = 0; i < MAX_LSM_COUNT; i++) {
		const struct lsm_id *id = ulsm_lsm_slot_owner(&ar_hook_set,
							      "req_done", i);
		size_t n = strlen(s);

		snprintf(s + n, sizeof(s) - n, "%s%s", i ? "," : "",
			 id ? id->name : "-");
	}
	return s;
}

static const char *reason(const char *name)
{
	const char *why = ulsm_lsm_module_reason(&ar_hook_set, name);

	return why ? why : "(none)";
}

/* --- each case in a child: its checks are reported by the parent ------- */

struct report {
	int n;
	struct {
		int ok;
		char text[400];
	} r[24];
};

static struct report *rep;

__attribute__((format(printf, 2, 3)))
static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	if (rep->n == (int)(sizeof(rep->r) / sizeof(rep->r[0])))
		return;
	rep->r[rep->n].ok = cond;
	va_start(ap, fmt);
	vsnprintf(rep->r[rep->n].text, sizeof(rep->r[0].text), fmt, ap);
	va_end(ap);
	rep->n++;
}

static void in_child(const char *name, void (*fn)(void))
{
	int status = 0;
	pid_t pid;

	rep->n = 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	diag("%s", name);
	for (int i = 0; i < rep->n; i++)
		ok(rep->r[i].ok, "%s", rep->r[i].text);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		ok(0, "%s: the child died (status %#x)", name, status);
}

static void init(const char *order)
{
	int ret = ulsm_lsm_init(&ar_hook_set, order);

	check(ret == 0, "init \"%s\": %d, %s", order ? order : "(default)",
	      ret, ulsm_lsm_list(&ar_hook_set));
}

/* The report: count arrives between block and stats. */
static void listed_before_the_first_of_a_hook(void)
{
	int ret;

	init("base,block,count,stats");
	check(!strcmp(done_slots(), "-,stats,-,-,-,-"),
	      "  stats leaves a slot free in req_done for count: %s",
	      done_slots());
	ret = ulsm_lsm_register(&count_info, &ar_hook_set);
	check(ret == 0 && ulsm_lsm_module_active(&ar_hook_set, "count") == 1,
	      "count arrives (%d): %s", ret, reason("count"));
	check(!strcmp(ulsm_lsm_list(&ar_hook_set), "base,block,count,stats"),
	      "  in its place: %s", ulsm_lsm_list(&ar_hook_set));
	check(!strcmp(done_trace(), "count stats"),
	      "  req_done calls count, then stats: %s", trace);
	check(!strcmp(check_trace(), "base block count stats"),
	      "  req_check calls all four in order: %s", trace);
}

/*
 * No room in its place: s2 went next to s1 at init, since the four
 * modules after it (o1..o4) were still to come and might each have
 * needed a slot of req_done. The reason must say that, not only
 * "MAX_LSM_COUNT 6": four slots are free.
 */
static void no_room_in_its_place(void)
{
	const char *why;
	int ret;

	init("s1,count,s2,o1,o2,o3,o4");
	check(!strcmp(done_slots(), "s1,s2,-,-,-,-"), "  req_done: %s",
	      done_slots());
	ret = ulsm_lsm_register(&count_info, &ar_hook_set);
	why = reason("count");
	check(ret == -ENOSPC && ulsm_lsm_module_active(&ar_hook_set, "count") == 0,
	      "count is refused: %d", ret);
	check(strstr(why, "req_done") && strstr(why, "s1") &&
	      strstr(why, "s2") && strstr(why, "4 of 6 slots are free"),
	      "  its reason names the hook, the modules around its place and "
	      "the free slots: %s", why);
	check(!strcmp(done_trace(), "s1 s2") &&
	      !strcmp(ulsm_lsm_list(&ar_hook_set), "s1,s2,o1,o2,o3,o4"),
	      "  the set is as it was: %s", ulsm_lsm_list(&ar_hook_set));
}

/* Every module of the order there at init: packed, as before. */
static void all_there_packed(void)
{
	init("s1,stats,s2");
	check(!strcmp(done_slots(), "s1,stats,s2,-,-,-"), "  req_done: %s",
	      done_slots());
}

/* "!count" of the default order: count stays off when it arrives. */
static void removed_stays_off(void)
{
	int ret;

	init("!count");
	ret = ulsm_lsm_register(&count_info, &ar_hook_set);
	check(ret == 0 && ulsm_lsm_module_active(&ar_hook_set, "count") == 0,
	      "count, removed by the order, stays off when it arrives (%d)",
	      ret);
	check(strstr(reason("count"), "removed") != NULL, "  and says why: %s",
	      reason("count"));
	check(inits[10] == 0, "  its init did not run (%d)", inits[10]);
}

/*
 * The same, for a module that was there at init: it leaves (what its
 * object's destructor does) and comes back.
 */
static void removed_comes_back(void)
{
	int ret;

	check(ulsm_lsm_register(&count_info, &ar_hook_set) == 0,
	      "count registers before init");
	init("!count");
	check(ulsm_lsm_module_active(&ar_hook_set, "count") == 0,
	      "  removed by the order: off");
	ulsm__lsm_unregister(&count_info);
	ret = ulsm_lsm_register(&count_info, &ar_hook_set);
	check(ret == 0 && ulsm_lsm_module_active(&ar_hook_set, "count") == 0 &&
	      strstr(reason("count"), "removed"),
	      "  it leaves and comes back: still off (%d, %s)", ret,
	      reason("count"));
	check(inits[10] == 0, "  its init never ran (%d)", inits[10]);
}

/* A last module is placed by its class, at init and when it arrives. */
static void class_beats_the_string(void)
{
	int ret;

	init("s1,tail,s2");
	ret = ulsm_lsm_register(&tail_info, &ar_hook_set);
	check(ret == 0 && ulsm_lsm_module_active(&ar_hook_set, "tail") == 1,
	      "tail (LSM_ORDER_LAST) arrives (%d): %s", ret, reason("tail"));
	check(!strcmp(ulsm_lsm_list(&ar_hook_set), "s1,s2,tail"),
	      "  last, as init would place it, though the order names it "
	      "earlier: %s", ulsm_lsm_list(&ar_hook_set));
	check(!strcmp(done_trace(), "s1 s2 tail"), "  req_done: %s", trace);
}

/* Sealed before init: no module comes up, and none's init runs. */
static void sealed_before_init(void)
{
	check(ulsm_lsm_seal(&ar_hook_set) == 0, "sealed before init");
	init("base,stats");
	check(!strcmp(ulsm_lsm_list(&ar_hook_set), ""),
	      "  no module comes up: \"%s\"", ulsm_lsm_list(&ar_hook_set));
	check(strstr(reason("base"), "sealed") != NULL, "  base says why: %s",
	      reason("base"));
	check(inits[1] == 0 && inits[3] == 0,
	      "  and no module's init ran (base %d, stats %d)", inits[1],
	      inits[3]);
}

/* Open to plug-ins, then sealed: modules come up at init as later. */
static void sealed_open_before_init(void)
{
	int ret;

	check(ulsm_lsm_allow_plugins(&ar_hook_set) == 0 &&
	      ulsm_lsm_seal(&ar_hook_set) == 0,
	      "open to plug-ins, then sealed, before init");
	init("base,count,stats");
	check(!strcmp(ulsm_lsm_list(&ar_hook_set), "base,stats"),
	      "  the modules come up at init: %s (base: %s)",
	      ulsm_lsm_list(&ar_hook_set), reason("base"));
	ret = ulsm_lsm_register(&count_info, &ar_hook_set);
	check(ret == 0 && !strcmp(ulsm_lsm_list(&ar_hook_set),
				  "base,count,stats"),
	      "  as one does that arrives later (%d): %s", ret,
	      ulsm_lsm_list(&ar_hook_set));
}

static void quiet(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

/*
 * Every allocation of a late arrival failed in turn: the module is
 * refused and the set is as it was, or it is up and the list names it.
 * The list used to be rebuilt after the module came up, and left stale
 * (without it) when that allocation failed.
 */
static void arrival_without_memory(void)
{
	unsigned long refused = 0, up = 0, n;
	char bad[256] = "";

	for (n = 1; n < 500 && !bad[0]; n++) {
		int status = 0;
		pid_t pid = fork();

		if (pid == 0) {
			int ret;

			ulsm_set_log(quiet, NULL);
			if (ulsm_lsm_init(&ar_hook_set, "base,stats,count"))
				_exit(10);
			ulsm_fault.kinds = 1u << ULSM_SYS_ALLOC;
			ulsm_fault.calls = 0;
			ulsm_fault.fail_to = 0;
			ulsm_fault.err = 0;
			ulsm_fault.failed = 0;
			__atomic_store_n(&ulsm_fault.fail_from, n,
					 __ATOMIC_SEQ_CST);
			ret = ulsm_lsm_register(&count_info, &ar_hook_set);
			__atomic_store_n(&ulsm_fault.fail_from, 0,
					 __ATOMIC_SEQ_CST);
			if (!ulsm_fault.failed)
				_exit(ret ? 11 : 0);	/* no more to fail */
			if (ulsm_lsm_module_active(&ar_hook_set, "count") == 1)
				_exit(!strcmp(ulsm_lsm_list(&ar_hook_set),
					      "base,stats,count") &&
				      !strcmp(done_trace(), "stats count") ?
				      20 : 21);
			_exit(ret < 0 && !strcmp(ulsm_lsm_list(&ar_hook_set),
						 "base,stats") &&
			      !strcmp(done_trace(), "stats") ? 30 : 31);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status)) {
			snprintf(bad, sizeof(bad), "allocation %lu: the child "
				 "died (%#x)", n, status);
			break;
		}
		switch (WEXITSTATUS(status)) {
		case 0:
			goto out;
		case 20:
			up++;
			break;
		case 30:
			refused++;
			break;
		case 21:
			snprintf(bad, sizeof(bad), "allocation %lu failed: count "
				 "is up but the list does not say so", n);
			break;
		default:
			snprintf(bad, sizeof(bad), "allocation %lu failed: exit "
				 "%d", n, WEXITSTATUS(status));
		}
	}
out:
	check(!bad[0] && refused > 0,
	      "each of %lu allocations of a late arrival failed: refused with "
	      "the set as it was (%lu), or up and listed (%lu)%s%s", n - 1,
	      refused, up, bad[0] ? "; " : "", bad);
}

int main(void)
{
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED)
		skip_all("no shared memory for the children's reports");
	in_child("a module listed before the first one of a hook arrives",
		 listed_before_the_first_of_a_hook);
	in_child("no room in its place", no_room_in_its_place);
	in_child("every module there at init", all_there_packed);
	in_child("a module removed by the order arrives", removed_stays_off);
	in_child("a removed module leaves and comes back", removed_comes_back);
	in_child("a last module listed in the order arrives",
		 class_beats_the_string);
	in_child("sealed before init", sealed_before_init);
	in_child("open to plug-ins and sealed before init",
		 sealed_open_before_init);
	in_child("a late arrival without memory", arrival_without_memory);
	return done_testing();
}
