// SPDX-License-Identifier: MIT
/*
 * A request and its reply (docs/control.md, "The protocol"), read from
 * the connection: the reply's line parsed (head.c), then its n bytes.
 * What can be read without waiting is here too, for list, which asks
 * many programs at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ulsmctl.h"
#include "json.h"

int reply_read(struct conn *c, struct reply *r, size_t max)
{
	char line[1100];
	int ret = conn_line(c, line, sizeof(line));

	if (ret)
		return ret;
	ret = reply_head(line, r, max);
	if (ret || !r->ok)
		return ret;
	r->data = malloc(r->len + 1);
	if (!r->data)
		return -ENOMEM;
	ret = conn_read(c, r->data, r->len);
	if (ret) {
		reply_free(r);
		return ret;
	}
	r->data[r->len] = '\0';
	return 0;
}

void reply_free(struct reply *r)
{
	free(r->data);
	r->data = NULL;
}

/* What a failed wait or read means, for a message. */
const char *conn_why(int err, char *buf, size_t size, long timeout_ms)
{
	if (err == -ETIMEDOUT)
		snprintf(buf, size, "no answer within %.3g s (the deadline, "
			 "--timeout)", timeout_ms / 1000.0);
	else if (err == -ECONNRESET)
		snprintf(buf, size, "the connection was closed");
	else if (err == -EMSGSIZE)
		snprintf(buf, size, "a line too long");
	else if (err == -EPROTO)
		snprintf(buf, size, "a reply that does not follow the "
			 "protocol");
	else if (err == -EINTR)
		snprintf(buf, size, "interrupted");
	else
		snprintf(buf, size, "%s", strerror(-err));
	return buf;
}

/*
 * What a request needs that an older endpoint does not have: said with
 * its refusal (EINVAL, a request it does not know).
 */
static const char *newer;

void ctl_connect(struct conn *c, pid_t pid, long long deadline)
{
	char name[64], line[256], why[300];
	int dfd = open_dir(), ret;

	if (dfd < 0)
		die("%s does not exist: no program runs its control "
		    "endpoint%s", dir, dir_note);
	snprintf(name, sizeof(name), "ulsm.%d.sock", (int)pid);
	ret = conn_connect(c, dfd, name, deadline);
	close(dfd);
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		die("process %d: no control endpoint (%s/%s: %s; is it "
		    "running with ULSM_CONTROL=1?)%s", (int)pid, dir, name,
		    strerror(-ret), dir_note);
	if (ret)
		die("process %d: %s/%s: %s", (int)pid, dir, name,
		    conn_why(ret, why, sizeof(why), opt.timeout_ms));
	ret = conn_line(c, line, sizeof(line));
	if (ret)
		die("process %d: no greeting: %s", (int)pid,
		    conn_why(ret, why, sizeof(why), opt.timeout_ms));
	if (greeting_check(line, why, sizeof(why)))
		die("process %d: %s", (int)pid, why);
}

void ctl_request(struct conn *c, const char *req, const char *what,
		 struct reply *r)
{
	char why[300];
	int ret = conn_send(c, req);

	if (!ret)
		ret = reply_read(c, r, REPLY_MAX);
	if (ret)
		die("%s: %s", what, conn_why(ret, why, sizeof(why),
					     opt.timeout_ms));
	if (!r->ok)
		die("%s: %s (%s)%s", what, r->msg, strerror(-r->err),
		    r->err == -EINVAL && newer ? newer : "");
}

void ctl_newer(const char *what)
{
	newer = what;
}

void ctl_ask(struct conn *c, const char *req, const char *what,
	     struct json *j)
{
	struct reply r;
	char err[128];

	ctl_request(c, req, what, &r);
	*j = (struct json){ .nn = 0 };
	if (r.len && json_parse(j, r.data, r.len, err, sizeof(err)))
		die("%s: the reply is not JSON that ulsmctl reads (%s)", what,
		    err);
	reply_free(&r);
}
