// SPDX-License-Identifier: MIT
/*
 * Must NOT compile: LSM_HOOK_INIT() with a callback whose type is not the
 * hook's (gcc alone would only warn), at file scope and in a compound
 * literal. Each is one error, and it names the hook.
 */
/* expect: LSM_HOOK_INIT(file_open): the type of the callback is not that of the hook */
/* errors: 2 */
#include <stddef.h>

#define ULSM_LSM_SET		kinds
#define ULSM_LSM_HOOK_DEFS	"compile/kinds_hook_defs.h"
#define MAX_LSM_COUNT		2
#include <ulsm/lsm_hooks.h>

static int open_by_fd(int fd)
{
	return fd < 0;
}

struct kinds_hook_list kinds_hooks[] = {
	LSM_HOOK_INIT(file_close, NULL),
	LSM_HOOK_INIT(file_open, open_by_fd),
};

void kinds_late(struct kinds_hook_list *h);
void kinds_late(struct kinds_hook_list *h)
{
	*h = (struct kinds_hook_list)LSM_HOOK_INIT(file_open, &open_by_fd);
}
