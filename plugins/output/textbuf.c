/*
 * textbuf.c - growable text buffer and double formatting for the output
 * plugins (textbuf.h).
 */
#include "textbuf.h"

#include "iobench/utf8.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void textbuf_add_grow(struct textbuf *b, const char *s, size_t n)
{
	char *at = textbuf_claim_grow(b, n);
	if (at)
		memcpy(at, s, n);
}

char *textbuf_claim_grow(struct textbuf *b, size_t n)
{
	size_t at = b->len;
	if (b->oom)
		return NULL;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->data, cap);
		if (!p) {
			b->oom = 1;
			return NULL;
		}
		b->data = p;
		b->cap = cap;
	}
	b->len += n;
	b->data[b->len] = '\0';
	return b->data + at;
}

void textbuf_str(struct textbuf *b, const char *s)
{
	textbuf_add(b, s, strlen(s));
}

void textbuf_printf(struct textbuf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		b->oom = 1;
		return;
	}
	textbuf_add(b, tmp, (size_t)n);
}

void textbuf_clear(struct textbuf *b)
{
	b->len = 0;
	b->oom = 0;
	if (b->data)
		b->data[0] = '\0';
}

void textbuf_free(struct textbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

static const uint64_t pow10_u64[20] = {UINT64_C(1),
					UINT64_C(10),
					UINT64_C(100),
					UINT64_C(1000),
					UINT64_C(10000),
					UINT64_C(100000),
					UINT64_C(1000000),
					UINT64_C(10000000),
					UINT64_C(100000000),
					UINT64_C(1000000000),
					UINT64_C(10000000000),
					UINT64_C(100000000000),
					UINT64_C(1000000000000),
					UINT64_C(10000000000000),
					UINT64_C(100000000000000),
					UINT64_C(1000000000000000),
					UINT64_C(10000000000000000),
					UINT64_C(100000000000000000),
					UINT64_C(1000000000000000000),
					UINT64_C(10000000000000000000)};

/* "00".."99": two digits a lookup */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				     "8081828384858687888990919293949596979899";

/* The n (1..20) decimal digits of u (u < 10^n, leading zeros written) at
 * out[0..n), two at a time.  (Eight at a time by 10^8 and then in 32-bit
 * arithmetic, four by 10^4 with 2-byte copies, was tried: no fewer
 * instructions in bigread's records, for the calls.) */
static void put_digits(uint64_t u, char *out, int n)
{
	while (n >= 2) {
		const char *two = digit_pairs + 2 * (u % 100);
		out[--n] = two[1];
		out[--n] = two[0];
		u /= 100;
	}
	if (n)
		out[0] = (char)('0' + u);
}

/* How many decimal digits u has (1 for 0): from its bit length (times
 * log10(2) as 1233 / 4096), one less when below that power of ten. */
static int count_digits(uint64_t u)
{
	int t = (64 - __builtin_clzll(u | 1)) * 1233 >> 12; /* 0..19 */
	return t + 1 - ((u | 1) < pow10_u64[t]);
}

/* a * b, 64 x 64 bits, as the 128-bit (*hi, returned low word), from 32-bit
 * halves (no compiler's 128-bit type needed). */
static uint64_t mul_wide(uint64_t a, uint64_t b, uint64_t *hi)
{
	uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return (mid << 32) | (p00 & 0xffffffffu);
}

/* The 18 significant digits of a, 1 <= a < 2^63, exactly (the integer part
 * and the binary fraction in 64-bit integers), as one integer
 * 10^17 <= *d < 10^18, the decimal exponent of its first digit in *x, and
 * in *sticky whether anything nonzero follows them.  -1 outside that range. */
static int exact_digits(double a, uint64_t *d, int *x, int *sticky)
{
	uint64_t bits, ip, f = 0;
	int k = 0;
	if (!(a >= 1.0 && a < 9223372036854775808.0))
		return -1;
	memcpy(&bits, &a, sizeof bits);
	uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
	int e = (int)(bits >> 52 & 0x7ff) - 1075;
	if (e >= 0) {
		ip = m << e;
	} else {
		k = -e; /* at most 52, as a >= 1 */
		ip = m >> k;
		f = m & ((UINT64_C(1) << k) - 1);
	}
	int ni = count_digits(ip);
	*x = ni - 1;
	if (ni > 18) { /* 19 digits: the last one is cut off */
		*d = ip / 10;
		*sticky = ip % 10 != 0 || f != 0;
		return 0;
	}
	int n = 18 - ni; /* digits wanted from the fraction */
	uint64_t top = 0;
	*sticky = 0;
	if (k == 0 || n == 0) {
		*sticky = f != 0;
	} else {
		/* f / 2^k * 10^n: its integer part is the n digits, the rest sticky */
		uint64_t hi, lo = mul_wide(f, pow10_u64[n], &hi);
		top = (hi << (64 - k)) | (lo >> k);
		*sticky = (lo & ((UINT64_C(1) << k) - 1)) != 0;
	}
	*d = ip * pow10_u64[n] + top;
	return 0;
}

/* Whether a's 18 digits (exact_digits: exponent x, sticky) cut to prec
 * places, the cut-off digits being `tail` out of `whole` (10^(18-prec)),
 * rounded up when up, read back as a, decided without strtod: the error of
 * the cut, in units of the 18th digit, against half the gap from a to its
 * neighbouring double on that side (strtod rounds to the nearest).  1 or 0;
 * -1 when the two are too close to call here (a tie or within one unit,
 * where the sticky bits matter): strtod decides. */
static int reads_back(double a, uint64_t tail, uint64_t whole, int x, int sticky, int up)
{
	uint64_t bits;
	memcpy(&bits, &a, sizeof bits);
	int e = (int)(bits >> 52 & 0x7ff) - 1075; /* a = m 2^e, 2^52 <= m < 2^53 */
	int bottom = (bits & ((UINT64_C(1) << 52) - 1)) == 0; /* the gap below is half as wide */
	/* the error lies in [lo, hi] units of 10^(x-17) (hi = lo when exact) */
	double lo = up ? (double)(whole - tail) - (sticky ? 1.0 : 0.0) : (double)tail;
	double hi = up ? (double)(whole - tail) : (double)tail + (sticky ? 1.0 : 0.0);
	/* half the gap in those units: exact for x <= 17 (a power of two times
	 * a power of ten up to 10^17), one rounding at x = 18 */
	uint64_t hb = (uint64_t)(e - 1 - (!up && bottom) + 1023) << 52; /* 2^(e-1) or 2^(e-2): e >= -52 */
	double half;
	memcpy(&half, &hb, sizeof half);
	half = x <= 17 ? half * (double)pow10_u64[17 - x] : half / 10.0;
	if (hi < half * (1.0 - 1e-9))
		return 1;
	if (lo > half * (1.0 + 1e-9))
		return 0;
	return -1;
}

/* Whether the digits r[0..prec) at exponent rx read back as v by strtod
 * (as an integer and a power of ten, no decimal point, so the locale does
 * not matter); num holds at least 32 characters. */
static int strtod_back(double v, const char *r, int prec, int rx, int neg, char *num)
{
	int m = 0;
	if (neg)
		num[m++] = '-';
	memcpy(num + m, r, (size_t)prec);
	m += prec;
	int pe = rx - (prec - 1);
	num[m++] = 'e';
	if (pe < 0) {
		num[m++] = '-';
		pe = -pe;
	}
	if (pe >= 100)
		num[m++] = (char)('0' + pe / 100);
	if (pe >= 10)
		num[m++] = (char)('0' + pe / 10 % 10);
	num[m++] = (char)('0' + pe % 10);
	num[m] = '\0';
	return strtod(num, NULL) == v;
}

/* The 18 digits of v as one integer d (10^17 <= d < 10^18), exponent *x
 * and sticky: exactly for 1 <= |v| < 2^63 (rates, counts, nanoseconds,
 * *exact set), else the 17 of one snprintf and a zero (sticky 0).  -1 when
 * snprintf does not give them. */
static int digits_of(double v, int neg, uint64_t *d, int *x, int *sticky, int *exact)
{
	*exact = exact_digits(neg ? -v : v, d, x, sticky) == 0;
	if (*exact)
		return 0;
	char e17[48];
	int n = snprintf(e17, sizeof e17, "%.16e", v), nd = 0;
	if (n <= 0 || (size_t)n >= sizeof e17)
		return -1;
	const char *p = e17 + neg;
	*d = 0;
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9') {
			if (nd == 17)
				return -1;
			*d = *d * 10 + (uint64_t)(*p - '0');
			nd++;
		}
	if (*p != 'e' || nd != 17 || *d < pow10_u64[16])
		return -1;
	*d *= 10;
	*sticky = 0;
	*x = atoi(p + 1);
	return 0;
}

