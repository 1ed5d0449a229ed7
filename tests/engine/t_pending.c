// SPDX-License-Identifier: MIT
/*
 * Objects that cannot be registered (docs/patching-protocol.md, "Objects
 * that cannot be registered"): 300 copies of a plug-in whose sites follow
 * a key of this program, which is on, are loaded while the text cannot be
 * written (no descriptor can be opened: the /proc/self/mem writer and
 * the mprotect windows both need one). Each must be kept pending, every
 * one of them: while any is, no update may return 0, since its sites
 * still run as compiled while the key says otherwise. Once descriptors
 * are back, the next update registers them all and every site follows
 * the key.
 *
 * A fixed table of 256 pending objects once dropped the 257th and later
 * without a word: updates returned 0 while 44 of the plug-ins still ran
 * their sites as off.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "sites.h"
#include "tap.h"

#define NCOPIES	300

DEFINE_STATIC_KEY_FALSE(main_key);	/* the plug-ins' sites follow it */
DEFINE_STATIC_KEY_FALSE(other_key);

static void *handles[NCOPIES];
static int reported_pending, reported_lost;

/* Each object that is kept pending, or lost, says so once. */
static void count_reports(const char *msg, void *arg)
{
	(void)arg;
	if (strstr(msg, "it is pending"))
		reported_pending++;
	else if (strstr(msg, "nor kept pending"))
		reported_lost++;
	else
		fprintf(stderr, "ulsm: %s\n", msg);
}
static int (*site_of[NCOPIES])(void);

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out, ret = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	if (out < 0) {
		close(in);
		return -errno;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			ret = -EIO;
	if (n < 0)
		ret = -errno;
	close(in);
	close(out);
	return ret;
}

/* The plug-ins' sites of main_key: how many jump. */
static int sites_on(int n)
{
	int on = 0;

	for (int i = 0; i < n; i++)
		on += site_of[i]();
	return on;
}

/*
 * Every open() from now on fails with EMFILE, and with @memory every
 * allocation of the library too (false, false: none).
 */
static void no_resources(bool on, bool memory)
{
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
	ulsm_fault.kinds = 1u << ULSM_SYS_OPEN |
			   (memory ? 1u << ULSM_SYS_ALLOC : 0);
	ulsm_fault.calls = 0;
	ulsm_fault.err = 0;	/* each kind's own: EMFILE, ENOMEM */
	ulsm_fault.fail_to = ULONG_MAX;
	__atomic_store_n(&ulsm_fault.fail_from, on ? 1ul : 0ul,
			 __ATOMIC_SEQ_CST);
}

static void no_descriptors(bool on)
{
	no_resources(on, false);
}

static int load(const char *dir, int i)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/p%03d.so", dir, i);
	handles[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handles[i])
		return -1;
	site_of[i] = (int (*)(void))dlsym(handles[i], "plugin_site_main");
	return site_of[i] ? 0 : -1;
}

/* Whether dlclose() unloads an object (musl's never does). */
static bool dlclose_unloads(const char *dir)
{
	char path[PATH_MAX];
	void *h;

	snprintf(path, sizeof(path), "%s/probe.so", dir);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	dlclose(h);
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (h)
		dlclose(h);
	return !h;
}

/*
 * The 257th object, past the table's static part, arrives while memory
 * is short too: it can be neither registered nor kept pending. Every
 * update must then fail (its site disagrees with its key, and the
 * library no longer knows where it is) until it is unloaded.
 */
