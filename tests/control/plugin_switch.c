// SPDX-License-Identifier: MIT
/*
 * A plug-in with a switch (t_control): its constructor registers it, its
 * destructor removes it at dlclose. Built without -lulsm: it finds the
 * library in the test program (-rdynamic), as t_depart's plug-in does.
 */
#include <ulsm/control.h>

DEFINE_STATIC_SWITCH(plug_switch, "a plug-in's switch");

__attribute__((visibility("default"))) int plug_switch_on(void);

int plug_switch_on(void)
{
	return static_branch_unlikely(&plug_switch) ? 1 : 0;
}
