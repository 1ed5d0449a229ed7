// SPDX-License-Identifier: MIT
/*
 * ulsmctl - the client of the control endpoint (docs/control.md,
 * ulsmctl(1)): list the programs it can reach, show what their library
 * knows, record their tracepoints, flip their switches, toggle their
 * hook-set modules.
 *
 *	ulsmctl list [--json]
 *	ulsmctl show -p PID [--json]
 *	ulsmctl record -p PID GLOB [-d DURATION] -o FILE [--json]
 *	ulsmctl clear -p PID
 *	ulsmctl switch -p PID NAME on|off
 *	ulsmctl toggle -p PID SET MODULE on|off
 *
 * The socket directory is checked as the endpoint checks it (opened
 * without following a link, owned by this user, mode 0700); the program's
 * refusals are printed with its message, and the exit status is 1.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ulsmctl.h"

static int usage(void)
{
	fprintf(stderr,
		"usage: ulsmctl list [--json]\n"
		"       ulsmctl show -p PID [--json]\n"
		"       ulsmctl record -p PID GLOB [-d DURATION] -o FILE [--json]\n"
		"       ulsmctl clear -p PID\n"
		"       ulsmctl switch -p PID NAME on|off\n"
		"       ulsmctl toggle -p PID SET MODULE on|off\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *pid = NULL, *out = NULL, *dur = NULL, *pos[4];
	bool json = false;
	int npos = 0;

	if (argc < 2)
		return usage();
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			pid = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			dur = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1])
			return usage();
		else if (npos < 4)
			pos[npos++] = argv[i];
		else
			return usage();
	}
	if (!strcmp(argv[1], "list") && !npos && !pid)
		return cmd_list(json);
	if (!pid)
		return usage();
	if (!strcmp(argv[1], "show") && !npos)
		return cmd_ask(pid, "show\n", "show", json);
	if (!strcmp(argv[1], "clear") && !npos)
		return cmd_ask(pid, "clear\n", "clear", json);
	if (!strcmp(argv[1], "switch") && npos == 2) {
		char req[1100];

		snprintf(req, sizeof(req), "switch %s %s\n", pos[0], pos[1]);
		return cmd_ask(pid, req, "switch", json);
	}
	if (!strcmp(argv[1], "toggle") && npos == 3) {
		char req[1100];

		snprintf(req, sizeof(req), "toggle %s %s %s\n", pos[0], pos[1],
			 pos[2]);
		return cmd_ask(pid, req, "toggle", json);
	}
	if (!strcmp(argv[1], "record") && npos == 1 && out) {
		long ms = dur ? duration_ms(dur) : -1;

		if (dur && ms < 0)
			die("-d %s: not a duration (5s, 500ms, 2m)", dur);
		return cmd_record(pid, pos[0], ms, out, json);
	}
	return usage();
}
