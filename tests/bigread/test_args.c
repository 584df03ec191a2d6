/*
 * test_args.c - bigread's command line (tools/bigread/args.c): keywords in
 * any order, positional values, options anywhere, GiB bufsize with
 * truncation, modes, and one-line refusals of bad input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "bigread.h"

/* Parse a list of arguments after the program name, up to a NULL. */
static int vparse(struct bigread_args *a, char *err, size_t errlen, va_list ap)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = "bigread";
	for (char *s = va_arg(ap, char *); s && argc < 31; s = va_arg(ap, char *))
		argv[argc++] = s;
	argv[argc] = NULL;
	err[0] = '\0';
	return bigread_parse_args(argc, argv, a, err, errlen);
}

/* Parse a NULL-terminated list of arguments after the program name. */
static int parse(struct bigread_args *a, char *err, size_t errlen, ...)
{
	va_list ap;
	va_start(ap, errlen);
	int rc = vparse(a, err, errlen, ap);
	va_end(ap);
	return rc;
}

/* The arguments after in (up to a NULL) are accepted, and read from in
 * with that buffer size and clock. */
static void parses_to(struct bigread_args *a, uint64_t bufsize, enum iob_clock clock, const char *in, ...)
{
	char err[512];
	va_list ap;
	va_start(ap, in);
	int rc = vparse(a, err, sizeof err, ap);
	va_end(ap);
	assert_int_equal(rc, 0);
	assert_string_equal(a->in, in);
	assert_true(a->bufsize == bufsize);
	assert_int_equal(a->clock, clock);
}

static void test_keywords_any_order(void **state)
{
	(void)state;
	struct bigread_args a;
	/* 0.1 GiB, truncated */
	parses_to(&a, 107374182u, IOB_CLOCK_PROCESS, "data.bin", "in=data.bin", "bufsize=0.1", "mode=2", NULL);
	assert_true(a.have_in);
	parses_to(&a, 536870912u, IOB_CLOCK_SYSTEM, "x", "mode=1", "bufsize=0.5", "in=x", NULL);
}

static void test_positional(void **state)
{
	(void)state;
	struct bigread_args a;
	parses_to(&a, 107374182u, IOB_CLOCK_WALL, "s1", "s1", "0.1", NULL); /* the default clock */
	parses_to(&a, 10737418u, IOB_CLOCK_USER, "-", "-", "0.01", "0", NULL);
	/* bare values fill what no keyword named */
	parses_to(&a, 268435456u, IOB_CLOCK_WALL, "f", "bufsize=0.25", "f", "3", NULL);
}

static void test_defaults_and_options(void **state)
{
	(void)state;
	struct bigread_args a;
	char err[512];
	assert_int_equal(parse(&a, err, sizeof err, "f", NULL), 0);
	assert_true(a.bufsize == (uint64_t)1 << 30);
	assert_int_equal(a.clock, IOB_CLOCK_WALL);
	assert_string_equal(a.outspec, "bigread");
	assert_null(a.backend);
	assert_false(a.evict);
	assert_int_equal(parse(&a, err, sizeof err, "-b", "direct", "f", "--output=json", "0.5", "-P", "/a",
			       "--plugin-dir", "/b", "--evict", "-v", "--allow-devices", "-ohuman", NULL),
			 0);
	assert_string_equal(a.backend, "direct");
	assert_string_equal(a.outspec, "human");
	assert_int_equal(a.nplugin_dirs, 2);
	assert_string_equal(a.plugin_dirs[0], "/a");
	assert_string_equal(a.plugin_dirs[1], "/b");
	assert_true(a.evict && a.verbose && a.allow_devices);
	assert_string_equal(a.in, "f");
	assert_true(a.bufsize == 536870912u);
	assert_int_equal(parse(&a, err, sizeof err, "--help", NULL), 0);
	assert_true(a.help);
	/* after --, a name holding '=' is a file */
	assert_int_equal(parse(&a, err, sizeof err, "--", "a=b", "0.1", NULL), 0);
	assert_string_equal(a.in, "a=b");
}

