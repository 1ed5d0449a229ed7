// SPDX-License-Identifier: MIT
/*
 * A JSON reply, readable: a line per member and element.
 */
#include <stdbool.h>
#include <stdio.h>

#include "ulsmctl.h"

/* Indent @s: a line per member and element, two spaces per level. */
void print_indented(const char *s)
{
	int depth = 0;
	bool str = false;

	for (; *s; s++) {
		char ch = *s;

		if (str) {
			putchar(ch);
			if (ch == '\\' && s[1])
				putchar(*++s);
			else if (ch == '"')
				str = false;
			continue;
		}
		switch (ch) {
		case '"':
			str = true;
			putchar(ch);
			break;
		case '{': case '[':
			putchar(ch);
			if (s[1] == '}' || s[1] == ']') {
				putchar(*++s);
				break;
			}
			printf("\n%*s", 2 * ++depth, "");
			break;
		case '}': case ']':
			printf("\n%*s%c", 2 * --depth > 0 ? 2 * depth : 0, "",
			       ch);
			break;
		case ',':
			printf(",\n%*s", 2 * depth, "");
			break;
		case ':':
			printf(": ");
			break;
		case '\n':
			break;
		default:
			putchar(ch);
		}
	}
	putchar('\n');
}
