/* Loader tests: every refusal is one line naming the file and the reason;
 * a good plugin loads; an older minor's short ops table reads as NULL hooks;
 * search-order shadowing; untrusted permissions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <cmocka.h>

#include "iobench/loader.h"
#include "iobench/log.h"

static struct iob_registry *load(const char *dir)
{
	struct iob_registry *reg = calloc(1, sizeof *reg);
	const char *dirs[1] = {dir};
	assert_non_null(reg);
	unsetenv("IOBENCH_PLUGIN_PATH");
	assert_int_equal(iob_registry_load(reg, dirs, 1), 0);
	return reg;
}

static void done(struct iob_registry *reg)
{
	iob_registry_unload(reg);
	free(reg);
}

/* One error line mentioning both fragments. */
static void expect_error(struct iob_registry *reg, const char *a, const char *b)
{
	for (size_t i = 0; i < reg->nerrors; i++)
		if (strstr(reg->errors[i], a) && strstr(reg->errors[i], b)) {
			assert_null(strchr(reg->errors[i], '\n'));
			return;
		}
	for (size_t i = 0; i < reg->nerrors; i++)
		print_message("error: %s\n", reg->errors[i]);
	fail_msg("no loader error with '%s' and '%s'", a, b);
}

static void test_good(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/good");
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake");
	assert_non_null(l);
	assert_non_null(strstr(l->path, BAD_DIR "/good/iob-backend-fake.so"));
	assert_non_null(l->backend.read_at);
	/* the search path starts with the explicit directory */
	assert_true(reg->ndirs >= 1);
	assert_non_null(strstr(reg->dirs[0], "good"));
	done(reg);
}

static void test_bad_abi(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/bad_abi");
	assert_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake"));
	expect_error(reg, "iob-backend-badabi.so", "built for plugin ABI 99.1, this iobench speaks ABI 1.1");
	done(reg);
}

static void test_no_entry(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/no_entry");
	expect_error(reg, "iob-backend-noentry.so", "no entry symbol iob_plugin_entry");
	done(reg);
}

static void test_missing_op(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/no_op");
	expect_error(reg, "iob-backend-noop.so", "lacks the required op read_at");
	done(reg);
}

static void test_duplicate(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/dup");
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake");
	assert_non_null(l);
	assert_non_null(strstr(l->path, "iob-backend-dup1.so"));
	expect_error(reg, "iob-backend-dup2.so", "duplicate backend name 'fake'");
	done(reg);
}

static void test_old_minor(void **s)
{
	(void)s;
	struct iob_registry *reg = load(BAD_DIR "/old_minor");
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake");
	assert_non_null(l);
	assert_non_null(l->backend.info);
	assert_null(l->backend.truncate); /* past the plugin's table: zeroed */
	assert_null(l->backend.control);
	done(reg);
}

static void test_refuse(void **s)
{
	(void)s;
	iob_log_set_hook(NULL, NULL);
	struct iob_registry *reg = load(BAD_DIR "/refuse");
	expect_error(reg, "iob-backend-refuse.so", "refused to load");
	done(reg);
}

static void test_not_a_shared_object_and_missing(void **s)
{
	(void)s;
	char dir[] = BAD_DIR "/junkXXXXXX";
	assert_non_null(mkdtemp(dir));
	chmod(dir, 0755);
	char path[600];
	snprintf(path, sizeof path, "%s/iob-backend-junk.so", dir);
	FILE *f = fopen(path, "w");
	fputs("this is not ELF\n", f);
	fclose(f);
	chmod(path, 0644);
	struct iob_registry *reg = load(dir);
	expect_error(reg, "iob-backend-junk.so", "not a loadable shared object");
	assert_int_equal(iob_registry_load_file(reg, "/nonexistent/iob-backend-x.so"), -ENOENT);
	expect_error(reg, "/nonexistent/iob-backend-x.so", "no such file");
	done(reg);
	/* a file writable by others is refused, as ssh does for keys */
	chmod(path, 0666);
	reg = load(dir);
	expect_error(reg, "iob-backend-junk.so", "writable by anyone");
	done(reg);
	/* and a directory writable by others */
	chmod(path, 0644);
	chmod(dir, 0777);
	reg = load(dir);
	expect_error(reg, dir, "writable by anyone");
	done(reg);
	unlink(path);
	rmdir(dir);
}

static void test_shadowing(void **s)
{
	(void)s;
	struct iob_registry *reg = calloc(1, sizeof *reg);
	const char *dirs[2] = {BAD_DIR "/good", BAD_DIR "/old_minor"};
	unsetenv("IOBENCH_PLUGIN_PATH");
	iob_registry_load(reg, dirs, 2);
	const struct iob_loaded *l = iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake");
	assert_non_null(l);
	assert_non_null(strstr(l->path, "/good/"));
	assert_true(reg->nshadowed >= 1);
	assert_non_null(strstr(reg->shadowed[0], "shadowed by"));
	/* the real plugins come from the build tree, after the explicit dirs */
	assert_non_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "posix"));
	assert_non_null(iob_registry_find(reg, IOB_PLUGIN_OUTPUT, "json"));
	done(reg);
}

static void test_env_path(void **s)
{
	(void)s;
	struct iob_registry *reg = calloc(1, sizeof *reg);
	setenv("IOBENCH_PLUGIN_PATH", "/nonexistent:" BAD_DIR "/good", 1);
	iob_registry_load(reg, NULL, 0);
	unsetenv("IOBENCH_PLUGIN_PATH");
	assert_non_null(iob_registry_find(reg, IOB_PLUGIN_BACKEND, "fake"));
	done(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad_abi),
		cmocka_unit_test(test_no_entry),
		cmocka_unit_test(test_missing_op),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_old_minor),
		cmocka_unit_test(test_refuse),
		cmocka_unit_test(test_not_a_shared_object_and_missing),
		cmocka_unit_test(test_shadowing),
		cmocka_unit_test(test_env_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
