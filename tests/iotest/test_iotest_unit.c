/*
 * test_iotest_unit.c - iotest's stages called directly: the option parser,
 * the pattern strings, the plan of passes, and the legacy line renderer fed
 * hand-built records (exact strings, no I/O).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "iobench/cli.h"
#include "iobench/result.h"
#include "iotest.h"

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])) - 1)

static struct iotest_opts opts;
static char err[2048];

static int parse(int argc, char **argv)
{
	err[0] = '\0';
	return iotest_parse_args(argc, argv, &opts, err, sizeof err);
}

#define PARSE_OK(...)                                                                                        \
	do {                                                                                                 \
		char *v_[] = {"iotest", __VA_ARGS__, NULL};                                                  \
		int rc_ = parse(ARGC(v_), v_);                                                               \
		if (rc_ != 0)                                                                                \
			fail_msg("parse failed: %s", err);                                                   \
	} while (0)

#define PARSE_BAD(needle, ...)                                                                               \
	do {                                                                                                 \
		char *v_[] = {"iotest", __VA_ARGS__, NULL};                                                  \
		assert_int_equal(parse(ARGC(v_), v_), IOB_EXIT_USAGE);                                       \
		if (!strstr(err, needle))                                                                    \
			fail_msg("message '%s' lacks '%s'", err, needle);                                    \
	} while (0)

/* A refused command line (at most 4 arguments after the name) and a part of
 * its one-line message. */
struct bad_case {
	const char *needle;
	const char *argv[4];
};

static void parse_bad_all(const struct bad_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *v[6] = {"iotest"};
		int argc = 1;
		while (argc - 1 < 4 && c[i].argv[argc - 1]) {
			v[argc] = (char *)c[i].argv[argc - 1];
			argc++;
		}
		assert_int_equal(parse(argc, v), IOB_EXIT_USAGE);
		if (!strstr(err, c[i].needle))
			fail_msg("message '%s' lacks '%s'", err, c[i].needle);
	}
}

static void test_grouped_options(void **state)
{
	(void)state;
	PARSE_OK("-Cp", "013/0f4", "-s", "4", "x", "-Yr");
	assert_true(opts.curt);
	assert_true(opts.read);
	assert_false(opts.write);
	assert_int_equal(opts.sync, IOB_PRIV_SUDO);
	assert_int_equal(opts.size_mb, 4);
	assert_string_equal(opts.output, "x");
	assert_int_equal(opts.npatterns, 5);

	PARSE_OK("-C", "-p01", "-s", "4096", "x", "-wa");
	assert_true(opts.write && opts.verify_all && opts.curt);
	assert_int_equal(opts.npatterns, 2);

	PARSE_OK("x", "-b", "1024", "-s", "65536", "-wrC");
	assert_true(opts.write && opts.read && opts.curt);
	assert_int_equal(opts.block_kb, 1024);

	PARSE_OK("-C", "-s", "4096", "x", "-rw", "-D");
	assert_int_equal(opts.drop, IOB_PRIV_SUDO);
	PARSE_OK("-d", "-y", "x");
	assert_int_equal(opts.drop, IOB_PRIV_SELF);
	assert_int_equal(opts.sync, IOB_PRIV_SELF);

	PARSE_OK("-Wet", "-z", "0.5", "-c", "a comment", "-v", "-i", "in", "-o", "out");
	assert_true(opts.write && opts.nosync && opts.verify_last && opts.truncate && opts.verbose);
	assert_true(opts.snooze_s == 0.5);
	assert_string_equal(opts.comment, "a comment");
	assert_string_equal(opts.input, "in");
	assert_string_equal(opts.output, "out");

	PARSE_OK("--read", "--write", "--no-sync", "--verify", "--all", "--truncate", "--size-mb", "2",
		 "--block-size", "4", "--pattern", "3", "--input", "i", "--output", "o", "--snooze", "1",
		 "--comment", "c", "--curt", "--verbose", "--drop_caches", "--sync", "--seed", "42", "--backend",
		 "stdio", "--format", "json", "--plugin-dir", "/p", "--allow-device", "--dump-profile");
	assert_int_equal(opts.seed, 42);
	assert_int_equal(opts.block_kb, 4);
	assert_string_equal(opts.backend, "stdio");
	assert_string_equal(opts.format, "json");
	assert_int_equal(opts.nplugin_dirs, 1);
	assert_true(opts.allow_device && opts.dump_profile && opts.nosync);

	PARSE_OK("--sudo-drop-caches", "--sudo-sync", "--drop-caches", "x");
	assert_int_equal(opts.drop, IOB_PRIV_SUDO); /* -D wins over -d, whatever the order */
	assert_int_equal(opts.sync, IOB_PRIV_SUDO);

	/* the legacy man page's "-D | - | --drop_caches": a lone - is -d, anywhere */
	PARSE_OK("-", "x");
	assert_int_equal(opts.drop, IOB_PRIV_SELF);
	assert_string_equal(opts.output, "x");
	PARSE_OK("x", "-");
	assert_int_equal(opts.drop, IOB_PRIV_SELF);
	assert_string_equal(opts.output, "x");
	PARSE_OK("-D", "-", "x");
	assert_int_equal(opts.drop, IOB_PRIV_SUDO);
	PARSE_OK("--drop_caches", "x");
	assert_int_equal(opts.drop, IOB_PRIV_SELF);

	PARSE_OK("-n", "x");
	assert_true(opts.write && opts.nosync);
	PARSE_OK("-h");
	assert_true(opts.help);
	PARSE_OK("-?");
	assert_true(opts.help);
	PARSE_OK("-H");
	assert_true(opts.help);
	PARSE_OK("-V");
	assert_true(opts.version);
}

