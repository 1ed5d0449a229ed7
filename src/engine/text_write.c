// SPDX-License-Identifier: MIT
/*
 * Writing instruction bytes into the running process.
 *
 * Two methods (docs/patching-protocol.md, "Writing the bytes" and
 * "Choosing the method by batch size"):
 *
 * pwrite() to /proc/self/mem, which writes through the kernel's
 * FOLL_FORCE path and changes no mapping's permissions. The descriptor is
 * opened for each batch and closed before the update returns, on every
 * path: a writable view of the text kept open would turn any write
 * primitive of an attacker into code injection, would follow the parent's
 * memory into a forked child, and a program that closes or reuses
 * descriptor numbers could turn our write into a write elsewhere.
 *
 * mprotect windows. Every page the batch touches becomes writable *and*
 * executable (other threads keep executing code on it) for the duration
 * of the batch, one mprotect() per run of adjacent pages of one mapping,
 * then gets its original protection back, read once from
 * /proc/self/maps. All of this happens under the patch lock.
 *
 * In auto mode, a small batch tries /proc/self/mem first (no window, no
 * read of /proc/self/maps), a large one the windows (its stores cost
 * nothing, where each pwrite() costs a system call); each falls back to
 * the other.
 *
 * ulsm_text_open() acquires everything a batch will need, before its
 * first write: the descriptor, or the open windows. The descriptor is not
 * probed by a write of its own: the batch's first write is the probe (if
 * it fails nothing is written, and auto mode goes on with the windows),
 * and a later write that fails (a page the kernel could not copy) is
 * rolled back with the writes that succeeded, which need nothing new. If
 * no method can write, the batch fails before any byte changes: -EPERM
 * for a refusal (PR_SET_MDWE, proc_mem.force_override=never, SELinux
 * execmod, seccomp), or the errno of a missing resource (EMFILE, ENOMEM),
 * which the caller may retry.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_include)
# if __has_include(<valgrind/valgrind.h>)
#  include <valgrind/valgrind.h>
#  define ULSM_HAVE_VALGRIND 1
# endif
#endif

#include "engine/engine.h"

static uintptr_t page_size(void)
{
	static uintptr_t psz;

	if (!psz)
		psz = (uintptr_t)sysconf(_SC_PAGESIZE);
	return psz;
}

/*
 * The pages [@addr, @addr + @len) touches, appended to @v (sorted, no
 * duplicates, since sites come in address order).
 */
static void add_pages(struct ulsm_text_page *v, size_t *n, uintptr_t addr,
		      size_t len)
{
	uintptr_t mask = ~(page_size() - 1);

	for (uintptr_t p = addr & mask; p < addr + len; p += page_size())
		if (!*n || v[*n - 1].page < p) {
			v[*n].page = p;
			v[*n].first = p > addr ? p : addr;
			v[*n].prot = -1;
			(*n)++;
		}
}

static int collect_pages(struct ulsm_text_writer *w, const struct ulsm_batch *b)
{
	size_t max = 0;

	for (size_t i = 0; i < b->n; i++)
		max += 1 + (b->v[i].old.len + page_size() - 1) / page_size();
	w->pages = ulsm_calloc(max, sizeof(*w->pages));
	if (!w->pages)
		return -ENOMEM;
	w->npages = 0;
	for (size_t i = 0; i < b->n; i++)
		add_pages(w->pages, &w->npages, b->v[i].addr, b->v[i].old.len);
	return 0;
}

/* --- /proc/self/mem ----------------------------------------------------- */

static int procmem_write(int fd, uintptr_t addr, const void *bytes, size_t len)
{
	ssize_t n = ulsm_sys_pwrite(fd, bytes, len, addr);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? (int)n : -EIO;
}

/*
 * Open the descriptor for this batch. It is not probed: the batch's first
 * write is its probe (nothing is written if it fails, and the writer then
 * falls back to the windows, ulsm_text_write), and a later write that
 * fails (a page the kernel could not copy) is rolled back like any other.
 */
static int procmem_open(struct ulsm_text_writer *w, const char **what)
{
	int ret = ulsm_sys_open("/proc/self/mem", O_RDWR);

	*what = "opening /proc/self/mem";
	if (ret < 0)
		return ret;
	w->fd = ret;
	return 0;
}

