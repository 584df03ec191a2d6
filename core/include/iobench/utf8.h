/*
 * utf8.h - the one UTF-8 decoder of the core (units.c, iob_quote) and of
 * the output plugins (textbuf.c): header-only, so a plugin gets it without
 * linking the core.
 */
#ifndef IOBENCH_UTF8_H
#define IOBENCH_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the valid UTF-8 sequence at s, its code point in *cp;
 * 0 at the terminating NUL and for a byte that starts none (stray
 * continuation, overlong, surrogate, beyond U+10FFFF, cut off by the NUL). */
static inline size_t iob_utf8_at(const unsigned char *s, uint32_t *cp)
{
	size_t n;
	uint32_t c;
	if (s[0] == 0) {
		return 0;
	} else if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1fu;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0fu;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0u) != 0x80u) /* also stops at the terminating NUL */
			return 0;
		c = (c << 6) | (s[i] & 0x3fu);
	}
	if (n == 3 && (c < 0x800u || (c >= 0xd800u && c <= 0xdfffu)))
		return 0;
	if (n == 4 && (c < 0x10000u || c > 0x10ffffu))
		return 0;
	*cp = c;
	return n;
}

#endif
