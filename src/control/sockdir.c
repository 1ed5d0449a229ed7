// SPDX-License-Identifier: MIT
/*
 * The first two guards of the control endpoint (docs/control.md, "The
 * security model"): the socket's directory, opened without following a
 * link and checked through its descriptor, and the socket, made 0600 in
 * it.
 *
 * The directory is $XDG_RUNTIME_DIR/ulsm when XDG_RUNTIME_DIR is an
 * absolute path to a directory of this user that nobody else may write
 * (the XDG base directory rules), else /tmp/ulsm-<euid>: a runtime
 * directory of another user (an environment kept across su or sudo)
 * would let that user rename ulsm/ under us. ulsmctl applies the same
 * rule, so that both find the same place.
 *
 * The socket is bound by its path, so that ss and lsof show where it is,
 * and then looked up through the checked descriptor: a socket that is
 * not there was bound somewhere else (the directory was replaced in
 * between) and is refused. Neither the directory nor its parent can be
 * renamed by anyone else: the parent is the user's own runtime
 * directory, or /tmp, whose sticky bit keeps others from renaming what
 * is ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/endpoint.h"

/* Whether $XDG_RUNTIME_DIR may hold our directory (see above). */
static const char *runtime_dir(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (!xdg || xdg[0] != '/')
		return NULL;
	if (stat(xdg, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022)) {
		ulsm_debug("control: XDG_RUNTIME_DIR=%s is not a directory "
			   "of uid %u that only it may write: not used", xdg,
			   (unsigned int)geteuid());
		return NULL;
	}
	return xdg;
}

int ctl_open_dir(char *dir, size_t size, int *fd)
{
	const char *xdg = runtime_dir();
	uid_t euid = geteuid();
	struct stat st;
	int n, d, ret;

	if (xdg)
		n = snprintf(dir, size, "%s/ulsm", xdg);
	else
		n = snprintf(dir, size, "/tmp/ulsm-%u", (unsigned int)euid);
	if (n < 0 || (size_t)n >= size)
		return ulsm_error(-ENAMETOOLONG, "control: the socket "
				  "directory's path is too long");
	if (mkdir(dir, 0700) && errno != EEXIST)
		return ulsm_error(-errno, "control: cannot create %s: %s",
				  dir, strerror(errno));
	d = ulsm_sys_open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (d == -ELOOP || d == -ENOTDIR) {
		/* O_DIRECTORY on a link gives either: tell them apart. */
		bool link = !lstat(dir, &st) && S_ISLNK(st.st_mode);

		return ulsm_error(link ? -ELOOP : -ENOTDIR,
				  "control: %s is %s: refused", dir,
				  link ? "a symbolic link" : "not a directory");
	}
	if (d < 0)
		return ulsm_error(d, "control: cannot open %s: %s", dir,
				  strerror(-d));
	ret = ulsm_sys_fstat(d, &st);
	if (ret)
		ret = ulsm_error(ret, "control: cannot stat %s: %s", dir,
				 strerror(-ret));
	else if (!S_ISDIR(st.st_mode))
		ret = ulsm_error(-ENOTDIR, "control: %s is not a directory: "
				 "refused", dir);
	else if (st.st_uid != euid)
		ret = ulsm_error(-EPERM, "control: %s belongs to uid %u, not "
				 "to this process's %u: refused", dir,
				 (unsigned int)st.st_uid, (unsigned int)euid);
	else if (st.st_mode & 077)
		ret = ulsm_error(-EPERM, "control: %s has mode %04o: group "
				 "or others have access: refused (it must be "
				 "0700)", dir, (unsigned int)(st.st_mode & 07777));
	if (ret) {
		ulsm_sys_close(d);
		return ret;
	}
	*fd = d;
	return 0;
}

static int sock_addr(struct sockaddr_un *sa, const char *dir,
		     const char *name)
{
	int n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", dir,
			 name);

	if (n < 0 || (size_t)n >= sizeof(sa->sun_path))
		return ulsm_error(-ENAMETOOLONG, "control: %s/%s: too long "
				  "for a socket's path", dir, name);
	return 0;
}

/*
 * Whether the file @name in @dirfd is a socket of ours on which nobody
 * listens: 1 (stale: it may be replaced), 0 (someone listens), or a
 * negative errno with a message (not a socket, another owner's).
 */
static int stale_socket(int dirfd, const char *name, const char *dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int s, r;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 1 :
		       ulsm_error(-errno, "control: %s/%s: %s", dir, name,
				  strerror(errno));
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return ulsm_error(-EEXIST, "control: %s/%s exists and is not "
				  "a socket of this user: refused", dir, name);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s",
		 dirfd, name);
	s = ulsm_sys_socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0)
		return ulsm_error(s, "control: socket: %s", strerror(-s));
	r = ulsm_sys_connect(s, (struct sockaddr *)&sa, sizeof(sa));
	ulsm_sys_close(s);
	if (!r)
		return 0;
	return r == -ECONNREFUSED ? 1 :
	       ulsm_error(r, "control: %s/%s: %s", dir, name, strerror(-r));
}

/* Whether the socket just bound at @name is in @dirfd, and ours. */
static int bound_here(int dirfd, const char *name, const char *dir)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return ulsm_error(-EPERM, "control: %s changed while the "
				  "socket was bound: refused", dir);
	return 0;
}

int ctl_bind_socket(int dirfd, const char *name, const char *dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s, ret = sock_addr(&sa, dir, name);

	if (ret)
		return ret;
	s = ulsm_sys_socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (s < 0)
		return ulsm_error(s, "control: socket: %s", strerror(-s));
	for (int tries = 0;; tries++) {
		ret = ulsm_sys_bind(s, (struct sockaddr *)&sa, sizeof(sa));
		if (!ret)
			break;
		if (ret == -EADDRINUSE && tries == 0) {
			ret = stale_socket(dirfd, name, dir);
			if (ret == 1) {
				unlinkat(dirfd, name, 0);
				continue;
			}
			if (!ret)
				ret = ulsm_error(-EADDRINUSE, "control: a "
						 "program listens on %s/%s",
						 dir, name);
		} else {
			ret = ulsm_error(ret, "control: cannot bind %s/%s: %s",
					 dir, name, strerror(-ret));
		}
		ulsm_sys_close(s);
		return ret;
	}
	ret = bound_here(dirfd, name, dir);
	if (ret) {
		ulsm_sys_close(s);
		return ret;
	}
	/* The directory is 0700: nobody else reached it in between. */
	if (fchmodat(dirfd, name, 0600, 0))
		ret = ulsm_error(-errno, "control: %s/%s: %s", dir, name,
				 strerror(errno));
	else if ((ret = ulsm_sys_listen(s, 16)))
		ret = ulsm_error(ret, "control: listen on %s/%s: %s", dir,
				 name, strerror(-ret));
	if (ret) {
		unlinkat(dirfd, name, 0);
		ulsm_sys_close(s);
		return ret;
	}
	return s;
}
