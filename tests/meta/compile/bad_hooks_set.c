// SPDX-License-Identifier: MIT
/* Must NOT compile: security_add_hooks() with hooks of another set. */
/* expect: belong to another set */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct t_file;
#define ULSM_LSM_SET		other
#define ULSM_LSM_HOOK_DEFS	"lsm/test_hook_defs.h"
#define MAX_LSM_COUNT		2
#include <ulsm/lsm_hooks.h>
#undef ULSM_LSM_SET
#undef ULSM_LSM_HOOK_DEFS
#define ULSM_LSM_SET		mine
#define ULSM_LSM_HOOK_DEFS	"lsm/test_hook_defs.h"
#include <ulsm/lsm_hooks.h>

static const struct lsm_id id = { "m", 1 };
static struct other_hook_list hooks[1];

int main(void)
{
	return security_add_hooks(hooks, 1, &id);
}
