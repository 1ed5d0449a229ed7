// SPDX-License-Identifier: MIT
/*
 * A bounded, linear JSON parser and a compact writer (json.h says why).
 *
 * The parser descends recursively, at most JSON_MAX_DEPTH deep; each
 * value becomes one node, appended to an array that grows by doubling
 * (amortised linear), and each string is decoded once into the pool. A
 * node never holds a pointer (the array moves as it grows): children and
 * siblings are indices, 0 for none. A member lookup walks one object's
 * members, so a printer that looks up a fixed set of keys per object
 * stays linear in the reply.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

struct parser {
	struct json *j;
	const char *s, *end, *p;
	char *err;
	size_t errsize;
	int depth;
};

static int fail(struct parser *ps, const char *what)
{
	if (ps->err)
		snprintf(ps->err, ps->errsize, "%s at byte %zu", what,
			 (size_t)(ps->p - ps->s));
	return -EINVAL;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* A new node: its index, or 0 (no memory). */
static unsigned int new_node(struct json *j, unsigned char type)
{
	if (j->nn == j->cap) {
		unsigned int cap = j->cap ? 2 * j->cap : 64;
		struct json_node *n = reallocarray(j->n, cap, sizeof(*n));

		if (!n)
			return 0;
		j->n = n;
		j->cap = cap;
	}
	j->n[j->nn] = (struct json_node){ .type = type };
	return j->nn++;
}

/*
 * The pool holds every decoded string and number; each is no longer than
 * its text in the input, so the pool never outgrows the input, and is
 * allocated once.
 */
static void pool_put(struct json *j, const void *p, size_t n)
{
	memcpy(j->pool + j->plen, p, n);
	j->plen += n;
}

static void put_utf8(struct json *j, uint32_t cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	pool_put(j, b, n);
}

static int hex4(struct parser *ps, uint32_t *v)
{
	*v = 0;
	if (ps->end - ps->p < 4)
		return fail(ps, "a cut \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (uint32_t)(c - 'A' + 10);
		else
			return fail(ps, "a bad \\u escape");
	}
	return 0;
}

/*
 * A string (ps->p after its opening quote), decoded into the pool: its
 * offset and length there. A \u escape of a lone surrogate becomes
 * U+FFFD, as a decoder that replaces does.
 */
static int parse_string(struct parser *ps, unsigned int *text,
			unsigned int *len)
{
	struct json *j = ps->j;
	size_t start = j->plen;

	for (;;) {
		const char *q = ps->p;
		unsigned char c;

		/* A run of plain bytes, copied at once. */
		while (q < ps->end && *q != '"' && *q != '\\' &&
		       (unsigned char)*q >= 0x20)
			q++;
		pool_put(j, ps->p, (size_t)(q - ps->p));
		ps->p = q;
		if (ps->p == ps->end)
			return fail(ps, "an unterminated string");
		c = (unsigned char)*ps->p++;
		if (c == '"')
			break;
		if (c < 0x20) {
			ps->p--;
			return fail(ps, "a control character in a string");
		}
		if (ps->p == ps->end)
			return fail(ps, "an unterminated string");
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': case '\\': case '/':
			pool_put(j, &c, 1);
			break;
		case 'b': pool_put(j, "\b", 1); break;
		case 'f': pool_put(j, "\f", 1); break;
		case 'n': pool_put(j, "\n", 1); break;
		case 'r': pool_put(j, "\r", 1); break;
		case 't': pool_put(j, "\t", 1); break;
		case 'u': {
			uint32_t cp, lo;

			if (hex4(ps, &cp))
				return -EINVAL;
			if (cp >= 0xd800 && cp < 0xdc00 &&
			    ps->end - ps->p >= 6 && ps->p[0] == '\\' &&
			    ps->p[1] == 'u') {
				const char *save = ps->p;

				ps->p += 2;
				if (hex4(ps, &lo))
					return -EINVAL;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					     (lo - 0xdc00);
				else
					ps->p = save;
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			put_utf8(j, cp);
			break;
		}
		default:
			ps->p--;
			return fail(ps, "a bad escape in a string");
		}
	}
	*text = (unsigned int)start;
	*len = (unsigned int)(j->plen - start);
	return 0;
}

