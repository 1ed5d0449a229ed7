// SPDX-License-Identifier: MIT
/*
 * ulsmctl - the client of the control endpoint (docs/control.md,
 * ulsmctl(1)): list the programs it can reach, show what their library
 * knows, record their tracepoints, flip their switches, toggle their
 * hook-set modules.
 *
 *	ulsmctl list [--json]
 *	ulsmctl show -p PID [--all] [--json]
 *	ulsmctl record -p PID GLOB [-d DURATION] -o FILE [--json]
 *	ulsmctl clear -p PID
 *	ulsmctl switch -p PID NAME on|off
 *	ulsmctl toggle -p PID SET MODULE on|off
 *
 * and --timeout DURATION (10 s): every command's deadline.
 *
 * The socket directory is checked as the endpoint checks it (opened
 * without following a link, owned by this user, mode 0700); the program's
 * refusals are printed with its message, and the exit status is 1.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ulsmctl.h"

struct options opt = { .duration_ms = -1, .timeout_ms = TIMEOUT_MS };

static int usage(void)
{
	fprintf(stderr,
		"usage: ulsmctl list [--json]\n"
		"       ulsmctl show -p PID [--all] [--json]\n"
		"       ulsmctl record -p PID GLOB [-d DURATION] -o FILE [--json]\n"
		"       ulsmctl clear -p PID\n"
		"       ulsmctl switch -p PID NAME on|off [--json]\n"
		"       ulsmctl toggle -p PID SET MODULE on|off [--json]\n"
		"options: --timeout DURATION (10s): every command's deadline\n");
	return EXIT_USAGE;
}

/*
 * A word of a request: printable, no space, at most 256 bytes (the
 * protocol's arguments). A newline would start a second request.
 */
static void check_word(const char *w, const char *what)
{
	size_t n = strlen(w);

	if (!n || n > 256)
		die("%s \"%.40s\": empty or longer than 256 bytes", what, w);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)w[i] <= ' ' || (unsigned char)w[i] >= 0x7f)
			die("%s: only printable characters, no space", what);
}

static pid_t parse_pid(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || v <= 0 || v > 0x7fffffff)
		die("-p %s: not a process id", s);
	return (pid_t)v;
}

static long parse_duration(const char *s, const char *what)
{
	long ms = duration_ms(s);

	if (ms < 0)
		die("%s %s: not a duration (5s, 500ms, 2m)", what, s);
	return ms;
}

int main(int argc, char **argv)
{
	const char *pid_arg = NULL, *pos[4];
	char req[1100];
	int npos = 0;
	pid_t pid;

	if (argc < 2)
		return usage();
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			opt.json = true;
		else if (!strcmp(argv[i], "--all"))
			opt.all = true;
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			pid_arg = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			opt.out = argv[++i];
		else if (!strcmp(argv[i], "-d") && i + 1 < argc)
			opt.duration_ms = parse_duration(argv[++i], "-d");
		else if (!strcmp(argv[i], "--timeout") && i + 1 < argc)
			opt.timeout_ms = parse_duration(argv[++i],
							"--timeout");
		else if (argv[i][0] == '-' && argv[i][1])
			return usage();
		else if (npos < 4)
			pos[npos++] = argv[i];
		else
			return usage();
	}
	if (opt.timeout_ms <= 0)
		die("--timeout must be longer than 0");
	if (!strcmp(argv[1], "list") && !npos && !pid_arg) {
		backstop_arm(now_ms() + opt.timeout_ms + BACKSTOP_MS);
		return cmd_list();
	}
	if (!pid_arg)
		return usage();
	pid = parse_pid(pid_arg);
	for (int i = 0; i < npos; i++)
		check_word(pos[i], argv[1]);
	if (!strcmp(argv[1], "record") && npos == 1 && opt.out)
		return cmd_record(pid, pos[0]);
	backstop_arm(now_ms() + opt.timeout_ms + BACKSTOP_MS);
	if (!strcmp(argv[1], "show") && !npos)
		return cmd_show(pid);
	if (!strcmp(argv[1], "clear") && !npos)
		return cmd_change(pid, "clear\n", "clear", "clear");
	if (!strcmp(argv[1], "switch") && npos == 2) {
		snprintf(req, sizeof(req), "switch %s %s\n", pos[0], pos[1]);
		return cmd_change(pid, req, "switch", pos[0]);
	}
	if (!strcmp(argv[1], "toggle") && npos == 3) {
		snprintf(req, sizeof(req), "toggle %s %s %s\n", pos[0], pos[1],
			 pos[2]);
		return cmd_change(pid, req, "toggle", pos[1]);
	}
	return usage();
}
