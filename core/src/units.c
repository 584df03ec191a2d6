/*
 * units.c - sizes, counts and durations in and out of text (iobench/units.h).
 */
#include "iobench/units.h"
#include "iobench/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct suffix {
	const char *text;
	uint64_t mult;
};

static const struct suffix suffixes[] = {
	{"", 1},
	{"B", 1},
	{"k", 1ull << 10},
	{"K", 1ull << 10},
	{"KiB", 1ull << 10},
	{"KB", 1000ull},
	{"kB", 1000ull},
	{"m", 1ull << 20},
	{"M", 1ull << 20},
	{"MiB", 1ull << 20},
	{"MB", 1000000ull},
	{"g", 1ull << 30},
	{"G", 1ull << 30},
	{"GiB", 1ull << 30},
	{"GB", 1000000000ull},
	{"t", 1ull << 40},
	{"T", 1ull << 40},
	{"TiB", 1ull << 40},
	{"TB", 1000000000000ull},
};

/* Digits of an unsigned decimal with an optional fraction; returns the end.
 * The fraction's digits are [*frac, *frac_end). */
static const char *scan_number(const char *p, uint64_t *whole, const char **frac, const char **frac_end,
			       int *overflow)
{
	*whole = 0;
	*overflow = 0;
	while (isdigit((unsigned char)*p)) {
		unsigned d = (unsigned)(*p - '0');
		if (*whole > (UINT64_MAX - d) / 10)
			*overflow = 1;
		else
			*whole = *whole * 10 + d;
		p++;
	}
	*frac = *frac_end = p;
	if (*p == '.') {
		*frac = ++p;
		while (isdigit((unsigned char)*p))
			p++;
		*frac_end = p;
	}
	return p;
}

/* The bytes of 0.DIGITS x mult, exactly, or -1 when that is not a whole
 * number.  From the last digit up: t = d * mult + carry must end in 0 at
 * every step, and carry = t / 10 stays below mult, so nothing overflows
 * (mult is at most 10^12) however many digits there are. */
static int64_t fraction_bytes(const char *frac, const char *end, uint64_t mult)
{
	uint64_t carry = 0;
	for (const char *p = end; p > frac; p--) {
		uint64_t t = (uint64_t)(p[-1] - '0') * mult + carry;
		if (t % 10)
			return -1;
		carry = t / 10;
	}
	return (int64_t)carry;
}

int iob_parse_size(const char *text, uint64_t *out, char *err, size_t errlen)
{
	uint64_t whole;
	const char *frac, *frac_end;
	int overflow;

	if (!text || !*text) {
		snprintf(err, errlen, "empty size");
		return -EINVAL;
	}
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-') {
		snprintf(err, errlen, "negative size '%s'", IOB_Q(text));
		return -EINVAL;
	}
	if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1]))) {
		snprintf(err, errlen, "'%s' is not a size (expected a number with an optional unit such as 4K or 1GiB)",
			 IOB_Q(text));
		return -EINVAL;
	}
	const char *end = scan_number(p, &whole, &frac, &frac_end, &overflow);
	char unit[8];
	size_t ulen = 0;
	while (end[ulen] && !isspace((unsigned char)end[ulen]) && ulen < sizeof unit - 1) {
		unit[ulen] = end[ulen];
		ulen++;
	}
	unit[ulen] = '\0';
	const char *rest = end + ulen;
	while (isspace((unsigned char)*rest))
		rest++;
	if (*rest || (end[ulen] && !isspace((unsigned char)end[ulen]))) {
		snprintf(err, errlen, "'%s' is not a size: trailing text", IOB_Q(text));
		return -EINVAL;
	}
	uint64_t mult = 0;
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
		if (strcmp(unit, suffixes[i].text) == 0)
			mult = suffixes[i].mult;
	if (mult == 0) {
		if (strcasecmp(unit, "kb") == 0 || strcasecmp(unit, "mb") == 0 || strcasecmp(unit, "gb") == 0 ||
		    strcasecmp(unit, "tb") == 0)
			snprintf(err, errlen,
				 "ambiguous unit in '%s': write K or KiB for 1024, KB for 1000 (likewise M/MiB/MB, G/GiB/GB)",
				 IOB_Q(text));
		else
			snprintf(err, errlen, "unknown unit '%s' in '%s' (use K, KiB, KB, M, MiB, MB, G, GiB, GB, T)",
				 IOB_Q(unit), IOB_Q(text));
		return -EINVAL;
	}
	if (overflow || (mult > 1 && whole > UINT64_MAX / mult)) {
		snprintf(err, errlen, "size '%s' is too large (limit 2^64-1 bytes)", IOB_Q(text));
		return -ERANGE;
	}
	uint64_t bytes = whole * mult;
	int64_t part = fraction_bytes(frac, frac_end, mult);
	if (part < 0) {
		snprintf(err, errlen, "size '%s' is not a whole number of bytes", IOB_Q(text));
		return -EINVAL;
	}
	if (bytes > UINT64_MAX - (uint64_t)part) {
		snprintf(err, errlen, "size '%s' is too large (limit 2^64-1 bytes)", IOB_Q(text));
		return -ERANGE;
	}
	bytes += (uint64_t)part;
	*out = bytes;
	return 0;
}