/* A number, as RFC 8259 writes it: kept as text, checked here. */
static int parse_number(struct parser *ps, unsigned int node)
{
	const char *q = ps->p;

	if (q < ps->end && *q == '-')
		q++;
	if (q < ps->end && *q == '0') {
		q++;
	} else if (q < ps->end && *q >= '1' && *q <= '9') {
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
	} else {
		return fail(ps, "a bad number");
	}
	if (q < ps->end && *q == '.') {
		const char *d = ++q;

		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
		if (q == d)
			return fail(ps, "a bad number");
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		const char *d;

		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		d = q;
		while (q < ps->end && *q >= '0' && *q <= '9')
			q++;
		if (q == d)
			return fail(ps, "a bad number");
	}
	ps->j->n[node].text = (unsigned int)ps->j->plen;
	ps->j->n[node].len = (unsigned int)(q - ps->p);
	pool_put(ps->j, ps->p, (size_t)(q - ps->p));
	ps->p = q;
	return 0;
}

static int parse_value(struct parser *ps, unsigned int *out);

/* An array or an object (ps->p after its bracket or brace). */
static int parse_container(struct parser *ps, unsigned int node, bool obj)
{
	struct json *j = ps->j;
	char close = obj ? '}' : ']';
	unsigned int last = 0;

	if (++ps->depth > JSON_MAX_DEPTH)
		return fail(ps, "nested too deep");
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		unsigned int key = 0, klen = 0, child;

		skip_ws(ps);
		if (obj) {
			if (ps->p == ps->end || *ps->p != '"')
				return fail(ps, "a member without a key");
			ps->p++;
			if (parse_string(ps, &key, &klen))
				return -EINVAL;
			skip_ws(ps);
			if (ps->p == ps->end || *ps->p != ':')
				return fail(ps, "a member without ':'");
			ps->p++;
		}
		if (parse_value(ps, &child))
			return -EINVAL;
		j->n[child].key = key;
		j->n[child].klen = klen;
		if (last)
			j->n[last].next = child;
		else
			j->n[node].child = child;
		last = child;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			ps->depth--;
			return 0;
		}
		return fail(ps, obj ? "an object not closed" :
				      "an array not closed");
	}
}

static int literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return fail(ps, "an unexpected character");
	ps->p += n;
	return 0;
}

static int parse_value(struct parser *ps, unsigned int *out)
{
	unsigned int node;
	char c;

	skip_ws(ps);
	if (ps->p == ps->end)
		return fail(ps, "a value missing");
	c = *ps->p;
	switch (c) {
	case '{': case '[':
		node = new_node(ps->j, c == '{' ? JSON_OBJECT : JSON_ARRAY);
		if (!node)
			return fail(ps, "out of memory");
		ps->p++;
		*out = node;
		return parse_container(ps, node, c == '{');
	case '"':
		node = new_node(ps->j, JSON_STRING);
		if (!node)
			return fail(ps, "out of memory");
		ps->p++;
		*out = node;
		return parse_string(ps, &ps->j->n[node].text,
				    &ps->j->n[node].len);
	case 't': case 'f': case 'n':
		node = new_node(ps->j, c == 't' ? JSON_TRUE : c == 'f' ?
				JSON_FALSE : JSON_NULL);
		if (!node)
			return fail(ps, "out of memory");
		*out = node;
		return literal(ps, c == 't' ? "true" : c == 'f' ? "false" :
			       "null");
	default:
		node = new_node(ps->j, JSON_NUMBER);
		if (!node)
			return fail(ps, "out of memory");
		*out = node;
		return parse_number(ps, node);
	}
}

int json_parse(struct json *j, const char *s, size_t len, char *err,
	       size_t errsize)
{
	struct parser ps = { j, s, s + len, s, err, errsize, 0 };
	unsigned int root;

	*j = (struct json){ .nn = 0 };
	if (len > JSON_MAX_INPUT)
		return fail(&ps, "a reply larger than 1 MiB");
	j->pool = malloc(len + 1);
	new_node(j, JSON_NULL);		/* n[0]: the "none" of indices */
	if (!j->pool || j->nn != 1) {
		json_free(j);
		return fail(&ps, "out of memory");
	}
	if (parse_value(&ps, &root)) {
		json_free(j);
		return -EINVAL;
	}
	skip_ws(&ps);
	if (ps.p != ps.end) {
		fail(&ps, "more after the value");
		json_free(j);
		return -EINVAL;
	}
	return 0;
}

void json_free(struct json *j)
{
	free(j->n);
	free(j->pool);
	*j = (struct json){ .nn = 0 };
}