static void test_defaults(void **state)
{
	(void)state;
	PARSE_OK("x");
	assert_int_equal(opts.size_mb, 128);
	assert_int_equal(opts.block_kb, 1);
	assert_int_equal(opts.seed, IOTEST_DEFAULT_SEED);
	assert_int_equal(opts.npatterns, 0);
	assert_string_equal(opts.backend, "posix");
}

/* --plugin-dir up to IOB_MAX_PLUGIN_DIRS times, in order; one more is
 * refused naming the limit (tools/common/tool.c, as every tool does). */
static void test_plugin_dirs(void **state)
{
	(void)state;
	char *v[2 * (IOB_MAX_PLUGIN_DIRS + 1) + 3] = {"iotest"};
	char names[IOB_MAX_PLUGIN_DIRS + 1][16];
	int argc = 1;
	for (int i = 0; i <= IOB_MAX_PLUGIN_DIRS; i++) {
		snprintf(names[i], sizeof names[i], "/p%d", i);
		v[argc++] = "--plugin-dir";
		v[argc++] = names[i];
	}
	v[argc++] = "x";
	assert_int_equal(parse(argc - 3, v), 0); /* without the last --plugin-dir and x */
	assert_int_equal(opts.nplugin_dirs, IOB_MAX_PLUGIN_DIRS);
	assert_string_equal(opts.plugin_dirs[IOB_MAX_PLUGIN_DIRS - 1], names[IOB_MAX_PLUGIN_DIRS - 1]);
	char limit[64];
	snprintf(limit, sizeof limit, "too many --plugin-dir options (at most %d)", IOB_MAX_PLUGIN_DIRS);
	assert_int_equal(parse(argc, v), IOB_EXIT_USAGE);
	assert_string_equal(err, limit);
}

