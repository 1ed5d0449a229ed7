// SPDX-License-Identifier: MIT
/*
 * Blob sizes with checked arithmetic. A module whose blob requests would
 * take a total past INT_MAX (the request itself, or the alignment of its
 * offset), or that asks for a negative size, is refused: it does not come
 * up, none of its sizes becomes an offset, the totals stay as they were,
 * and ulsm_lsm_init() still returns 0 with the other modules up, as when
 * a module's init fails. The refusal is explained under ULSM_DEBUG.
 *
 * Two modules each asking 0x7ffffff0 bytes of cred blob used to make
 * ulsm_lsm_blob_size() return -32 (a signed overflow, which UBSan
 * reports).
 *
 * Besides the test modules (tests/lsm/test_lsm.h), this program has three
 * modules without hooks (they need no slot) whose blob requests each case
 * sets: big1, big2, and bigx, which is exclusive. Each case runs in a
 * child, a set being initialised once per process.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "tap.h"
#include "test_lsm.h"

static const struct lsm_id big_ids[] = {
	{ "big1", 801 }, { "big2", 802 }, { "bigx", 803 },
};
static struct lsm_blob_sizes big1_blobs, big2_blobs, bigx_blobs;

DEFINE_LSM(big1) = { .name = "big1", .blobs = &big1_blobs, .id = &big_ids[0] };
DEFINE_LSM(big2) = { .name = "big2", .blobs = &big2_blobs, .id = &big_ids[1] };
DEFINE_LSM(bigx) = {
	.name = "bigx", .flags = LSM_FLAG_EXCLUSIVE, .blobs = &bigx_blobs,
	.id = &big_ids[2],
};

struct result {
	int ret;
	char list[256];
	int size[ULSM_BLOB_TYPES];
	struct lsm_blob_sizes alpha, beta, big1, big2, bigx;
	int big2_active, bigx_active;
};

struct blobs_case {
	const char *order;
	struct lsm_blob_sizes big1, big2, bigx;
};

static void blobs_child(void *arg)
{
	const struct blobs_case *c = arg;
	struct result r;

	memset(&r, 0, sizeof(r));
	tl_defaults();
	big1_blobs = c->big1;
	big2_blobs = c->big2;
	bigx_blobs = c->bigx;
	r.ret = ulsm_lsm_init(&tl_hook_set, c->order);
	snprintf(r.list, sizeof(r.list), "%s", ulsm_lsm_list(&tl_hook_set));
	for (int t = 0; t < ULSM_BLOB_TYPES; t++)
		r.size[t] = ulsm_lsm_blob_size(&tl_hook_set, t);
	r.alpha = tl_blobs_alpha;
	r.beta = tl_blobs_beta;
	r.big1 = big1_blobs;
	r.big2 = big2_blobs;
	r.bigx = bigx_blobs;
	r.big2_active = ulsm_lsm_module_active(&tl_hook_set, "big2");
	r.bigx_active = ulsm_lsm_module_active(&tl_hook_set, "bigx");
	child_send(&r, sizeof(r));
}

static struct result run(const struct blobs_case *c)
{
	struct result r;

	if (in_child(c->order, blobs_child, (void *)(uintptr_t)c, &r,
		     sizeof(r)) != sizeof(r)) {
		memset(&r, 0, sizeof(r));
		r.ret = -9999;
		snprintf(r.list, sizeof(r.list), "(the child died)");
	}
	return r;
}

static bool same(const struct lsm_blob_sizes *a, const struct lsm_blob_sizes *b)
{
	return a->lbs_cred == b->lbs_cred && a->lbs_file == b->lbs_file &&
	       a->lbs_inode == b->lbs_inode && a->lbs_task == b->lbs_task;
}

static void show(const char *what, const struct lsm_blob_sizes *b)
{
	diag("  %s: cred %d, file %d, inode %d, task %d", what, b->lbs_cred,
	     b->lbs_file, b->lbs_inode, b->lbs_task);
}

static void sizes_are(const struct result *r, int cred, int file, int inode,
		      int task, const char *why)
{
	if (!ok(r->size[ULSM_BLOB_CRED] == cred && r->size[ULSM_BLOB_FILE] == file &&
		r->size[ULSM_BLOB_INODE] == inode && r->size[ULSM_BLOB_TASK] == task,
		"  %s: totals cred %d, file %d, inode %d, task %d", why, cred,
		file, inode, task))
		diag("  got cred %d, file %d, inode %d, task %d",
		     r->size[ULSM_BLOB_CRED], r->size[ULSM_BLOB_FILE],
		     r->size[ULSM_BLOB_INODE], r->size[ULSM_BLOB_TASK]);
}

/* @c in a child: init returns 0, with the modules @list up. */
static struct result comes_up(const struct blobs_case *c, const char *list,
			      const char *why)
{
	struct result r = run(c);

	ok(r.ret == 0 && !strcmp(r.list, list), "%s (%s, %d)", why, r.list,
	   r.ret);
	return r;
}

/* The child of the ULSM_DEBUG case: its stderr goes to the parent. */
static int debug_child(void)
{
	struct blobs_case c = {
		.order = "big1,big2",
		.big1 = { .lbs_cred = 0x7ffffff0 },
		.big2 = { .lbs_cred = 0x7ffffff0 },
	};

	tl_defaults();
	big1_blobs = c.big1;
	big2_blobs = c.big2;
	return ulsm_lsm_init(&tl_hook_set, c.order) ? 1 : 0;
}