const struct json_node *json_root(const struct json *j)
{
	return j->nn > 1 ? &j->n[1] : NULL;
}

const struct json_node *json_first(const struct json *j,
				   const struct json_node *v)
{
	if (!v || (v->type != JSON_ARRAY && v->type != JSON_OBJECT) ||
	    !v->child)
		return NULL;
	return &j->n[v->child];
}

const struct json_node *json_next(const struct json *j,
				  const struct json_node *v)
{
	return v && v->next ? &j->n[v->next] : NULL;
}

const struct json_node *json_get(const struct json *j,
				 const struct json_node *obj, const char *key)
{
	size_t n = strlen(key);

	if (!obj || obj->type != JSON_OBJECT)
		return NULL;
	for (const struct json_node *m = json_first(j, obj); m;
	     m = json_next(j, m))
		if (m->klen == n && !memcmp(j->pool + m->key, key, n))
			return m;
	return NULL;
}

const char *json_key(const struct json *j, const struct json_node *v,
		     size_t *len)
{
	*len = v->klen;
	return j->pool + v->key;
}

const char *json_str(const struct json *j, const struct json_node *v,
		     size_t *len)
{
	if (!v || v->type != JSON_STRING)
		return NULL;
	*len = v->len;
	return j->pool + v->text;
}

double json_num(const struct json *j, const struct json_node *v, double def)
{
	char buf[64];

	if (!v || v->type != JSON_NUMBER || v->len >= sizeof(buf))
		return def;
	memcpy(buf, j->pool + v->text, v->len);
	buf[v->len] = '\0';
	return strtod(buf, NULL);
}

int json_bool(const struct json_node *v)
{
	return !v ? -1 : v->type == JSON_TRUE ? 1 :
	       v->type == JSON_FALSE ? 0 : -1;
}

/* The length of a valid UTF-8 sequence at @s (of @n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/*
 * Every control character, DEL and C1 (U+0080-U+009F) as \u00XX; a byte
 * that is not UTF-8 as \u00XX too (its value, read as Latin-1): the
 * output is valid UTF-8, and holds no byte that a terminal acts on.
 */
void json_write_str(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;

	putc('"', f);
	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		size_t n;

		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
			i++;
		} else if (c >= 0x20 && c < 0x7f) {
			putc(c, f);
			i++;
		} else if (c >= 0x80 && (n = utf8_len(u + i, len - i)) &&
			   !(c == 0xc2 && u[i + 1] < 0xa0)) {
			fwrite(u + i, 1, n, f);
			i += n;
		} else if (c == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 &&
			   u[i + 1] < 0xa0) {
			fprintf(f, "\\u%04x", u[i + 1]);	/* C1 */
			i += 2;
		} else {
			fprintf(f, "\\u%04x", c);
			i++;
		}
	}
	putc('"', f);
}

/* Iterative, so that the writer needs no depth limit of its own. */
void json_write(FILE *f, const struct json *j, const struct json_node *v)
{
	const struct json_node *stack[JSON_MAX_DEPTH + 1];
	int depth = 0;
	bool first = true;

	if (!v) {
		fputs("null", f);
		return;
	}
	for (;;) {
		if (!first)
			putc(',', f);
		first = false;
		if (depth && stack[depth - 1]->type == JSON_OBJECT) {
			json_write_str(f, j->pool + v->key, v->klen);
			putc(':', f);
		}
		switch (v->type) {
		case JSON_NULL: fputs("null", f); break;
		case JSON_FALSE: fputs("false", f); break;
		case JSON_TRUE: fputs("true", f); break;
		case JSON_NUMBER:
			fwrite(j->pool + v->text, 1, v->len, f);
			break;
		case JSON_STRING:
			json_write_str(f, j->pool + v->text, v->len);
			break;
		default:
			putc(v->type == JSON_OBJECT ? '{' : '[', f);
			if (v->child && depth < JSON_MAX_DEPTH) {
				stack[depth++] = v;
				v = &j->n[v->child];
				first = true;
				continue;
			}
			putc(v->type == JSON_OBJECT ? '}' : ']', f);
		}
		/* Up while this was the last child. */
		while (!v->next && depth) {
			v = stack[--depth];
			putc(v->type == JSON_OBJECT ? '}' : ']', f);
		}
		if (!depth)
			return;
		v = &j->n[v->next];
	}
}