/* The shortest of %.15g..%.17g that reads back as v, as `%.*g` and strtod
 * would find it: v's 18 digits (digits_of) rounded to 15, 16 and 17 places
 * here, in integers (each reads back or not: reads_back where the digits are
 * exact, else strtod of the digits), then laid out as %g does, '.' for the
 * point, at out (room for 32): its length.  For digits that are not exact,
 * 15 and 16 places are rounded from the 17 unless the digits cut off are
 * exactly 5 or 50 (the exact value may be above or below a tie).  -1 when
 * the slow way must decide (v is 0, or such a tie).  No snprintf and, for
 * 1 <= |v| < 2^63, a strtod only where reads_back cannot call it: a JSON
 * block record of bigread costs a third as much as with three snprintf and
 * strtod (issue 27), and the 18 digits as one integer (not a digit at a
 * time) cut this again by about two thirds (session 41). */
static int fmt_double_fast(double v, char *out)
{
	char r[20], num[32];
	int neg = v < 0, x, prec, sticky = 0, exact = 0;
	uint64_t d, q = 0;
	if (v == 0 || digits_of(v, neg, &d, &x, &sticky, &exact) != 0)
		return -1;
	for (prec = 15; prec <= 17; prec++) {
		uint64_t whole = pow10_u64[18 - prec], half = whole / 2;
		uint64_t tail = d % whole;
		int rx = x, up;
		q = d / whole;
		if (tail != half || sticky)
			up = tail > half || (tail == half && sticky);
		else if (!exact && prec < 17)
			return -1;
		else
			up = (int)(q & 1); /* a true tie: to even, as printf */
		if (up && ++q == pow10_u64[prec]) {
			q = pow10_u64[prec - 1];
			rx++;
		}
		if (prec == 17) {
			x = rx;
			break;
		}
		int back = exact ? reads_back(neg ? -v : v, tail, whole, x, sticky, up) : -1;
		if (back < 0) {
			put_digits(q, r, prec);
			back = strtod_back(v, r, prec, rx, neg, num);
		}
		if (back) {
			x = rx;
			break;
		}
	}
	/* %.{prec}g of digits q and exponent x: trailing zeros and a bare point
	 * dropped; exponent form below 1e-4 or from 10^prec */
	int last = prec - 1, o = 0;
	while (last > 0 && q % 10 == 0) {
		q /= 10;
		last--;
	}
	if (neg)
		out[o++] = '-';
	if (x < -4 || x >= prec) {
		put_digits(q, r, last + 1);
		out[o++] = r[0];
		if (last > 0) {
			out[o++] = '.';
			memcpy(out + o, r + 1, (size_t)last);
			o += last;
		}
		int ax = x < 0 ? -x : x;
		out[o++] = 'e';
		out[o++] = x < 0 ? '-' : '+';
		if (ax >= 100)
			out[o++] = (char)('0' + ax / 100);
		out[o++] = (char)('0' + ax / 10 % 10);
		out[o++] = (char)('0' + ax % 10);
	} else if (x >= 0) { /* the digits before the point and after it, each in place */
		if (last <= x) {
			put_digits(q * pow10_u64[x - last], out + o, x + 1); /* below 10^prec */
			o += x + 1;
		} else {
			uint64_t p = pow10_u64[last - x];
			put_digits(q / p, out + o, x + 1);
			o += x + 1;
			out[o++] = '.';
			put_digits(q % p, out + o, last - x);
			o += last - x;
		}
	} else {
		out[o++] = '0';
		out[o++] = '.';
		for (int k = 0; k < -x - 1; k++)
			out[o++] = '0';
		put_digits(q, out + o, last + 1);
		o += last + 1;
	}
	out[o] = '\0';
	return o;
}

