/*
 * pattern.c - data patterns as pure functions of the file offset
 * (iobench/pattern.h).
 */
#include "iobench/pattern.h"
#include "iobench/os.h"
#include "iobench/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TEXT_LINE 64u
#define TEXT_LINES 95u /* content repeats every 95 lines */
#define TEXT_PERIOD (TEXT_LINE * TEXT_LINES)

static unsigned char text_table[TEXT_PERIOD];
static int text_ready; /* iob_once: streams may fill text buffers at once */

static void text_init(void)
{
	for (unsigned line = 0; line < TEXT_LINES; line++) {
		unsigned char *l = text_table + line * TEXT_LINE;
		l[0] = 'E';
		for (unsigned pos = 1; pos < TEXT_LINE - 1; pos++)
			l[pos] = (unsigned char)(0x20 + (line + pos * 7u) % 95u);
		l[TEXT_LINE - 1] = '\n';
	}
}

static inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline uint64_t random_word(uint64_t seed, uint64_t index)
{
	return mix64(seed ^ mix64(index));
}

uint8_t iob_pattern_label(const struct iob_pattern *p)
{
	uint8_t b;
	switch (p->kind) {
	case IOB_PAT_ZERO:
		b = 0x00;
		break;
	case IOB_PAT_ONES:
		b = 0xff;
		break;
	case IOB_PAT_TEXT:
		b = 0x45;
		break;
	case IOB_PAT_RANDOM:
		b = 0x30;
		break;
	case IOB_PAT_BYTE:
	default:
		b = p->byte;
		break;
	}
	return p->complement ? (uint8_t)~b : b;
}

int iob_pattern_is_constant(const struct iob_pattern *p)
{
	return p->kind == IOB_PAT_ZERO || p->kind == IOB_PAT_ONES || p->kind == IOB_PAT_BYTE;
}

static void fill_random(uint64_t seed, unsigned char *buf, size_t len, uint64_t off)
{
	size_t i = 0;
	/* head: up to the next 8-byte boundary of the file offset */
	while (i < len && ((off + i) & 7u)) {
		uint64_t w = random_word(seed, (off + i) >> 3);
		buf[i] = (unsigned char)(w >> (8 * ((off + i) & 7u)));
		i++;
	}
	for (; i + 8 <= len; i += 8) {
		uint64_t w = random_word(seed, (off + i) >> 3);
		memcpy(buf + i, &w, 8); /* little-endian byte order defines the pattern */
	}
	for (; i < len; i++) {
		uint64_t w = random_word(seed, (off + i) >> 3);
		buf[i] = (unsigned char)(w >> (8 * ((off + i) & 7u)));
	}
}

static void fill_text(unsigned char *buf, size_t len, uint64_t off)
{
	iob_once(&text_ready, text_init);
	size_t pos = (size_t)(off % TEXT_PERIOD), done = 0;
	while (done < len) {
		size_t n = TEXT_PERIOD - pos;
		if (n > len - done)
			n = len - done;
		memcpy(buf + done, text_table + pos, n);
		done += n;
		pos = 0;
	}
}

void iob_pattern_fill(const struct iob_pattern *p, void *vbuf, size_t len, uint64_t off)
{
	unsigned char *buf = vbuf;
	switch (p->kind) {
	case IOB_PAT_ZERO:
		memset(buf, 0x00, len);
		break;
	case IOB_PAT_ONES:
		memset(buf, 0xff, len);
		break;
	case IOB_PAT_BYTE:
		memset(buf, p->byte, len);
		break;
	case IOB_PAT_TEXT:
		fill_text(buf, len, off);
		break;
	case IOB_PAT_RANDOM:
		fill_random(p->seed, buf, len, off);
		break;
	}
	if (p->complement) {
		size_t i = 0;
		for (; i + 8 <= len; i += 8) {
			uint64_t w;
			memcpy(&w, buf + i, 8);
			w = ~w;
			memcpy(buf + i, &w, 8);
		}
		for (; i < len; i++)
			buf[i] = (unsigned char)~buf[i];
	}
}

size_t iob_pattern_check(const struct iob_pattern *p, const void *buf, size_t len, uint64_t off, void *scratch,
			 size_t *first, uint8_t *expected, uint8_t *found)
{
	iob_pattern_fill(p, scratch, len, off);
	if (memcmp(buf, scratch, len) == 0)
		return 0;
	const unsigned char *a = buf, *e = scratch;
	size_t bad = 0;
	for (size_t i = 0; i < len; i++) {
		if (a[i] != e[i]) {
			if (bad == 0) {
				*first = i;
				*expected = e[i];
				*found = a[i];
			}
			bad++;
		}
	}
	return bad;
}

static int parse_hex_byte(const char *s, uint8_t *out)
{
	if (strncasecmp(s, "0x", 2) == 0)
		s += 2;
	if (!isxdigit((unsigned char)s[0]) || (s[1] && !isxdigit((unsigned char)s[1])) || (s[1] && s[2]))
		return -EINVAL;
	*out = (uint8_t)strtoul(s, NULL, 16);
	return 0;
}

int iob_pattern_parse(const char *text, struct iob_pattern *out, char *err, size_t errlen)
{
	struct iob_pattern p = {0};
	const char *s = text ? text : "";
	if (*s == '~') {
		p.complement = 1;
		s++;
	}
	if (strcmp(s, "zero") == 0 || strcmp(s, "zeros") == 0)
		p.kind = IOB_PAT_ZERO;
	else if (strcmp(s, "ones") == 0)
		p.kind = IOB_PAT_ONES;
	else if (strcmp(s, "text") == 0)
		p.kind = IOB_PAT_TEXT;
	else if (strcmp(s, "random") == 0)
		p.kind = IOB_PAT_RANDOM;
	else if (strncmp(s, "byte:", 5) == 0 && parse_hex_byte(s + 5, &p.byte) == 0)
		p.kind = IOB_PAT_BYTE;
	else if (strncmp(s, "char:", 5) == 0 && s[5] && !s[6]) {
		p.kind = IOB_PAT_BYTE;
		p.byte = (uint8_t)s[5];
	} else {
		snprintf(err, errlen,
			 "unknown pattern '%s' (use zero, ones, text, random, byte:0xNN, char:C, ~ prefix to complement)",
			 IOB_Q(text));
		return -EINVAL;
	}
	p.seed = out->seed;
	*out = p;
	return 0;
}

void iob_pattern_name(const struct iob_pattern *p, char *buf, size_t len)
{
	const char *neg = p->complement ? "~" : "";
	switch (p->kind) {
	case IOB_PAT_ZERO:
		snprintf(buf, len, "%szero", neg);
		break;
	case IOB_PAT_ONES:
		snprintf(buf, len, "%sones", neg);
		break;
	case IOB_PAT_TEXT:
		snprintf(buf, len, "%stext", neg);
		break;
	case IOB_PAT_RANDOM:
		snprintf(buf, len, "%srandom", neg);
		break;
	case IOB_PAT_BYTE:
		snprintf(buf, len, "%sbyte:0x%02x", neg, p->byte);
		break;
	}
}
