// SPDX-License-Identifier: MIT
/*
 * fork() while another thread flips keys. The fork handlers keep a batch
 * from being half-applied at the moment of the fork, so a child never
 * inherits text with breakpoints nobody will remove: every child runs the
 * sites (a leftover int3 would kill it: the child has no patcher), flips
 * the key itself, and exits 0.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "sites.h"
#include "tap.h"

DEFINE_STATIC_KEY_FALSE(fk);

__attribute__((noinline)) static int site(void)
{
	return static_branch_unlikely(&fk) ? 1 : 0;
}

static int stop;
static unsigned long flips;

static void *flipper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (static_branch_enable(&fk) || static_branch_disable(&fk))
			return (void *)1;
		flips++;
	}
	return NULL;
}

static int child(void)
{
	uintptr_t s[2];
	int on;

	/* No breakpoint may be left in the inherited text. */
	if (strcmp(ulsm_backend(), "generic") &&
	    (find_sites(&fk, s, NULL, 2) != 1 ||
	     !(is_nop_site(s[0]) || is_jump_site(s[0]))))
		return 2;
	on = static_key_enabled(&fk);
	if (site() != on)
		return 3;
	if (static_branch_enable(&fk) || site() != 1)
		return 4;
	if (static_branch_disable(&fk) || site() != 0)
		return 5;
	return 0;
}

int main(int argc, char **argv)
{
	long forks = arg_long(argc, argv, "--forks", 200);
	long bad = 0, first_bad = 0;
	pthread_t t;
	void *res;

	pthread_create(&t, NULL, flipper, NULL);
	for (long i = 0; i < forks; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0)
			_exit(child());
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			if (!bad++)
				first_bad = pid < 0 ? -1 : status;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, &res);
	diag("%ld forks during %lu flips", forks, flips);
	ok(res == NULL, "every flip in the parent succeeded");
	ok(bad == 0, "every child ran, flipped and exited 0 (%ld failed, first status %#lx)",
	   bad, (unsigned long)first_bad);
	ok(flips > 0, "the flipper ran while forking");
	return done_testing();
}
