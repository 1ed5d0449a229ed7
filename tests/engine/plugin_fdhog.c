// SPDX-License-Identifier: MIT
/*
 * A plug-in for t_hostile whose constructor uses up every descriptor
 * before ulsm's constructor registers its sites (a priority runs it
 * first), and keeps them until told otherwise. Its sites follow the main
 * program's main_key, which is enabled before the plug-in is loaded: the
 * registration, which must patch them, cannot get a descriptor.
 */
#include <fcntl.h>
#include <unistd.h>

#include <ulsm/static_key.h>

DECLARE_STATIC_KEY_FALSE(main_key);

int fdhog_site(void);
int fdhog_held(void);
void fdhog_release(void);

static int fds[4096];
static int nfds;

__attribute__((constructor(101))) static void hog(void)
{
	int fd;

	while (nfds < 4096 && (fd = open("/dev/null", O_RDONLY)) >= 0)
		fds[nfds++] = fd;
}

int fdhog_held(void)
{
	return nfds;
}

void fdhog_release(void)
{
	while (nfds)
		close(fds[--nfds]);
}

int fdhog_site(void)
{
	return static_branch_unlikely(&main_key) ? 1 : 0;
}