static void test_bufsize_forms(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		uint64_t bytes;
	} forms[] = {
	    {"1", 1073741824u},
	    {"2", 2147483648u},
	    {"0.0009765625", 1048576u},
	    {"1e-3", 1073741u},
	    {"4M", 4194304u},
	    {"64KiB", 65536u},
	};
	uint64_t b;
	char err[256];
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		assert_int_equal(bigread_parse_bufsize(forms[i].text, &b, err, sizeof err), 0);
		assert_true(b == forms[i].bytes);
	}
}

static void test_modes(void **state)
{
	(void)state;
	enum iob_clock c;
	char err[256];
	const char *ok[] = {"0", "1", "2", "3", "user", "sys", "cpu", "wall"};
	const enum iob_clock want[] = {IOB_CLOCK_USER, IOB_CLOCK_SYSTEM, IOB_CLOCK_PROCESS, IOB_CLOCK_WALL,
				       IOB_CLOCK_USER, IOB_CLOCK_SYSTEM, IOB_CLOCK_PROCESS, IOB_CLOCK_WALL};
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(bigread_parse_mode(ok[i], &c, err, sizeof err), 0);
		assert_int_equal(c, want[i]);
	}
	assert_int_equal(bigread_parse_mode("4", &c, err, sizeof err), -EINVAL);
	assert_int_equal(bigread_parse_mode("", &c, err, sizeof err), -EINVAL);
}

/* Every refusal is -EINVAL with one line naming the problem. */
static void expect_refused(const char *a1, const char *a2, const char *a3, const char *needle)
{
	struct bigread_args a;
	char err[512];
	int rc = parse(&a, err, sizeof err, (char *)a1, (char *)a2, (char *)a3, NULL);
	if (rc != -EINVAL || !strstr(err, needle) || strchr(err, '\n'))
		fail_msg("%s %s %s: rc %d, message '%s' (wanted '%s')", a1, a2 ? a2 : "", a3 ? a3 : "", rc,
			 err, needle);
}

static void test_refusals(void **state)
{
	(void)state;
	expect_refused("f", "0", NULL, "more than 0");
	expect_refused("f", "-0.1", NULL, "more than 0"); /* a negative value, not an option */
	expect_refused("bufsize=-1", "f", NULL, "more than 0");
	expect_refused("f", "abc", NULL, "not a number");
	expect_refused("f", "bufsize=nan", NULL, "not a number");
	expect_refused("f", "bufsize=inf", NULL, "not a number");
	expect_refused("f", "1e-12", NULL, "less than one byte");
	expect_refused("f", "2.5", NULL, "at most 2 GiB");
	expect_refused("f", "0.1G", NULL, "bufsize");
	expect_refused("f", "0.1", "9", "mode '9'");
	expect_refused("in=", NULL, NULL, "needs a file name");
	expect_refused("in=a", "in=b", NULL, "given twice");
}

static void test_refusals_more(void **state)
{
	(void)state;
	struct bigread_args a;
	char err[512];
	assert_int_equal(parse(&a, err, sizeof err, "f", "0.1", "2", "extra", NULL), -EINVAL);
	assert_non_null(strstr(err, "too many arguments"));
	assert_int_equal(parse(&a, err, sizeof err, "in=f", "bufsize=1", "mode=1", "x", NULL), -EINVAL);
	assert_non_null(strstr(err, "too many arguments"));
	assert_int_equal(parse(&a, err, sizeof err, "f", "--bogus", NULL), -EINVAL);
	assert_non_null(strstr(err, "unknown option '--bogus'"));
	assert_int_equal(parse(&a, err, sizeof err, "f", "-x", NULL), -EINVAL);
	assert_non_null(strstr(err, "unknown option '-x'"));
	assert_int_equal(parse(&a, err, sizeof err, "f", "size=1", NULL), -EINVAL);
	assert_non_null(strstr(err, "unknown keyword"));
	assert_int_equal(parse(&a, err, sizeof err, "f", "--output", NULL), -EINVAL);
	assert_non_null(strstr(err, "needs a value"));
	assert_int_equal(parse(&a, err, sizeof err, "f", "--evict=yes", NULL), -EINVAL);
	assert_non_null(strstr(err, "takes no value"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keywords_any_order),
	    cmocka_unit_test(test_positional),
	    cmocka_unit_test(test_defaults_and_options),
	    cmocka_unit_test(test_bufsize_forms),
	    cmocka_unit_test(test_modes),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_refusals_more),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