size_t textbuf_fmt_double_n(double v, char *out, size_t outlen)
{
	char tmp[48];
	if (!outlen)
		return 0;
	if (!(v == v) || v - v != 0)
		v = 0.0; /* never inf or nan: JSON and CSV readers choke on them */
	if (outlen >= 32) {
		int n = fmt_double_fast(v, out);
		if (n > 0)
			return (size_t)n;
	} else if (fmt_double_fast(v, tmp) > 0) {
		snprintf(out, outlen, "%s", tmp);
		return strlen(out);
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	size_t o = 0;
	int in_point = 0;
	for (const char *p = tmp; *p && o + 1 < outlen; p++) {
		if (isdigit((unsigned char)*p) || *p == '-' || *p == '+' || *p == 'e') {
			out[o++] = *p;
			in_point = 0;
		} else if (!in_point) {
			out[o++] = '.'; /* the locale's decimal point, maybe several bytes */
			in_point = 1;
		}
	}
	out[o] = '\0';
	return o;
}

void textbuf_fmt_double(double v, char *out, size_t outlen)
{
	textbuf_fmt_double_n(v, out, outlen);
}

/* Test hook: the slow way alone (tests/outputs compare the two). */
void textbuf_fmt_double_slow(double v, char *out, size_t outlen)
{
	char tmp[48];
	if (!(v == v) || v - v != 0)
		v = 0.0;
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	snprintf(out, outlen, "%s", tmp);
}

size_t textbuf_utf8(const char *str, uint32_t *cp)
{
	return iob_utf8_at((const unsigned char *)str, cp);
}

/* Not a C0 or C1 control, nor DEL. */
static int printable(uint32_t cp)
{
	return cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f);
}

