// SPDX-License-Identifier: MIT
/*
 * Must compile: the controls of bad_call_int_on_void.c,
 * bad_call_void_on_int.c and bad_hook_init_type.c: each hook called with
 * the macro of its kind, both ways, and LSM_HOOK_INIT() with a function, its
 * address, a pointer of the hook's type and NULL, at file scope and in a
 * compound literal.
 */
#include <stddef.h>

#define ULSM_LSM_SET		kinds
#define ULSM_LSM_HOOK_DEFS	"compile/kinds_hook_defs.h"
#define MAX_LSM_COUNT		2
#define ULSM_LSM_DEFINE
#include <ulsm/lsm_hooks.h>

static int open_path(const char *path)
{
	return path == NULL;
}

static int (*const open_ptr)(const char *) = open_path;

struct kinds_hook_list kinds_hooks[] = {
	LSM_HOOK_INIT(file_open, open_path),
	LSM_HOOK_INIT(file_open, &open_path),
	LSM_HOOK_INIT(file_close, NULL),
};

int kinds_calls(const char *path, struct kinds_hook_list *h);
int kinds_calls(const char *path, struct kinds_hook_list *h)
{
	*h = (struct kinds_hook_list)LSM_HOOK_INIT(file_open, open_ptr);
	call_void_hook(file_close, path);
	call_void_hook(seven_void, 1, 2, 3, 4, 5, 6, 7);
	return call_int_hook(file_open, path) |
	       call_int_hook(seven, 1, 2, 3, 4, 5, 6, 7);
}