/* --- mprotect windows --------------------------------------------------- */

/*
 * Pages whose protection could not be restored (mprotect kept failing):
 * remembered without allocating, so that the next batch puts them back,
 * and so that it does not take their writable state for the original.
 */
#define MAX_STUCK	64
static struct ulsm_text_page stuck[MAX_STUCK];
static size_t nstuck;


/* Fill in each page's protection from /proc/self/maps. */
static int read_protections(struct ulsm_text_writer *w)
{
	char buf[4096], *line, *end;
	size_t have = 0, next = 0;
	int fd = ulsm_sys_open("/proc/self/maps", O_RDONLY);
	ssize_t n = 0;

	if (fd < 0)
		return fd;
	while (next < w->npages &&
	       (n = ulsm_sys_read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		have += (size_t)n;
		buf[have] = '\0';
		line = buf;
		while ((end = strchr(line, '\n'))) {
			unsigned long lo, hi;
			char perms[5];

			*end = '\0';
			if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3)
				while (next < w->npages &&
				       w->pages[next].page < hi) {
					struct ulsm_text_page *p = &w->pages[next++];

					if (p->page >= lo) {
						p->prot = (perms[0] == 'r' ? PROT_READ : 0) |
							  (perms[1] == 'w' ? PROT_WRITE : 0) |
							  (perms[2] == 'x' ? PROT_EXEC : 0);
						p->map = lo;
					}
				}
			line = end + 1;
		}
		have = strlen(line);
		memmove(buf, line, have);
	}
	ulsm_sys_close(fd);
	if (n < 0 && next < w->npages)
		return (int)n;
	for (size_t i = 0; i < w->npages; i++) {
		if (w->pages[i].prot < 0)
			return -EFAULT;		/* not mapped */
		for (size_t j = 0; j < nstuck; j++)
			if (stuck[j].page == w->pages[i].page)
				w->pages[i].prot = stuck[j].prot;
	}
	return 0;
}

/* Give pages [@p, @p + @n) their protection back; retried. */
static int restore_run(const struct ulsm_text_page *p, size_t n)
{
	int ret = -EIO;

	for (int tries = 0; tries < 4 && ret; tries++)
		ret = ulsm_sys_mprotect((void *)p->page, n * page_size(), p->prot);
	return ret;
}

static void remember_stuck(const struct ulsm_text_page *p, int err)
{
	for (size_t i = 0; i < nstuck; i++)
		if (stuck[i].page == p->page)
			return;
	ulsm_report("cannot restore the protection of page %#lx (%s): it "
		    "stays writable and executable until the next update",
		    (unsigned long)p->page, strerror(-err));
	if (nstuck < MAX_STUCK)
		stuck[nstuck++] = *p;
}

void ulsm_text_restore_stuck(void)
{
	for (size_t i = 0; i < nstuck; ) {
		if (!restore_run(&stuck[i], 1))
			stuck[i] = stuck[--nstuck];
		else
			i++;
	}
}

/*
 * The end of the run of pages from @i (below @n) that one mprotect() can
 * cover: adjacent, in one mapping (a call over two could change the first
 * and fail on the second), with one original protection.
 */
static size_t run_end(const struct ulsm_text_writer *w, size_t i, size_t n)
{
	const struct ulsm_text_page *p = w->pages;
	size_t j = i + 1;

	while (j < n && p[j].page == p[j - 1].page + page_size() &&
	       p[j].map == p[i].map && p[j].prot == p[i].prot)
		j++;
	return j;
}

/*
 * Give pages [0, @n) their protection back, a run at a time; a run that
 * will not goes page by page, and a page that still will not is
 * remembered for the next batch. Never fatal.
 */
static void close_windows(struct ulsm_text_writer *w, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		j = run_end(w, i, n);
		if (!restore_run(&w->pages[i], j - i))
			continue;
		for (size_t k = i; k < j; k++) {
			int ret = restore_run(&w->pages[k], 1);

			if (ret)
				remember_stuck(&w->pages[k], ret);
		}
	}
}

