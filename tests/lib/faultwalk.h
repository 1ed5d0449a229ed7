/* SPDX-License-Identifier: MIT */
/*
 * tests/lib/faultwalk.h - the walk of injected faults, all or nothing
 * (t_fault_walk, t_tp_fault, t_apr_fault). Every system call and
 * allocation of the library goes through src/base/sys.c, where the Nth
 * one can be made to fail (ulsm_fault, src/base/sys.h). A walk runs an
 * operation once in a counting child, without a fault, which sends the
 * parent how many calls it made and the state it left; then once per
 * call N in a child of its own, which fails call N and judges what it
 * finds by its exit status:
 *
 *	pid = walk_count_fork(&fd);	the counting child, with its pipe:
 *	if (!pid)			in the child, @fd is the end to write,
 *		child(op, 0, fd);	which walk_count_send() writes and exits
 *	if (!walk_count_read(pid, fd, &before, &after, sizeof(after)))
 *		...the counting run failed	(ncalls and kinds read too)
 *	for (n = 1; n <= ncalls; n++) {
 *		if (walk_skip(n))	ULSM_WALK_ONLY=N: only call N
 *			continue;
 *		pid = walk_fork();
 *		if (!pid)
 *			child(op, n, -1);	arm(n, 0, 0), the operation,
 *		if (!walk_tally(&t, wait_child(pid)))	disarm(), then exit
 *			...say which call	DONE, REFUSED or bad("why")
 *	}
 *
 * Also here: struct walk_mode (a write and a sync method to try);
 * walk_sites_take() and walk_sites_differ() (or _why()), which compare
 * the bytes of every registered site; and start_workers(), two threads
 * that run the sites throughout, so that breakpoints are met and the
 * signal sync has threads to signal (each calls worker_arrives() first).
 */
#ifndef ULSM_TESTS_FAULTWALK_H
#define ULSM_TESTS_FAULTWALK_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/ulsm.h>

#include "base/sys.h"		/* the library's fault injection */
#include "engine/engine.h"	/* ulsm_registry_snapshot */

/* Exit codes of a walking child. */
enum { DONE = 0, REFUSED = 1, BAD = 2 };

/* In a walking child: say why the run is wrong, and exit BAD. */
__attribute__((unused, noreturn, format(printf, 1, 2)))
static void bad(const char *fmt, ...)
{
	va_list ap;

	printf("#   ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(BAD);
}

/*
 * arm - fail call @from of the library, and each up to @to (0: only
 * @from), with @err (0: each kind's usual errno)
 */
__attribute__((unused))
static void arm(unsigned long from, unsigned long to, int err)
{
	ulsm_fault.calls = 0;
	ulsm_fault.failed = 0;
	ulsm_fault.kinds = 0;
	ulsm_fault.err = err;
	ulsm_fault.fail_to = to;
	__atomic_store_n(&ulsm_fault.fail_from, from, __ATOMIC_SEQ_CST);
}

__attribute__((unused))
static void disarm(void)
{
	__atomic_store_n(&ulsm_fault.fail_from, 0, __ATOMIC_SEQ_CST);
}

/* A log function that keeps the library's notices out of TAP comments. */
__attribute__((unused))
static void quiet(const char *msg, void *arg)
{
	(void)msg;
	(void)arg;
}

__attribute__((unused))
static bool read_full(int fd, void *buf, size_t len)
{
	while (len) {
		ssize_t n = read(fd, buf, len);

		if (n <= 0)
			return false;
		buf = (char *)buf + n;
		len -= (size_t)n;
	}
	return true;
}

__attribute__((unused))
static bool write_full(int fd, const void *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			return false;
		buf = (const char *)buf + n;
		len -= (size_t)n;
	}
	return true;
}

/* The exit status of child @pid, BAD when a signal killed it. */
__attribute__((unused))
static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status)) {
		printf("#   killed by signal %d\n", WTERMSIG(status));
		return BAD;
	}
	return WEXITSTATUS(status);
}

/* fork(), with what the parent printed written out first. */
__attribute__((unused))
static pid_t walk_fork(void)
{
	fflush(stdout);
	return fork();
}

/*
 * walk_count_fork - fork the counting child, with a pipe to the parent
 * @fd: in the child, the end it writes; in the parent, the end it reads
 * Return: as fork() (exits the test when there is no pipe)
 */
__attribute__((unused))
static pid_t walk_count_fork(int *fd)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		exit(96);
	pid = walk_fork();
	close(fds[pid ? 1 : 0]);
	*fd = fds[pid ? 0 : 1];
	return pid;
}

/*
 * What the counting run found, sent to the parent, and inherited by the
 * walking children: how many calls it made, their kinds.
 */
static unsigned long ncalls;
static uint8_t kinds[ULSM_FAULT_LOG] __attribute__((unused));

