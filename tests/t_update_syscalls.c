// SPDX-License-Identifier: MIT
/*
 * What an update costs in system calls, per write method
 * (docs/patching-protocol.md, "Choosing the method by batch size"),
 * counted by the library itself: every call it makes goes through
 * src/base/sys.c and is numbered in ulsm_fault, with its kind.
 *
 *  - a warm 1-site flip through /proc/self/mem (procmem, and auto):
 *    sigaction (x86), fstat, and per protocol step a pwrite and a
 *    membarrier; no open, no read, no mprotect, no probe;
 *  - through the windows: /proc/self/maps, two mprotect, no pwrite;
 *  - auto with a batch of 24 sites: the windows, one run of pages;
 *  - after fork, the child opens a descriptor of its own (the parent's
 *    writes into the parent's memory) and the parent keeps its own;
 *  - a kept descriptor that the program closed, its number reused for a
 *    file: the update opens another, and the file gets nothing.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/static_key.h>
#include <ulsm/ulsm.h>

#include "base/sys.h"
#include "runtime.h"
#include "sites.h"
#include "tap.h"

#ifdef ULSM_ARCH_GENERIC
int main(void)
{
	skip_all("the generic back end writes no code");
}
#else

DEFINE_STATIC_KEY_FALSE(one);
DEFINE_STATIC_KEY_FALSE(many);

__attribute__((noinline)) static int one_site(void)
{
	return static_branch_unlikely(&one) ? 1 : 0;
}

/* 24 sites of @many, each in a function of its own, none alike. */
#define MANY(id)							\
	__attribute__((noinline, used)) static int many_##id(void)	\
	{								\
		return static_branch_unlikely(&many) ? 1##id : 0;	\
	}
