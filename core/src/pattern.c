/*
 * pattern.c - data patterns as pure functions of the file offset
 * (iobench/pattern.h).
 */
#include "iobench/pattern.h"
#include "iobench/os.h"
#include "iobench/units.h"
#include "iobench/verify.h"

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

/*
 * The random pattern (docs/profiles.md "Data content"): a table of random
 * 64-bit words made once (a full mix of each word's index), and each 4 KiB
 * unit of the file (offsets [4096 u, 4096 u + 4096)) a slice of it XORed
 * with one word: the unit's key is a full mix of the seed and u; the slice
 * starts at word key mod RAND_TABLE_WORDS, the XOR word is a mix of the key.
 * Word j of the unit (bytes 8 j to 8 j + 7, little-endian) is
 * table[start + j] ^ xor.  A pure function of (seed, offset) made at memory
 * speed (a load, an XOR and a store per 8 bytes; two mixes per 4 KiB): the
 * pattern is made inside the timed write, where fio fills its buffer once.
 * No two units share a key (but by a 64-bit collision), so no two 4 KiB
 * blocks are equal and no unit repeats another's bytes: compressing and
 * deduplicating storage sees random data.
 */
#define RAND_UNIT_SHIFT 12u
#define RAND_UNIT_WORDS ((1u << RAND_UNIT_SHIFT) / 8u)
#define RAND_TABLE_WORDS 8192u /* 64 KiB of starts, and a unit's length past the last */

static uint64_t rand_table[RAND_TABLE_WORDS + RAND_UNIT_WORDS];
static int rand_ready; /* iob_once, as text_ready */

static void rand_init(void)
{
	for (unsigned i = 0; i < RAND_TABLE_WORDS + RAND_UNIT_WORDS; i++)
		rand_table[i] = mix64(0x72616e646f6d7462ull ^ i); /* "randomtb" */
}

/* Bytes [at, at + n) of a unit whose slice is src and XOR word x. */
static void rand_unit(const uint64_t *src, uint64_t x, unsigned char *dst, size_t at, size_t n)
{
	size_t k = 0;
	for (; k < n && ((at + k) & 7u); k++)
		dst[k] = (unsigned char)((src[(at + k) >> 3] ^ x) >> (8 * ((at + k) & 7u)));
	const uint64_t *s = src + ((at + k) >> 3);
	for (; k + 64 <= n; k += 64, s += 8) { /* eight words a turn: 16-byte operations where there are */
		uint64_t w[8] = {s[0] ^ x, s[1] ^ x, s[2] ^ x, s[3] ^ x, s[4] ^ x, s[5] ^ x, s[6] ^ x, s[7] ^ x};
		memcpy(dst + k, w, 64); /* little-endian byte order defines the pattern */
	}
	for (; k + 8 <= n; k += 8, s++) {
		uint64_t w = *s ^ x;
		memcpy(dst + k, &w, 8);
	}
	for (; k < n; k++)
		dst[k] = (unsigned char)((src[(at + k) >> 3] ^ x) >> (8 * ((at + k) & 7u)));
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
	case IOB_PAT_HEX:
		b = p->hex[0];
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
	if (p->verify != IOB_VERIFY_PATTERN || p->compress_pct || p->dedupe_pct) /* offset-dependent */
		return 0;
	return p->kind == IOB_PAT_ZERO || p->kind == IOB_PAT_ONES || p->kind == IOB_PAT_BYTE ||
	       (p->kind == IOB_PAT_HEX && p->nhex == 1);
}

size_t iob_pattern_period(const struct iob_pattern *p)
{
	if (p->verify != IOB_VERIFY_PATTERN || p->compress_pct || p->dedupe_pct)
		return 0;
	if (p->kind == IOB_PAT_TEXT)
		return TEXT_PERIOD;
	return p->kind == IOB_PAT_HEX && p->nhex > 1 ? p->nhex : 0;
}

uint64_t iob_pattern_interval(const struct iob_pattern *p)
{
	if (p->verify == IOB_VERIFY_PATTERN)
		return 0;
	return p->verify_interval ? p->verify_interval : p->block_size;
}

static void fill_hex(const struct iob_pattern *p, unsigned char *buf, size_t len, uint64_t off)
{
	size_t pos = (size_t)(off % p->nhex), done = 0;
	while (done < len) {
		size_t n = p->nhex - pos;
		if (n > len - done)
			n = len - done;
		memcpy(buf + done, p->hex + pos, n);
		done += n;
		pos = 0;
	}
}