/*
 * walk_count_send - in the counting child: @calls, the kinds of the first
 * (ulsm_fault.log), and the state @before and @after the operation
 * (@size bytes each) to the parent; then exit
 */
__attribute__((unused, noreturn))
static void walk_count_send(int fd, unsigned long calls, const void *before,
			    const void *after, size_t size)
{
	if (!write_full(fd, &calls, sizeof(calls)) ||
	    !write_full(fd, ulsm_fault.log, sizeof(kinds)) ||
	    !write_full(fd, before, size) || !write_full(fd, after, size))
		_exit(95);
	_exit(DONE);
}

/*
 * walk_count_read - in the parent: what the counting child @pid sent on
 * @fd, into ncalls, kinds, @before and @after (@size bytes each); then
 * close @fd and wait for the child
 * Return: whether all of it came
 */
__attribute__((unused))
static bool walk_count_read(pid_t pid, int fd, void *before, void *after,
			    size_t size)
{
	bool all = read_full(fd, &ncalls, sizeof(ncalls)) &&
		   read_full(fd, kinds, sizeof(kinds)) &&
		   read_full(fd, before, size) && read_full(fd, after, size);

	close(fd);
	wait_child(pid);
	return all;
}

/* ULSM_WALK_ONLY=N: only position N is walked (to debug one failure). */
__attribute__((unused))
static bool walk_skip(unsigned long n)
{
	const char *only = getenv("ULSM_WALK_ONLY");

	return only && strtoul(only, NULL, 0) != n;
}

/* How the walking children ended. */
struct walk_tally {
	unsigned long tried, done, refused, wrong;
};

/* Count a child's exit status @r; false when the run was wrong. */
__attribute__((unused))
static bool walk_tally(struct walk_tally *t, int r)
{
	t->tried++;
	if (r == DONE)
		t->done++;
	else if (r == REFUSED)
		t->refused++;
	else
		t->wrong++;
	return r == DONE || r == REFUSED;
}

/* A write method and a sync method for the library (<ulsm/ulsm.h>). */
struct walk_mode {
	enum ulsm_write_mode write;
	enum ulsm_sync_mode sync;
	const char *name;
};

/* --- the registered sites' bytes ---------------------------------------- */

#define WALK_MAX_SITES	4096
#define WALK_SITE_BYTES	8

/* The first bytes of every registered site, in the registry's order. */
struct walk_sites {
	size_t n;
	uintptr_t addr[WALK_MAX_SITES];
	uint8_t bytes[WALK_MAX_SITES][WALK_SITE_BYTES];
};

__attribute__((unused))
static void walk_sites_take(struct walk_sites *s)
{
	static struct ulsm_site sites[WALK_MAX_SITES];

	s->n = ulsm_registry_snapshot(sites, WALK_MAX_SITES);
	if (s->n > WALK_MAX_SITES)
		s->n = WALK_MAX_SITES;
	for (size_t i = 0; i < s->n; i++) {
		s->addr[i] = sites[i].addr;
		memcpy(s->bytes[i], (const void *)sites[i].addr,
		       WALK_SITE_BYTES);
	}
}

/* The first site where @a and @b differ: its address; 1: their number. */
__attribute__((unused))
static uintptr_t walk_sites_differ(const struct walk_sites *a,
				   const struct walk_sites *b)
{
	if (a->n != b->n)
		return 1;
	for (size_t i = 0; i < a->n; i++)
		if (a->addr[i] != b->addr[i] ||
		    memcmp(a->bytes[i], b->bytes[i], WALK_SITE_BYTES))
			return a->addr[i];
	return 0;
}

/* The same in words ("site 0x... @verb"), or NULL. */
__attribute__((unused))
static const char *walk_sites_why(const struct walk_sites *a,
				  const struct walk_sites *b, const char *verb)
{
	static char why[64];
	uintptr_t at = walk_sites_differ(a, b);

	if (a->n != b->n)
		snprintf(why, sizeof(why), "the number of sites %s", verb);
	else if (at)
		snprintf(why, sizeof(why), "site %#lx %s", (unsigned long)at,
			 verb);
	else
		return NULL;
	return why;
}

/* --- the workers -------------------------------------------------------- */

static int workers_started;

/* First in each worker: start_workers() waits for both. */
__attribute__((unused))
static void worker_arrives(void)
{
	__atomic_add_fetch(&workers_started, 1, __ATOMIC_SEQ_CST);
}

/* Two threads running @worker, which never returns; exits 90 if none. */
__attribute__((unused))
static void start_workers(void *(*worker)(void *))
{
	pthread_t t;

	for (int i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, worker, NULL))
			_exit(90);
	while (__atomic_load_n(&workers_started, __ATOMIC_SEQ_CST) < 2)
		sched_yield();
	/* Past glibc's start-up, where a new thread blocks every signal. */
	usleep(2000);
}

#endif /* ULSM_TESTS_FAULTWALK_H */
