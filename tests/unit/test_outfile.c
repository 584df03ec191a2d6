/* Unit tests for the one checked open of the files a run writes besides its
 * data (core/src/outfile.c): a link planted between the check and the open
 * fails the open, a FIFO never blocks it, nothing is emptied before commit,
 * unmake removes only what was made, a guarded file or another open outfile
 * is refused by device and inode, and side-file names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "iobench/outfile.h"

static char dir[PATH_MAX];

static const char *in(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
	return buf[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static long size_of(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int setup(void **s)
{
	(void)s;
	snprintf(dir, sizeof dir, "/tmp/iob-outfile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **s)
{
	char cmd[PATH_MAX + 16];
	(void)s;
	iob_outfiles_guard_clear();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Checked, then a link planted before the open: the open refuses it and the
 * file it points at keeps its bytes. */
static void test_link_planted_after_check(void **s)
{
	char err[1024];
	struct iob_outfile of;
	(void)s;
	put(in("victim"), "precious\n");
	assert_int_equal(iob_outfile_check("livecsv", in("l.csv"), 0, err, sizeof err), 0);
	assert_int_equal(symlink(in("victim"), in("l.csv")), 0);
	assert_int_equal(iob_outfile_open(&of, "livecsv", in("l.csv"), 0, err, sizeof err), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(size_of(in("victim")), 9);
	assert_int_equal(iob_outfile_check("livecsv", in("l.csv"), 0, err, sizeof err), -ELOOP);
	unlink(in("l.csv"));
}

/* A FIFO is refused at check and at open, and the open returns at once. */
static void test_fifo_refused(void **s)
{
	char err[1024];
	struct iob_outfile of;
	(void)s;
	assert_int_equal(mkfifo(in("p"), 0600), 0);
	assert_int_equal(iob_outfile_check("livecsv", in("p"), 0, err, sizeof err), -EPERM);
	assert_non_null(strstr(err, "FIFO"));
	assert_true(iob_outfile_open(&of, "livecsv", in("p"), 0, err, sizeof err) < 0);
	assert_non_null(strstr(err, "FIFO"));
	unlink(in("p"));
}

/* Character devices only where allowed. */
static void test_chardev(void **s)
{
	char err[1024];
	struct iob_outfile of;
	(void)s;
	assert_int_equal(iob_outfile_check("livecsv", "/dev/null", 0, err, sizeof err), -EPERM);
	assert_int_equal(iob_outfile_check("output json file", "/dev/null", IOB_OUT_CHARDEV, err, sizeof err), 0);
	assert_int_equal(iob_outfile_open(&of, "output json file", "/dev/null", IOB_OUT_CHARDEV, err, sizeof err), 0);
	assert_int_equal(iob_outfile_commit(&of), 0);
	assert_int_equal(iob_outfile_close(&of), 0);
}

/* The file name in the test's directory opened as what with flags and
 * committed holds want bytes; closed. */
static void commit_size(const char *what, const char *name, unsigned flags, long want)
{
	char err[1024];
	struct iob_outfile of;
	assert_int_equal(iob_outfile_open(&of, what, in(name), flags, err, sizeof err), 0);
	assert_int_equal(iob_outfile_commit(&of), 0);
	assert_int_equal(size_of(in(name)), want);
	assert_int_equal(iob_outfile_close(&of), 0);
}

/* Nothing is emptied before commit; unmake removes what was made only. */
static void test_commit_and_unmake(void **s)
{
	char err[1024];
	struct iob_outfile old, made;
	(void)s;
	put(in("old.csv"), "old contents\n");
	assert_int_equal(iob_outfile_open(&old, "livecsv", in("old.csv"), 0, err, sizeof err), 0);
	assert_int_equal(iob_outfile_open(&made, "fio log", in("new.log"), 0, err, sizeof err), 0);
	assert_int_equal(old.made, 0);
	assert_int_equal(made.made, 1);
	assert_int_equal(size_of(in("old.csv")), 13); /* opened, not emptied */
	iob_outfile_unmake(&old);
	iob_outfile_unmake(&made);
	assert_int_equal(iob_outfile_close(&old), 0);
	assert_int_equal(iob_outfile_close(&made), 0);
	assert_int_equal(size_of(in("old.csv")), 13);
	assert_int_equal(size_of(in("new.log")), -1);
	commit_size("livecsv", "old.csv", 0, 0); /* committed: emptied now */
	put(in("app.csv"), "a,b\n");
	commit_size("output csv file", "app.csv", IOB_OUT_APPEND, 4); /* appending keeps the bytes */
}

/* A guarded file (a data file), reached through a hard link, and another
 * open outfile are refused by device and inode. */
static void test_same_file(void **s)
{
	char err[1024];
	struct iob_outfile a, b;
	(void)s;
	put(in("data"), "data data\n");
	assert_int_equal(link(in("data"), in("hard.csv")), 0);
	assert_int_equal(iob_outfiles_guard(in("data")), 0);
	assert_int_equal(iob_outfile_open(&a, "output csv side file", in("hard.csv"), 0, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "reads or writes"));
	assert_int_equal(size_of(in("data")), 10);
	iob_outfiles_guard_clear();
	assert_int_equal(iob_outfile_open(&a, "livecsv", in("x"), 0, err, sizeof err), 0);
	assert_int_equal(iob_outfile_open(&b, "[a] bw_log", in("x"), 0, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "livecsv"));
	assert_int_equal(iob_outfile_close(&a), 0);
	/* closed: the name is free again */
	assert_int_equal(iob_outfile_open(&b, "[a] bw_log", in("x"), 0, err, sizeof err), 0);
	assert_int_equal(iob_outfile_close(&b), 0);
}

static void test_side_names(void **s)
{
	char out[256];
	(void)s;
	assert_int_equal(iob_outfile_side_path("d/run.csv", "block", ".csv", out, sizeof out), 0);
	assert_string_equal(out, "d/run.block.csv");
	assert_int_equal(iob_outfile_side_path("run", "block.2", ".csv", out, sizeof out), 0);
	assert_string_equal(out, "run.block.2.csv");
	assert_int_equal(iob_outfile_side_path("run.csv", "../x", ".csv", out, sizeof out), -EINVAL);
	assert_int_equal(iob_outfile_side_path("run.csv", ".x", ".csv", out, sizeof out), -EINVAL);
	assert_int_equal(iob_outfile_side_path("run.csv", "", ".csv", out, sizeof out), -EINVAL);
	assert_true(iob_outfile_is_side_name("run.csv", ".csv", "run.interval.csv"));
	assert_true(iob_outfile_is_side_name("run", ".csv", "run.x.csv"));
	assert_false(iob_outfile_is_side_name("run.csv", ".csv", "run.csv"));
	assert_false(iob_outfile_is_side_name("run.csv", ".csv", "run.json"));
	assert_false(iob_outfile_is_side_name("run.csv", ".csv", "runx.interval.csv"));
	assert_false(iob_outfile_is_side_name("run.csv", ".csv", "run.interval.dat"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_planted_after_check),
		cmocka_unit_test(test_fifo_refused),
		cmocka_unit_test(test_chardev),
		cmocka_unit_test(test_commit_and_unmake),
		cmocka_unit_test(test_same_file),
		cmocka_unit_test(test_side_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
