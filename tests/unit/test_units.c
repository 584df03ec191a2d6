/* Unit tests for size, number and boolean parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "iobench/units.h"

static void ok(const char *text, uint64_t want)
{
	char err[256] = "";
	uint64_t v = 0;
	int rc = iob_parse_size(text, &v, err, sizeof err);
	if (rc != 0 || v != want)
		fail_msg("'%s': rc %d value %llu (want %llu) err '%s'", text, rc, (unsigned long long)v,
			 (unsigned long long)want, err);
}

static void bad(const char *text, int want_rc, const char *fragment)
{
	char err[256] = "";
	uint64_t v = 12345;
	int rc = iob_parse_size(text, &v, err, sizeof err);
	if (rc != want_rc || !strstr(err, fragment) || v != 12345)
		fail_msg("'%s': rc %d (want %d), err '%s' (want '%s'), value %llu", text, rc, want_rc, err, fragment,
			 (unsigned long long)v);
}

static void test_sizes(void **s)
{
	(void)s;
	ok("0", 0);
	ok("4096", 4096);
	ok("512B", 512);
	ok("4k", 4096);
	ok("4K", 4096);
	ok("4KiB", 4096);
	ok("4KB", 4000);
	ok("4kB", 4000);
	ok("1m", 1048576);
	ok("1M", 1048576);
	ok("1MiB", 1048576);
	ok("1MB", 1000000);
	ok("2g", 2147483648ull);
	ok("2G", 2147483648ull);
	ok("2GiB", 2147483648ull);
	ok("2GB", 2000000000ull);
	ok("1T", 1ull << 40);
	ok("1TB", 1000000000000ull);
	ok("1.5K", 1536);
	ok("0.5M", 524288);
	ok(" 8K ", 8192);
	ok("18446744073709551615", UINT64_MAX);
	ok("16777215T", 16777215ull << 40);
	/* exact: integer arithmetic, however many digits */
	ok("1.50K", 1536);
	ok(".5K", 512);
	ok("0.0", 0);
	ok("1.0000000000000000000000000000000000000K", 1024);
	ok("0.0000000000009094947017729282379150390625T", 1); /* 2^-40 x 2^40 */
	ok("0.0009765625000000000000000000000000000000K", 1);   /* 2^-10 x 2^10 */
	ok("0.001KB", 1);
	ok("1.5MB", 1500000);
	ok("16777215.9999999999990905052982270717620849609375T", UINT64_MAX);
	ok("18446744073709551.615KB", UINT64_MAX);
}

static void test_bad_sizes(void **s)
{
	(void)s;
	bad("", -EINVAL, "empty");
	bad("-1", -EINVAL, "negative");
	bad("abc", -EINVAL, "not a size");
	bad("4kb", -EINVAL, "ambiguous");
	bad("4mb", -EINVAL, "ambiguous");
	bad("4Kb", -EINVAL, "ambiguous");
	bad("4X", -EINVAL, "unknown unit");
	bad("4 K", -EINVAL, "trailing");
	bad("4K4", -EINVAL, "unknown unit");
	bad("0.5", -EINVAL, "whole number");
	bad("1.0001K", -EINVAL, "whole number");
	/* 1024 + 1024e-19: a double rounds it to 1024; exactly it is no whole byte */
	bad("1.0000000000000000001K", -EINVAL, "whole number");
	bad("0.0000000000009094947017729282379150390624T", -EINVAL, "whole number");
	bad("0.00000000000000000000000000000000000000000000000000000000001G", -EINVAL, "whole number");
	bad("0.5B", -EINVAL, "whole number");
	bad("1.5", -EINVAL, "whole number");
	bad("16777215.9999999999990905052982270717620849609376T", -EINVAL, "whole number");
	bad("18446744073709551615.5K", -ERANGE, "too large");
	bad("18446744073709551.616KB", -ERANGE, "too large"); /* the fraction tips it over */
	bad("16777215.99999999999909050529822707176208496093750000001T", -EINVAL, "whole number");
	bad("nan", -EINVAL, "not a size");
	bad("inf", -EINVAL, "not a size");
	bad("99999999999999999999", -ERANGE, "too large");
	bad("18446744073709551616", -ERANGE, "too large");
	bad("16777216T", -ERANGE, "too large");
	bad("17179869184G", -ERANGE, "too large");
}