int iob_parse_u64(const char *text, uint64_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;
	const char *p = text;
	if (!text || !*text) {
		snprintf(err, errlen, "empty number");
		return -EINVAL;
	}
	if (!isdigit((unsigned char)*p)) {
		snprintf(err, errlen, "'%s' is not a non-negative whole number", IOB_Q(text));
		return -EINVAL;
	}
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10) {
			snprintf(err, errlen, "number '%s' is too large", IOB_Q(text));
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	if (*p) {
		snprintf(err, errlen, "'%s' is not a non-negative whole number", IOB_Q(text));
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int iob_parse_double(const char *text, double *out, char *err, size_t errlen)
{
	char *end;
	if (!text || !*text) {
		snprintf(err, errlen, "empty number");
		return -EINVAL;
	}
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || *end || !isfinite(v) || errno == ERANGE) {
		snprintf(err, errlen, "'%s' is not a finite number", IOB_Q(text));
		return -EINVAL;
	}
	/* strtod accepts "nan", "inf", hex floats; only plain decimals here. */
	for (const char *p = text; *p; p++)
		if (!(isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+' || *p == 'e' || *p == 'E')) {
			snprintf(err, errlen, "'%s' is not a plain decimal number", IOB_Q(text));
			return -EINVAL;
		}
	*out = v;
	return 0;
}

int iob_parse_bool(const char *text, int *out, char *err, size_t errlen)
{
	static const char *yes[] = {"1", "true", "yes", "on"};
	static const char *no[] = {"0", "false", "no", "off"};
	for (size_t i = 0; i < 4; i++) {
		if (text && strcasecmp(text, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (text && strcasecmp(text, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s' is not a boolean (use true/false, yes/no, on/off, 1/0)", IOB_Q(text));
	return -EINVAL;
}

const char *iob_quote(const char *text, char *out, size_t outlen)
{
	size_t o = 0;
	if (!outlen)
		return out;
	for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p;) {
		char tmp[16];
		uint32_t cp = 0;
		size_t len = iob_utf8_at(p, &cp), n;
		if (len && cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f)) {
			memcpy(tmp, p, len);
			n = len;
		} else {
			if (!len)
				len = 1; /* one byte of an invalid sequence */
			n = 0;
			for (size_t i = 0; i < len; i++)
				n += (size_t)snprintf(tmp + n, sizeof tmp - n, "\\x%02x", p[i]);
		}
		if (o + n + 4 > outlen) {
			memcpy(out + (o + 3 < outlen ? o : outlen - 4), "...", 3);
			o = (o + 3 < outlen ? o : outlen - 4) + 3;
			break;
		}
		memcpy(out + o, tmp, n);
		o += n;
		p += len;
	}
	out[o] = '\0';
	return out;
}

void iob_format_bytes(double bytes, char *buf, size_t len)
{
	static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	size_t u = 0;
	if (!isfinite(bytes))
		bytes = 0;
	while (bytes >= 1024.0 && u < 5) {
		bytes /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%.2f %s", bytes, unit[u]);
}

void iob_format_scaled(double v, const struct iob_scale_step *steps, size_t n, char *buf, size_t len)
{
	size_t i = 0;
	while (i + 1 < n && !(v >= steps[i].at))
		i++;
	snprintf(buf, len, "%.*f%s", steps[i].digits, v / steps[i].at, steps[i].suffix);
}

void iob_format_ns(double ns, char *buf, size_t len)
{
	static const struct iob_scale_step steps[] = {{1e9, 3, " s"}, {1e6, 2, " ms"}, {1e3, 2, " us"}, {1, 0, " ns"}};
	iob_format_scaled(isfinite(ns) ? ns : 0, steps, sizeof steps / sizeof steps[0], buf, len);
}

int iob_grow(void *vp, size_t *cap, size_t n, size_t size, size_t first)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : first;
	if (c < *cap || c > SIZE_MAX / size)
		return -ENOMEM;
	void *old, *v;
	memcpy(&old, vp, sizeof old);
	v = realloc(old, c * size);
	if (!v)
		return -ENOMEM;
	memcpy(vp, &v, sizeof v);
	*cap = c;
	return 0;
}

void iob_free_each(void *const *ptrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ptrs[i]);
}
