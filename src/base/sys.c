// SPDX-License-Identifier: MIT
/*
 * The library's system calls and allocations, each a point where a test
 * may inject a failure (src/base/sys.h). Outside tests, ulsm_fault.fail_from is
 * 0 and each wrapper costs one relaxed atomic increment more than the call
 * it wraps.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

#ifndef __NR_mseal
# define __NR_mseal	462	/* the same number on every architecture */
#endif

struct ulsm_fault ulsm_fault;

const int ulsm_fault_default_err[ULSM_SYS_KINDS] = {
	[ULSM_SYS_OPEN]		= EMFILE,
	[ULSM_SYS_READ]		= EIO,
	[ULSM_SYS_LSEEK]	= EIO,
	[ULSM_SYS_PWRITE]	= EIO,
	[ULSM_SYS_STORE]	= EIO,
	[ULSM_SYS_MPROTECT]	= ENOMEM,
	[ULSM_SYS_MSEAL]	= ENOMEM,
	[ULSM_SYS_MEMBARRIER]	= EPERM,
	[ULSM_SYS_FLUSH_ICACHE]	= EPERM,
	[ULSM_SYS_TGKILL]	= EAGAIN,
	[ULSM_SYS_SIGACTION]	= EINVAL,
	[ULSM_SYS_ALLOC]	= ENOMEM,
	[ULSM_SYS_SOCKET]	= EMFILE,
	[ULSM_SYS_RECV]		= ECONNRESET,
	[ULSM_SYS_SEND]		= EPIPE,
	[ULSM_SYS_POLL]		= ENOMEM,
};

const char *ulsm_sys_name(enum ulsm_sys kind)
{
	static const char *const names[ULSM_SYS_KINDS] = {
		"open", "read", "lseek", "pwrite", "store", "mprotect",
		"mseal", "membarrier", "flush_icache", "tgkill", "sigaction",
		"alloc", "socket", "recv", "send", "poll",
	};

	return (unsigned)kind < ULSM_SYS_KINDS ? names[kind] : "?";
}

int ulsm_fault_point(enum ulsm_sys kind)
{
	struct ulsm_fault *f = &ulsm_fault;
	unsigned long from = __atomic_load_n(&f->fail_from, __ATOMIC_RELAXED);
	unsigned int kinds = __atomic_load_n(&f->kinds, __ATOMIC_RELAXED);
	unsigned long n, to;

	if (kinds && !(kinds & (1u << kind)))
		return 0;
	n = __atomic_add_fetch(&f->calls, 1, __ATOMIC_RELAXED);
	if (n <= ULSM_FAULT_LOG)
		f->log[n - 1] = (uint8_t)kind;
	if (!from || n < from)
		return 0;
	to = __atomic_load_n(&f->fail_to, __ATOMIC_RELAXED);
	if (n > (to < from ? from : to))
		return 0;
	__atomic_add_fetch(&f->failed, 1, __ATOMIC_RELAXED);
	return f->err ? f->err : ulsm_fault_default_err[kind];
}

static long ret_or_errno(long r)
{
	return r < 0 ? -errno : r;
}

int ulsm_sys_open(const char *path, int flags)
{
	int e = ulsm_fault_point(ULSM_SYS_OPEN);

	return e ? -e : (int)ret_or_errno(open(path, flags | O_CLOEXEC));
}

int ulsm_sys_openat(int dirfd, const char *path, int flags)
{
	int e = ulsm_fault_point(ULSM_SYS_OPEN);

	return e ? -e : (int)ret_or_errno(openat(dirfd, path, flags | O_CLOEXEC));
}

int ulsm_sys_fstat(int fd, struct stat *st)
{
	int e = ulsm_fault_point(ULSM_SYS_READ);

	return e ? -e : (int)ret_or_errno(fstat(fd, st));
}

ssize_t ulsm_sys_read(int fd, void *buf, size_t len)
{
	int e = ulsm_fault_point(ULSM_SYS_READ);

	return e ? -e : ret_or_errno(read(fd, buf, len));
}

ssize_t ulsm_sys_getdents(int fd, void *buf, size_t len)
{
	int e = ulsm_fault_point(ULSM_SYS_READ);

	return e ? -e : ret_or_errno(syscall(SYS_getdents64, fd, buf, len));
}

int ulsm_sys_lseek0(int fd)
{
	int e = ulsm_fault_point(ULSM_SYS_LSEEK);

	if (e)
		return -e;
	return lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
}

ssize_t ulsm_sys_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	int e = ulsm_fault_point(ULSM_SYS_PWRITE);

	if (e)
		return -e;
	if (off > (uint64_t)LLONG_MAX)
		return -EINVAL;
	return ret_or_errno(pwrite(fd, buf, len, (off_t)off));
}

void ulsm_sys_close(int fd)
{
	int saved = errno;

	if (fd >= 0)
		close(fd);
	errno = saved;
}

int ulsm_sys_mprotect(void *addr, size_t len, int prot)
{
	int e = ulsm_fault_point(ULSM_SYS_MPROTECT);

	return e ? -e : (int)ret_or_errno(mprotect(addr, len, prot));
}

int ulsm_sys_mseal(void *addr, size_t len)
{
	int e = ulsm_fault_point(ULSM_SYS_MSEAL);

	return e ? -e : (int)ret_or_errno(syscall(__NR_mseal, addr, len, 0));
}

