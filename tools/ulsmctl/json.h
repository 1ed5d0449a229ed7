/* SPDX-License-Identifier: MIT */
/*
 * A small JSON parser for what an endpoint replies (tools/ulsmctl/json.c).
 *
 * The reply comes from another process, which may be hostile: so the
 * parser is bounded (at most JSON_MAX_INPUT bytes, JSON_MAX_DEPTH levels
 * of nesting) and linear (each byte is looked at a constant number of
 * times, and the tree has at most one node per byte). Nothing is printed
 * from the reply's bytes: the tree is, either escaped for a terminal
 * (escape.c) or re-serialised compactly (json_write), so that a reply
 * cannot put raw control bytes on the user's screen.
 *
 *	struct json j;
 *	if (json_parse(&j, text, len, err, sizeof(err)))
 *		... err says what and at which byte ...
 *	const struct json_node *tp = json_get(&j, json_root(&j), "tracepoints");
 *	for (const struct json_node *t = json_first(&j, tp); t;
 *	     t = json_next(&j, t))
 *		... json_str(&j, json_get(&j, t, "name"), &len) ...
 *	json_free(&j);
 *
 * Strict JSON (RFC 8259): no raw control character in a string, no
 * trailing comma, one value and nothing but white space after it.
 */
#ifndef ULSMCTL_JSON_H
#define ULSMCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_INPUT	(1 << 20)	/* a reply's payload, at most */
#define JSON_MAX_DEPTH	32		/* the protocol nests 4 deep */

enum json_type {
	JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING,
	JSON_ARRAY, JSON_OBJECT,
};

/*
 * A value. Strings and numbers are in the tree's pool (strings decoded,
 * numbers as written); an object's members are its children, each with
 * its key in the pool.
 */
struct json_node {
	unsigned char type;
	unsigned int text, len;		/* string or number: in the pool */
	unsigned int key, klen;		/* a member's key: in the pool */
	unsigned int child;		/* the first child, or 0 */
	unsigned int next;		/* the next sibling, or 0 */
};

struct json {
	struct json_node *n;		/* n[0] unused: 0 is "none" */
	unsigned int nn, cap;
	char *pool;
	size_t plen;
};

int json_parse(struct json *j, const char *s, size_t len, char *err,
	       size_t errsize);
void json_free(struct json *j);

const struct json_node *json_root(const struct json *j);
const struct json_node *json_get(const struct json *j,
				 const struct json_node *obj, const char *key);
const struct json_node *json_first(const struct json *j,
				   const struct json_node *v);
const struct json_node *json_next(const struct json *j,
				  const struct json_node *v);

/* A member's key (not NUL-terminated; @len). */
const char *json_key(const struct json *j, const struct json_node *v,
		     size_t *len);
/* A string's bytes (not NUL-terminated; @len), or NULL for any other. */
const char *json_str(const struct json *j, const struct json_node *v,
		     size_t *len);
/* A number's value, or @def for anything else. */
double json_num(const struct json *j, const struct json_node *v, double def);
/* true, false, or -1 (absent or not a boolean). */
int json_bool(const struct json_node *v);

/* The value as compact JSON, every string escaped (control bytes too). */
void json_write(FILE *f, const struct json *j, const struct json_node *v);
/* A string as a JSON string. */
void json_write_str(FILE *f, const char *s, size_t len);

#endif /* ULSMCTL_JSON_H */
