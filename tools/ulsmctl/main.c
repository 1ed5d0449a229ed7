// SPDX-License-Identifier: MIT
/*
 * ulsmctl - the client of the control endpoint (docs/control.md,
 * ulsmctl(1)): list the programs it can reach, show what their library
 * knows, record their tracepoints, flip their switches, toggle their
 * hook-set modules.
 *
 * This file reads the command line, checks that each option belongs to
 * the command, and hands over to the command's file. A program is named
 * by -p PID or -n NAME (pick.c); every command has a deadline,
 * --timeout (10 s), and the backstop (signals.c) a second after it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ulsm/config.h>

#include "ulsmctl.h"

struct options opt = {
	.duration_ms = -1, .timeout_ms = TIMEOUT_MS, .interval_ms = 1000,
};

static const char usage_text[] =
	"usage: ulsmctl list [--json]\n"
	"       ulsmctl show PROGRAM [--all] [--json]\n"
	"       ulsmctl record PROGRAM GLOB [-d DURATION] -o FILE|- [--json]\n"
	"                      [--ctf OUTDIR]\n"
	"       ulsmctl record PROGRAM --hooks SET [GLOB] ...\n"
	"       ulsmctl clear PROGRAM\n"
	"       ulsmctl switch PROGRAM NAME on|off [--json]\n"
	"       ulsmctl toggle PROGRAM SET MODULE on|off [--json]\n"
	"       ulsmctl top PROGRAM [-i INTERVAL] [--once [--json]]\n"
	"       ulsmctl --version\n"
	"PROGRAM is -p PID or -n NAME (its command name).\n"
	"Every command: --timeout DURATION (10s), its deadline.\n"
	"DURATION: 5s, 500ms, 2m; a plain number is seconds.\n";

static int usage(FILE *f, int status)
{
	fputs(usage_text, f);
	return status;
}

/* Which options each command takes. */
enum {
	O_JSON = 1 << 0, O_ALL = 1 << 1, O_OUT = 1 << 2, O_DUR = 1 << 3,
	O_PROG = 1 << 4, O_HOOKS = 1 << 5, O_CTF = 1 << 6, O_ONCE = 1 << 7,
	O_INTERVAL = 1 << 8,
};

static const struct command {
	const char *name;
	int opts;
	int min, max;		/* positional arguments */
} commands[] = {
	{ "list", O_JSON, 0, 0 },
	{ "show", O_PROG | O_JSON | O_ALL, 0, 0 },
	{ "record", O_PROG | O_OUT | O_DUR | O_JSON | O_HOOKS | O_CTF, 0, 1 },
	{ "clear", O_PROG, 0, 0 },
	{ "switch", O_PROG | O_JSON, 2, 2 },
	{ "toggle", O_PROG | O_JSON, 3, 3 },
	{ "top", O_PROG | O_JSON | O_ONCE | O_INTERVAL, 0, 0 },
};

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

static long parse_duration(const char *s, const char *what)
{
	long ms = duration_ms(s);

	if (ms < 0)
		die("%s %s: not a duration (5s, 500ms, 2m)", what, s);
	return ms;
}

/*
 * The value of option @name at argv[*i]: "--name=value" or "--name
 * value"; NULL when argv[*i] is not that option.
 */
