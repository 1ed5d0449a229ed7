// SPDX-License-Identifier: MIT
/*
 * The socket directory (docs/control.md, "The security model"), checked
 * as the endpoint checks it: opened without following a link, owned by
 * this user, mode 0700.
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

/* Its descriptor, or -1 when it does not exist; dies when it is not safe. */
int open_dir(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	int fd;

	if (xdg && xdg[0] == '/')
		snprintf(dir, sizeof(dir), "%s/ulsm", xdg);
	else
		snprintf(dir, sizeof(dir), "/tmp/ulsm-%u",
			 (unsigned int)geteuid());
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -1;
	if (fd < 0)
		die("%s: %s%s", dir, strerror(errno),
		    errno == ELOOP ? " (a symbolic link: refused)" : "");
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
