/* Unit tests for core/src/lattarget.c: latency_target's depth search against
 * a simulated device on which depth d is within the target when d <= best.
 * For every best from 1 to iodepth the search settles at best, in at most
 * 2 log2(iodepth) + 4 windows; the depths it tries for best 3 of 8 are
 * 1, 2, 4, 3, 3 (doubling, then halfway back, then the settled depth's last
 * window); depth 1 over the target fails the phase with latency_percentile
 * 100 and stays at 1 otherwise; latency_run never settles, and after three
 * passes just below a depth that failed once it tries that depth again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "cmocka_main.h"

#include "iobench/lattarget.h"

/* Windows until the search is done (or `limit`): the depths tried, in tried[]. */
static size_t settle(uint32_t max, uint32_t best, uint32_t *tried, size_t limit, enum iob_lat_next *last)
{
	struct iob_lat_search s;
	iob_lat_search_init(&s, max, 0);
	size_t n = 0;
	enum iob_lat_next v = IOB_LAT_GO;
	while (n < limit && v != IOB_LAT_DONE && v != IOB_LAT_FAILED) {
		tried[n++] = s.depth;
		v = iob_lat_search_verdict(&s, s.depth <= best, 0);
	}
	*last = v;
	return n;
}

static void settles_at_best(void **state)
{
	(void)state;
	static const uint32_t maxes[] = {1, 2, 5, 8, 16, 128};
	uint32_t tried[64];
	for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
		uint32_t max = maxes[m], bound = 4;
		for (uint32_t x = max; x > 1; x /= 2)
			bound += 2;
		for (uint32_t best = 1; best <= max; best++) {
			enum iob_lat_next last;
			size_t n = settle(max, best, tried, 64, &last);
			if (last != IOB_LAT_DONE || tried[n - 1] != best || n > bound)
				fail_msg("iodepth %u, best %u: %s at depth %u after %zu windows (at most %u)", max, best,
					 last == IOB_LAT_DONE ? "done" : "not done", tried[n - 1], n, bound);
			assert_int_equal(tried[n - 1], tried[n - 2]); /* the last window repeats the settled depth */
			for (size_t i = 0; i < n; i++)
				assert_true(tried[i] >= 1 && tried[i] <= max);
		}
	}
}

static void depths_tried(void **state)
{
	(void)state;
	uint32_t tried[16];
	enum iob_lat_next last;
	size_t n = settle(8, 3, tried, 16, &last);
	static const uint32_t want[] = {1, 2, 4, 3, 3};
	assert_int_equal(n, 5);
	assert_memory_equal(tried, want, sizeof want);
	n = settle(8, 8, tried, 16, &last); /* all within: doubled to iodepth */
	static const uint32_t all[] = {1, 2, 4, 8, 8};
	assert_int_equal(n, 5);
	assert_memory_equal(tried, all, sizeof all);
}

static void depth_one_over(void **state)
{
	(void)state;
	struct iob_lat_search s;
	iob_lat_search_init(&s, 16, 0);
	assert_int_equal(iob_lat_search_verdict(&s, 0, 1), IOB_LAT_FAILED); /* percentile 100: fatal */
	iob_lat_search_init(&s, 16, 0);
	assert_int_equal(iob_lat_search_verdict(&s, 0, 0), IOB_LAT_DRAIN); /* a window's share: stays at 1 */
	assert_int_equal(s.depth, 1);
	assert_int_equal(iob_lat_search_verdict(&s, 1, 0), IOB_LAT_GO);
	assert_int_equal(s.depth, 2);
	assert_int_equal(iob_lat_search_verdict(&s, 0, 0), IOB_LAT_DRAIN); /* down: drained first */
	assert_int_equal(s.depth, 1);
}

static void keep_going(void **state)
{
	(void)state;
	struct iob_lat_search s;
	iob_lat_search_init(&s, 16, 1);
	/* 1, 2, 4, 8 pass; 16 fails once (noise), then everything passes */
	int failed = 0, tried16 = 0;
	for (int w = 0; w < 40; w++) {
		int pass = !(s.depth == 16 && !failed);
		if (s.depth == 16) {
			tried16++;
			failed = 1;
		}
		enum iob_lat_next v = iob_lat_search_verdict(&s, pass, 0);
		assert_true(v == IOB_LAT_GO || v == IOB_LAT_DRAIN);
	}
	assert_int_equal(tried16 >= 2, 1); /* the failed depth tried again after passes just below it */
	assert_int_equal(s.depth, 16);
}

IOBTEST_MAIN(cmocka_unit_test(settles_at_best),
	     cmocka_unit_test(depths_tried),
	     cmocka_unit_test(depth_one_over),
	     cmocka_unit_test(keep_going))