static void lost(const char *dir)
{
	int n = 0, ret;

	is_int(static_branch_enable(&main_key), 0, "the key on");
	no_descriptors(true);
	for (int i = 0; i < 256; i++)
		n += load(dir, i) == 0;
	is_int(n, 256, "256 plug-ins loaded without descriptors");
	no_resources(true, true);
	n = load(dir, 256) == 0;
	no_resources(false, false);
	ok(n, "the 257th loaded while memory is short too");
	is_int(reported_lost, 1, "and said so");
	is_int(ulsm_pending_objects(), 257, "256 pending, and one counted "
	       "that could not even be kept pending");
	ret = static_branch_enable(&other_key);
	ok(ret == -ENOMEM, "descriptors and memory are back, yet an update "
	   "fails (%d: %s): the lost one's site disagrees with its key",
	   ret, ulsm_last_error());
	ok(!static_key_enabled(&other_key), "and changes nothing");
	dlclose(handles[256]);
	is_int(ulsm_retry_pending(), 0, "once it is unloaded, the others are "
	       "registered");
	is_int(sites_on(256), 256, "and their sites follow the key");
	is_int(static_branch_enable(&other_key), 0, "updates work again");
	for (int i = 0; i < 256; i++)
		dlclose(handles[i]);
	is_int(static_branch_disable(&main_key), 0, "the key off");
}

int main(void)
{
	const char *pdir = getenv("ULSM_TEST_PLUGIN_DIR");
	char dir[] = "/tmp/ulsm-pending-XXXXXX", from[PATH_MAX], path[PATH_MAX];
	int loaded = 0, ret;
	bool lost_ran;

	if (strcmp(ulsm_backend(), "generic") == 0) {
		printf("1..0 # SKIP the generic back end registers no sites\n");
		return 0;
	}
	ulsm_set_log(count_reports, NULL);
	snprintf(from, sizeof(from), "%s/plugin_walk.so", pdir ? pdir : ".");
	ok(mkdtemp(dir) != NULL, "a directory for %d copies of the plug-in",
	   NCOPIES);
	for (int i = 0; i < NCOPIES; i++) {
		snprintf(path, sizeof(path), "%s/p%03d.so", dir, i);
		if (copy_file(from, path))
			break;
		loaded++;
	}
	is_int(loaded, NCOPIES, "%d copies of %s", NCOPIES, from);
	/*
	 * First, while the pending table is still its static part; where
	 * dlclose() never unloads (musl) the lost object could never go.
	 */
	snprintf(path, sizeof(path), "%s/probe.so", dir);
	ok(!copy_file(from, path), "a copy to see whether dlclose() unloads");
	lost_ran = dlclose_unloads(dir);
	if (lost_ran) {
		lost(dir);
		is_int(static_branch_disable(&other_key), 0, "other key off");
	} else {
		ok(1, "# SKIP dlclose() does not unload here (musl): an object "
		   "lost could never go");
	}

	is_int(static_branch_enable(&main_key), 0, "the key the plug-ins' "
	       "sites follow is on");

	no_descriptors(true);
	loaded = 0;
	for (int i = 0; i < NCOPIES && !load(dir, i); i++)
		loaded++;
	is_int(loaded, NCOPIES, "%d plug-ins loaded while no descriptor can "
	       "be opened", NCOPIES);
	is_int(ulsm_pending_objects(), NCOPIES, "every one of them pending");
	is_int(reported_pending, (lost_ran ? 256 : 0) + NCOPIES, "each said "
	       "so (these %d%s)", NCOPIES, lost_ran ? " and the 256 before" : "");
	is_int(sites_on(loaded), 0, "their sites run as compiled (off)");
	ret = static_branch_enable(&other_key);
	ok(ret < 0, "an update meanwhile fails (%d: %s), since their sites "
	   "disagree with their key", ret, ulsm_last_error());
	ok(!static_key_enabled(&other_key), "and changes nothing");
	ok(ulsm_retry_pending() < 0, "ulsm_retry_pending() fails too");

	no_descriptors(false);
	is_int(ulsm_retry_pending(), 0, "descriptors are back: the retry "
	       "registers them");
	is_int(ulsm_pending_objects(), 0, "none is left pending");
	is_int(sites_on(loaded), loaded, "every plug-in's site follows the "
	       "key (%d of %d on)", sites_on(loaded), loaded);
	is_int(static_branch_disable(&main_key), 0, "the key off");
	is_int(sites_on(loaded), 0, "every site follows it off");

	for (int i = 0; i < loaded; i++)
		dlclose(handles[i]);
	for (int i = 0; i < NCOPIES; i++) {
		snprintf(path, sizeof(path), "%s/p%03d.so", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/probe.so", dir);
	unlink(path);
	rmdir(dir);
	return done_testing();
}
