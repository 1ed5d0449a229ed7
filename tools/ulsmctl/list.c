// SPDX-License-Identifier: MIT
/*
 * ulsmctl list: the programs whose endpoint this user can reach, each
 * asked hello; a socket nobody listens on is removed.
 *
 * Only an endpoint's socket is looked at: a file named exactly
 * ulsm.<pid>.sock that is a socket (lstat: not a link to one) of this
 * user. Connecting to anything else fails too (a FIFO, a regular file:
 * ECONNREFUSED), and that is no sign of a crashed program: such a file
 * is said and left alone. A socket is removed only when connect() says
 * that nobody listens on it (ECONNREFUSED).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ulsmctl.h"
#include "json.h"

/*
 * A socket of ours on which nobody listens: a crashed program's, or the
 * image's before an exec. Removed only if it is still the same file: a
 * program may have replaced it since (the directory is ours alone, but
 * a program of ours may start between the look and the unlink).
 */
static void remove_stale(int dfd, const char *name, const struct stat *was)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    st.st_dev != was->st_dev || st.st_ino != was->st_ino)
		return;
	if (!unlinkat(dfd, name, 0))
		warn("removed the stale socket %s/%s", dir, name);
}

int cmd_list(void)
{
	int dfd = open_dir(), n = 0;
	DIR *d;
	struct dirent *e;

	if (dfd < 0) {
		if (opt.json)
			printf("[]\n");
		return 0;
	}
	d = fdopendir(dup(dfd));
	if (!d)
		die("%s: %s", dir, strerror(errno));
	if (opt.json)
		printf("[");
	while ((e = readdir(d))) {
		struct conn c;
		struct json j;
		char line[256], why[300];
		struct stat st;
		pid_t pid;
		int ret;

		pid = sock_name_pid(e->d_name);
		if (!pid)
			continue;
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
			warn("%s/%s is not a socket of yours: left alone", dir,
			     e->d_name);
			continue;
		}
		ret = conn_connect(&c, dfd, e->d_name, now_ms() + 1000);
		if (ret == -ECONNREFUSED) {
			remove_stale(dfd, e->d_name, &st);
			continue;
		}
		if (ret)
			continue;
		if (conn_line(&c, line, sizeof(line)) ||
		    greeting_check(line, why, sizeof(why))) {
			conn_close(&c);
			continue;
		}
		ctl_ask(&c, "hello\n", "hello", &j);
		conn_close(&c);
		if (opt.json) {
			printf("%s", n ? "," : "");
			json_write(stdout, &j, json_root(&j));
		} else {
			size_t len = 0;
			const char *cmd = json_str(&j, json_get(&j,
					json_root(&j), "command"), &len);

			if (!n)
				printf("%-8s %s\n", "PID", "COMMAND");
			printf("%-8d ", pid);
			esc_put(stdout, cmd ? cmd : "", len);
			putchar('\n');
		}
		json_free(&j);
		n++;
	}
	closedir(d);
	close(dfd);
	if (opt.json)
		printf("]\n");
	return 0;
}
