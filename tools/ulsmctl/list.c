// SPDX-License-Identifier: MIT
/*
 * ulsmctl list: the programs whose endpoint this user can reach, each
 * asked hello; a socket nobody listens on is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ulsmctl.h"
#include "json.h"

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
		int pid, ret;

		if (sscanf(e->d_name, "ulsm.%d.sock", &pid) != 1)
			continue;
		ret = conn_connect(&c, dfd, e->d_name, now_ms() + 1000);
		if (ret == -ECONNREFUSED) {
			/* Nobody listens: a crashed program's, or the image
			 * before an exec's. */
			if (!unlinkat(dfd, e->d_name, 0))
				fprintf(stderr, "%s: removed the stale socket "
					"%s/%s\n", prog, dir, e->d_name);
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
