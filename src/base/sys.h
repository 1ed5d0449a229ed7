/* SPDX-License-Identifier: MIT */
/*
 * src/base/sys.h - every system call and allocation the library makes, through
 * one place, so that a test can make any one of them fail.
 *
 * The library never calls open(), read(), malloc() and friends directly
 * (tests/t_sys_wrapped.sh checks the sources): it calls the ulsm_sys_*
 * functions below, which return what the system call returns, or
 * -errno (never -1 with errno set), and the allocation wrappers, which
 * return NULL on failure like malloc().
 *
 * Fault injection (tests only; the library is linked statically into its
 * tests, so they can reach these hidden symbols): every wrapped call is
 * numbered from 1 in the order the process makes it. A test sets
 * ulsm_fault.fail_from (and fail_to, for a run of failures) and the calls
 * with those numbers fail with ulsm_fault.err, or with the kind's usual
 * error (ulsm_fault_default_err) when err is 0, without reaching the
 * kernel. ulsm_fault.kinds limits numbering to some kinds (a bit mask of
 * 1u << enum ulsm_sys); 0 numbers all. ulsm_fault.log records the kind of
 * the first ULSM_FAULT_LOG calls, so a test can tell what call N was.
 */
#ifndef ULSM_SRC_SYS_H
#define ULSM_SRC_SYS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum ulsm_sys {
	ULSM_SYS_OPEN,		/* open, openat */
	ULSM_SYS_READ,		/* read, getdents64 */
	ULSM_SYS_LSEEK,
	ULSM_SYS_PWRITE,	/* text written through /proc/self/mem */
	ULSM_SYS_STORE,		/* text stored through an mprotect window:
				   not a system call, and it cannot fail;
				   a point where tests may fail a write */
	ULSM_SYS_MPROTECT,
	ULSM_SYS_MSEAL,
	ULSM_SYS_MEMBARRIER,
	ULSM_SYS_FLUSH_ICACHE,	/* an architecture's instruction-fetch sync
				   (riscv64: riscv_flush_icache) */
	ULSM_SYS_TGKILL,
	ULSM_SYS_SIGACTION,
	ULSM_SYS_ALLOC,		/* malloc, calloc, realloc */
	ULSM_SYS_SOCKET,	/* socket, bind, listen, connect, accept4,
				   getsockopt, pipe2: the control endpoint */
	ULSM_SYS_RECV,
	ULSM_SYS_SEND,
	ULSM_SYS_POLL,
	ULSM_SYS_KINDS
};

#define ULSM_FAULT_LOG	8192

struct ulsm_fault {
	unsigned long calls;	/* calls numbered so far */
	unsigned long fail_from;	/* first call to fail; 0: none */
	unsigned long fail_to;	/* last call to fail; below fail_from: only it */
	int err;		/* positive errno; 0: the kind's usual one */
	unsigned int kinds;	/* kinds numbered; 0: every kind */
	unsigned long failed;	/* calls made to fail so far */
	uint8_t log[ULSM_FAULT_LOG];
};

extern struct ulsm_fault ulsm_fault;
extern const int ulsm_fault_default_err[ULSM_SYS_KINDS];
const char *ulsm_sys_name(enum ulsm_sys kind);

/*
 * Count a call of @kind; return 0, or the positive errno it must fail
 * with. For wrappers, and for ULSM_SYS_STORE.
 */
int ulsm_fault_point(enum ulsm_sys kind);

int ulsm_sys_open(const char *path, int flags);
int ulsm_sys_openat(int dirfd, const char *path, int flags);
ssize_t ulsm_sys_read(int fd, void *buf, size_t len);
struct stat;
int ulsm_sys_fstat(int fd, struct stat *st);	/* a READ fault point */
ssize_t ulsm_sys_getdents(int fd, void *buf, size_t len);
int ulsm_sys_lseek0(int fd);		/* rewind */
ssize_t ulsm_sys_pwrite(int fd, const void *buf, size_t len, uint64_t off);
void ulsm_sys_close(int fd);
int ulsm_sys_mprotect(void *addr, size_t len, int prot);
int ulsm_sys_mseal(void *addr, size_t len);
int ulsm_sys_membarrier(int cmd);
/*
 * The back end's system call that makes every thread fetch new text
 * (its number @nr: SYS_riscv_flush_icache), over [@start, @end).
 */
int ulsm_sys_flush_icache(long nr, uintptr_t start, uintptr_t end,
			  unsigned long flags);
int ulsm_sys_tgkill(pid_t tgid, pid_t tid, int sig);
int ulsm_sys_sigaction(int sig, const struct sigaction *sa,
		       struct sigaction *old);
pid_t ulsm_sys_gettid(void);

/* The control endpoint's sockets (src/control/): the SOCKET kind. */
int ulsm_sys_socket(int domain, int type, int protocol);
struct sockaddr;
int ulsm_sys_bind(int fd, const struct sockaddr *sa, unsigned int len);
int ulsm_sys_listen(int fd, int backlog);
int ulsm_sys_connect(int fd, const struct sockaddr *sa, unsigned int len);
int ulsm_sys_accept(int fd, int flags);
int ulsm_sys_getsockopt(int fd, int level, int name, void *val,
			unsigned int *len);
int ulsm_sys_pipe(int fds[2], int flags);
ssize_t ulsm_sys_recv(int fd, void *buf, size_t len, int flags);
ssize_t ulsm_sys_send(int fd, const void *buf, size_t len, int flags);
struct pollfd;
int ulsm_sys_poll(struct pollfd *fds, unsigned long n, int timeout_ms);

void *ulsm_malloc(size_t size);
void *ulsm_calloc(size_t n, size_t size);
/* strdup, through ulsm_malloc() (and so its fault injection). */
char *ulsm_strdup(const char *s);
/* realloc of @n elements of @size; NULL (and @p untouched) on overflow. */
void *ulsm_reallocarray(void *p, size_t n, size_t size);
/*
 * Room for one more element in @v, which holds @n of @size bytes and has
 * room for *@cap: @v itself, or @v moved to twice the room (@first when
 * it has none), *@cap updated. NULL without memory (@v, *@cap as they were).
 */
void *ulsm_grow_array(void *v, size_t n, size_t *cap, size_t size,
		      size_t first);
void ulsm_free(void *p);

#endif /* ULSM_SRC_SYS_H */
