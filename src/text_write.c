// SPDX-License-Identifier: MIT
/*
 * Writing instruction bytes into the running process.
 *
 * Preferred: pwrite() to /proc/self/mem, which writes through the kernel's
 * FOLL_FORCE path and changes no mapping's permissions. The descriptor is
 * opened for each batch and closed after it: a descriptor kept open would
 * follow the parent's memory into a forked child, and a program that closes
 * or reuses descriptor numbers could turn our write into a write elsewhere.
 *
 * Fallback: an mprotect window. The page becomes writable *and* executable
 * (other threads keep executing code on it) for the duration of one write,
 * then gets its original protection back, read from /proc/self/maps. All
 * of this happens under the patch lock, so no two windows overlap.
 *
 * The method is chosen in ulsm_text_open() by rewriting each site's current
 * first byte over itself: if no method can, the batch fails with -EPERM
 * before any byte changes (PR_SET_MDWE, proc_mem.force_override=never,
 * SELinux execmod, seccomp).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_include)
# if __has_include(<valgrind/valgrind.h>)
#  include <valgrind/valgrind.h>
#  define ULSM_HAVE_VALGRIND 1
# endif
#endif

#include "internal.h"

unsigned long ulsm_fault_write_countdown;

static int procmem_write(int fd, uintptr_t addr, const void *bytes, size_t len)
{
	ssize_t n = pwrite(fd, bytes, len, (off_t)addr);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

/* Protection of the mapping that holds @addr, from /proc/self/maps. */
static int page_prot(uintptr_t addr, int *prot)
{
	char buf[4096], *line, *end;
	size_t have = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int ret = -ENOENT;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		line = buf;
		while ((end = strchr(line, '\n'))) {
			unsigned long lo, hi;
			char perms[5];

			*end = '\0';
			if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
			    addr >= lo && addr < hi) {
				*prot = (perms[0] == 'r' ? PROT_READ : 0) |
					(perms[1] == 'w' ? PROT_WRITE : 0) |
					(perms[2] == 'x' ? PROT_EXEC : 0);
				ret = 0;
				goto out;
			}
			line = end + 1;
		}
		have = strlen(line);
		memmove(buf, line, have);
	}
out:
	close(fd);
	return ret;
}

/*
 * Byte by byte: a single-byte store is what the protocol relies on. Not
 * instrumented: sanitizers keep no shadow for the text they would check.
 */
__attribute__((no_sanitize("address", "thread", "undefined"), noinline))
static void store_text(uintptr_t addr, const uint8_t *bytes, size_t len)
{
	for (size_t i = 0; i < len; i++)
		((volatile uint8_t *)addr)[i] = bytes[i];
}

static int mprotect_write_page(uintptr_t addr, const uint8_t *bytes, size_t len)
{
	uintptr_t page = addr & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);
	int prot, ret;

	ret = page_prot(addr, &prot);
	if (ret)
		return ret;
	if (mprotect((void *)page, psz, prot | PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	store_text(addr, bytes, len);
	if (mprotect((void *)page, psz, prot))
		ulsm_die("cannot restore the protection of %#lx", (unsigned long)page);
	return 0;
}

static int mprotect_write(uintptr_t addr, const uint8_t *bytes, size_t len)
{
	size_t psz = (size_t)sysconf(_SC_PAGESIZE);

	while (len) {
		size_t chunk = psz - (addr & (psz - 1));
		int ret;

		if (chunk > len)
			chunk = len;
		ret = mprotect_write_page(addr, bytes, chunk);
		if (ret)
			return ret;
		addr += chunk;
		bytes += chunk;
		len -= chunk;
	}
	return 0;
}

static int raw_write(struct ulsm_text_writer *w, uintptr_t addr,
		     const void *bytes, size_t len)
{
	int ret;

	if (w->method == ULSM_WRITE_PROCMEM)
		ret = procmem_write(w->fd, addr, bytes, len);
	else
		ret = mprotect_write(addr, bytes, len);
#ifdef ULSM_HAVE_VALGRIND
	if (!ret)
		VALGRIND_DISCARD_TRANSLATIONS((void *)addr, len);
#endif
	return ret;
}

/* Rewrite every site's first byte with itself: does this method work? */
static int probe(struct ulsm_text_writer *w, const struct ulsm_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		uint8_t cur = *(const uint8_t *)b->v[i].addr;
		int ret = raw_write(w, b->v[i].addr, &cur, 1);

		if (ret)
			return ret;
	}
	return 0;
}

int ulsm_text_open(struct ulsm_text_writer *w, const struct ulsm_batch *b)
{
	enum ulsm_write_mode mode = ulsm_config.write_mode;
	int ret = -EPERM, pret = 0;

	w->fd = -1;
	if (mode == ULSM_WRITE_AUTO || mode == ULSM_WRITE_PROCMEM) {
		w->method = ULSM_WRITE_PROCMEM;
		w->fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		pret = w->fd < 0 ? -errno : probe(w, b);
		if (!pret)
			return 0;
		if (w->fd >= 0)
			close(w->fd);
		w->fd = -1;
		ulsm_debug("/proc/self/mem cannot write the text (%s)",
			   strerror(-pret));
	}
	if (mode == ULSM_WRITE_AUTO || mode == ULSM_WRITE_MPROTECT) {
		w->method = ULSM_WRITE_MPROTECT;
		ret = probe(w, b);
		if (!ret)
			return 0;
		ulsm_debug("an mprotect window cannot write the text (%s)",
			   strerror(-ret));
	}
	return ulsm_error(-EPERM, "this process may not write its own text "
			  "(/proc/self/mem: %s; mprotect: %s)",
			  pret ? strerror(-pret) : "not tried",
			  mode == ULSM_WRITE_PROCMEM ? "not tried" : strerror(-ret));
}

int ulsm_text_write(struct ulsm_text_writer *w, uintptr_t addr,
		    const void *bytes, size_t len)
{
	unsigned long n = ulsm_fault_write_countdown;

	if (n && !(ulsm_fault_write_countdown = n - 1))
		return -EIO;
	return raw_write(w, addr, bytes, len);
}

void ulsm_text_close(struct ulsm_text_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
}
