/* Unit tests for data patterns: labels, offset independence of blocks,
 * complement, and the checker reporting the first bad byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "cmocka_main.h"

#include "iobench/pattern.h"

static void test_labels(void **s)
{
	(void)s;
	struct iob_pattern p = {.kind = IOB_PAT_TEXT};
	assert_int_equal(iob_pattern_label(&p), 0x45);
	p.kind = IOB_PAT_RANDOM;
	assert_int_equal(iob_pattern_label(&p), 0x30);
	p.kind = IOB_PAT_BYTE;
	p.byte = 0x0f;
	assert_int_equal(iob_pattern_label(&p), 0x0f);
	p.complement = 1;
	assert_int_equal(iob_pattern_label(&p), 0xf0);
	p = (struct iob_pattern){.kind = IOB_PAT_ZERO, .complement = 1};
	assert_int_equal(iob_pattern_label(&p), 0xff);
}

/* Filling [0, 4096) in one go equals filling it in odd pieces at their offsets. */
static void check_piecewise(const struct iob_pattern *p)
{
	unsigned char whole[4096], parts[4096];
	iob_pattern_fill(p, whole, sizeof whole, 1000);
	size_t cuts[] = {0, 1, 7, 8, 9, 100, 1023, 2048, 4095, 4096};
	for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++)
		iob_pattern_fill(p, parts + cuts[i], cuts[i + 1] - cuts[i], 1000 + cuts[i]);
	assert_memory_equal(whole, parts, sizeof whole);
}

static void test_offset_function(void **s)
{
	(void)s;
	struct iob_pattern pats[] = {
		{.kind = IOB_PAT_ZERO}, {.kind = IOB_PAT_ONES},	    {.kind = IOB_PAT_TEXT},
		{.kind = IOB_PAT_RANDOM, .seed = 7}, {.kind = IOB_PAT_BYTE, .byte = 0x5a, .complement = 1},
		{.kind = IOB_PAT_RANDOM, .seed = 7, .complement = 1},
	};
	for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
		check_piecewise(&pats[i]);
}

static void test_text_is_printable_lines(void **s)
{
	(void)s;
	struct iob_pattern p = {.kind = IOB_PAT_TEXT};
	unsigned char buf[64 * 200];
	iob_pattern_fill(&p, buf, sizeof buf, 0);
	for (size_t i = 0; i < sizeof buf; i++) {
		if (i % 64 == 0)
			assert_int_equal(buf[i], 'E');
		else if (i % 64 == 63)
			assert_int_equal(buf[i], '\n');
		else
			assert_true(buf[i] >= 0x20 && buf[i] <= 0x7e);
	}
}

static void test_random_seeded(void **s)
{
	(void)s;
	struct iob_pattern a = {.kind = IOB_PAT_RANDOM, .seed = 1}, b = {.kind = IOB_PAT_RANDOM, .seed = 2};
	unsigned char x[1024], y[1024], z[1024];
	iob_pattern_fill(&a, x, sizeof x, 0);
	iob_pattern_fill(&b, y, sizeof y, 0);
	iob_pattern_fill(&a, z, sizeof z, 0);
	assert_memory_not_equal(x, y, sizeof x);
	assert_memory_equal(x, z, sizeof x);
	iob_pattern_fill(&a, z, sizeof z, 1024);
	assert_memory_not_equal(x, z, sizeof x); /* depends on the offset */
}

/* The random pattern's 4 KiB units (a table slice XORed with a word each): no two of 256 are equal, and
 * every byte value holds its share of 1 MiB within 15% (uniform, so nothing a compressor could take). */
static void test_random_units_distinct(void **s)
{
	(void)s;
	enum { UNIT = 4096, UNITS = 256 };
	static unsigned char buf[UNIT * UNITS];
	struct iob_pattern p = {.kind = IOB_PAT_RANDOM, .seed = 280225732};
	iob_pattern_fill(&p, buf, sizeof buf, 0);
	for (size_t a = 0; a < UNITS; a++)
		for (size_t b = a + 1; b < UNITS; b++)
			assert_memory_not_equal(buf + a * UNIT, buf + b * UNIT, UNIT);
	size_t count[256] = {0};
	for (size_t i = 0; i < sizeof buf; i++)
		count[buf[i]]++;
	for (size_t v = 0; v < 256; v++)
		assert_in_range(count[v], 4096 - 614, 4096 + 614);
}

static void test_check_reports_first_bad(void **s)
{
	(void)s;
	struct iob_pattern p = {.kind = IOB_PAT_RANDOM, .seed = 99};
	unsigned char buf[8192], scratch[8192];
	size_t first = 0;
	uint8_t e = 0, f = 0;
	iob_pattern_fill(&p, buf, sizeof buf, 65536);
	assert_int_equal(iob_pattern_check(&p, buf, sizeof buf, 65536, scratch, &first, &e, &f), 0);
	uint8_t orig = buf[3001];
	buf[3001] ^= 0x10;
	buf[5000] ^= 0xff;
	assert_int_equal(iob_pattern_check(&p, buf, sizeof buf, 65536, scratch, &first, &e, &f), 2);
	assert_int_equal(first, 3001);
	assert_int_equal(e, orig);
	assert_int_equal(f, (uint8_t)(orig ^ 0x10));
	/* another pattern does not verify */
	struct iob_pattern q = {.kind = IOB_PAT_TEXT};
	iob_pattern_fill(&q, buf, sizeof buf, 0);
	assert_true(iob_pattern_check(&p, buf, sizeof buf, 0, scratch, &first, &e, &f) > 0);
}

static void test_parse(void **s)
{
	(void)s;
	struct iob_pattern p = {.seed = 5};
	char err[256], name[64];
	assert_int_equal(iob_pattern_parse("~byte:0x0f", &p, err, sizeof err), 0);
	assert_int_equal(p.kind, IOB_PAT_BYTE);
	assert_int_equal(p.byte, 0x0f);
	assert_int_equal(p.complement, 1);
	assert_int_equal(p.seed, 5);
	iob_pattern_name(&p, name, sizeof name);
	assert_string_equal(name, "~byte:0x0f");
	assert_int_equal(iob_pattern_parse("char:A", &p, err, sizeof err), 0);
	assert_int_equal(p.byte, 'A');
	assert_int_equal(iob_pattern_parse("byte:0x100", &p, err, sizeof err), -EINVAL);
	assert_int_equal(iob_pattern_parse("stripes", &p, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "stripes"));
}

IOBTEST_MAIN(cmocka_unit_test(test_labels),
	     cmocka_unit_test(test_offset_function),
	     cmocka_unit_test(test_text_is_printable_lines),
	     cmocka_unit_test(test_random_seeded),
	     cmocka_unit_test(test_random_units_distinct),
	     cmocka_unit_test(test_check_reports_first_bad),
	     cmocka_unit_test(test_parse))