/* Every refused command line: options, values, patterns. */
static void test_bad_options(void **state)
{
	(void)state;
	static const struct bad_case bad[] = {
	    {"'0'", {"-s", "0", "x"}},
	    {"negative", {"-s", "-5", "x"}},
	    {"too large", {"-s", "99999999999999999999", "x"}},
	    {"not a whole number", {"-s", "1.5", "x"}},
	    {"neither a divisor", {"-b", "3", "x"}},
	    {"'0'", {"-b", "0", "x"}},
	    {"neither a divisor", {"-b", "1025", "x"}},
	    {"over the limit", {"-b", "2098176", "x"}},
	    {"unknown option '-x'", {"-x", "f"}},
	    {"unknown option '--bogus'", {"--bogus", "f"}},
	    {"-s needs a value", {"-s"}},
	    {"'--seed' needs a value", {"--seed"}},
	    {"snooze '-1'", {"-z", "-1", "x"}},
	    {"seed 'abc'", {"--seed", "abc", "x"}},
	    {"two files", {"x", "y"}},
	    {"two files", {"-o", "x", "y"}},
	    {"'5' at position 1", {"-p", "5", "x"}},
	    {"'x' at position 3", {"-p", "01x", "x"}},
	    {"needs two hex digits", {"-p", "/zz", "x"}},
	    {"needs two hex digits", {"-p", "/0", "x"}},
	    {"needs a character", {"-p", "=", "x"}},
	    {"no previous pattern", {"-p", "4", "x"}},
	    {"empty pattern", {"-p", "", "x"}},
	};
	parse_bad_all(bad, sizeof bad / sizeof bad[0]);
	const char *letters[] = {"-R", "-T"};
	for (size_t i = 0; i < 2; i++)
		PARSE_BAD("never documented", (char *)letters[i], "x");
	const char *with_arg[] = {"-P", "-I", "-O", "-S", "-B", "-Z"};
	for (size_t i = 0; i < 6; i++)
		PARSE_BAD("never documented", (char *)with_arg[i], "1", "x");
}

