/* SPDX-License-Identifier: MIT */
/*
 * src/base/hook_sets.h - what the hook framework tells the layers beside
 * it: the control endpoint lists the sets and their modules, and toggles
 * modules, through this table, which src/lsm/seal.c registers when it
 * claims its first set. So no file outside src/lsm/ calls into it (a
 * table of operations, as the kernel's arch hooks are); without a set,
 * there is no table, and nothing to list. Never installed.
 */
#ifndef ULSM_SRC_HOOK_SETS_H
#define ULSM_SRC_HOOK_SETS_H

#include <stdbool.h>

struct ulsm_hook_set;

struct ulsm_lsm_set_info {
	const char *name;
	bool sealed, toggle_allowed, unloadable;
	struct ulsm_hook_set *set;
};

struct ulsm_lsm_module_info {
	const char *name;
	const char *state;
	const char *reason;	/* why it is not active, or NULL */
	int position;		/* in the order, from 1; 0: not ordered */
	bool on;		/* active, and not toggled off */
};

/*
 * @each_set:    each initialised or sealed set (at most 64), with the
 *               framework lock held while @fn runs: @fn may call
 *               @each_module on info->set; returns how many were given
 * @each_module: each module of @set, framework lock held by the caller
 * @toggle:      ulsm_lsm_toggle() (<ulsm/lsm.h>); when it changed the
 *               module, @fn gets the module as the change left it, under
 *               the framework lock, before the grace period that turning
 *               it off waits for (@fn may be NULL)
 * @each_expected: each name the order of @set lists whose module is not
 *               loaded (a plug-in to come), framework lock held by the
 *               caller
 * @trace:       trace @set's dispatch (@on: one more holder; off: one
 *               fewer) (src/lsm/trace.c)
 * @trace_sync:  trace the sets at whose tracepoint a USDT tracer listens,
 *               and no more the others nothing holds
 * @trace_counts: each module of @set, with its calls and refusals while
 *               traced
 */
struct ulsm_lsm_ops {
	int (*each_set)(void (*fn)(void *arg,
				   const struct ulsm_lsm_set_info *),
			void *arg);
	void (*each_module)(struct ulsm_hook_set *set,
			    void (*fn)(void *arg,
				       const struct ulsm_lsm_module_info *),
			    void *arg);
	int (*toggle)(struct ulsm_hook_set *set, const char *name, bool on,
		      void (*fn)(void *arg,
				 const struct ulsm_lsm_module_info *),
		      void *arg);
	void (*each_expected)(struct ulsm_hook_set *set,
			      void (*fn)(void *arg, const char *name),
			      void *arg);
	int (*trace)(struct ulsm_hook_set *set, bool on);
	int (*trace_sync)(void);
	void (*trace_counts)(struct ulsm_hook_set *set,
			     void (*fn)(void *arg, const char *module,
					unsigned long calls,
					unsigned long refusals),
			     void *arg);
};

/* Register @ops (the framework's, once; later calls change nothing). */
void ulsm_lsm_ops_register(const struct ulsm_lsm_ops *ops);
/* The registered table, or NULL: no set was ever claimed. */
const struct ulsm_lsm_ops *ulsm_lsm_ops(void);
/* The initialised or sealed set called @name, or NULL (or no table). */
struct ulsm_hook_set *ulsm_lsm_set_named(const char *name);

#endif /* ULSM_SRC_HOOK_SETS_H */