static const char *value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=' && name[1] == '-')
		return argv[*i] + n + 1;
	if (argv[*i][n] || *i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int main(int argc, char **argv)
{
	const char *pid_arg = NULL, *name = NULL, *pos[4], *v;
	const struct command *cmd = NULL;
	int npos = 0, used = 0;
	char req[1100];
	pid_t pid;

	if (argc < 2)
		return usage(stderr, EXIT_USAGE);
	if (!strcmp(argv[1], "--version")) {
		printf("ulsmctl %s (control protocol 1)\n", ULSM_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return usage(stdout, 0);
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++)
		if (!strcmp(argv[1], commands[c].name))
			cmd = &commands[c];
	if (!cmd)
		return usage(stderr, EXIT_USAGE);
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			opt.json = true;
			used |= O_JSON;
		} else if (!strcmp(argv[i], "--all")) {
			opt.all = true;
			used |= O_ALL;
		} else if (!strcmp(argv[i], "--once")) {
			opt.once = true;
			used |= O_ONCE;
		} else if ((v = value(argc, argv, &i, "-i"))) {
			opt.interval_ms = parse_duration(v, "-i");
			used |= O_INTERVAL;
		} else if ((v = value(argc, argv, &i, "-p"))) {
			pid_arg = v;
			used |= O_PROG;
		} else if ((v = value(argc, argv, &i, "-n"))) {
			name = v;
			used |= O_PROG;
		} else if ((v = value(argc, argv, &i, "-o"))) {
			opt.out = v;
			used |= O_OUT;
		} else if ((v = value(argc, argv, &i, "-d"))) {
			opt.duration_ms = parse_duration(v, "-d");
			used |= O_DUR;
		} else if ((v = value(argc, argv, &i, "--hooks"))) {
			opt.hooks = v;
			used |= O_HOOKS;
		} else if ((v = value(argc, argv, &i, "--ctf"))) {
			opt.ctf = v;
			used |= O_CTF;
		} else if ((v = value(argc, argv, &i, "--timeout"))) {
			opt.timeout_ms = parse_duration(v, "--timeout");
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "ulsmctl: %s: an unknown option, or "
				"one without its value\n", argv[i]);
			return usage(stderr, EXIT_USAGE);
		} else if (npos < 4) {
			pos[npos++] = argv[i];
		} else {
			return usage(stderr, EXIT_USAGE);
		}
	}
	if ((used & ~cmd->opts) || npos < cmd->min || npos > cmd->max ||
	    ((cmd->opts & O_PROG) && !pid_arg == !name)) {
		if (pid_arg && name)
			fprintf(stderr, "ulsmctl: -p or -n, not both\n");
		return usage(stderr, EXIT_USAGE);
	}
	if (opt.timeout_ms <= 0)
		die("--timeout must be longer than 0");
	if (opt.interval_ms < 10)
		die("-i must be 10ms or longer");
	if (!strcmp(cmd->name, "top") && opt.json && !opt.once) {
		fprintf(stderr, "ulsmctl: top: --json with --once\n");
		return usage(stderr, EXIT_USAGE);
	}
	for (int i = 0; i < npos; i++)
		check_word(pos[i], cmd->name);
	if ((opt.out && !*opt.out) || (opt.ctf && !*opt.ctf))
		die("-o and --ctf take a path (-o - for standard output)");
	if (opt.hooks)
		check_word(opt.hooks, "--hooks");
	if (!strcmp(cmd->name, "record") && (npos ? 0 : !opt.hooks)) {
		fprintf(stderr, "ulsmctl: record: a GLOB, --hooks SET, or "
			"both\n");
		return usage(stderr, EXIT_USAGE);
	}
	if (!strcmp(cmd->name, "record") && !opt.out && (!opt.ctf ||
							 opt.json)) {
		fprintf(stderr, "ulsmctl: record: -o FILE, or -o - for "
			"standard output\n");
		return usage(stderr, EXIT_USAGE);
	}
	if (opt.ctf && opt.out && !strcmp(opt.out, "-") && !opt.json) {
		fprintf(stderr, "ulsmctl: record: --ctf converts a file: not "
			"with -o -\n");
		return usage(stderr, EXIT_USAGE);
	}
	/* -n reads the directory: that too is under the deadline. */
	backstop_arm(now_ms() + opt.timeout_ms + BACKSTOP_MS);
	if (!strcmp(cmd->name, "list"))
		return cmd_list();
	pid = pick(pid_arg, name);
	if (!strcmp(cmd->name, "record"))
		return cmd_record(pid, npos ? pos[0] : NULL);
	if (!strcmp(cmd->name, "show"))
		return cmd_show(pid);
	if (!strcmp(cmd->name, "top"))
		return cmd_top(pid);
	if (!strcmp(cmd->name, "clear"))
		return cmd_change(pid, "clear\n", "clear", "clear");
	if (!strcmp(cmd->name, "switch")) {
		snprintf(req, sizeof(req), "switch %s %s\n", pos[0], pos[1]);
		return cmd_change(pid, req, "switch", pos[0]);
	}
	snprintf(req, sizeof(req), "toggle %s %s %s\n", pos[0], pos[1],
		 pos[2]);
	return cmd_change(pid, req, "toggle", pos[1]);
}
