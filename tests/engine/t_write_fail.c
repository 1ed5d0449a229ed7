// SPDX-License-Identifier: MIT
/*
 * Failures on the write path leave nothing half-written:
 *  - a write that fails at any point of a batch (injected) rolls every site
 *    back and leaves the key as it was;
 *  - a site whose bytes someone else changed fails the whole batch with
 *    -EILSEQ before anything is written;
 *  - both write methods work, and neither leaves a writable and executable
 *    mapping behind;
 *  - when no method may write (PR_SET_MDWE with the mprotect method), the
 *    update fails with -EPERM and nothing changes.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/prctl.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "key_sites.h"
#include "maps.h"
#include "tap.h"

#ifndef PR_SET_MDWE
# define PR_SET_MDWE		65
# define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end writes no code");
}
#else

DEFINE_STATIC_KEY_FALSE(wk);

__attribute__((noinline)) static int s1(void) { return static_branch_unlikely(&wk); }
__attribute__((noinline)) static int s2(void) { return static_branch_likely(&wk); }
__attribute__((noinline)) static int s3(void) { return static_branch_unlikely(&wk); }

static struct key_sites ks = { &wk, { s1, s2, s3 } };

/* Every site consistent with @on, in its bytes and in what it returns. */
static int all_sites(int on)
{
	return key_sites_follow(&ks, on);
}

/*
 * Fail the Nth text write of one update, for every N until an update hits
 * no fault: every point of the protocol (3 sites, WRITES_PER_SITE writes
 * each), of which the first is also the probe of the write path (a
 * failure there, with nothing written yet, only moves to the other
 * method).
 * Each outcome is 0 with every site new, or -EIO with every site old.
 */
static void fault_at_every_write(int from)
{
	const char *what = from ? "disable" : "enable";
	unsigned long failed = 0;

	for (unsigned long n = 1; n < 64; n++) {
		unsigned long hit;
		int ret;

		fault_nth_write(n, EIO);
		ret = from ? static_branch_disable(&wk) : static_branch_enable(&wk);
		hit = ulsm_fault.failed;
		fault_nth_write(0, 0);
		ulsm_fault.failed = 0;
		if (ret) {
			failed++;
			is_int(ret, -EIO, "%s, write %lu fails: -EIO", what, n);
			ok(all_sites(from), "  every site back to its old instruction");
			is_int(static_key_count(&wk), from, "  key count unchanged");
			continue;
		}
		ok(all_sites(!from), "%s, %s: every site new", what,
		   hit ? "the probe fails, the other method writes" :
		   "no write fails");
		is_int(from ? static_branch_enable(&wk) :
		       static_branch_disable(&wk), 0, "  and back");
		if (!hit)
			break;
	}
	ok(failed + 1 >= WRITES_PER_SITE * ks.n,
	   "%lu failed writes rolled back (at least %zu: all but the first)",
	   failed, WRITES_PER_SITE * ks.n - 1);
}

int main(void)
{
	uint8_t saved[SITE_LEN];
	int rwx_before;

	is_int(key_sites_find(&ks), 3, "three sites of the key in the jump table");
	is_int(ks.branch[0] + ks.branch[1] + ks.branch[2], 1,
	       "one likely site (branch bit set), two unlikely");
	ok(all_sites(0), "all sites start in the disabled form");
	rwx_before = rwx_mappings();

	fault_at_every_write(0);
	is_int(static_branch_enable(&wk), 0, "enable without fault");
	ok(all_sites(1), "all sites are JMPs");
	fault_at_every_write(1);
	is_int(static_branch_disable(&wk), 0, "disable without fault");
	ok(all_sites(0), "all sites are NOPs again");

	/* Someone else changes a site (here: another valid NOP encoding). */
	size_t t = ks.branch[0] ? 1 : 0;	/* an unlikely site: a NOP now */
	int others_ok = 1;

	memcpy(saved, (const void *)ks.addr[t], SITE_LEN);
	is_int(poke_text(ks.addr[t], OTHER_NOP, SITE_LEN), 0,
	       "tamper with a NOP site");
	is_int(static_branch_enable(&wk), -EILSEQ, "enable -> -EILSEQ");
	ok(strstr(ulsm_last_error(), "expected instruction") != NULL,
	   "explained: \"%s\"", ulsm_last_error());
	for (size_t i = 0; i < ks.n; i++)
		if (i != t && !(ks.branch[i] ? is_jump_site(ks.addr[i]) :
				is_nop_site(ks.addr[i])))
			others_ok = 0;
	ok(others_ok, "the other sites were not written");
	ok(!memcmp((const void *)ks.addr[t], OTHER_NOP, SITE_LEN),
	   "the tampered site was not written");
	ok(s1() == 0 && s2() == 0 && s3() == 0, "every site runs the disabled path");
	is_int(static_key_count(&wk), 0, "key still disabled");
	is_int(poke_text(ks.addr[t], saved, SITE_LEN), 0, "restore the site");
	is_int(static_branch_enable(&wk), 0, "enable works again");
	ok(all_sites(1), "all sites JMP");

	/* The mprotect window. */
	is_int(ulsm_set_write_mode(ULSM_WRITE_MPROTECT), 0, "force the mprotect window");
	is_int(static_branch_disable(&wk), 0, "disable through mprotect");
	ok(all_sites(0), "all sites NOP");
	is_int(rwx_mappings(), rwx_before, "no writable+executable mapping left");
	fault_at_every_write(0);
	is_int(ulsm_set_write_mode(ULSM_WRITE_PROCMEM), 0, "force /proc/self/mem");
	is_int(static_branch_enable(&wk), 0, "enable through /proc/self/mem");
	ok(all_sites(1), "all sites JMP");
	is_int(rwx_mappings(), rwx_before, "no writable+executable mapping left");

	/* No way to write: MDWE forbids making a page executable and writable. */
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0)) {
		diag("PR_SET_MDWE not available (%s)", strerror(errno));
	} else {
		is_int(ulsm_set_write_mode(ULSM_WRITE_MPROTECT), 0,
		       "mprotect only, under MDWE");
		is_int(static_branch_disable(&wk), -EPERM, "disable -> -EPERM");
		ok(strstr(ulsm_last_error(), "may not write") != NULL,
		   "explained: \"%s\"", ulsm_last_error());
		ok(all_sites(1), "nothing written");
		is_int(static_key_count(&wk), 1, "key unchanged");
		is_int(ulsm_set_write_mode(ULSM_WRITE_AUTO), 0, "auto again");
		is_int(static_branch_disable(&wk), 0,
		       "/proc/self/mem still works under MDWE");
		ok(all_sites(0), "all sites NOP");
	}
	return done_testing();
}
#endif /* ULSM_ARCH_GENERIC */
