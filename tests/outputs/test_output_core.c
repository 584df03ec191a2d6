/*
 * test_output_core.c - the core's set of outputs (core/src/output.c) with the
 * real human, csv and json plugins from the build tree:
 *  - a failed write or flush of results is returned, kept and named
 *    ("output json to /dev/full: No space left on device"), for files and for
 *    standard output, and so is an output plugin's own error;
 *  - two outputs on one file, by any spelling, symlink or hard link, are
 *    refused when the spec is parsed, before any file is created;
 *  - iob_output_spec_check_paths refuses an output over a protected path.
 * Standard output is redirected with dup2 for the tests that need it and
 * restored after.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iobench/loader.h"
#include "iobench/output.h"
#include "iobench/plugin.h"

#ifndef IOB_TEST_PLUGIN_DIR
#error "IOB_TEST_PLUGIN_DIR must name the build tree's plugin directory"
#endif

static struct iob_registry *registry;
static char dir[PATH_MAX];

static int group_setup(void **state)
{
	static const char *const dirs[] = {IOB_TEST_PLUGIN_DIR};
	char tmpl[] = "/tmp/iob-output-core-XXXXXX";
	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(dir, sizeof dir, "%s", tmpl);
	registry = calloc(1, sizeof(*registry));
	if (!registry)
		return -1;
	return iob_registry_load(registry, dirs, 1);
}

static int group_teardown(void **state)
{
	char cmd[PATH_MAX + 16];
	(void)state;
	if (registry)
		iob_registry_unload(registry);
	free(registry);
	registry = NULL;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *path_in(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int next;
	char *p = buf[next++ % 4];
	snprintf(p, sizeof buf[0], "%s/%s", dir, name);
	return p;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static void touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

/* ------------------------------------------------------------------------ */
/* One small run through iob_outputs.                                         */

static const struct iob_field fields[] = {
	{.key = "job", .type = IOB_T_STR, .v.s = "j"},
	{.key = "bytes", .type = IOB_T_U64, .unit = IOB_UNIT_BYTES, .v.u = 4096},
};
static const struct iob_record rec = {.kind = "phase", .nfields = 2, .fields = fields};
static const struct iob_run_info info = {.struct_size = sizeof info, .tool = "t", .version = "0", .host = "h",
					 .started = "s", .source = NULL};
static const struct iob_run_end end_ok = {.struct_size = sizeof end_ok};

/* Parse spec, open, begin, one record, end, close: the close status, its
 * message in msg, and the first status any earlier call returned. */
static int run_spec(const char *spec_text, char *msg, size_t msglen, int *first)
{
	struct iob_output_spec spec;
	struct iob_outputs *o = NULL;
	char err[1024];
	int rc;

	rc = iob_output_spec_parse(spec_text, registry, &spec, err, sizeof err);
	if (rc != 0)
		fail_msg("spec '%s' refused: %s", spec_text, err);
	assert_int_equal(iob_outputs_open(&o, registry, &spec, err, sizeof err), 0);
	assert_null(iob_outputs_error(o));
	*first = 0;
	rc = iob_outputs_begin(o, &info);
	if (rc && !*first)
		*first = rc;
	rc = iob_outputs_record(o, &rec);
	if (rc && !*first)
		*first = rc;
	rc = iob_outputs_end(o, &end_ok);
	if (rc && !*first)
		*first = rc;
	return iob_outputs_close_err(o, msg, msglen);
}

static int have_dev_full(void)
{
	struct stat st;
	return stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode);
}

