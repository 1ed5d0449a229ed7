// SPDX-License-Identifier: MIT
/*
 * value.c - an argument's word read by its parameter's type, and UTF-8,
 * for every output of ulsm-trace (output.h).
 *
 * The recorder writes a parameter's bytes zero-extended into a 64-bit
 * word and its type beside its name (version 3): kind in the high four
 * bits, size in bytes in the low four (docs/tracepoints.md, "The file").
 * The reader refuses a type the recorder never writes (reader.c,
 * bad_types()), so a signed or unsigned size here is 1, 2, 4 or 8 and a
 * float's 4 or 8.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "output.h"

enum value_kind value_kind(uint8_t type, bool str, unsigned int *size)
{
	unsigned int kind = type >> 4, sz = type & 15;

	*size = sz && sz < 8 ? sz : 8;
	if (str)
		return VAL_STRING;
	switch (kind) {
	case 1: case 4:		/* signed, and an enum of a signed type */
		return VAL_SIGNED;
	case 2: case 5:		/* unsigned */
		return VAL_UNSIGNED;
	case 3:
		return VAL_BOOL;
	case 6: case 9:		/* a pointer; another type's first bytes */
		return VAL_HEX;
	case 7:
		*size = sz == 4 ? 4 : 8;
		return VAL_FLOAT;
	default:		/* untyped (versions 1 and 2) */
		*size = 8;
		return VAL_SIGNED;
	}
}

void value_of(const struct arg *a, struct value *v)
{
	uint64_t w = a->w;
	unsigned int size;
	enum value_kind kind = value_kind(a->type, a->str, &size);

	*v = (struct value){ .kind = kind, .size = size };
	if (v->size < 8)
		w &= (UINT64_C(1) << (8 * v->size)) - 1;
	switch (v->kind) {
	case VAL_SIGNED:
		if (v->size < 8 && w >> (8 * v->size - 1))
			w |= ~((UINT64_C(1) << (8 * v->size)) - 1);
		v->i = (int64_t)w;
		break;
	case VAL_BOOL:
		v->u = w != 0;
		break;
	case VAL_FLOAT:
		if (v->size == 4) {
			uint32_t u = (uint32_t)w;
			float f;

			memcpy(&f, &u, 4);
			v->d = f;
		} else {
			memcpy(&v->d, &w, 8);
		}
		break;
	default:
		v->u = w;
	}
}

void print_number(FILE *out, const struct value *v, bool json)
{
	switch (v->kind) {
	case VAL_SIGNED:
		fprintf(out, "%" PRId64, v->i);
		return;
	case VAL_UNSIGNED:
		fprintf(out, "%" PRIu64, v->u);
		return;
	case VAL_BOOL:
		fputs(v->u ? "true" : "false", out);
		return;
	case VAL_HEX:
		fprintf(out, json ? "\"0x%" PRIx64 "\"" : "0x%" PRIx64, v->u);
		return;
	case VAL_FLOAT:
		/* JSON has no NaN or infinity: a string then. */
		fprintf(out, json && !isfinite(v->d) ? "\"%.*g\"" : "%.*g",
			v->size == 4 ? 9 : 17, v->d);
		return;
	case VAL_STRING:
		break;
	}
}

size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	static const struct {
		unsigned char first, last, lo, hi;
		uint8_t len;
	} forms[] = {
		{ 0xc2, 0xdf, 0x80, 0xbf, 2 }, { 0xe0, 0xe0, 0xa0, 0xbf, 3 },
		{ 0xe1, 0xec, 0x80, 0xbf, 3 }, { 0xed, 0xed, 0x80, 0x9f, 3 },
		{ 0xee, 0xef, 0x80, 0xbf, 3 }, { 0xf0, 0xf0, 0x90, 0xbf, 4 },
		{ 0xf1, 0xf3, 0x80, 0xbf, 4 }, { 0xf4, 0xf4, 0x80, 0x8f, 4 },
	};

	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		uint8_t len = forms[f].len;
		uint32_t c;

		if (s[0] < forms[f].first || s[0] > forms[f].last)
			continue;
		if (n < len || s[1] < forms[f].lo || s[1] > forms[f].hi)
			return 0;
		c = s[0] & (0x7f >> len);
		for (uint8_t i = 1; i < len; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return 0;
			c = c << 6 | (s[i] & 0x3f);
		}
		*cp = c;
		return len;
	}
	return 0;
}
