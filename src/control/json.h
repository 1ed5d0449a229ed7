/* SPDX-License-Identifier: MIT */
/*
 * src/control/json.h - the control endpoint's output buffers: bytes that
 * grow up to a bound, and JSON strings escaped into them. A buffer that
 * something did not fit into is marked @over and takes nothing more, so
 * that a reply is whole or refused, never cut.
 */
#ifndef ULSM_SRC_CONTROL_JSON_H
#define ULSM_SRC_CONTROL_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *p;
	size_t len, cap, max;
	bool over;
};

void buf_add(struct buf *b, const void *s, size_t n);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);
/* @s escaped, in quotes (NULL: null). */
void buf_json(struct buf *b, const char *s);
/* "true" or "false". */
void buf_bool(struct buf *b, bool v);

/* ,"@key":@s, with @s as buf_json() writes it. */
void buf_field(struct buf *b, const char *key, const char *s);

/* The items of a JSON array, written one at a time into @b. */
struct json_list {
	struct buf *b;
	int n;
};

/* The comma before each item of @l but the first. */
void json_sep(struct json_list *l);
/* The next item of @l, opened: {"name":@name, as buf_json() writes it. */
void json_item(struct json_list *l, const char *name);

#endif /* ULSM_SRC_CONTROL_JSON_H */