static void fill_random(uint64_t seed, unsigned char *buf, size_t len, uint64_t off)
{
	iob_once(&rand_ready, rand_init);
	const uint64_t unit_bytes = (uint64_t)1 << RAND_UNIT_SHIFT;
	for (size_t i = 0; i < len;) {
		uint64_t pos = off + i, unit = pos >> RAND_UNIT_SHIFT;
		size_t at = (size_t)(pos & (unit_bytes - 1)), n = (size_t)(unit_bytes - at);
		if (n > len - i)
			n = len - i;
		uint64_t key = mix64(seed ^ (unit * 0xd1b54a32d192ed03ull));
		rand_unit(rand_table + key % RAND_TABLE_WORDS, mix64(key), buf + i, at, n);
		i += n;
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

void iob_pattern_fill_random(uint64_t seed, void *buf, size_t len, uint64_t off)
{
	fill_random(seed, buf, len, off);
}

void iob_pattern_fill_base(const struct iob_pattern *p, void *buf, size_t len, uint64_t off)
{
	if (p->compress_pct || p->dedupe_pct)
		iob_fill_shaped(p, buf, len, off);
	else
		iob_pattern_fill_raw(p, buf, len, off);
}

/* The pattern's own bytes, without verify headers or content keys. */
void iob_pattern_fill_raw(const struct iob_pattern *p, void *vbuf, size_t len, uint64_t off)
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
	case IOB_PAT_HEX:
		fill_hex(p, buf, len, off);
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

void iob_pattern_fill(const struct iob_pattern *p, void *buf, size_t len, uint64_t off)
{
	if (p->verify == IOB_VERIFY_PATTERN)
		iob_pattern_fill_base(p, buf, len, off);
	else
		iob_verify_fill(p, buf, len, off);
}

size_t iob_pattern_check(const struct iob_pattern *p, const void *buf, size_t len, uint64_t off, void *scratch,
			 size_t *first, uint8_t *expected, uint8_t *found)
{
	return iob_pattern_check_why(p, buf, len, off, scratch, first, expected, found, NULL, 0);
}

size_t iob_pattern_check_why(const struct iob_pattern *p, const void *buf, size_t len, uint64_t off, void *scratch,
			     size_t *first, uint8_t *expected, uint8_t *found, char *why, size_t whylen)
{
	if (why && whylen)
		why[0] = '\0';
	if (p->verify != IOB_VERIFY_PATTERN && iob_verify_good(p, buf, len, off, why, whylen))
		return 0; /* every whole interval's header and checksum hold, the rest is the pattern */
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
	} else if (strncmp(s, "hex:", 4) == 0) {
		const char *h = s + 4;
		if (strncasecmp(h, "0x", 2) == 0)
			h += 2;
		size_t n = strlen(h);
		int ok = n > 0 && n % 2 == 0 && n <= 2 * IOB_PAT_HEX_MAX;
		for (size_t i = 0; ok && i < n; i++)
			ok = isxdigit((unsigned char)h[i]) != 0;
		if (!ok) {
			snprintf(err, errlen, "bad pattern '%s' (hex: takes 1 to %d bytes as pairs of hex digits: hex:aa555aa5)",
				 IOB_Q(text), IOB_PAT_HEX_MAX);
			return -EINVAL;
		}
		for (size_t i = 0; i < n / 2; i++) {
			char pair[3] = {h[2 * i], h[2 * i + 1], 0};
			p.hex[i] = (uint8_t)strtoul(pair, NULL, 16);
		}
		p.nhex = (uint32_t)(n / 2);
		p.kind = IOB_PAT_HEX;
	} else {
		snprintf(err, errlen,
			 "unknown pattern '%s' (use zero, ones, text, random, byte:0xNN, char:C, hex:HH..., ~ prefix to "
			 "complement)",
			 IOB_Q(text));
		return -EINVAL;
	}
	p.seed = out->seed;
	p.verify = out->verify;
	p.verify_interval = out->verify_interval;
	p.verify_generation = out->verify_generation;
	p.block_size = out->block_size;
	p.compress_pct = out->compress_pct;
	p.compress_chunk = out->compress_chunk;
	p.dedupe_pct = out->dedupe_pct;
	p.dedupe_mode = out->dedupe_mode;
	p.dedupe_ws_pct = out->dedupe_ws_pct;
	p.dedupe_global = out->dedupe_global;
	p.dedupe_member = out->dedupe_member;
	p.dedupe_members = out->dedupe_members;
	p.dedupe_blocks = out->dedupe_blocks;
	*out = p;
	return 0;
}

void iob_pattern_name(const struct iob_pattern *p, char *buf, size_t len)
{
	const char *neg = p->complement ? "~" : "";
	static const char *const plain[] = {
	    [IOB_PAT_ZERO] = "zero", [IOB_PAT_ONES] = "ones", [IOB_PAT_TEXT] = "text", [IOB_PAT_RANDOM] = "random"};
	switch (p->kind) {
	case IOB_PAT_ZERO:
	case IOB_PAT_ONES:
	case IOB_PAT_TEXT:
	case IOB_PAT_RANDOM:
		snprintf(buf, len, "%s%s", neg, plain[p->kind]);
		break;
	case IOB_PAT_BYTE:
		snprintf(buf, len, "%sbyte:0x%02x", neg, p->byte);
		break;
	case IOB_PAT_HEX: {
		int o = snprintf(buf, len, "%shex:", neg);
		for (uint32_t i = 0; o >= 0 && (size_t)o < len && i < p->nhex; i++)
			o += snprintf(buf + o, len - (size_t)o, "%02x", p->hex[i]);
		break;
	}
	}
}