static int open_windows(struct ulsm_text_writer *w, const char **what)
{
	int ret = read_protections(w);

	*what = ret ? "reading /proc/self/maps for the mprotect windows" :
		"mprotect";
	for (size_t i = 0, j; i < w->npages && !ret; i = j) {
		const struct ulsm_text_page *p = &w->pages[i];

		j = run_end(w, i, w->npages);
		ret = ulsm_sys_mprotect((void *)p->page, (j - i) * page_size(),
					p->prot | PROT_READ | PROT_WRITE |
					PROT_EXEC);
		if (ret)
			close_windows(w, i);
	}
	w->windows_open = !ret;
	return ret;
}

/*
 * Byte by byte: a single-byte store is what the breakpoint protocol relies
 * on. The atomic-word protocol (aarch64) writes one aligned word, which
 * must be one 32-bit store: bytes would let another core fetch a mix.
 * Not instrumented: sanitizers keep no shadow for the text they would
 * check.
 */
__attribute__((no_sanitize("address", "thread", "undefined"), noinline))
static void store_text(uintptr_t addr, const uint8_t *bytes, size_t len)
{
	if (ulsm_caps()->one_word && len == 4 && !(addr & 3)) {
		uint32_t word;

		memcpy(&word, bytes, sizeof(word));
		__atomic_store_n((uint32_t *)addr, word, __ATOMIC_RELAXED);
		return;
	}
	for (size_t i = 0; i < len; i++)
		((volatile uint8_t *)addr)[i] = bytes[i];
}

/*
 * Under an emulator whose translated code misses /proc/self/mem writes
 * (arch_fetch_misses_procmem), give each page just written the protection
 * its window already has: qemu-user then drops its translations of the
 * page, and it takes its memory lock to do so, which its translator holds
 * while it reads guest code, so no translation of the old bytes survives.
 * (A store of the word back over itself, tried first, left a rare stale
 * translation: one made from the old bytes while the store went by.) The
 * windows were opened in step 0, so this changes no mapping and needs
 * nothing new; nothing is written.
 */
static int reprotect(uintptr_t addr, size_t len)
{
	int ret = 0;

	for (uintptr_t p = addr & ~(page_size() - 1); p < addr + len && !ret;
	     p += page_size())
		ret = ulsm_sys_mprotect((void *)p, page_size(),
					PROT_READ | PROT_WRITE | PROT_EXEC);
	return ret;
}

/* --- choosing, writing, closing ----------------------------------------- */

/* A failure for want of a resource, which a retry may not meet again. */
static bool lack_of_resource(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM ||
	       err == -EAGAIN;
}

/*
 * From this many sites on, auto mode tries the windows first: three
 * pwrite() calls per site (about 1.5 us each) against a read of
 * /proc/self/maps and two mprotect() calls per run of pages (about 30 us
 * in all), bench/bench_update.c. Only where the protocol is the
 * breakpoint's: an aarch64 page may be guarded (BTI), which mprotect()
 * drops, and there a site costs one write, not three.
 */
#define WINDOW_MIN_SITES	16

static int try_procmem(struct ulsm_text_writer *w, const char **what)
{
	const char *wwhat;
	int ret;

	w->method = ULSM_WRITE_PROCMEM;
	ret = procmem_open(w, what);
	if (!ret && ulsm_caps_fetch_misses_procmem(w->fd)) {
		/* Emulated: also the windows, for reprotect(). */
		ret = open_windows(w, &wwhat);
		if (ret) {
			*what = wwhat;
			ulsm_sys_close(w->fd);
			w->fd = -1;
		}
	}
	if (ret)
		ulsm_debug("/proc/self/mem cannot write the text (%s)",
			   strerror(-ret));
	return ret;
}

static int try_windows(struct ulsm_text_writer *w, const char **what)
{
	int ret;

	w->method = ULSM_WRITE_MPROTECT;
	ret = open_windows(w, what);
	if (ret)
		ulsm_debug("an mprotect window cannot write the text (%s)",
			   strerror(-ret));
	return ret;
}

/* Neither method can write: a refusal (-EPERM), or a missing resource. */
static int cannot_write(int pret, const char *pwhat, int mret,
			const char *mwhat)
{
	int err = lack_of_resource(pret) ? pret :
		  lack_of_resource(mret) ? mret : -EPERM;

	return ulsm_error(err, "%s (%s: %s; %s: %s)",
			  err == -EPERM ? "this process may not write its own "
			  "text" : "the text cannot be written now", pwhat,
			  pret ? strerror(-pret) : "not tried", mwhat,
			  mret ? strerror(-mret) : "not tried");
}

