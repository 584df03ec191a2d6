/*
 * test_textbuf.c - the outputs' number formatting (plugins/output/textbuf.c):
 * textbuf_fmt_double's one-snprintf way gives, byte for byte, what the three
 * %.Ng and strtod calls gave (textbuf_fmt_double_slow) over values drawn from
 * a fixed seed (random bit patterns, rates such as a block's bytes over its
 * nanoseconds, integers, powers of ten, halves that sit on a rounding tie,
 * subnormals, the extremes) and always reads back as the value; integers
 * print as %PRIu64 / %PRId64 do; a JSON string of each byte (jsonval_str, its
 * plain bytes found by a table) is what the escaping rule says, alone,
 * between plain bytes and as a key.
 */
#include <math.h>
#include <float.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmocka_main.h"

#include "jsonval.h"
#include "textbuf.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int same(double v)
{
	char fast[64], slow[64];
	textbuf_fmt_double(v, fast, sizeof fast);
	textbuf_fmt_double_slow(v, slow, sizeof slow);
	if (strcmp(fast, slow) != 0) {
		print_error("%a: fast %s, slow %s\n", v, fast, slow);
		return 0;
	}
	if (isfinite(v) && strtod(fast, NULL) != v) {
		print_error("%a: %s does not read back\n", v, fast);
		return 0;
	}
	return 1;
}

static void test_double_same_as_slow(void **state)
{
	(void)state;
	static const double fixed[] = {0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.3, 1.0 / 3.0, 2.0 / 3.0, 1e-4, 1e-5,
				       9.9999999999999e-5, 123456789012345.0, 1234567890123456.0, 12345678901234567.0,
				       1e15, 1e16, 1e17, 1e22, 1e23, 1e300, 5e-324, DBL_MIN, DBL_MAX, -DBL_MAX,
				       DBL_EPSILON, 0.15, 0.25, 2.5, 1.5e-300, 9007199254740993.0,
				       999999999999999.5, 99999999999999.95, 0.9999999999999999, 48041285.479709126,
				       /* 2^53, 1e21, subnormals, the 64-bit integers' ends, 2^63 and below */
				       9007199254740992.0, -9007199254740992.0, 1e21, -1e21, -1e-5, 4.9e-324,
				       2.2250738585072009e-308, -2.2250738585072009e-308, (double)UINT64_MAX,
				       (double)INT64_MIN, (double)INT64_MAX, 9223372036854774784.0, -9223372036854774784.0,
				       1409943417.9547212, 606367833.293332, 999999999999999999.0, 1e18, 1e19};
	int bad = 0;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		bad += !same(fixed[i]);
	for (int i = 0; i < 40000 && bad < 10; i++) {
		uint64_t u = next();
		double v;
		memcpy(&v, &u, sizeof v);
		if (isfinite(v))
			bad += !same(v); /* any bit pattern */
		bad += !same((double)(next() % 4000000000u + 1) * 1e9 / (double)(next() % 100000000u + 1)); /* a rate */
		bad += !same(-(double)(next() % 4000000000u + 1) * 1e9 / (double)(next() % 100000000u + 1));
		bad += !same((double)(next() >> (next() % 64))); /* an integer */
		bad += !same((double)(int64_t)(next() % 2000001) / 1000.0 - 1000.0); /* milli-units */
		bad += !same(ldexp((double)(next() >> 11), (int)(next() % 2100) - 1100)); /* any scale */
		bad += !same((double)(next() % 1000000000000000u) + 0.5); /* a tie at 15 and 16 digits */
	}
	for (int e = -330; e <= 308; e++) /* powers of ten and their neighbours */
		bad += !same(pow(10.0, e)) + !same(nextafter(pow(10.0, e), 0.0)) + !same(nextafter(pow(10.0, e), INFINITY));
	/* powers of two, where the gap below a value is half the gap above (the
	 * read-back decided from the digits uses the narrower one there), and
	 * their neighbours, up to 2^63 where the exact digits stop */
	for (int e = 0; e <= 64; e++)
		bad += !same(ldexp(1.0, e)) + !same(nextafter(ldexp(1.0, e), 0.0)) +
		       !same(nextafter(ldexp(1.0, e), INFINITY)) + !same(ldexp(1.0, e) * 3.0);
	assert_int_equal(bad, 0);
}

static void test_double_nonfinite(void **state)
{
	(void)state;
	char out[64];
	textbuf_fmt_double(INFINITY, out, sizeof out);
	assert_string_equal(out, "0");
	textbuf_fmt_double(NAN, out, sizeof out);
	assert_string_equal(out, "0");
	textbuf_fmt_double(0.1, out, 3); /* cut to the room given */
	assert_string_equal(out, "0.");
	/* every room from 1 to 40 bytes: the slow way's text cut to it, and
	 * textbuf_fmt_double_n's length is that text's */
	static const double cut[] = {0.1, -1409943417.9547212, 1e-300, -2.2250738585072009e-308, 1e21, 0.0, 123.0};
	for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++)
		for (size_t room = 1; room <= 40; room++) {
			char want[64];
			textbuf_fmt_double_slow(cut[i], want, sizeof want);
			want[strlen(want) < room - 1 ? strlen(want) : room - 1] = '\0';
			memset(out, 'x', sizeof out);
			size_t n = textbuf_fmt_double_n(cut[i], out, room);
			assert_string_equal(out, want);
			assert_int_equal(n, strlen(want));
		}
}