static void test_patterns(void **state)
{
	(void)state;
	static const uint8_t want[] = {0x00, 0xff, 0x30, 0x0f, 0xf0};
	PARSE_OK("-p", "013/0f4", "x");
	assert_int_equal(opts.npatterns, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(iob_pattern_label(&opts.patterns[i]), want[i]);
	assert_int_equal(opts.patterns[2].kind, IOB_PAT_RANDOM);
	assert_true(opts.patterns[4].complement);

	PARSE_OK("-p", "01/f04", "x"); /* the man page's four-pass sanitize */
	assert_int_equal(opts.npatterns, 4);
	assert_int_equal(iob_pattern_label(&opts.patterns[2]), 0xf0);
	assert_int_equal(iob_pattern_label(&opts.patterns[3]), 0x0f);

	PARSE_OK("-p", "2", "-p", "4=A/FF44", "x"); /* several -p options add passes */
	assert_int_equal(opts.npatterns, 6);
	assert_int_equal(opts.patterns[0].kind, IOB_PAT_TEXT);
	assert_int_equal(iob_pattern_label(&opts.patterns[1]), 0xba);
	assert_int_equal(iob_pattern_label(&opts.patterns[2]), 'A');
	assert_int_equal(iob_pattern_label(&opts.patterns[3]), 0xff);
	assert_int_equal(iob_pattern_label(&opts.patterns[4]), 0x00);
	assert_false(opts.patterns[5].complement); /* complement of the complement */

	PARSE_OK("-p", "=4", "x"); /* =c takes any character, digits too */
	assert_int_equal(iob_pattern_label(&opts.patterns[0]), '4');

	char many[IOTEST_MAX_PATTERNS + 2];
	memset(many, '0', sizeof many - 1);
	many[sizeof many - 1] = '\0';
	PARSE_BAD("too many patterns", "-p", many, "x");
}

/* The phases of the plan as a string: W R V. */
static const char *passes(struct iotest_plan *plan)
{
	static char s[IOTEST_MAX_STEPS + 1];
	size_t i;
	for (i = 0; i < plan->njobs; i++) {
		uint32_t ph = plan->jobs[i].phases;
		s[i] = ph == IOB_PHASE_BIT(IOB_PHASE_WRITE) ? 'W' : ph == IOB_PHASE_BIT(IOB_PHASE_READ) ? 'R' : 'V';
	}
	s[i] = '\0';
	return s;
}

#define PLAN(expect, ...)                                                                                    \
	do {                                                                                                 \
		PARSE_OK(__VA_ARGS__);                                                                       \
		struct iotest_plan p_;                                                                       \
		if (iotest_plan_build(&opts, &p_, err, sizeof err) != 0)                                     \
			fail_msg("plan failed: %s", err);                                                    \
		assert_string_equal(passes(&p_), expect);                                                    \
		iotest_plan_free(&p_);                                                                       \
	} while (0)

static void test_plan(void **state)
{
	(void)state;
	PLAN("W", "x");
	PLAN("WWWWW", "-Cp", "013/0f4", "-s", "1024", "x");
	PLAN("WWWWWR", "-Cp", "013/0f4", "-s", "1024", "x", "-Yr");
	PLAN("WWWWWR", "-Cp", "013/0f4", "-s", "1024", "x", "-Dr");
	PLAN("WR", "-C", "-s", "4096", "x", "-rw");
	PLAN("WVWV", "-C", "-p01", "-s", "4096", "x", "-wa");
	PLAN("V", "-C", "-p1", "-s", "4096", "x", "-er");
	PLAN("V", "-C", "-p01", "x", "-er"); /* verifying never writes without -w */
	PLAN("R", "-p3", "-r", "x");         /* one pattern with -r only labels the read */
	PLAN("WV", "-e", "x");
	PLAN("WWV", "-p01", "-e", "-w", "-r", "x");
	PLAN("R", "-i", "in");
	PLAN("WR", "-i", "in", "-o", "out", "-w");

	struct iotest_plan p;
	PARSE_OK("-t", "-p", "014", "-a", "-s", "3", "-b", "2048", "x");
	assert_int_equal(iotest_plan_build(&opts, &p, err, sizeof err), 0);
	assert_string_equal(passes(&p), "WVWVWV");
	assert_true(p.jobs[0].truncate);
	for (size_t i = 1; i < p.njobs; i++)
		assert_false(p.jobs[i].truncate);
	assert_int_equal(p.size, 4u << 20); /* 3 mb rounded up to two 2048 kb blocks */
	assert_true(p.rounded);
	assert_int_equal(p.block, 2048u << 10);
	assert_true(p.jobs[0].keep_files);
	assert_string_equal(p.jobs[1].name, "pass2-verify");
	assert_int_equal(iob_pattern_label(&p.jobs[5].pattern), 0x00); /* 4 after 1: complement of ones */
	iotest_plan_free(&p);

	PARSE_OK("-i", "in", "-w");
	assert_int_equal(iotest_plan_build(&opts, &p, err, sizeof err), IOB_EXIT_USAGE);
	assert_non_null(strstr(err, "no file to write"));
	PARSE_OK("-s", "1");
	assert_int_equal(iotest_plan_build(&opts, &p, err, sizeof err), IOB_EXIT_USAGE);
	assert_non_null(strstr(err, "no file given"));
	PARSE_OK("-i", "in", "out");
	assert_int_equal(iotest_plan_build(&opts, &p, err, sizeof err), IOB_EXIT_USAGE);
	assert_non_null(strstr(err, "no write was asked"));
	PARSE_OK("dir/");
	assert_int_equal(iotest_plan_build(&opts, &p, err, sizeof err), IOB_EXIT_USAGE);
	assert_non_null(strstr(err, "names a directory"));
}

/* ---- the renderer --------------------------------------------------------- */

struct membuf {
	char data[4096];
	size_t len;
};

static int mem_write(void *ctx, const char *data, size_t len)
{
	struct membuf *m = ctx;
	if (m->len + len >= sizeof m->data)
		return -1;
	memcpy(m->data + m->len, data, len);
	m->len += len;
	m->data[m->len] = '\0';
	return 0;
}

static void pass_record(struct iob_recbuf *b, const char *op, double mb, double rate_mb, uint64_t kb, uint64_t label,
			int dropped)
{
	double bytes = mb * 1048576.0;
	iob_rec_reset(b, "phase");
	iob_rec_str(b, "phase", op);
	iob_rec_str(b, "file", "./x");
	iob_rec_u64(b, "pass", IOB_UNIT_COUNT, 1);
	iob_rec_str(b, "path", "x");
	iob_rec_u64(b, "bytes", IOB_UNIT_BYTES, (uint64_t)bytes);
	iob_rec_u64(b, "block_size_bytes", IOB_UNIT_BYTES, kb << 10);
	iob_rec_u64(b, "pattern_label", IOB_UNIT_NONE, label);
	iob_rec_f64(b, "elapsed_s", IOB_UNIT_S, mb / rate_mb);
	iob_rec_f64(b, "bw_bytes_per_s", IOB_UNIT_BYTES_PER_S, rate_mb * 1048576.0);
	iob_rec_str(b, "stamp", "20160622.225020");
	iob_rec_bool(b, "cache_dropped", dropped);
	iob_rec_u64(b, "mem_free_before_bytes", IOB_UNIT_BYTES, 1981020160); /* 1.845 GiB */
	iob_rec_u64(b, "mem_free_after_bytes", IOB_UNIT_BYTES, 3093449605); /* 2.881 GiB */
	iob_rec_str(b, "status", "ok");
}

static const char *render(const char *args, const struct iob_record *rec)
{
	static struct membuf m;
	struct iob_sink sink = {.ctx = &m, .write = mem_write, .name = "mem"};
	const struct iob_output_ops *ops = iotest_render_plugin.output;
	void *st = NULL;
	m.len = 0;
	m.data[0] = '\0';
	assert_int_equal(ops->open(&sink, args, &st), 0);
	struct iob_run_info info = {.struct_size = sizeof info, .tool = "iotest", .host = "kcrh6l"};
	assert_int_equal(ops->begin_run(st, &info), 0);
	assert_int_equal(ops->record(st, rec), 0);
	struct iob_run_end end = {.struct_size = sizeof end};
	assert_int_equal(ops->end_run(st, &end), 0);
	assert_int_equal(ops->close(st), 0);
	return m.data;
}

static void test_render(void **state)
{
	(void)state;
	struct iob_recbuf *b = malloc(sizeof *b);
	assert_non_null(b);
	pass_record(b, "write", 1024, 103.79, 1, 0x45, 0);
	assert_string_equal(render(NULL, &b->rec),
			    "kcrh6l write 1024.0 mb in 1 kb blocks 0x45 at 103.79 mb/s in 9.9 seconds: 20160622.225020 x\n");
	pass_record(b, "write", 1024, 109.11, 1, 0x00, 0);
	assert_string_equal(render("curt", &b->rec), "kcrh6l write 1024 mb 1 kb 0x00 109.11 mb/s 9.4 secs\n");
	pass_record(b, "verify", 4096, 69.89, 1, 0xff, 0);
	assert_string_equal(render("curt", &b->rec), "kcrh6l ver. 4096 mb 1 kb 0xff 69.89 mb/s 58.6 secs\n");
	pass_record(b, "read", 65536, 2227.72, 1024, 0x45, 0);
	assert_string_equal(render("curt", &b->rec), "kcrh6l read 65536 mb 1024 kb 0x45 2227.72 mb/s 29.4 secs\n");
	pass_record(b, "write", 1024, 28.39, 1, 0x00, 1);
	assert_string_equal(render("curt", &b->rec),
			    "MemFree: 1.845 2.881\nkcrh6l write 1024 mb 1 kb 0x00 28.39 mb/s 36.1 secs\n");
	/* verbose adds a detail line after the pass line */
	const char *v = render("curt+verbose", &b->rec);
	assert_non_null(strstr(v, "secs\niotest: pass 1 write"));

	iob_rec_reset(b, "cache_drop");
	iob_rec_u64(b, "mem_free_before_bytes", IOB_UNIT_BYTES, 1981020160);
	iob_rec_u64(b, "mem_free_after_bytes", IOB_UNIT_BYTES, 3093449605);
	assert_string_equal(render(NULL, &b->rec), "MemFree: 1.845 2.881\n");
	iob_rec_reset(b, "comment");
	iob_rec_str(b, "comment", "nightly run");
	assert_string_equal(render(NULL, &b->rec), "nightly run\n");
	iob_rec_reset(b, "phase"); /* a phase that is no iotest pass is not the legacy renderer's */
	assert_string_equal(render(NULL, &b->rec), "");
	iob_rec_reset(b, "target"); /* nor are other kinds */
	assert_string_equal(render(NULL, &b->rec), "");

	void *st = NULL;
	struct membuf m = {.len = 0};
	struct iob_sink sink = {.ctx = &m, .write = mem_write, .name = "mem"};
	assert_int_equal(iotest_render_plugin.output->open(&sink, "bogus", &st), -EINVAL);
	char why[256];
	assert_int_equal(iob_plugin_validate(&iotest_render_plugin, why, sizeof why), 0);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grouped_options), cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_bad_options),     cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_plugin_dirs),
		cmocka_unit_test(test_plan),            cmocka_unit_test(test_render),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