static void test_numbers(void **s)
{
	(void)s;
	char err[256];
	uint64_t v;
	double d;
	int b;
	assert_int_equal(iob_parse_u64("1000", &v, err, sizeof err), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(iob_parse_u64("-1", &v, err, sizeof err), -EINVAL);
	assert_int_equal(iob_parse_u64("1e3", &v, err, sizeof err), -EINVAL);
	assert_int_equal(iob_parse_u64("99999999999999999999", &v, err, sizeof err), -ERANGE);
	assert_int_equal(iob_parse_double("0.25", &d, err, sizeof err), 0);
	assert_true(d == 0.25);
	assert_int_equal(iob_parse_double("nan", &d, err, sizeof err), -EINVAL);
	assert_int_equal(iob_parse_double("inf", &d, err, sizeof err), -EINVAL);
	assert_int_equal(iob_parse_double("0x10", &d, err, sizeof err), -EINVAL);
	assert_int_equal(iob_parse_double("1e999", &d, err, sizeof err), -EINVAL);
	assert_int_equal(iob_parse_bool("Yes", &b, err, sizeof err), 0);
	assert_int_equal(b, 1);
	assert_int_equal(iob_parse_bool("off", &b, err, sizeof err), 0);
	assert_int_equal(b, 0);
	assert_int_equal(iob_parse_bool("maybe", &b, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "maybe"));
}

static void test_format(void **s)
{
	(void)s;
	static const struct {
		void (*format)(double, char *, size_t);
		double v;
		const char *want;
	} cases[] = {
	    {iob_format_bytes, 512, "512 B"},	{iob_format_bytes, 1536, "1.50 KiB"},
	    {iob_format_bytes, 1073741824.0, "1.00 GiB"}, {iob_format_ns, 999, "999 ns"},
	    {iob_format_ns, 1500, "1.50 us"},	{iob_format_ns, 2.5e9, "2.500 s"},
	};
	char buf[32];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cases[i].format(cases[i].v, buf, sizeof buf);
		assert_string_equal(buf, cases[i].want);
	}
}

static void quoted(const char *in, size_t outlen, const char *want)
{
	char out[256];
	assert_true(outlen <= sizeof out);
	const char *got = iob_quote(in, out, outlen);
	if (strcmp(got, want) != 0)
		fail_msg("iob_quote(%llu): got '%s', want '%s'", (unsigned long long)outlen, got, want);
}

/* Messages and the progress line: C0, DEL, C1 and every byte of invalid
 * UTF-8 as \xNN; printable UTF-8 kept; a cut never splits a character or
 * an escape. */
static void test_quote(void **s)
{
	(void)s;
	quoted("plain /tmp/a b", 64, "plain /tmp/a b");
	quoted("\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80", 64, "\xc3\xa9\xe6\xbc\xa2\xf0\x9f\x98\x80");
	quoted("a\x1b[31mb\x7f", 64, "a\\x1b[31mb\\x7f");
	quoted("csi \xc2\x9b" "2J nel \xc2\x85", 64, "csi \\xc2\\x9b2J nel \\xc2\\x85");
	quoted("raw \x9b \x80 \xff", 64, "raw \\x9b \\x80 \\xff");
	quoted("sur \xed\xa0\x80 over \xc0\xaf big \xf4\x90\x80\x80 cut \xe6\xbc", 128,
	       "sur \\xed\\xa0\\x80 over \\xc0\\xaf big \\xf4\\x90\\x80\\x80 cut \\xe6\\xbc");
	quoted("\xef\xbf\xbe ok", 64, "\xef\xbf\xbe ok"); /* a non-character, printable on a terminal */
	/* cut: "..." after whole characters and escapes */
	quoted("abcdefghij", 8, "abcd...");
	quoted("\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2", 10, "\xe6\xbc\xa2\xe6\xbc\xa2...");
	quoted("\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2", 9, "\xe6\xbc\xa2...");
	quoted("\x9b\x9b\x9b", 10, "\\x9b...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_quote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
