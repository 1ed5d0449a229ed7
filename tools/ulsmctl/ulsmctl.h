/* SPDX-License-Identifier: MIT */
/*
 * ulsmctl - the client of the control endpoint (docs/control.md,
 * ulsmctl(1)). One job per file:
 *
 *	main.c		the command line
 *	msg.c		messages and the exit statuses
 *	clock.c		the monotonic clock and durations
 *	signals.c	the backstop timer, and the signals that stop a
 *			recording
 *	escape.c	text from a program, made safe for a terminal
 *	sockdir.c	the socket directory, found and checked as the
 *			endpoint's own rule says
 *	pick.c		the program a command is for: -p PID, -n NAME
 *	conn.c		a connection: lines and counted bytes, every wait
 *			bounded by a deadline
 *	reply.c		the protocol: the greeting, a request's reply
 *	json.c		a bounded, linear JSON parser, and a compact
 *			writer (json.h)
 *	list.c		list: the programs it can reach
 *	show.c		show: tables of what the program's library knows
 *	change.c	switch, toggle, clear: one change, one line
 *	top.c		top: rates from two counts
 *	record.c	record: a recording streamed into a file
 *	output.c	-o: a temporary renamed when complete, cleaned up
 *			on every way out
 *	convert.c	ulsm-trace run on a recording
 *
 * Everything that comes from a program is bounded (a line, a reply, a
 * chunk), waited for until a deadline only, and printed escaped.
 */
#ifndef ULSMCTL_H
#define ULSMCTL_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define REPLY_MAX	(1 << 20)	/* a reply's payload, at most */
#define CHUNK_MAX	(64 << 20)	/* a chunk of a recording */
#define TIMEOUT_MS	10000		/* --timeout's default */
#define END_WAIT_MS	5000		/* after stop, for the end chunk */
#define BACKSTOP_MS	1000		/* the backstop, after a deadline */

/* Exit statuses (ulsmctl(1), "EXIT STATUS"). */
#define EXIT_FAIL	1
#define EXIT_USAGE	2
#define EXIT_PARTIAL	3	/* a recording kept, but not to its end */

/* The command line (main.c). */
struct options {
	bool json, all, once;
	long interval_ms;		/* top -i */
	long duration_ms;		/* -d; -1: none */
	long timeout_ms;		/* --timeout */
	const char *out;		/* -o */
	const char *hooks;		/* record --hooks */
	const char *ctf;		/* record --ctf */
};
extern struct options opt;

/* msg.c */
extern const char *prog;
__attribute__((format(printf, 1, 2), noreturn))
void die(const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void warn(const char *fmt, ...);

/* clock.c */
long long now_ms(void);
long duration_ms(const char *s);

/* signals.c */
void backstop_arm(long long at_ms);
void backstop_disarm(void);
void sig_setup_record(void);
int sig_stops(void);
extern int sig_acked;
const sigset_t *sig_wait_mask(void);
void sig_child_mask(void);

/* escape.c: \xNN for every control byte, C1 and non-UTF-8 byte */
void esc_put(FILE *f, const char *s, size_t len);
int esc_width(const char *s, size_t len);
void esc_pad(FILE *f, const char *s, size_t len, int width);
char *esc_str(char *dst, size_t size, const char *s, size_t len);

/* sockdir.c */
extern char dir[PATH_MAX];
extern char dir_note[PATH_MAX + 100];	/* why XDG_RUNTIME_DIR was not used */
int open_dir(void);
pid_t sock_name_pid(const char *name);

/* pick.c */
pid_t pick(const char *pid_arg, const char *name);

/* conn.c */
struct conn {
	int fd;
	long long deadline;
	size_t len, off;
	char buf[65536];
};

int conn_connect_once(struct conn *c, int dfd, const char *name,
		      long long deadline);
int conn_connect(struct conn *c, int dfd, const char *name,
		 long long deadline);
void conn_close(struct conn *c);
int conn_fill(struct conn *c);
int conn_take_line(struct conn *c, char *line, size_t size);
size_t conn_take(struct conn *c, size_t max, const char **p);
int fd_wait(int fd, short events, long long deadline, int acked);
int conn_wait(int fd, short events, long long deadline);
int conn_line(struct conn *c, char *line, size_t size);
int conn_read(struct conn *c, void *dst, size_t n);
int conn_send(struct conn *c, const char *s);

/* head.c and reply.c */
struct reply {
	bool ok;
	int err;		/* !ok: the program's errno, negative */
	char msg[600];		/* !ok: its message, escaped */
	char *data;		/* ok: the payload, NUL-terminated */
	size_t len;
};

int greeting_check(const char *line, char *why, size_t size);
int reply_head(const char *line, struct reply *r, size_t max);
int reply_read(struct conn *c, struct reply *r, size_t max);
void reply_free(struct reply *r);
const char *conn_why(int err, char *buf, size_t size, long timeout_ms);
void ctl_connect(struct conn *c, pid_t pid, long long deadline);
void ctl_request(struct conn *c, const char *req, const char *what,
		 struct reply *r);
void ctl_newer(const char *what);
struct json;
void ctl_ask(struct conn *c, const char *req, const char *what,
	     struct json *j);

/* the commands */
int cmd_list(void);
int cmd_show(pid_t pid);
int cmd_change(pid_t pid, const char *req, const char *what,
	       const char *name);
int cmd_record(pid_t pid, const char *glob);
int cmd_top(pid_t pid);

/* output.c */
struct output {
	const char *path;	/* -o as given; "-": standard output */
	int fd;
	bool in_place;		/* written as it is: "-" or a device */
	bool pollable;		/* a pipe or a terminal: writes wait */
	char tmp[PATH_MAX];	/* else: renamed to @path when complete */
};

void out_open(struct output *o, const char *path);
int out_write(struct output *o, const void *p, size_t n, long long deadline);
int out_commit(struct output *o);
void out_discard(struct output *o);
int out_temp(char *path, size_t size, const char *dirpath, const char *base);
void out_unlink(const char *path);
void out_cleanup_now(void);

/* convert.c */
int convert(const char *const *args, int out_fd);

#endif /* ULSMCTL_H */