#define MANY8(p) MANY(p##0) MANY(p##1) MANY(p##2) MANY(p##3)		\
		 MANY(p##4) MANY(p##5) MANY(p##6) MANY(p##7)
MANY8(1)
MANY8(2)
MANY8(3)

struct count {
	unsigned long n[ULSM_SYS_KINDS];
	unsigned long syscalls;		/* all but stores and allocations */
	char list[512];
};

static int flip(struct static_key_false *k)
{
	return static_key_enabled(k) ? static_branch_disable(k) :
				       static_branch_enable(k);
}

/* The library's calls in one flip of @k. */
static int count_flip(struct static_key_false *k, struct count *c)
{
	size_t at = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	ulsm_fault.kinds = 0;
	ulsm_fault.calls = 0;
	ret = flip(k);
	for (unsigned long i = 0; i < ulsm_fault.calls && i < ULSM_FAULT_LOG;
	     i++) {
		enum ulsm_sys kind = (enum ulsm_sys)ulsm_fault.log[i];

		c->n[kind]++;
		if (kind == ULSM_SYS_STORE || kind == ULSM_SYS_ALLOC)
			continue;
		c->syscalls++;
		at += (size_t)snprintf(c->list + at, sizeof(c->list) - at,
				       " %s", ulsm_sys_name(kind));
	}
	return ret;
}

/* A warm 1-site flip through /proc/self/mem, with @mode. */
static void check_procmem(enum ulsm_write_mode mode, const char *name)
{
	const unsigned long want = BREAKPOINT_PROTOCOL + 1 + 2 * WRITES_PER_SITE;
	struct count c;

	ulsm_set_write_mode(mode);
	flip(&one);
	flip(&one);		/* the descriptor is open, and has written */
	is_int(count_flip(&one, &c), 0, "%s: a 1-site flip", name);
	diag("  %s: %lu calls:%s", name, c.syscalls, c.list);
	is_int(c.syscalls, want, "%s: %lu system calls", name, want);
	is_int(c.n[ULSM_SYS_PWRITE], WRITES_PER_SITE,
	       "%s: one pwrite per protocol write, no probe", name);
	is_int(c.n[ULSM_SYS_MEMBARRIER], SYNCS_PER_BATCH,
	       "%s: one membarrier per step", name);
	is_int(c.n[ULSM_SYS_FSTAT], 1, "%s: the kept descriptor checked", name);
	ok(!c.n[ULSM_SYS_OPEN] && !c.n[ULSM_SYS_READ] &&
	   !c.n[ULSM_SYS_MPROTECT], "%s: no open, no read, no mprotect", name);
	is_int(one_site(), static_key_enabled(&one), "%s: the site follows", name);
}

/* The number of the descriptor that names /proc/<pid>/mem, or -1. */
static int mem_fd(void)
{
	char link[64], want[64], path[300];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd = -1;

	snprintf(want, sizeof(want), "/proc/%d/mem", (int)getpid());
	while (d && (e = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (!strcmp(link, want))
			fd = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return fd;
}

static void check_fork(void)
{
	struct count c;
	pid_t pid;
	int status, fd;

	ulsm_set_write_mode(ULSM_WRITE_PROCMEM);
	flip(&one);
	fd = mem_fd();
	ok(fd >= 0, "the parent keeps a /proc/self/mem descriptor (%d)", fd);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		/* The inherited one names the parent's memory: closed. */
		if (fcntl(fd, F_GETFD) != -1)
			_exit(1);
		if (count_flip(&one, &c) || c.n[ULSM_SYS_OPEN] != 1 ||
		    one_site() != static_key_enabled(&one))
			_exit(2);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && !WEXITSTATUS(status),
	   "the child closed the inherited descriptor and opened its own "
	   "(status %#x)", status);
	is_int(count_flip(&one, &c), 0, "the parent flips after the fork");
	ok(!c.n[ULSM_SYS_OPEN] && mem_fd() == fd, "  with its own descriptor");
}

static void check_reused_number(void)
{
	char path[] = "/tmp/t_update_syscalls.XXXXXX";
	struct count c;
	struct stat st;
	int fd, file;

	ulsm_set_write_mode(ULSM_WRITE_PROCMEM);
	flip(&one);
	fd = mem_fd();
	file = mkstemp(path);
	ok(fd >= 0 && file >= 0, "a kept descriptor (%d), a file", fd);
	if (fd < 0 || file < 0)
		return;
	unlink(path);
	/* The program closes a descriptor it does not own; the number is reused. */
	is_int(dup2(file, fd), fd, "the file now has the kept number");
	close(file);
	is_int(count_flip(&one, &c), 0, "a flip after that");
	is_int(c.n[ULSM_SYS_OPEN], 1, "  opens another /proc/self/mem");
	is_int(one_site(), static_key_enabled(&one), "  and the site follows");
	if (fstat(fd, &st))
		st.st_size = -1;
	is_int((long long)st.st_size, 0LL, "the file got nothing");
	close(fd);
}

int main(void)
{
	struct count c;

	if (under_emulator())
		skip_all("under an emulator the writes are followed by "
			 "protection changes and signal rounds");
	if (ulsm_set_sync_mode(ULSM_SYNC_MEMBARRIER))
		skip_all("no membarrier SYNC_CORE here");

	check_procmem(ULSM_WRITE_PROCMEM, "procmem");
	check_procmem(ULSM_WRITE_AUTO, "auto");

	ulsm_set_write_mode(ULSM_WRITE_MPROTECT);
	flip(&one);
	is_int(count_flip(&one, &c), 0, "mprotect: a 1-site flip");
	diag("  mprotect: %lu calls:%s", c.syscalls, c.list);
	ok(c.n[ULSM_SYS_OPEN] == 1 && c.n[ULSM_SYS_READ] >= 1 &&
	   c.n[ULSM_SYS_MPROTECT] == 2 && !c.n[ULSM_SYS_PWRITE] &&
	   !c.n[ULSM_SYS_FSTAT],
	   "mprotect: /proc/self/maps, one window opened and closed, no pwrite");
	is_int(c.n[ULSM_SYS_MEMBARRIER], SYNCS_PER_BATCH,
	       "mprotect: one membarrier per step");

	ulsm_set_write_mode(ULSM_WRITE_AUTO);
	is_int(count_flip(&many, &c), 0, "auto: a 24-site flip");
	diag("  auto, 24 sites: %lu calls:%s", c.syscalls, c.list);
	if (BREAKPOINT_PROTOCOL)
		ok(c.n[ULSM_SYS_MPROTECT] == 2 && !c.n[ULSM_SYS_PWRITE] &&
		   c.n[ULSM_SYS_STORE] == 24 * WRITES_PER_SITE,
		   "auto, 24 sites: windows (one run of pages), stores, no pwrite");
	else
		ok(!c.n[ULSM_SYS_MPROTECT] &&
		   c.n[ULSM_SYS_PWRITE] == 24 * WRITES_PER_SITE,
		   "auto, 24 sites: /proc/self/mem (no window on aarch64: BTI)");
	is_int(many_10(), 110, "  the sites follow");

	check_fork();
	check_reused_number();
	return done_testing();
}
#endif /* ULSM_ARCH_GENERIC */
