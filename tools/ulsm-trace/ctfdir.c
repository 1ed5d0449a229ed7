// SPDX-License-Identifier: MIT
/*
 * ctfdir.c - the directory a CTF trace is written into (ctf.h), all or
 * nothing.
 *
 * A trace is read by whatever finds a "metadata" file and streams beside
 * it: a directory left half written (a full disk, a refused write, a
 * stream of a thread missing) would be read as a trace with fewer events,
 * and nothing would say so. So the files are written into a fresh
 * directory beside the one asked for (".NAME.XXXXXX", made by mkdtemp:
 * nobody else's), which rename(2) then puts in its place in one step. On
 * any failure the fresh directory is emptied and removed.
 *
 * The directory asked for must not exist, or be empty: rename(2) itself
 * refuses to replace a directory that holds anything (ENOTEMPTY) or a
 * file (ENOTDIR), so a directory of the user's, or another trace, is
 * never overwritten, even one made while we wrote. (Killed meanwhile,
 * ulsm-trace leaves its hidden ".NAME.XXXXXX" behind, never a trace.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctf.h"

/* The sink: files in the fresh directory, by its descriptor. */
struct dir_sink {
	struct ctf_sink sink;
	int fd;
};

static FILE *dir_create(struct ctf_sink *sink, const char *name)
{
	struct dir_sink *d = (struct dir_sink *)sink;
	int fd = openat(d->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			0666);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "wb");
	if (!f)
		close(fd);
	return f;
}

static int dir_close(struct ctf_sink *sink, FILE *f)
{
	int err = ferror(f) ? -EIO : 0;

	(void)sink;
	errno = 0;
	if (fclose(f) && !err)
		err = errno ? -errno : -EIO;
	return err;
}

__attribute__((format(printf, 4, 5)))
static int say(int err, char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
	return err;
}

/* Whether @path is a directory with nothing in it. */
static bool empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

int ctf_dir_usable(const char *dir, char *why, size_t why_len)
{
	struct stat st;

	if (!*dir)
		return say(-EINVAL, why, why_len, "an empty directory name");
	if (!lstat(dir, &st)) {
		if (!S_ISDIR(st.st_mode))
			return say(-EEXIST, why, why_len, "exists, and is not "
				   "a directory: the trace goes into a new "
				   "directory");
		if (!empty_dir(dir))
			return say(-EEXIST, why, why_len, "exists and is not "
				   "empty: the trace goes into a new (or an "
				   "empty) directory");
		return 0;
	}
	if (errno != ENOENT)
		return say(-errno, why, why_len, "%s", strerror(errno));
	return 0;
}

/* "a/b/c/" -> the parent "a/b" (or "."), and the last name "c". */
static int split_path(const char *dir, char **parent, char **base)
{
	size_t len = strlen(dir), b;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (b = len; b && dir[b - 1] != '/'; b--)
		;
	*base = strndup(dir + b, len - b);
	if (!b)
		*parent = strdup(".");
	else if (b == 1)
		*parent = strdup("/");
	else
		*parent = strndup(dir, b - 1);
	if (!*base || !*parent) {
		free(*base);
		free(*parent);
		return -ENOMEM;
	}
	return 0;
}

/* Everything in our fresh directory (only what we wrote), then it. */
static void remove_fresh(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(tmp);
}

int ctf_dir_write(const char *dir, const struct trace *t,
		  const struct ctf_opts *o, char *why, size_t why_len)
{
	struct dir_sink d = { { dir_create, dir_close }, -1 };
	char *parent, *base, *tmp = NULL;
	mode_t mask;
	int err = ctf_dir_usable(dir, why, why_len);

	if (err)
		return err;
	if (split_path(dir, &parent, &base))
		return say(-ENOMEM, why, why_len, "out of memory");
	if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, "/")) {
		err = say(-EINVAL, why, why_len, "not a name for a new "
			  "directory");
		goto out;
	}
	if (asprintf(&tmp, "%s/.%s.XXXXXX", parent, base) < 0) {
		tmp = NULL;
		err = say(-ENOMEM, why, why_len, "out of memory");
		goto out;
	}
	if (!mkdtemp(tmp)) {
		err = say(-errno, why, why_len, "cannot make a directory in "
			  "%s: %s", parent, strerror(errno));
		goto out;
	}
	d.fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d.fd < 0) {
		err = say(-errno, why, why_len, "%s: %s", tmp, strerror(errno));
		goto fail;
	}
	err = ctf_write(t, o, &d.sink);
	if (err) {
		say(err, why, why_len, "cannot write the trace: %s",
		    strerror(-err));
		goto fail;
	}
	/* mkdtemp's 0700 made what mkdir(2) would have made. */
	mask = umask(0);
	umask(mask);
	if (fchmod(d.fd, 0777 & ~mask) || rename(tmp, dir)) {
		err = -errno;
		if (err == -ENOTEMPTY || err == -EEXIST || err == -ENOTDIR)
			say(err, why, why_len, "was made by someone else "
			    "meanwhile, and is not empty: the trace was not "
			    "written");
		else
			say(err, why, why_len, "%s", strerror(-err));
		goto fail;
	}
	goto out;
fail:
	remove_fresh(tmp);
out:
	if (d.fd >= 0)
		close(d.fd);
	free(tmp);
	free(parent);
	free(base);
	return err;
}