/* Printable, or a tab or line end. */
static int printable_or_space(uint32_t cp)
{
	return cp == '\t' || cp == '\r' || cp == '\n' || printable(cp);
}

/* Append the characters at *s that keep() accepts, as they are, and move
 * *s past them: the length of the sequence that stopped the run (0 for an
 * invalid byte or the end). */
static size_t add_kept(struct textbuf *b, const char **s, int (*keep)(uint32_t))
{
	const char *run = *s;
	uint32_t cp = 0;
	size_t n;
	while ((n = textbuf_utf8(*s, &cp)) != 0 && keep(cp))
		*s += n;
	textbuf_add(b, run, (size_t)(*s - run));
	return n;
}

int textbuf_integer(struct textbuf *b, const struct iob_field *f)
{
	uint64_t u;
	int neg = 0;
	if (f->type == IOB_T_U64) {
		u = f->v.u;
	} else if (f->type == IOB_T_I64) {
		neg = f->v.i < 0;
		u = neg ? (uint64_t)0 - (uint64_t)f->v.i : (uint64_t)f->v.i;
	} else {
		return 0;
	}
	int n = count_digits(u);
	char *at = textbuf_claim(b, (size_t)(n + neg));
	if (at) {
		if (neg)
			*at++ = '-';
		put_digits(u, at, n);
	}
	return 1;
}

/* Append s: the runs that keep() accepts as they are, each sequence it
 * refuses (or invalid byte) through put(). */
static void add_filtered(struct textbuf *b, const char *s, int (*keep)(uint32_t),
			 void (*put)(struct textbuf *b, const char *seq, size_t n))
{
	if (!s)
		return;
	while (*s) {
		size_t n = add_kept(b, &s, keep);
		if (!*s)
			break;
		if (n == 0)
			n = 1; /* one byte of an invalid sequence */
		put(b, s, n);
		s += n;
	}
}

/* Each byte as \xHH. */
static void put_hex_escapes(struct textbuf *b, const char *seq, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)seq[i];
		char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
		textbuf_add(b, esc, sizeof esc);
	}
}

/* One U+FFFD REPLACEMENT CHARACTER for the whole sequence. */
static void put_replacement(struct textbuf *b, const char *seq, size_t n)
{
	(void)seq;
	(void)n;
	textbuf_str(b, "\xef\xbf\xbd");
}

void textbuf_term(struct textbuf *b, const char *s)
{
	add_filtered(b, s, printable, put_hex_escapes);
}

size_t textbuf_columns(const char *s)
{
	size_t w = 0;
	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0u) != 0x80u)
			w++;
	return w;
}