/* Redirect standard output to path (or restore it with path NULL). */
static void redirect_stdout(const char *path, int flags)
{
	static int saved = -1;
	fflush(stdout);
	if (path) {
		int fd = open(path, flags | O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		saved = dup(STDOUT_FILENO);
		assert_true(saved >= 0);
		assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
		close(fd);
	} else {
		clearerr(stdout);
		assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
		close(saved);
		saved = -1;
	}
}

/* Every output to a file on a full device, or to standard output on one
 * (to_stdout): the error comes back as it happened, named. */
static void outputs_on_full_device(int to_stdout)
{
	static const char *const outs[] = {"json", "csv", "human"};
	if (!have_dev_full())
		skip();
	for (size_t i = 0; i < 3; i++) {
		char spec[64], msg[512], want[128];
		int first;
		snprintf(spec, sizeof spec, to_stdout ? "%s" : "%s=/dev/full", outs[i]);
		if (to_stdout)
			redirect_stdout("/dev/full", O_WRONLY);
		int rc = run_spec(spec, msg, sizeof msg, &first);
		if (to_stdout)
			redirect_stdout(NULL, 0);
		assert_int_equal(rc, -ENOSPC);
		assert_int_equal(first, -ENOSPC); /* reported as it happened, not only at close */
		snprintf(want, sizeof want, "output %s to %s: %s", outs[i], to_stdout ? "stdout" : "/dev/full",
			 strerror(ENOSPC));
		assert_string_equal(msg, want);
	}
}

static void test_file_on_full_device(void **state)
{
	(void)state;
	outputs_on_full_device(0);
}

static void test_stdout_on_full_device(void **state)
{
	(void)state;
	outputs_on_full_device(1);
}

/* A healthy run reports nothing. */
static void test_ok_run_has_no_error(void **state)
{
	char spec[PATH_MAX + 64], msg[512];
	int first;
	(void)state;
	snprintf(spec, sizeof spec, "json=%s,csv=%s", path_in("ok.json"), path_in("ok.csv"));
	assert_int_equal(run_spec(spec, msg, sizeof msg, &first), 0);
	assert_int_equal(first, 0);
	assert_string_equal(msg, "");
}

/* An output plugin's own error (json and csv refuse a record whose fields
 * are missing) is kept - the first one - and returned like a failed write. */
static void test_plugin_error_is_returned(void **state)
{
	static const struct iob_record bad = {.kind = "phase", .nfields = 3, .fields = NULL};
	struct iob_output_spec spec;
	struct iob_outputs *o = NULL;
	char text[PATH_MAX + 64], err[1024], want[PATH_MAX + 128];
	(void)state;
	snprintf(text, sizeof text, "json=%s,csv=%s", path_in("p.json"), path_in("p.csv"));
	assert_int_equal(iob_output_spec_parse(text, registry, &spec, err, sizeof err), 0);
	assert_int_equal(iob_outputs_open(&o, registry, &spec, err, sizeof err), 0);
	assert_int_equal(iob_outputs_begin(o, &info), 0);
	assert_int_equal(iob_outputs_record(o, &bad), -EINVAL);
	snprintf(want, sizeof want, "output json to %s: %s", path_in("p.json"), strerror(EINVAL));
	assert_string_equal(iob_outputs_error(o), want);
	/* kept: later calls say so even though they succeed */
	assert_int_equal(iob_outputs_record(o, &rec), -EINVAL);
	assert_int_equal(iob_outputs_end(o, &end_ok), -EINVAL);
	assert_int_equal(iob_outputs_close_err(o, err, sizeof err), -EINVAL);
	assert_string_equal(err, want);
}

/* ------------------------------------------------------------------------ */
/* Overlaps.                                                                  */

static void expect_refused_rc(const char *text, int want, const char *a, const char *b)
{
	struct iob_output_spec spec;
	char err[2048];
	int rc = iob_output_spec_parse(text, registry, &spec, err, sizeof err);
	if (rc == 0)
		fail_msg("spec '%s' was accepted", text);
	assert_int_equal(rc, want);
	assert_null(strchr(err, '\n'));
	if (!strstr(err, a) || !strstr(err, b))
		fail_msg("message '%s' does not name '%s' and '%s'", err, a, b);
}

static void expect_refused(const char *text, const char *a, const char *b)
{
	expect_refused_rc(text, -EINVAL, a, b);
}

static void expect_accepted(const char *text)
{
	struct iob_output_spec spec;
	char err[2048];
	if (iob_output_spec_parse(text, registry, &spec, err, sizeof err) != 0)
		fail_msg("spec '%s' refused: %s", text, err);
}

static void test_two_outputs_one_file_refused(void **state)
{
	char text[3 * PATH_MAX];
	(void)state;
	/* files that do not exist yet: the same normalised path */
	snprintf(text, sizeof text, "json=%s,csv=%s", path_in("x"), path_in("x"));
	expect_refused(text, "json", "csv");
	snprintf(text, sizeof text, "json=%s,csv=%s/./sub/../x", path_in("x"), dir);
	mkdir(path_in("sub"), 0755);
	expect_refused(text, path_in("x"), "/./sub/../x");
	assert_false(exists(path_in("x"))); /* nothing was created */
	/* existing files: a symlink and a hard link to it */
	touch(path_in("real"));
	assert_int_equal(symlink("real", path_in("link")), 0);
	assert_int_equal(link(path_in("real"), path_in("hard")), 0);
	/* an output on a symbolic link is refused as such (never followed) */
	snprintf(text, sizeof text, "human=%s,json=%s", path_in("real"), path_in("link"));
	expect_refused_rc(text, -ELOOP, "link", "symbolic link");
	snprintf(text, sizeof text, "csv=%s,json=%s", path_in("hard"), path_in("real"));
	expect_refused(text, "hard", "real");
	/* distinct files, and a character device shared, are fine */
	snprintf(text, sizeof text, "json=%s,csv=%s", path_in("x"), path_in("y"));
	expect_accepted(text);
	expect_accepted("json=/dev/null,csv=/dev/null");
	assert_false(exists(path_in("x")));
	assert_false(exists(path_in("y")));
}

/* An output file where a redirected stdout already goes is refused when
 * another output writes to stdout. */
static void test_output_file_is_stdout_refused(void **state)
{
	char text[PATH_MAX + 64];
	struct iob_output_spec spec;
	char err[2048];
	int rc;
	(void)state;
	redirect_stdout(path_in("stdout.txt"), O_WRONLY | O_CREAT | O_TRUNC);
	snprintf(text, sizeof text, "human,json=%s", path_in("stdout.txt"));
	rc = iob_output_spec_parse(text, registry, &spec, err, sizeof err);
	redirect_stdout(NULL, 0);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(err, "standard output"));
	assert_non_null(strstr(err, "stdout.txt"));
}

