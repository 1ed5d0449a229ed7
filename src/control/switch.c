// SPDX-License-Identifier: MIT
/*
 * The switches (DEFINE_STATIC_SWITCH, <ulsm/control.h>): keys that a
 * program names for outside control. Each object's constructor adds its
 * records, its destructor removes them (dlclose), so the list holds the
 * switches of loaded objects only. The control endpoint looks them up
 * and flips them with the switch lock held, so that an object cannot
 * leave while its key is being flipped.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <ulsm/control.h>

#include "control/control.h"

static pthread_mutex_t switch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ulsm_switch *switches;

ULSM_API void ulsm__switch_add(struct ulsm_switch *sw)
{
	/* From older headers (docs/abi.md): not read past its size. */
	if (!sw || sw->size < sizeof(*sw)) {
		ulsm_error(-EPROTO, "a switch at %p is from headers older "
			   "than this library; not listed", (void *)sw);
		return;
	}
	if (!sw->name || !sw->key)
		return;
	pthread_mutex_lock(&switch_lock);
	sw->next = switches;
	switches = sw;
	pthread_mutex_unlock(&switch_lock);
}

ULSM_API void ulsm__switch_remove(struct ulsm_switch *sw)
{
	pthread_mutex_lock(&switch_lock);
	for (struct ulsm_switch **p = &switches; *p; p = &(*p)->next)
		if (*p == sw) {
			*p = sw->next;
			break;
		}
	pthread_mutex_unlock(&switch_lock);
}

int ulsm_switch_each(void (*fn)(void *arg, const struct ulsm_switch *sw),
		     void *arg)
{
	int n = 0;

	pthread_mutex_lock(&switch_lock);
	for (struct ulsm_switch *sw = switches; sw; sw = sw->next, n++)
		if (fn)
			fn(arg, sw);
	pthread_mutex_unlock(&switch_lock);
	return n;
}

int ulsm_switch_set(const char *name, bool on,
		    void (*fn)(void *arg, const struct ulsm_switch *sw),
		    void *arg)
{
	struct ulsm_switch *sw;
	int ret;

	pthread_mutex_lock(&switch_lock);
	for (sw = switches; sw && strcmp(sw->name, name); sw = sw->next)
		;
	if (!sw) {
		ret = ulsm_error(-ENOENT, "no switch %s (only the program's "
				 "DEFINE_STATIC_SWITCH keys can be flipped)",
				 name);
	} else {
		ulsm_clear_error();
		ret = on ? static_branch_enable(sw->key) :
			   static_branch_disable(sw->key);
		if (!ret && fn)
			fn(arg, sw);
	}
	pthread_mutex_unlock(&switch_lock);
	return ret;
}

/*
 * fork(): the switch lock is not inherited held by a thread the child
 * does not have (the endpoint's, in the middle of a flip). src/init.c
 * takes it first of all the library's locks: a flip takes it before the
 * patch lock. Released in the parent and in the child.
 */
void ulsm_switch_fork_prepare(void)
{
	pthread_mutex_lock(&switch_lock);
}

void ulsm_switch_fork_release(void)
{
	pthread_mutex_unlock(&switch_lock);
}
