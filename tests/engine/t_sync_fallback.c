// SPDX-License-Identifier: MIT
/*
 * The core-sync fallback: a signal to every thread instead of membarrier,
 * forced with ulsm_set_sync_mode(). The same stress as t_stress, so a
 * fallback that does not really wait for the other threads shows up as
 * wrong paths or crashes.
 *
 * The fallback is slow when threads outnumber CPUs: each sync waits until
 * every thread has been scheduled to run its handler (milliseconds), where
 * membarrier needs only the CPUs that run the process. Hence fewer flips.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "runtime.h"
#include "sites.h"
#include "stress.h"

/* Threads of this process that it did not create (an emulator's own). */
static int foreign_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;
}


int main(int argc, char **argv)
{
	long flips = arg_count(argc, argv, "--flips", 300);
	long threads = arg_long(argc, argv, "--threads", 3);
	struct ulsm_stats st0, st1;

#ifdef UNDER_TSAN
	/*
	 * ThreadSanitizer delivers asynchronous signals only when a thread
	 * makes a call it intercepts: workers spinning over the sites never
	 * answer the sync signal, and the update waits for ever.
	 */
	skip_all("the signal fallback cannot work under ThreadSanitizer");
#endif

	if (!strcmp(ulsm_backend(), "generic")) {
		is_int(ulsm_set_sync_mode(ULSM_SYNC_SIGNAL), 0,
		       "generic: forcing the signal sync is accepted");
		run_stress(flips, threads);
		return done_testing();
	}
	is_int(ulsm_set_sync_mode(ULSM_SYNC_SIGNAL), 0, "force the signal sync");
	ok(!strcmp(ulsm_sync_method(), "signal"), "sync method is \"%s\"",
	   ulsm_sync_method());
	if (foreign_threads() > 0) {
		/*
		 * qemu-user runs a thread of its own in the process, which
		 * blocks every signal: the signal sync cannot reach it, so
		 * every update must be refused before anything is written.
		 */
		int ret = static_branch_enable(&stress_a);

		diag("%d thread(s) this test did not start: %s",
		     foreign_threads(), ulsm_last_error());
		if (ret) {
			is_int(ret, -EDEADLK, "a thread that blocks the sync "
			       "signal: update refused with -EDEADLK");
			ok(!static_branch_unlikely(&stress_a) &&
			   !static_key_enabled(&stress_a), "  nothing changed");
			return done_testing();
		}
		is_int(static_branch_disable(&stress_a), 0,
		       "the other thread answers: undo, then stress");
	}
	ulsm_get_stats(&st0);
	run_stress(flips, threads);
	ulsm_get_stats(&st1);
	is_int(st1.core_syncs - st0.core_syncs, (1 + SYNCS_PER_BATCH) * flips,
	       "%d rounds per flip, all through signals: a rehearsal "
	       "before the first write, then the protocol's %d",
	       1 + SYNCS_PER_BATCH, SYNCS_PER_BATCH);
	ok(!strcmp(ulsm_sync_method(), "signal"), "still signal afterwards");
	return done_testing();
}
