/* SPDX-License-Identifier: MIT */
/*
 * ulsmctl - the client of the control endpoint (docs/control.md,
 * ulsmctl(1)). One job per file:
 *
 *	main.c		the command line
 *	msg.c		messages and the exit statuses
 *	clock.c		the monotonic clock and durations
 *	sockdir.c	the socket directory, found and checked as the
 *			endpoint's own rule says
 *	conn.c		a connection: the greeting, lines, counted bytes
 *	indent.c	a JSON reply, indented
 *	list.c		list: the programs it can reach
 *	ask.c		show, clear, switch, toggle: one request, one reply
 *	record.c	record: a recording streamed into a file
 *	convert.c	ulsm-trace run on a recording
 */
#ifndef ULSMCTL_H
#define ULSMCTL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define REPLY_MAX	(1 << 20)	/* a reply's payload (docs/control.md) */
#define CHUNK_MAX	(64 << 20)	/* a chunk of a recording */

/* msg.c */
extern const char *prog;
__attribute__((format(printf, 1, 2), noreturn))
void die(const char *fmt, ...);

/* clock.c */
long long now_ms(void);
long duration_ms(const char *s);

/* sockdir.c */
extern char dir[PATH_MAX];
int open_dir(void);

/* conn.c */
struct conn {
	int fd;
	char buf[4096];
	size_t len, off;
};

int conn_open(struct conn *c, int dfd, const char *name, int ms);
int read_line(struct conn *c, char *line, size_t size);
int read_bytes(struct conn *c, size_t n, FILE *out, char *mem);
int send_line(struct conn *c, const char *line);
char *reply(struct conn *c, const char *what);
void connect_pid(struct conn *c, const char *pid, int ms);

/* indent.c */
void print_indented(const char *s);

/* the commands */
int cmd_list(bool json);
int cmd_ask(const char *pid, const char *req, const char *what, bool json);
int cmd_record(const char *pid, const char *glob, long ms, const char *out,
	       bool json);

/* convert.c */
int convert(const char *from, const char *to);

#endif /* ULSMCTL_H */