int ulsm_sys_membarrier(int cmd)
{
	int e = ulsm_fault_point(ULSM_SYS_MEMBARRIER);

	return e ? -e : (int)ret_or_errno(syscall(SYS_membarrier, cmd, 0, 0));
}

int ulsm_sys_flush_icache(long nr, uintptr_t start, uintptr_t end,
			  unsigned long flags)
{
	int e = ulsm_fault_point(ULSM_SYS_FLUSH_ICACHE);

	return e ? -e : (int)ret_or_errno(syscall(nr, start, end, flags));
}

int ulsm_sys_tgkill(pid_t tgid, pid_t tid, int sig)
{
	int e = ulsm_fault_point(ULSM_SYS_TGKILL);

	return e ? -e : (int)ret_or_errno(syscall(SYS_tgkill, tgid, tid, sig));
}

int ulsm_sys_sigaction(int sig, const struct sigaction *sa,
		       struct sigaction *old)
{
	int e = ulsm_fault_point(ULSM_SYS_SIGACTION);

	return e ? -e : (int)ret_or_errno(sigaction(sig, sa, old));
}

pid_t ulsm_sys_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

uint64_t ulsm_now_ms(void)
{
	return ulsm_now_ns() / 1000000;
}

int ulsm_sys_socket(int domain, int type, int protocol)
{
	int e = ulsm_fault_point(ULSM_SYS_SOCKET);

	return e ? -e : (int)ret_or_errno(socket(domain, type | SOCK_CLOEXEC,
						 protocol));
}

int ulsm_sys_bind(int fd, const struct sockaddr *sa, unsigned int len)
{
	int e = ulsm_fault_point(ULSM_SYS_SOCKET);

	return e ? -e : (int)ret_or_errno(bind(fd, sa, len));
}

int ulsm_sys_listen(int fd, int backlog)
{
	int e = ulsm_fault_point(ULSM_SYS_SOCKET);

	return e ? -e : (int)ret_or_errno(listen(fd, backlog));
}

int ulsm_sys_connect(int fd, const struct sockaddr *sa, unsigned int len)
{
	int e = ulsm_fault_point(ULSM_SYS_SOCKET);

	return e ? -e : (int)ret_or_errno(connect(fd, sa, len));
}

int ulsm_sys_accept(int fd, int flags)
{
	int e = ulsm_fault_point(ULSM_SYS_SOCKET);

	return e ? -e : (int)ret_or_errno(accept4(fd, NULL, NULL,
						  flags | SOCK_CLOEXEC));
}

int ulsm_sys_getsockopt(int fd, int level, int name, void *val,
			unsigned int *len)
{
	int e = ulsm_fault_point(ULSM_SYS_SOCKET);
	socklen_t l = *len;
	int r;

	if (e)
		return -e;
	r = (int)ret_or_errno(getsockopt(fd, level, name, val, &l));
	*len = l;
	return r;
}

int ulsm_sys_pipe(int fds[2], int flags)
{
	int e = ulsm_fault_point(ULSM_SYS_SOCKET);

	return e ? -e : (int)ret_or_errno(pipe2(fds, flags | O_CLOEXEC));
}

ssize_t ulsm_sys_recv(int fd, void *buf, size_t len, int flags)
{
	int e = ulsm_fault_point(ULSM_SYS_RECV);

	return e ? -e : ret_or_errno(recv(fd, buf, len, flags));
}

ssize_t ulsm_sys_send(int fd, const void *buf, size_t len, int flags)
{
	int e = ulsm_fault_point(ULSM_SYS_SEND);

	return e ? -e : ret_or_errno(send(fd, buf, len, flags));
}

int ulsm_sys_poll(struct pollfd *fds, unsigned long n, int timeout_ms)
{
	int e = ulsm_fault_point(ULSM_SYS_POLL);

	return e ? -e : (int)ret_or_errno(poll(fds, (nfds_t)n, timeout_ms));
}

void *ulsm_malloc(size_t size)
{
	int e = ulsm_fault_point(ULSM_SYS_ALLOC);

	if (e) {
		errno = e;
		return NULL;
	}
	return malloc(size ? size : 1);
}

void *ulsm_calloc(size_t n, size_t size)
{
	int e = ulsm_fault_point(ULSM_SYS_ALLOC);

	if (e) {
		errno = e;
		return NULL;
	}
	return calloc(n ? n : 1, size ? size : 1);
}

char *ulsm_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = ulsm_malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

void *ulsm_reallocarray(void *p, size_t n, size_t size)
{
	int e = ulsm_fault_point(ULSM_SYS_ALLOC);

	if (e) {
		errno = e;
		return NULL;
	}
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	n *= size;
	return realloc(p, n ? n : 1);
}

void *ulsm_grow_array(void *v, size_t n, size_t *cap, size_t size,
		      size_t first)
{
	size_t room;

	if (n < *cap)
		return v;
	if (*cap > SIZE_MAX / 2) {
		errno = ENOMEM;
		return NULL;
	}
	room = *cap ? 2 * *cap : first;
	v = ulsm_reallocarray(v, room, size);
	if (v)
		*cap = room;
	return v;
}

void ulsm_free(void *p)
{
	free(p);
}
