// SPDX-License-Identifier: MIT
/*
 * The socket directory (docs/control.md, "The security model"), found
 * by the endpoint's own rule (src/control/sockdir.c) and checked as the
 * endpoint checks it.
 *
 * It is $XDG_RUNTIME_DIR/ulsm when XDG_RUNTIME_DIR is an absolute path
 * to a directory of this user that nobody else may write (stat: it may
 * be reached through a link, as the library allows), else
 * /tmp/ulsm-<euid>. A runtime directory of another user (an environment
 * kept across su or sudo) could have its ulsm/ renamed under us by that
 * user, and the library does not use it either: both look in the same
 * place. The directory itself is then opened without following a link
 * and checked through its descriptor: a directory of this user, mode
 * 0700, or it is refused, never used.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ulsmctl.h"

char dir[PATH_MAX];
char dir_note[PATH_MAX + 100];

static const char *runtime_dir(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	dir_note[0] = '\0';
	if (!xdg || !*xdg)
		return NULL;
	if (xdg[0] != '/') {
		snprintf(dir_note, sizeof(dir_note), " (XDG_RUNTIME_DIR is "
			 "not an absolute path: not used)");
		return NULL;
	}
	if (stat(xdg, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(dir_note, sizeof(dir_note), " (XDG_RUNTIME_DIR=%.*s "
			 "is not a directory of uid %u that only it may "
			 "write: not used)", PATH_MAX - 1, xdg,
			 (unsigned int)geteuid());
		return NULL;
	}
	return xdg;
}

int open_dir(void)
{
	const char *xdg = runtime_dir();
	struct stat st;
	int fd;

	if (xdg)
		snprintf(dir, sizeof(dir), "%.*s/ulsm", PATH_MAX - 6, xdg);
	else
		snprintf(dir, sizeof(dir), "/tmp/ulsm-%u",
			 (unsigned int)geteuid());
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -1;
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		/* O_DIRECTORY on a link gives either: tell them apart. */
		bool link = !lstat(dir, &st) && S_ISLNK(st.st_mode);

		die("%s is %s: refused", dir, link ? "a symbolic link" :
		    "not a directory");
	}
	if (fd < 0)
		die("%s: %s", dir, strerror(errno));
	if (fstat(fd, &st))
		die("%s: %s", dir, strerror(errno));
	if (st.st_uid != geteuid())
		die("%s belongs to uid %u, not to you: refused", dir,
		    (unsigned int)st.st_uid);
	if (st.st_mode & 077)
		die("%s has mode %04o (group or others have access): refused",
		    dir, (unsigned int)(st.st_mode & 07777));
	return fd;
}

pid_t sock_name_pid(const char *name)
{
	long pid = 0;
	const char *p;

	/* ulsm.<pid>.sock exactly, the pid as the endpoint writes it. */
	if (strncmp(name, "ulsm.", 5) || name[5] < '1' || name[5] > '9')
		return 0;
	for (p = name + 5; *p >= '0' && *p <= '9'; p++) {
		pid = pid * 10 + (*p - '0');
		if (pid > 0x7fffffff)
			return 0;
	}
	return strcmp(p, ".sock") ? 0 : (pid_t)pid;
}
