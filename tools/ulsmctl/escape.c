// SPDX-License-Identifier: MIT
/*
 * Text from an endpoint, made safe for a terminal (ulsmctl(1), "Names
 * from the program"). A name, a description or an error message comes
 * from another process, which may want to move the cursor, retitle the
 * window or worse: an escape sequence begins with a C0 control (ESC), or
 * with a C1 control (CSI is U+009B, or the byte 0x9b to a terminal in an
 * 8-bit mode). So every C0 control, DEL, every C1 control (as UTF-8 or
 * as a bare byte) and every byte that is not UTF-8 is printed as \xNN,
 * and a backslash as \\, so that the printed text says which it was.
 * Valid UTF-8 for printable characters is printed as it is.
 */
#include <string.h>

#include "ulsmctl.h"

/* The length of the UTF-8 sequence of a printable character at @s, or 0. */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned int cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = s[0] & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < 0xa0 || (len == 3 && (cp < 0x800 ||
				       (cp >= 0xd800 && cp < 0xe000))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/*
 * One piece of @s (@n bytes left): what it prints as, into @out (at
 * least 5 bytes), its length there and the columns it takes; the bytes
 * of @s it stands for.
 */
static size_t piece(const unsigned char *s, size_t n, char *out,
		    size_t *olen, int *cols)
{
	static const char hex[] = "0123456789abcdef";
	size_t u;

	if (s[0] == '\\') {
		memcpy(out, "\\\\", 2);
		*olen = 2;
		*cols = 2;
		return 1;
	}
	if (s[0] >= 0x20 && s[0] < 0x7f) {
		out[0] = (char)s[0];
		*olen = 1;
		*cols = 1;
		return 1;
	}
	u = printable_utf8(s, n);
	if (u) {
		memcpy(out, s, u);
		*olen = u;
		*cols = 1;
		return u;
	}
	/* C1 as UTF-8 (0xc2 0x80-0x9f) is shown by its code point. */
	if (s[0] == 0xc2 && n > 1 && s[1] >= 0x80 && s[1] < 0xa0)
		s++, u = 2;
	else
		u = 1;
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[s[0] >> 4];
	out[3] = hex[s[0] & 15];
	*olen = 4;
	*cols = 4;
	return u;
}

void esc_put(FILE *f, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char out[8];
	size_t olen;
	int cols;

	while (len) {
		size_t used = piece(u, len, out, &olen, &cols);

		fwrite(out, 1, olen, f);
		u += used;
		len -= used;
	}
}

int esc_width(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	char out[8];
	size_t olen;
	long w = 0;
	int cols;

	while (len && w < 100000) {
		size_t used = piece(u, len, out, &olen, &cols);

		w += cols;
		u += used;
		len -= used;
	}
	return (int)w;
}

void esc_pad(FILE *f, const char *s, size_t len, int width)
{
	esc_put(f, s, len);
	for (int w = esc_width(s, len); w < width; w++)
		putc(' ', f);
}

char *esc_str(char *dst, size_t size, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t at = 0, olen;
	char out[8];
	int cols;

	while (len) {
		size_t used = piece(u, len, out, &olen, &cols);

		if (at + olen + 4 >= size) {
			memcpy(dst + at, "...", 3);	/* cut: said so */
			at += 3;
			break;
		}
		memcpy(dst + at, out, olen);
		at += olen;
		u += used;
		len -= used;
	}
	dst[at] = '\0';
	return dst;
}
