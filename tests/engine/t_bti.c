// SPDX-License-Identifier: MIT
/*
 * Branch target identification (aarch64, -mbranch-protection=standard).
 * The plug-in (plugin_bti.c) is BTI-marked, so its text is guarded; the
 * test first shows that the guard is enforced here (an indirect call to
 * its unmarked function dies of SIGILL), then that:
 *  - a static-call trampoline reached by an indirect call (a function
 *    pointer, or a PLT stub's br x16) lands on its `bti c`;
 *  - the indirect form's `br x16` into a guarded target lands on the
 *    target's `bti c`; the same target without one dies of SIGILL (so the
 *    branch really is checked).
 * Each call that may die runs in a child. Under qemu-user (7.2) the guard
 * is enforced for such objects; without BTI (hardware or emulator) the
 * test says so and skips.
 */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ulsm/static_call.h>
#include <ulsm/ulsm.h>

#include "tap.h"

#ifndef ULSM_ARCH_AARCH64
int main(void)
{
	skip_all("BTI is an aarch64 feature");
}
#else

#ifndef PROT_BTI
# define PROT_BTI	0x10
#endif

static void *(*unmarked_addr)(void);
static void *(*tramp)(void);
static int (*update)(void *func);
static int (*call)(int x);

/* How @fn(@arg) ends in a child: its value (0-255), or -signal. */
static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(fn(arg) & 0xff);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1000;
	return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
}

static int call_ptr(void *f)
{
	return ((int (*)(int))f)(1);
}

static int call_sc(void *arg)
{
	(void)arg;
	return call(1);
}

/* `[bti c;] mov w0, #42; ret` in a guarded page 8 GiB or more away. */
static void *far_fn(int pad)
{
	static const uint32_t code[] = { 0xd503245f, 0x52800540, 0xd65f03c0 };
	uintptr_t near = (uintptr_t)tramp();

	for (uintptr_t d = (uintptr_t)8 << 30; d <= (uintptr_t)64 << 30; d <<= 1) {
		void *p = mmap((void *)((near + d) & ~(uintptr_t)0xfff), 4096,
			       PROT_READ | PROT_WRITE, MAP_PRIVATE |
			       MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED)
			continue;
		memcpy(p, pad ? code : code + 1, pad ? 12 : 8);
		if (mprotect(p, 4096, PROT_READ | PROT_EXEC | PROT_BTI))
			return NULL;
		__builtin___clear_cache((char *)p, (char *)p + 12);
		return p;
	}
	return NULL;
}

int main(void)
{
	char path[PATH_MAX];
	const char *dir = getenv("ULSM_TEST_PLUGIN_DIR");
	void *h, *far_pad, *far_nopad;
	int r;

	snprintf(path, sizeof(path), "%s/plugin_bti.so", dir ? dir : ".");
	h = dlopen(path, RTLD_NOW);
	if (!ok(h != NULL, "dlopen the BTI-marked plug-in"))
		diag("%s", dlerror());
	if (!h)
		return done_testing();
	*(void **)&unmarked_addr = dlsym(h, "bti_unmarked_addr");
	*(void **)&tramp = dlsym(h, "bti_tramp");
	*(void **)&update = dlsym(h, "bti_update");
	*(void **)&call = dlsym(h, "bti_call");

	r = in_child(call_ptr, unmarked_addr());
	if (r != -SIGILL) {
		diag("an indirect call to a function without a landing pad "
		     "ended with %d, not SIGILL: BTI is not enforced here", r);
		skip_all("BTI not enforced on this machine or emulator");
	}
	ok(1, "BTI is enforced: an indirect call to an unmarked function "
	   "dies of SIGILL");

	/* Before any update: nothing of the plug-in has been rewritten. */
	is_int(in_child(call_ptr, tramp()), 2,
	       "a trampoline called through a pointer lands on its bti c");

	far_pad = far_fn(1);
	far_nopad = far_fn(0);
	ok(far_pad && far_nopad, "two guarded functions far away");
	if (!far_pad || !far_nopad)
		return done_testing();
	is_int(update(far_pad), 0, "update to the far function with bti c");
	is_int(ulsm_static_call_form(dlsym(h, "__SCK__bti_sc")),
	       ULSM_SC_FORM_INDIRECT, "  the indirect form (br x16)");
	is_int(in_child(call_sc, NULL), 42, "  br x16 lands on its bti c");
	is_int(update(far_nopad), 0, "update to the far function without");
	is_int(in_child(call_sc, NULL), -SIGILL,
	       "  br x16 there dies of SIGILL: the branch is checked");
	is_int(update(NULL), 0, "back to NULL: nothing far is called");
	return done_testing();
}
#endif
