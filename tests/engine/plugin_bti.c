// SPDX-License-Identifier: MIT
/*
 * A plug-in for t_bti, built with -mbranch-protection=standard and
 * without the C runtime's start files (Debian 12's crt*.o carry no BTI
 * note), so that every input is marked and the linker marks the object:
 * the dynamic loader then maps its text guarded (PROT_BTI), and an
 * indirect branch into it must land on a landing pad.
 */
#include <ulsm/static_call.h>

static int add1(int x)
{
	return x + 1;
}

DEFINE_STATIC_CALL(bti_sc, add1);

/* A function with no landing pad, to show that the guard is enforced. */
__asm__(".pushsection .text, \"ax\"\n\t"
	".balign 16\n"
	"bti_unmarked:\n\t"
	"mov w0, #7\n\t"
	"ret\n\t"
	".popsection");
int bti_unmarked(void);

void *bti_unmarked_addr(void);
void *bti_tramp(void);
int bti_update(void *func);
int bti_call(int x);

void *bti_unmarked_addr(void)
{
	return (void *)(uintptr_t)bti_unmarked;
}

void *bti_tramp(void)
{
	return STATIC_CALL_TRAMP_ADDR(bti_sc);
}

int bti_update(void *func)
{
	return __static_call_update(&STATIC_CALL_KEY(bti_sc),
				    STATIC_CALL_TRAMP_ADDR(bti_sc), func);
}

int bti_call(int x)
{
	return static_call(bti_sc)(x);
}
