// SPDX-License-Identifier: MIT
/*
 * Why a module is not active: one note per module name, kept by the set
 * (a copy: the module's lsm_info lives in its object, which a plug-in
 * host may unload), for ulsm_lsm_module_reason() and the dump. A module
 * that could not come up (refused at registration, its blobs, its init, an
 * exclusive module already on) is also reported on standard error, with
 * no debug switch: a host must never lose a module in silence. That it is
 * not listed, removed by "!name" or disabled is the host's own choice,
 * and only ULSM_DEBUG prints it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lsm_internal.h"

struct ulsm_lsm_note {
	struct ulsm_lsm_note *next;
	char *name;
	const char *why;	/* a kept text (keep_text) */
};

/*
 * A note's text, kept for the set's life once it was written: a reason
 * that ulsm_lsm_module_reason() gave stays the text it was, however the
 * module's note changes after (a departure finished later, by another
 * thread) or goes. Texts that are the same share one copy, so a set
 * keeps as many as it had different reasons. Framework lock held.
 */
static const char *keep_text(struct ulsm_lsm_state *st, const char *text)
{
	return ulsm_lsm_keep_text(&st->texts, &st->ntexts, text);
}

static struct ulsm_lsm_note *note_find(struct ulsm_lsm_state *st,
				       const char *name)
{
	for (struct ulsm_lsm_note *n = st->notes; n; n = n->next)
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

void ulsm_lsm_note(struct ulsm_hook_set *set, const char *name, bool loud,
		   const char *fmt, ...)
{
	struct ulsm_lsm_state *st = set->state;
	struct ulsm_lsm_note *n = note_find(st, name);
	char why[384];
	va_list ap;

	if (!n) {
		n = ulsm_calloc(1, sizeof(*n));
		if (n)
			n->name = ulsm_strdup(name);
		if (!n || !n->name) {
			/* No room for the note: the message must still go out. */
			if (n)
				ulsm_free(n);
			n = NULL;
		} else {
			n->next = st->notes;
			st->notes = n;
		}
	}
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (n) {
		const char *kept = keep_text(st, why);

		/* No memory for it: the message still goes out, below. */
		n->why = kept ? kept : "(no memory for the reason)";
	}
	if (loud || ulsm_debugging)
		ulsm_report("set %s: module %s is not active: %s", set->name,
			    name, why);
}

void ulsm_lsm_note_clear(struct ulsm_hook_set *set, const char *name)
{
	struct ulsm_lsm_note **pp, *n;

	for (pp = &set->state->notes; (n = *pp); pp = &n->next)
		if (!strcmp(n->name, name)) {
			*pp = n->next;
			ulsm_free(n->name);
			ulsm_free(n);
			return;
		}
}

const char *ulsm_lsm_note_of(struct ulsm_lsm_state *st, const char *name)
{
	const struct ulsm_lsm_note *n = note_find(st, name);

	return n ? n->why : NULL;
}

ULSM_API const char *ulsm_lsm_module_reason(struct ulsm_hook_set *set,
					    const char *name)
{
	const char *why = NULL;

	if (!set || !name)
		return NULL;
	ulsm_lsm_lock();
	if (set->state)
		why = ulsm_lsm_note_of(set->state, name);
	ulsm_lsm_unlock();
	return why;
}