/* textbuf_integer appends f's value as printf's want */
static void integer_is(const struct iob_field *f, const char *want)
{
	struct textbuf b = {0};
	assert_int_equal(textbuf_integer(&b, f), 1);
	assert_string_equal(b.data, want);
	textbuf_free(&b);
}

static void test_integer(void **state)
{
	(void)state;
	static const uint64_t us[] = {0, 1, 9, 10, 99, 100, 4096, 1073741824, UINT64_MAX - 1, UINT64_MAX};
	static const int64_t is[] = {0, -1, 1, -9, -10, 1234567, -1234567, INT64_MAX, INT64_MIN, INT64_MIN + 1};
	char want[32];
	for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
		snprintf(want, sizeof want, "%" PRIu64, us[i]);
		integer_is(&(struct iob_field){.key = "u", .type = IOB_T_U64, .v.u = us[i]}, want);
	}
	for (size_t i = 0; i < sizeof is / sizeof is[0]; i++) {
		snprintf(want, sizeof want, "%" PRId64, is[i]);
		integer_is(&(struct iob_field){.key = "i", .type = IOB_T_I64, .v.i = is[i]}, want);
	}
	/* each length: powers of ten and their neighbours, and drawn values of
	 * every bit length, both signs (two digits at a time, the count from
	 * the bit length) */
	for (int k = 0; k < 20; k++) {
		uint64_t p = 1;
		for (int j = 0; j < k; j++)
			p *= 10;
		for (uint64_t u = p - 1; u <= p + 1; u++) {
			snprintf(want, sizeof want, "%" PRIu64, u);
			integer_is(&(struct iob_field){.key = "u", .type = IOB_T_U64, .v.u = u}, want);
			snprintf(want, sizeof want, "%" PRId64, -(int64_t)(u & INT64_MAX));
			integer_is(&(struct iob_field){.key = "i", .type = IOB_T_I64, .v.i = -(int64_t)(u & INT64_MAX)},
				   want);
		}
	}
	for (int i = 0; i < 20000; i++) {
		uint64_t u = next() >> (next() % 64);
		int64_t v = (int64_t)(next() >> (next() % 64));
		snprintf(want, sizeof want, "%" PRIu64, u);
		integer_is(&(struct iob_field){.key = "u", .type = IOB_T_U64, .v.u = u}, want);
		snprintf(want, sizeof want, "%" PRId64, v);
		integer_is(&(struct iob_field){.key = "i", .type = IOB_T_I64, .v.i = v}, want);
	}
	struct textbuf b = {0};
	struct iob_field f = {.key = "s", .type = IOB_T_STR, .v.s = "x"};
	assert_int_equal(textbuf_integer(&b, &f), 0);
	assert_int_equal(b.len, 0);
}

/* Byte c as JSON string text by the rule (jsonval.h), spelt out here: printable
 * ASCII as it is but '"' and '\\' escaped, C0 controls and DEL as \u00XX, a
 * lone byte from 0x80 (never valid UTF-8 alone) as \ufffd. */
static void json_byte(unsigned c, char *out)
{
	if (c == '"' || c == '\\')
		sprintf(out, "\\%c", (char)c);
	else if (c < 0x20 || c == 0x7f)
		sprintf(out, "\\u%04x", c);
	else if (c >= 0x80)
		strcpy(out, "\\ufffd");
	else
		sprintf(out, "%c", (char)c);
}

static void test_json_string_every_byte(void **state)
{
	(void)state;
	for (unsigned c = 1; c < 256; c++) {
		char in[8], esc[16], want[64];
		json_byte(c, esc);
		struct textbuf b = {0};
		snprintf(in, sizeof in, "%c", (char)c);
		jsonval_str(&b, in);
		snprintf(want, sizeof want, "\"%s\"", esc);
		assert_string_equal(b.data, want);
		textbuf_clear(&b);
		snprintf(in, sizeof in, "ab%cz", (char)c);
		jsonval_str(&b, in);
		snprintf(want, sizeof want, "\"ab%sz\"", esc);
		assert_string_equal(b.data, want);
		textbuf_clear(&b);
		jsonval_field(&b, &(struct iob_field){.key = in, .type = IOB_T_BOOL, .v.b = 1});
		snprintf(want, sizeof want, "\"ab%sz\":true", esc);
		assert_string_equal(b.data, want);
		textbuf_free(&b);
	}
}

IOBTEST_MAIN(cmocka_unit_test(test_json_string_every_byte),
	     cmocka_unit_test(test_double_same_as_slow),
	     cmocka_unit_test(test_double_nonfinite),
	     cmocka_unit_test(test_integer))