/* debug_child, run again with ULSM_DEBUG=1 (read at start-up), its stderr
 * to the parent. */
static void debug_exec(void *self)
{
	static char arg[] = "--debug-child";
	const char *emu = getenv("ULSM_EMU");
	char *argv[] = { self, arg, NULL };

	dup2(child_fd(), 2);
	setenv("ULSM_DEBUG", "1", 1);
	if (emu && *emu) {
		/* Cross-built: run it the way the test runner does. */
		char cmd[4096];

		snprintf(cmd, sizeof(cmd), "exec %s %s %s", emu, (char *)self,
			 arg);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	} else {
		execv(self, argv);
	}
	_exit(127);
}

static void explained(char *self)
{
	static char out[65536];

	in_child("ULSM_DEBUG=1", debug_exec, self, out, sizeof(out));
	out[sizeof(out) - 1] = '\0';
	ok(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0,
	   "ULSM_DEBUG=1: init returns 0");
	ok(strstr(out, "big2") && strstr(out, "EOVERFLOW") &&
	   strstr(out, "cred"), "  and says why big2 is off");
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		if (strstr(line, "big2"))
			diag("  %s", line);
}

int main(int argc, char **argv)
{
	struct blobs_case c;
	struct result r;

	if (argc > 1 && !strcmp(argv[1], "--debug-child"))
		return debug_child();

	/* The case. */
	c = (struct blobs_case){
		.order = "big1,big2",
		.big1 = { .lbs_cred = 0x7ffffff0 },
		.big2 = { .lbs_cred = 0x7ffffff0, .lbs_file = 24 },
	};
	r = comes_up(&c, "capa,big1,omega", "two modules of 0x7ffffff0 bytes "
		     "of cred: the second is refused, init returns 0");
	is_int(r.big2_active, 0, "  big2 is not active");
	sizes_are(&r, 0x7ffffff0, 0, 0, 0, "big1's alone");
	ok(same(&r.big2, &c.big2), "  big2's requests are untouched (not offsets)");
	is_int(r.big1.lbs_cred, 0, "  big1's cred offset is 0");
	explained(argv[0]);

	/* The alignment of the offset overflows, not the sum of the sizes. */
	c = (struct blobs_case){
		.order = "big1,big2",
		.big1 = { .lbs_file = 0x7ffffff9 },
		.big2 = { .lbs_file = 1 },
	};
	r = comes_up(&c, "capa,big1,omega", "0x7ffffff9 bytes, then 1 byte "
		     "aligned to a pointer: refused");
	sizes_are(&r, 0, 0x7ffffff9, 0, 0, "big1's alone");
	ok(same(&r.big2, &c.big2), "  big2's request is untouched");

	/* INT_MAX is a size; one byte more is not. */
	c = (struct blobs_case){
		.order = "big1,big2",
		.big1 = { .lbs_inode = INT_MAX },
		.big2 = { .lbs_inode = 1 },
	};
	r = comes_up(&c, "capa,big1,omega", "an INT_MAX inode blob comes up, "
		     "one byte more does not");
	sizes_are(&r, 0, 0, INT_MAX, 0, "INT_MAX");

	/*
	 * A module refused for its last blob type changes none of the
	 * others, and the modules before and after it keep their offsets.
	 */
	c = (struct blobs_case){
		.order = "alpha,big1,big2,beta",
		.big1 = { .lbs_cred = 8, .lbs_file = 24, .lbs_task = 0x7ffffff0 },
		.big2 = { .lbs_cred = 8, .lbs_file = 8, .lbs_task = 0x7ffffff0 },
	};
	r = comes_up(&c, "capa,alpha,big1,beta", "a module whose task blob "
		     "overflows, between others: refused");
	ok(same(&r.big2, &c.big2), "  none of big2's requests became an offset");
	if (!same(&r.big2, &c.big2))
		show("big2", &r.big2);
	sizes_are(&r, 16, 44, 0, 0x7ffffff0, "the others' alone");
	ok(r.alpha.lbs_cred == 0 && r.alpha.lbs_file == 0,
	   "  alpha's offsets: cred 0, file 0");
	ok(r.big1.lbs_cred == 8 && r.big1.lbs_file == 16 && r.big1.lbs_task == 0,
	   "  big1's offsets: cred 8, file 16, task 0");
	is_int(r.beta.lbs_file, 40, "  beta's file offset: 40, after big1's");

	/* A negative size is a mistake: its "offset" would point before the blob. */
	c = (struct blobs_case){
		.order = "big1,big2",
		.big1 = { .lbs_file = 8 },
		.big2 = { .lbs_cred = 8, .lbs_file = -8 },
	};
	r = comes_up(&c, "capa,big1,omega", "a negative blob size: refused");
	ok(same(&r.big2, &c.big2), "  big2's requests are untouched");
	sizes_are(&r, 0, 8, 0, 0, "big1's alone");

	/* A refused exclusive module does not keep the next one out. */
	c = (struct blobs_case){
		.order = "big1,bigx,gamma",
		.big1 = { .lbs_cred = 0x7ffffff0 },
		.bigx = { .lbs_cred = 0x7ffffff0 },
	};
	r = comes_up(&c, "capa,big1,gamma,omega", "an exclusive module "
		     "refused for its blobs: the next exclusive one comes up");
	is_int(r.bigx_active, 0, "  bigx is not active");
	return done_testing();
}
