/* SPDX-License-Identifier: MIT */
/*
 * output.h - what ulsm-trace's outputs share: an argument's value read by
 * its parameter's type (value.c), well-formed UTF-8, and the outputs
 * themselves (text.c, json.c; CTF in ctf.h).
 *
 * One reading of a word for every output, so that a value is the same
 * number in the text, the JSON and the CTF trace: a signed parameter of
 * fewer than 8 bytes is sign-extended from its width, an unsigned one
 * masked to it, a float's bits are the word's low 4 bytes; a word of a
 * file without types (versions 1 and 2) is a signed 64-bit integer.
 */
#ifndef ULSM_TRACE_OUTPUT_H
#define ULSM_TRACE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reader.h"

/* How an argument reads, from its type (enum ulsm_tp_type). */
enum value_kind {
	VAL_SIGNED,	/* integers and enums of a signed type; untyped words */
	VAL_UNSIGNED,	/* integers and enums of an unsigned type */
	VAL_BOOL,
	VAL_HEX,	/* pointers, and other types' first bytes */
	VAL_FLOAT,	/* float (size 4) and double (size 8) */
	VAL_STRING,	/* the recorder's text of a char * */
};

struct value {
	enum value_kind kind;
	unsigned int size;	/* bytes: an integer's width, a float's 4 or 8 */
	int64_t i;		/* VAL_SIGNED */
	uint64_t u;		/* VAL_UNSIGNED, VAL_HEX; VAL_BOOL: 0 or 1 */
	double d;		/* VAL_FLOAT */
};

/*
 * value_kind - how a parameter of @type reads
 * @type: enum ulsm_tp_type, 0 when the file does not say
 * @str:  the event's word is a string (the recorder's text)
 * @size: set to the width in bytes (1, 2, 4 or 8; a float's 4 or 8)
 *
 * Return: its kind. The event's own flags win over the name's type: a
 * string word is a string whatever the type says, and a type that says
 * string over a word that is not one reads as an untyped word.
 */
enum value_kind value_kind(uint8_t type, bool str, unsigned int *size);
/* @a's word as value_kind() says it reads (not for strings). */
void value_of(const struct arg *a, struct value *v);
/* A number as text (@json false) or as JSON (pointers and NaN quoted). */
void print_number(FILE *out, const struct value *v, bool json);

/*
 * utf8_seq - the length of the well-formed UTF-8 sequence at @s (at most
 * @n bytes), or 0 (overlong forms, surrogates and code points past
 * U+10FFFF are not: the Unicode Standard, table 3-7). *@cp gets its code
 * point.
 */
size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp);

void print_text(FILE *out, const struct trace *t);
/*
 * A name (of a tracepoint, a thread, a command) as the text shows it: one
 * field of its line, visible characters as they are, \\ for a backslash,
 * \xNN for any other byte, "" for an empty name.
 */
void text_str(FILE *out, const char *str, size_t len);
void print_json(FILE *out, const struct trace *t);

#endif