int ulsm_text_open(struct ulsm_text_writer *w, const struct ulsm_batch *b)
{
	enum ulsm_write_mode mode = ulsm_config.write_mode;
	const char *pwhat = "/proc/self/mem", *mwhat = "mprotect";
	bool procmem = mode != ULSM_WRITE_MPROTECT;
	bool windows = mode != ULSM_WRITE_PROCMEM;
	bool windows_first = mode == ULSM_WRITE_AUTO &&
			     ulsm_caps()->breakpoints &&
			     b->n >= WINDOW_MIN_SITES;
	int pret = 0, mret = 0;

	w->fd = -1;
	w->windows_open = false;
	w->written = false;
	w->fall_back = false;
	w->pages = NULL;
	w->npages = 0;
	ulsm_text_restore_stuck();
	if (collect_pages(w, b))
		return ulsm_error(-ENOMEM, "no memory for the batch's pages");
	if (windows_first && !(mret = try_windows(w, &mwhat)))
		return 0;
	if (procmem && !(pret = try_procmem(w, &pwhat))) {
		/* The first write may still find it cannot write there. */
		w->fall_back = windows && !windows_first;
		return 0;
	}
	if (windows && !windows_first && !(mret = try_windows(w, &mwhat)))
		return 0;
	ulsm_free(w->pages);
	w->pages = NULL;
	return cannot_write(pret, pwhat, mret, mwhat);
}

/*
 * The batch's first write through /proc/self/mem failed with @pret:
 * nothing is written yet, so the batch goes on through the windows (in
 * auto mode), or fails as ulsm_text_open() would have, with nothing
 * written.
 */
static int first_write_failed(struct ulsm_text_writer *w, int pret)
{
	const char *mwhat = "mprotect";
	int mret = -ENOTSUP;

	ulsm_debug("/proc/self/mem cannot write the text (%s)",
		   strerror(-pret));
	ulsm_sys_close(w->fd);
	w->fd = -1;
	if (w->fall_back) {
		w->fall_back = false;
		/* Under an emulator the windows are open already (reprotect). */
		if (w->windows_open) {
			w->method = ULSM_WRITE_MPROTECT;
			return 0;
		}
		mret = try_windows(w, &mwhat);
		if (!mret)
			return 0;
	}
	return cannot_write(pret, "writing through /proc/self/mem", mret,
			    mret == -ENOTSUP ? "mprotect, not allowed by the "
			    "write mode" : mwhat);
}

/* Test hook: called after each write of text (tests/t_txn.c). */
void (*ulsm_test_write_hook)(uintptr_t addr);

int ulsm_text_write(struct ulsm_text_writer *w, uintptr_t addr,
		    const void *bytes, size_t len)
{
	int ret;

	if (w->method == ULSM_WRITE_PROCMEM) {
		ret = procmem_write(w->fd, addr, bytes, len);
		if (ret && !w->written) {
			ret = first_write_failed(w, ret);
			if (!ret)
				return ulsm_text_write(w, addr, bytes, len);
			return ret;
		}
		/* The bytes are there, even if the reprotect fails. */
		w->written |= !ret;
		if (!ret && w->windows_open)
			ret = reprotect(addr, len);
	} else {
		ret = -ulsm_fault_point(ULSM_SYS_STORE);
		if (!ret)
			store_text(addr, bytes, len);
		w->written |= !ret;
	}
#ifdef ULSM_HAVE_VALGRIND
	if (!ret)
		VALGRIND_DISCARD_TRANSLATIONS((void *)addr, len);
#endif
	if (!ret && ulsm_test_write_hook)
		ulsm_test_write_hook(addr);
	return ret;
}

void ulsm_text_close(struct ulsm_text_writer *w)
{
	if (w->windows_open)
		close_windows(w, w->npages);
	w->windows_open = false;
	ulsm_text_restore_stuck();
	ulsm_sys_close(w->fd);	/* the writable view lives for one batch */
	w->fd = -1;
	ulsm_free(w->pages);
	w->pages = NULL;
}
