// SPDX-License-Identifier: MIT
/*
 * The control endpoint's output buffers (src/control/json.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "control/json.h"

void buf_add(struct buf *b, const void *s, size_t n)
{
	if (b->over || !n)
		return;
	if (n > b->max - b->len) {
		b->over = true;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = ulsm_reallocarray(b->p, cap, 1);
		if (!p) {
			b->over = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp)) {
		b->over = true;		/* never cut a line in two */
		return;
	}
	buf_add(b, tmp, (size_t)n);
}

void buf_free(struct buf *b)
{
	ulsm_free(b->p);
	*b = (struct buf){ .max = b->max };
}

void buf_json(struct buf *b, const char *s)
{
	if (!s) {
		buf_add(b, "null", 4);
		return;
	}
	buf_add(b, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			buf_add(b, e, 2);
		} else if (c < 0x20 || c == 0x7f) {
			buf_printf(b, "\\u%04x", c);
		} else {
			buf_add(b, s, 1);
		}
	}
	buf_add(b, "\"", 1);
}

void buf_bool(struct buf *b, bool v)
{
	if (v)
		buf_add(b, "true", 4);
	else
		buf_add(b, "false", 5);
}

void buf_field(struct buf *b, const char *key, const char *s)
{
	buf_add(b, ",\"", 2);
	buf_add(b, key, strlen(key));
	buf_add(b, "\":", 2);
	buf_json(b, s);
}

void json_sep(struct json_list *l)
{
	if (l->n++)
		buf_add(l->b, ",", 1);
}

void json_item(struct json_list *l, const char *name)
{
	json_sep(l);
	buf_add(l->b, "{\"name\":", 8);
	buf_json(l->b, name);
}