static void test_check_paths(void **state)
{
	struct iob_output_spec spec;
	char text[PATH_MAX + 64], err[2048];
	(void)state;
	touch(path_in("data.dat"));
	assert_int_equal(link(path_in("data.dat"), path_in("data-link")), 0);
	char *prof = strdup(path_in("profile.ini")), *data = strdup(path_in("data.dat"));
	char *fresh = strdup(path_in("new.dat"));
	assert_true(prof && data && fresh);
	const char *protect[] = {NULL, prof, data, fresh};
	touch(prof);

	/* an existing protected file, through a hard link */
	snprintf(text, sizeof text, "json=%s", path_in("data-link"));
	assert_int_equal(iob_output_spec_parse(text, registry, &spec, err, sizeof err), 0);
	assert_int_equal(iob_output_spec_check_paths(&spec, protect, 4, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "data-link"));
	assert_non_null(strstr(err, "data.dat"));

	/* the profile, spelled another way */
	snprintf(text, sizeof text, "csv=%s/sub/../profile.ini", dir);
	assert_int_equal(iob_output_spec_parse(text, registry, &spec, err, sizeof err), 0);
	assert_int_equal(iob_output_spec_check_paths(&spec, protect, 4, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "profile.ini"));

	/* a data file the run will create, not there yet */
	snprintf(text, sizeof text, "human,json=%s/./new.dat", dir);
	assert_int_equal(iob_output_spec_parse(text, registry, &spec, err, sizeof err), 0);
	assert_int_equal(iob_output_spec_check_paths(&spec, protect, 4, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "new.dat"));
	assert_false(exists(path_in("new.dat")));

	/* other files are fine */
	snprintf(text, sizeof text, "json=%s,csv=%s", path_in("out.json"), path_in("out.csv"));
	assert_int_equal(iob_output_spec_parse(text, registry, &spec, err, sizeof err), 0);
	assert_int_equal(iob_output_spec_check_paths(&spec, protect, 4, err, sizeof err), 0);

	/* standard output redirected into a protected file */
	assert_int_equal(iob_output_spec_parse("csv", registry, &spec, err, sizeof err), 0);
	redirect_stdout(path_in("data.dat"), O_WRONLY);
	int rc = iob_output_spec_check_paths(&spec, protect, 4, err, sizeof err);
	redirect_stdout(NULL, 0);
	assert_int_equal(rc, -EINVAL);
	assert_non_null(strstr(err, "standard output"));
	assert_non_null(strstr(err, "data.dat"));
	free(prof);
	free(data);
	free(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_on_full_device),
		cmocka_unit_test(test_stdout_on_full_device),
		cmocka_unit_test(test_ok_run_has_no_error),
		cmocka_unit_test(test_plugin_error_is_returned),
		cmocka_unit_test(test_two_outputs_one_file_refused),
		cmocka_unit_test(test_output_file_is_stdout_refused),
		cmocka_unit_test(test_check_paths),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