void textbuf_xml(struct textbuf *b, const char *s)
{
	if (!s)
		return;
	while (*s) {
		uint32_t cp = 0;
		size_t n = textbuf_utf8(s, &cp);
		if (n == 0 || (cp < 0x20 && cp != 0x9 && cp != 0xa && cp != 0xd) || (cp >= 0x7f && cp <= 0x9f) ||
		    cp == 0xfffe || cp == 0xffff) {
			textbuf_str(b, "\xef\xbf\xbd"); /* U+FFFD REPLACEMENT CHARACTER */
			s += n ? n : 1;
			continue;
		}
		static const char special[] = "&<>\"'";
		static const char *const entity[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
		const char *at = cp && cp < 0x80 ? strchr(special, (int)cp) : NULL;
		if (at)
			textbuf_str(b, entity[at - special]);
		else if (cp == 0x9 || cp == 0xa || cp == 0xd) /* kept as characters, not normalised away in attributes */
			textbuf_printf(b, "&#%u;", (unsigned)cp);
		else
			textbuf_add(b, s, n);
		s += n;
	}
}

void textbuf_clean(struct textbuf *b, const char *s)
{
	add_filtered(b, s, printable_or_space, put_replacement);
}

void textbuf_log(const struct iob_host *host, const char *who, int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	if (!host || !host->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	host->log(level, who, "%s", line);
}

int textbuf_scalar(struct textbuf *b, const struct iob_field *f, const struct textbuf_scalars *how)
{
	if (textbuf_integer(b, f))
		return 1;
	if (f->type == IOB_T_F64)
		how->f64(b, f->v.f);
	else if (f->type == IOB_T_STR)
		how->str(b, f->v.s);
	else if (f->type == IOB_T_BOOL)
		textbuf_str(b, f->v.b ? how->yes : how->no);
	else
		return 0;
	return 1;
}

int textbuf_begin_ok(const struct iob_host *host, const char *who, const char *sink, int begun)
{
	if (!begun)
		return 0;
	textbuf_log(host, who, IOB_LOG_ERROR, "begin_run called twice on %s", sink);
	return -EINVAL;
}

int textbuf_begin(const struct iob_host *host, const char *who, const char *sink, int *begun)
{
	int rc = textbuf_begin_ok(host, who, sink, *begun);
	if (rc == 0)
		*begun = 1;
	return rc;
}

int textbuf_record_ok(const struct iob_host *host, const char *who, const char *sink, int begun, int ended, int err,
		      const struct iob_record *rec)
{
	if (!begun || ended) {
		textbuf_log(host, who, IOB_LOG_ERROR, "record outside a run on %s", sink);
		return -EINVAL;
	}
	if (err)
		return err;
	if (!rec || (rec->nfields && !rec->fields))
		return -EINVAL;
	return 0;
}

int textbuf_end_ok(const struct iob_host *host, const char *who, const char *sink, int begun, int ended)
{
	if (begun && !ended)
		return 0;
	textbuf_log(host, who, IOB_LOG_ERROR, "end_run %s on %s", ended ? "called twice" : "before begin_run", sink);
	return -EINVAL;
}

const char *textbuf_run_error(const struct iob_host *host, const char *who, const char *sink,
			      const struct iob_run_end **end, size_t v1_size, const char *no_result, int *rc)
{
	if (!*end || (*end)->struct_size < v1_size) {
		textbuf_log(host, who, IOB_LOG_ERROR, "end_run on %s got no valid run end", sink);
		*end = NULL;
		*rc = -EINVAL;
		return no_result;
	}
	if ((*end)->status != 0)
		return (*end)->error ? (*end)->error : "run failed";
	return NULL;
}

int textbuf_doc_open(const struct iob_sink *sink, void **state, size_t size, const struct iob_host *host,
		     const struct textbuf_doc *doc)
{
	int rc = textbuf_open_state(sink, state, size, offsetof(struct textbuf_out, sink));
	if (rc == 0) {
		struct textbuf_out *o = *state;
		o->host = host;
		o->doc = doc;
	}
	return rc;
}

int textbuf_doc_end_run(void *state, const struct iob_run_end *end)
{
	struct textbuf_out *o = state;
	const struct textbuf_doc *d = o->doc;
	if (textbuf_end_ok(o->host, d->who, o->sink.name, o->begun, o->ended))
		return -EINVAL;
	o->ended = 1;
	int rc = 0;
	const char *error = textbuf_run_error(o->host, d->who, o->sink.name, &end, d->run_end_v1, d->no_result, &rc);
	int wrc = d->put_end(state, end, error);
	return wrc ? wrc : rc;
}

int textbuf_doc_close(void *state)
{
	struct textbuf_out *o = state;
	if (!o)
		return 0;
	int rc = o->ended || o->err ? 0 : o->doc->put_end(state, NULL, o->doc->no_result);
	if (o->doc->free)
		o->doc->free(state);
	free(o);
	return rc;
}

int textbuf_sink_write(const struct iob_sink *sink, int *err, const char *data, size_t len)
{
	if (*err)
		return *err;
	int rc = sink->write(sink->ctx, data, len);
	if (rc < 0)
		*err = rc;
	return rc < 0 ? rc : 0;
}

int textbuf_open_state(const struct iob_sink *sink, void **state, size_t size, size_t sink_at)
{
	if (!sink || !sink->write || !state)
		return -EINVAL;
	char *st = calloc(1, size);
	if (!st)
		return -ENOMEM;
	struct iob_sink *copy = (struct iob_sink *)(void *)(st + sink_at);
	*copy = *sink;
	if (!copy->name)
		copy->name = "output";
	*state = st;
	return 0;
}
