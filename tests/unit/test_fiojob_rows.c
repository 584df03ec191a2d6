/* Unit test of the fio keys that map by their row alone (fj_map_row,
 * core/src/fiojob_data.c): each way fio reads a value (a number, a flag, a
 * size with kb_base, a time in seconds or microseconds, text) sets the
 * iobench key the row names, as iob_job_set checks it; a row's `refuse`
 * refuses any value but fio's default; a row with neither sets nothing; a
 * bad value is one line naming the fio key.  And every row of the table that
 * names an iobench key names a real one. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fiojob_int.h"
#include "iobench/profile.h"

static char err[1024];
static struct reader r;
static struct fsection s;
static struct iob_job job, defaults;
static struct mapper m;

/* Row e maps `value` (NULL: bare) given for the key in fio's fsync slot. */
static int map(const struct fio_key *e, const char *value, int kb1000)
{
	memset(&r, 0, sizeof r);
	memset(&s, 0, sizeof s);
	r.err = err;
	r.errlen = sizeof err;
	err[0] = '\0';
	snprintf(s.name, sizeof s.name, "j");
	snprintf(s.v[K_FSYNC].where, sizeof s.v[K_FSYNC].where, "t.fio:2");
	s.v[K_FSYNC].value = (char *)(value ? value : "");
	s.v[K_FSYNC].bare = value == NULL;
	iob_job_defaults(&job);
	snprintf(job.name, sizeof job.name, "j");
	m = (struct mapper){.r = &r, .s = &s, .job = &job, .kb1000 = kb1000};
	return fj_map_row(&m, K_FSYNC, e);
}

static void test_each_way(void **st)
{
	(void)st;
	const struct fio_key every = {"fsync", "", "fsync_every", "", FJ_AS_UINT, "fsync_every", NULL};
	assert_int_equal(map(&every, "16", 0), 0);
	assert_int_equal(job.load.fsync_every, 16);
	const struct fio_key think = {"fsync", "", "thinktime", "", FJ_AS_TIME_US, "thinktime", NULL};
	assert_int_equal(map(&think, "5", 0), 0);
	assert_int_equal(job.thinktime_ns, 5000);
	assert_int_equal(map(&think, "2ms", 0), 0);
	assert_int_equal(job.thinktime_ns, 2000000);
	const struct fio_key ramp = {"fsync", "", "ramp_time", "", FJ_AS_TIME_S, "ramp_time", NULL};
	assert_int_equal(map(&ramp, "3", 0), 0);
	assert_int_equal(job.ramp_ns, 3000000000ull);
	const struct fio_key align = {"fsync", "", "offset_align", "", FJ_AS_SIZE, "offset_align", NULL};
	assert_int_equal(map(&align, "4k", 0), 0);
	assert_int_equal(job.offset_align, 4096);
	assert_int_equal(map(&align, "4k", 1), 0); /* kb_base=1000 */
	assert_int_equal(job.offset_align, 4000);
	const struct fio_key rmap = {"fsync", "", "random_map", "", FJ_AS_BOOL, "random_map", NULL};
	assert_int_equal(map(&rmap, "0", 0), 0);
	assert_int_equal(job.random_map, 0);
	assert_int_equal(map(&rmap, NULL, 0), 0); /* bare: 1 */
	assert_int_equal(job.random_map, 1);
	const struct fio_key proc = {"fsync", "", "rate_process", "", FJ_AS_TEXT, "rate_process", NULL};
	assert_int_equal(map(&proc, "poisson", 0), 0);
	assert_int_equal(job.rate_process, 1);
}

static void test_bad_values(void **st)
{
	(void)st;
	const struct fio_key rmap = {"fsync", "", "random_map", "", FJ_AS_BOOL, "random_map", NULL};
	assert_int_equal(map(&rmap, "maybe", 0), -EINVAL);
	assert_string_equal(err, "t.fio:2: [j] fsync=maybe: give 1 or 0");
	const struct fio_key every = {"fsync", "", "fsync_every", "", FJ_AS_UINT, "fsync_every", NULL};
	assert_int_equal(map(&every, NULL, 0), -EINVAL);
	assert_string_equal(err, "t.fio:2: [j] fsync: needs a value");
	/* iobench's own check of the value, under fio's key */
	const struct fio_key proc = {"fsync", "", "rate_process", "", FJ_AS_TEXT, "rate_process", NULL};
	assert_int_equal(map(&proc, "steady", 0), -EINVAL);
	assert_non_null(strstr(err, "t.fio:2: [j] fsync=steady: "));
	assert_non_null(strstr(err, "steady"));
	assert_null(strchr(err, '\n'));
}

static void test_refuse_and_nothing(void **st)
{
	(void)st;
	iob_job_defaults(&defaults);
	snprintf(defaults.name, sizeof defaults.name, "j");
	const struct fio_key no = {"fsync", "", "(check)", "", FJ_AS_UINT, NULL, "not in iobench"};
	assert_int_equal(map(&no, "0", 0), 0);
	assert_memory_equal(&job, &defaults, sizeof job);
	assert_int_equal(map(&no, "3", 0), -EINVAL);
	assert_string_equal(err, "t.fio:2: [j] fsync=3: not in iobench");
	const struct fio_key noop = {"fsync", "", "(none)", "", FJ_AS_BOOL, NULL, NULL};
	assert_int_equal(map(&noop, "1", 0), 0);
	assert_memory_equal(&job, &defaults, sizeof job);
	/* a row of mapping code, or a key not given: nothing read */
	const struct fio_key code = {"fsync", "", "x", "", FJ_AS_CODE, "fsync_every", NULL};
	assert_int_equal(map(&code, "garbage", 0), 0);
	assert_memory_equal(&job, &defaults, sizeof job);
	s.v[K_FSYNC].value = NULL;
	const struct fio_key every = {"fsync", "", "fsync_every", "", FJ_AS_UINT, "fsync_every", NULL};
	assert_int_equal(fj_map_row(&m, K_FSYNC, &every), 0);
	assert_memory_equal(&job, &defaults, sizeof job);
}

/* Every row that maps by itself names a real iobench key, or says why it
 * refuses, and the table's rows by code come first. */
static void test_table(void **st)
{
	(void)st;
	assert_true(fj_nkeys >= K_COUNT && fj_nkeys <= FJ_KEYS_MAX);
	for (int i = 0; i < fj_nkeys; i++) {
		const struct fio_key *e = &fj_keys[i];
		assert_non_null(e->name);
		if (i >= K_COUNT && e->as == FJ_AS_CODE)
			fail_msg("fio key %s is an FJ_ROW without `as`: nothing maps it", e->name);
		if (e->ikey && !iob_key_find(e->ikey))
			fail_msg("fio key %s sets %s, which is no iobench key", e->name, e->ikey);
		if (e->ikey && e->refuse)
			fail_msg("fio key %s both sets %s and refuses", e->name, e->ikey);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_way),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_refuse_and_nothing),
	    cmocka_unit_test(test_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
