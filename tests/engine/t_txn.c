// SPDX-License-Identifier: MIT
/*
 * The one transaction's stages (docs/patching-protocol.md, "One
 * transaction"), seen from a thread that runs the code after every single
 * write of text, not only between the protocol's steps: a key and the
 * static calls it guards change in one update, and at every write the
 * guarded code must find the calls as the key's state needs them. A key
 * found on while a call still goes to its empty trampoline (a bare ret:
 * the callee is not called) is the defect the plug-in churn showed on
 * C-walk hooks; one batch for the whole update let it happen between two
 * int3 writes of step 1.
 *
 * Then the same with a failure injected at every write: each update fails
 * with every site, count and target as before, and the undo keeps the
 * order too (its writes are watched the same way).
 */
#include <errno.h>
#include <string.h>

#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>
#include <ulsm/update.h>

#include "sites.h"
#include "tap.h"

enum { SEEN_OFF, SEEN_NEW, SEEN_BAD };

static int hits;

static int target(int x)
{
	__atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED);
	return x + 100;
}

DEFINE_STATIC_CALL_NULL(via_tramp, target);	/* called through its trampoline */
DEFINE_STATIC_CALL_NULL(inline_call, target);	/* a recorded call site */
static DEFINE_STATIC_KEY_FALSE(guard);

/* What the code does now: off, or on with both calls reaching target(). */
__attribute__((noinline)) static int guarded(int x)
{
	if (static_branch_unlikely(&guard)) {
		int h = __atomic_load_n(&hits, __ATOMIC_RELAXED), r1, r2;

		r1 = static_call(via_tramp)(x);
		r2 = static_call_inline(inline_call, x);
		return __atomic_load_n(&hits, __ATOMIC_RELAXED) == h + 2 &&
		       r1 == x + 100 && r2 == x + 100 ? SEEN_NEW : SEEN_BAD;
	}
	return SEEN_OFF;
}

static int writes, bad, seen[3];

static void watch(void)
{
	int s = guarded(7);

	seen[s]++;
	if (s == SEEN_BAD && !bad++)
		diag("write %d: the key is on, and a call it guards is not "
		     "retargeted yet", writes);
}

static void on_write(uintptr_t addr)
{
	(void)addr;
	writes++;
	watch();
}

static void on_step(int step)
{
	(void)step;
	watch();
}

/* Watch from now on (counts reset), or stop (counts kept). */
static void watching(bool on)
{
	if (on) {
		writes = bad = 0;
		memset(seen, 0, sizeof(seen));
	}
	ulsm_test_write_hook = on ? on_write : NULL;
	ulsm_test_step_hook = on ? on_step : NULL;
}

/* One update: the key and both calls, on (to target) or off (to NULL). */
static int switch_all(bool on)
{
	struct ulsm_update *u = ulsm_update_new();
	int ret;

	if (!u)
		return -ENOMEM;
	ulsm_update_branch(u, &guard, on);
	ulsm_update_static_call(u, via_tramp, on ? target : NULL);
	ulsm_update_static_call(u, inline_call, on ? target : NULL);
	ret = ulsm_update_commit(u);
	ulsm_update_free(u);
	return ret;
}

static bool patching(void)
{
	return strcmp(ulsm_backend(), "generic") != 0;
}

static void in_order(const char *mode)
{
	watching(true);
	is_int(switch_all(true), 0, "%s: on in one update", mode);
	watching(false);
	is_int(guarded(1), SEEN_NEW, "%s: on, both calls reach the target", mode);
	is_int(bad, 0, "%s: at none of its %d writes was the key on before a "
	       "call it guards (%d off, %d on seen)", mode, writes,
	       seen[SEEN_OFF], seen[SEEN_NEW]);
	if (patching())
		ok(seen[SEEN_OFF] && seen[SEEN_NEW], "%s: the watcher saw both "
		   "states", mode);

	watching(true);
	is_int(switch_all(false), 0, "%s: off in one update", mode);
	watching(false);
	is_int(guarded(1), SEEN_OFF, "%s: off again", mode);
	is_int(bad, 0, "%s: at none of its %d writes was the key still on "
	       "after a call it guards went back to NULL", mode, writes);
}

/* The code and the words, to compare before and after a failed update. */
struct snapshot {
	uint8_t key_site[16], tramp[16];
	int count;
	void *func1, *func2;
};

static void snap(struct snapshot *s)
{
	const void *tramp = STATIC_CALL_TRAMP_ADDR(via_tramp);	/* generic: NULL */

	memset(s, 0, sizeof(*s));
	if (tramp) {
		memcpy(s->tramp, tramp, 8);
		memcpy(s->key_site, (const void *)guarded, sizeof(s->key_site));
	}
	s->count = static_key_enabled(&guard);
	s->func1 = (void *)static_call_query(via_tramp);
	s->func2 = (void *)static_call_query(inline_call);
}

/*
 * A failure at each write in turn (the probe of the write path, then the
 * protocol's writes): all or nothing, and in order.
 */
static void failures(bool on, const char *what)
{
	int failed = 0, rolled_back_right = 0, total_bad = 0, n;

	for (n = 1; n < 64; n++) {
		struct snapshot before, after;
		int ret;

		snap(&before);
		watching(true);
		fault_nth_write((unsigned long)n, EIO);
		ret = switch_all(on);
		fault_nth_write(0, 0);
		watching(false);
		total_bad += bad;
		if (!ret)
			break;		/* n is past the update's last write */
		failed++;
		snap(&after);
		rolled_back_right += ret < 0 &&
				     !memcmp(&before, &after, sizeof(before));
		if (ret >= 0 || memcmp(&before, &after, sizeof(before)))
			diag("%s, write %d failed: %d, state %s", what, n, ret,
			     memcmp(&before, &after, sizeof(before)) ?
			     "changed" : "as before");
	}
	ok(n < 64, "%s: the update succeeds once the failure is past its "
	   "last write (%d)", what, n);
	ok(failed > 0, "%s: %d writes failed in turn", what, failed);
	is_int(rolled_back_right, failed, "%s: each failed, every site, "
	       "count and target as before", what);
	is_int(total_bad, 0, "%s: and no write of an update or of its undo "
	       "opened the key before its calls", what);
}

int main(void)
{
	is_int(guarded(1), SEEN_OFF, "off as compiled");

	ulsm_set_write_mode(ULSM_WRITE_PROCMEM);
	in_order("procmem");
	ulsm_set_write_mode(ULSM_WRITE_MPROTECT);
	in_order("mprotect");
	ulsm_set_write_mode(ULSM_WRITE_AUTO);

	if (patching()) {
		static const struct {
			enum ulsm_write_mode mode;
			const char *name;
		} modes[] = {
			{ ULSM_WRITE_PROCMEM, "procmem" },
			{ ULSM_WRITE_MPROTECT, "mprotect" },
		};
		char what[64];

		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
			ulsm_set_write_mode(modes[i].mode);
			snprintf(what, sizeof(what), "%s, on", modes[i].name);
			failures(true, what);
			is_int(guarded(1), SEEN_NEW, "%s after the failures", what);
			snprintf(what, sizeof(what), "%s, off", modes[i].name);
			failures(false, what);
			is_int(guarded(1), SEEN_OFF, "%s after the failures", what);
		}
		ulsm_set_write_mode(ULSM_WRITE_AUTO);
	}
	return done_testing();
}
