// SPDX-License-Identifier: MIT
/*
 * One update of many keys and calls (<ulsm/update.h>): a thousand keys and
 * a call in one batch of three core syncs; the last change of a key wins;
 * a refused change leaves every key, site and call as it was; a kept
 * recording error; the failures of bad arguments; stores of the program's
 * data in an update (ulsm_update_store_ptr/int): before any site changes
 * or once every site is new, put back when the commit fails. Faults
 * injected at every step of a commit are t_fault_walk's ("a key and a call
 * in one update").
 */
#include <errno.h>
#include <string.h>

#include <ulsm/static_call.h>
#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>
#include <ulsm/update.h>

#include "sites.h"
#include "tap.h"

#define NKEYS	1000

/* NKEYS keys, each with one site in a function of its own. */
#define KEY(i)								\
	static DEFINE_STATIC_KEY_FALSE(k##i);				\
	__attribute__((noinline)) static int site##i(void)		\
	{								\
		return static_branch_unlikely(&k##i);			\
	}
#define X10(M, p)	M(p##0) M(p##1) M(p##2) M(p##3) M(p##4)	\
			M(p##5) M(p##6) M(p##7) M(p##8) M(p##9)
#define X100(M, p)	X10(M, p##0) X10(M, p##1) X10(M, p##2) X10(M, p##3) \
			X10(M, p##4) X10(M, p##5) X10(M, p##6) X10(M, p##7) \
			X10(M, p##8) X10(M, p##9)
#define X1000(M)	X100(M, 1) X100(M, 2) X100(M, 3) X100(M, 4)	\
			X100(M, 5) X100(M, 6) X100(M, 7) X100(M, 8)	\
			X100(M, 9) X100(M, 0)

X1000(KEY)

#define ENTRY(i)	{ &k##i, site##i },
static const struct {
	struct static_key_false *key;
	int (*site)(void);
} keys[NKEYS] = { X1000(ENTRY) };

static int target_a(int x) { return x + 1; }
static int target_b(int x) { return x + 2; }
DEFINE_STATIC_CALL(sc, target_a);

__attribute__((noinline)) static int call_site(int x)
{
	return static_call(sc)(x);
}

static DEFINE_STATIC_KEY_FALSE(counted);	/* reference counted below */
__attribute__((noinline)) static int counted_site(void)
{
	return static_branch_unlikely(&counted);
}

static int keys_on(void)
{
	int n = 0;

	for (int i = 0; i < NKEYS; i++)
		n += keys[i].site() + static_key_enabled(keys[i].key);
	return n / 2;
}

static bool patching(void)
{
	return strcmp(ulsm_backend(), "generic") != 0;
}

static void thousand_keys_and_a_call(void)
{
	struct ulsm_update *u = ulsm_update_new();
	struct ulsm_stats st0, st1;

	ok(u != NULL, "ulsm_update_new");
	for (int i = 0; i < NKEYS; i++)
		ulsm_update_branch(u, keys[i].key, true);
	is_int(ulsm_update_static_call(u, sc, target_b), 0, "record the call");
	is_int((int)ulsm_update_count(u), NKEYS + 1, "%d changes recorded",
	       NKEYS + 1);
	is_int(keys_on(), 0, "nothing changes before the commit");

	ulsm_get_stats(&st0);
	is_int(ulsm_update_commit(u), 0, "commit %d keys and a call", NKEYS);
	ulsm_get_stats(&st1);
	is_int(keys_on(), NKEYS, "every key is on, every site jumps");
	is_int(call_site(1), 3, "the call goes to its new target");
	if (patching()) {
		is_int((int)(st1.batches - st0.batches), 1, "one batch");
		/*
		 * Two stages of one batch: the call, then the keys turned on
		 * (docs/patching-protocol.md, "Stages"); each costs a batch's
		 * syncs, however many sites it has.
		 */
		is_int((int)(st1.core_syncs - st0.core_syncs),
		       2 * SYNCS_PER_BATCH, "%d core syncs for %d sites: the "
		       "call's stage, then the keys'", 2 * SYNCS_PER_BATCH,
		       NKEYS + 1);
		is_int((int)(st1.sites_patched - st0.sites_patched), NKEYS + 1,
		       "every site patched once");
	}

	/* Committed again: nothing left to change, no batch. */
	ulsm_get_stats(&st0);
	is_int(ulsm_update_commit(u), 0, "the same update again");
	ulsm_get_stats(&st1);
	is_int((int)(st1.batches - st0.batches), 0, "changes nothing");

	/* Off again, in one update. */
	ulsm_update_reset(u);
	is_int((int)ulsm_update_count(u), 0, "reset empties it");
	for (int i = 0; i < NKEYS; i++)
		ulsm_update_branch(u, keys[i].key, false);
	ulsm_update_static_call(u, sc, target_a);
	is_int(ulsm_update_commit(u), 0, "commit them off");
	is_int(keys_on(), 0, "every key is off");
	is_int(call_site(1), 2, "the call is back");
	ulsm_update_free(u);
}

static void last_change_wins(void)
{
	struct ulsm_update *u = ulsm_update_new();

	ulsm_update_branch(u, keys[0].key, true);
	ulsm_update_branch(u, keys[1].key, true);
	ulsm_update_branch(u, keys[0].key, false);	/* the last for k0 */
	ulsm_update_static_call(u, sc, target_b);
	ulsm_update_static_call(u, sc, target_a);	/* the last for sc */
	is_int(ulsm_update_commit(u), 0, "commit repeated changes");
	is_int((int)ulsm_update_count(u), 3, "merged to one per key or call");
	is_int(keys[0].site(), 0, "k0: the last change (off) wins");
	is_int(keys[1].site(), 1, "k1 on");
	is_int(call_site(1), 2, "sc: the last target wins");

	/* A key recorded as a call is refused. */
	ulsm_update_reset(u);
	ulsm_update_branch(u, keys[2].key, true);
	ulsm_update_call(u, (struct static_call_key *)keys[2].key, NULL, NULL);
	is_int(ulsm_update_commit(u), -EINVAL, "a key also recorded as a call");
	is_int(keys[2].site(), 0, "and nothing changed");
	ulsm_update_free(u);
}

/* A change refused at the commit: every other change is left undone. */
static void all_or_nothing(void)
{
	struct ulsm_update *u = ulsm_update_new();
	struct ulsm_stats st0, st1;
	unsigned char before[16], after[16];

	static_branch_inc(&counted);
	static_branch_inc(&counted);			/* count 2 */
	memcpy(before, (const void *)(uintptr_t)site005, sizeof(before));
	for (int i = 2; i < 100; i++)
		ulsm_update_branch(u, keys[i].key, true);
	ulsm_update_static_call(u, sc, target_b);
	ulsm_update_branch(u, &counted, false);		/* -EBUSY */
	ulsm_get_stats(&st0);
	is_int(ulsm_update_commit(u), -EBUSY,
	       "turning off a counted key is refused");
	ulsm_get_stats(&st1);
	diag("%s", ulsm_last_error());
	ok(strstr(ulsm_last_error(), "reference counted") != NULL,
	   "the message says why");
	is_int(keys_on(), 1, "no other key changed (k1 stays the only one)");
	is_int(call_site(1), 2, "the call did not change");
	is_int(counted_site(), 1, "the counted key is still on");
	is_int(static_key_count(&counted), 2, "with its count");
	memcpy(after, (const void *)(uintptr_t)site005, sizeof(after));
	ok(!memcmp(before, after, sizeof(before)), "site bytes as before");
	is_int((int)(st1.batches - st0.batches), 0, "no batch applied");

	/* On is allowed on a counted key, and leaves its count. */
	ulsm_update_reset(u);
	ulsm_update_branch(u, &counted, true);
	is_int(ulsm_update_commit(u), 0, "on, for a key counted 2");
	is_int(static_key_count(&counted), 2, "leaves the count");
	ulsm_update_free(u);
}

/* --- stores in an update ------------------------------------------------ */

static int early = 1, late = 1;		/* BEFORE and AFTER, below */
static const char *published = "old";
static int seen_writes, seen_wrong;

/*
 * After each write of text: the BEFORE stores are made, the AFTER ones
 * not yet (the engine's test hook; patch lock held).
 */
static void watch_stores(uintptr_t addr)
{
	(void)addr;
	seen_writes++;
	if (__atomic_load_n(&early, __ATOMIC_ACQUIRE) != 2 ||
	    __atomic_load_n(&late, __ATOMIC_ACQUIRE) != 1 ||
	    strcmp(__atomic_load_n(&published, __ATOMIC_ACQUIRE), "old"))
		seen_wrong++;
}

static void stores(void)
{
	struct ulsm_update *u = ulsm_update_new();

	/* With keys: stores in their places around their sites. */
	is_int(ulsm_update_store_int(u, &early, 2, ULSM_UPDATE_BEFORE), 0,
	       "record an int store before the sites");
	is_int(ulsm_update_store_int(u, &late, 2, ULSM_UPDATE_AFTER), 0,
	       "an int store after them");
	is_int(ulsm_update_store_ptr(u, &published, "new", ULSM_UPDATE_AFTER),
	       0, "a pointer store after them");
	ulsm_update_branch(u, keys[7].key, true);
	ulsm_update_branch(u, keys[9].key, true);
	is_int((int)ulsm_update_count(u), 5, "three stores and two keys counted");
	ok(early == 1 && late == 1 && !strcmp(published, "old"),
	   "nothing stored before the commit");

	/*
	 * A failed commit: every word as it was. The write that fails is
	 * the batch's last (two sites): the first is also the probe of the
	 * write path, and a failure there, with nothing written yet, only
	 * moves to the other method (t_write_fail) - on a back end of one
	 * write a site, it is the only write of a one-site batch.
	 */
	if (patching()) {
		fault_nth_write(2 * WRITES_PER_SITE, EIO);
		is_int(ulsm_update_commit(u), -EIO, "a failed text write fails "
		       "the commit");
		fault_nth_write(0, 0);
		ok(early == 1 && late == 1 && !strcmp(published, "old") &&
		   !keys[7].site() && !keys[9].site(),
		   "every store put back, the keys as they were");
	} else {
		ok(1, "# SKIP a failed write: the generic back end writes none");
		ok(1, "# SKIP the words after it");
	}

	seen_writes = seen_wrong = 0;
	ulsm_test_write_hook = watch_stores;
	is_int(ulsm_update_commit(u), 0, "commit the key and the stores");
	ulsm_test_write_hook = NULL;
	ok(early == 2 && late == 2 && !strcmp(published, "new") &&
	   keys[7].site() == 1 && keys[9].site() == 1,
	   "every store made, the keys on");
	if (patching())
		ok(seen_writes > 0 && !seen_wrong, "while the sites changed "
		   "(%d writes), the store before was made and those after "
		   "were not", seen_writes);
	else
		ok(1, "# SKIP stores around writes: the generic back end "
		   "writes no text");

	/* Stores alone, on any back end; the same word twice, in order. */
	ulsm_update_reset(u);
	ulsm_update_store_int(u, &late, 3, ULSM_UPDATE_AFTER);
	ulsm_update_store_int(u, &late, 4, ULSM_UPDATE_AFTER);
	ulsm_update_store_int(u, &early, 3, ULSM_UPDATE_BEFORE);
	is_int(ulsm_update_commit(u), 0, "an update of stores only");
	ok(late == 4 && early == 3, "made in the order recorded");

	/* A refused change: no store made. */
	ulsm_update_reset(u);
	ulsm_update_store_int(u, &early, 9, ULSM_UPDATE_BEFORE);
	ulsm_update_store_int(u, &late, 9, ULSM_UPDATE_AFTER);
	ulsm_update_branch(u, keys[8].key, true);
	ulsm_update_call(u, (struct static_call_key *)keys[8].key, NULL, NULL);
	is_int(ulsm_update_commit(u), -EINVAL, "a refused change");
	ok(early == 3 && late == 4, "and no store made");

	/* Bad stores are refused, and not recorded. */
	ulsm_update_reset(u);
	is_int(ulsm_update_store_int(NULL, &early, 1, ULSM_UPDATE_AFTER),
	       -EINVAL, "store in a NULL update");
	is_int(ulsm_update_store_ptr(u, NULL, NULL, ULSM_UPDATE_AFTER),
	       -EINVAL, "store at NULL");
	is_int(ulsm_update_store_int(u, (int *)(void *)((char *)&early + 1), 1,
				     ULSM_UPDATE_AFTER), -EINVAL,
	       "a misaligned int");
	is_int(ulsm_update_store_int(u, &early, 1, (enum ulsm_update_when)7),
	       -EINVAL, "another when");
	is_int((int)ulsm_update_count(u), 0, "none recorded");
	ulsm_update_free(u);
}

static void bad_arguments(void)
{
	struct ulsm_update *u = ulsm_update_new();

	is_int(ulsm_update_key(NULL, &keys[0].key->key, true), -EINVAL,
	       "NULL update");
	is_int(ulsm_update_key(u, NULL, true), -EINVAL, "NULL key");
	is_int(ulsm_update_call(u, NULL, NULL, NULL), -EINVAL, "NULL call");
	is_int(ulsm_update_commit(NULL), -EINVAL, "commit of NULL");
	is_int((int)ulsm_update_count(u), 0, "bad changes are not recorded");
	is_int(ulsm_update_commit(u), 0, "an empty update commits");
	ulsm_update_free(u);
	ulsm_update_free(NULL);
	ok(1, "ulsm_update_free(NULL)");
}

int main(void)
{
	diag("back end %s", ulsm_backend());
	thousand_keys_and_a_call();
	last_change_wins();
	all_or_nothing();
	stores();
	bad_arguments();
	return done_testing();
}
