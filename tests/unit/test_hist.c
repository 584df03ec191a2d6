/* Unit tests for the latency histogram: percentiles against exact nearest-rank
 * percentiles of random samples, the bucket layout, and the edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>

#include "iobench/hist.h"
#include "iobench/perm.h"

static uint64_t rng_state = 42;
static uint64_t rnd(void)
{
	return iob_splitmix64(&rng_state);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t exact_pct(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

/* Samples drawn from `gen`; every default percentile within 1% of exact. */
static void check_distribution(uint64_t (*gen)(void), size_t n)
{
	uint64_t *v = malloc(n * sizeof *v);
	struct iob_hist *h = iob_hist_new();
	assert_non_null(v);
	assert_non_null(h);
	long double sum = 0;
	for (size_t i = 0; i < n; i++) {
		v[i] = gen();
		sum += v[i];
		iob_hist_record(h, v[i]);
	}
	qsort(v, n, sizeof *v, cmp_u64);
	assert_int_equal(h->count, n);
	assert_int_equal(h->min, v[0]);
	assert_int_equal(h->max, v[n - 1]);
	for (size_t i = 0; i < IOB_NPCT; i++) {
		double p = iob_default_pct[i];
		uint64_t want = exact_pct(v, n, p), got = iob_hist_percentile(h, p);
		double err = want ? fabs((double)got - (double)want) / (double)want : (double)got;
		if (err > 0.01)
			fail_msg("p%g: histogram %llu, exact %llu (error %.4f)", p, (unsigned long long)got,
				 (unsigned long long)want, err);
		assert_true(got <= h->max);
		assert_true(got >= h->min);
	}
	double mean = (double)(sum / n);
	assert_true(fabs(iob_hist_mean(h) - mean) <= mean * 1e-9 + 1e-9);
	free(v);
	iob_hist_free(h);
}

static uint64_t gen_uniform_small(void)
{
	return rnd() % 1000; /* exact region and first octaves */
}
static uint64_t gen_log_uniform(void)
{
	/* ns to hours: 2^0 .. 2^42 */
	unsigned e = (unsigned)(rnd() % 43);
	return (1ull << e) + rnd() % (1ull << e);
}
static uint64_t gen_bimodal(void)
{
	return (rnd() % 10) ? 20000 + rnd() % 5000 : 5000000 + rnd() % 1000000;
}

static void test_percentiles_uniform_small(void **s)
{
	(void)s;
	check_distribution(gen_uniform_small, 100000);
}
static void test_percentiles_log_uniform(void **s)
{
	(void)s;
	check_distribution(gen_log_uniform, 200000);
}
static void test_percentiles_bimodal(void **s)
{
	(void)s;
	check_distribution(gen_bimodal, 50000);
}

static void test_small_counts(void **s)
{
	(void)s;
	struct iob_hist *h = iob_hist_new();
	assert_int_equal(iob_hist_percentile(h, 50), 0);
	iob_hist_record(h, 12345);
	for (size_t i = 0; i < IOB_NPCT; i++) {
		uint64_t p = iob_hist_percentile(h, iob_default_pct[i]);
		assert_true(p <= 12345 && p >= 12345 * 0.99);
	}
	assert_int_equal(iob_hist_percentile(h, 100), 12345);
	iob_hist_free(h);
}

static void test_no_clamping_full_range(void **s)
{
	(void)s;
	struct iob_hist *h = iob_hist_new();
	uint64_t hour = 3600ull * 1000000000ull;
	iob_hist_record(h, 1);
	iob_hist_record(h, hour);
	iob_hist_record(h, UINT64_MAX);
	assert_int_equal(h->max, UINT64_MAX);
	assert_int_equal(iob_hist_percentile(h, 100), UINT64_MAX);
	uint64_t p50 = iob_hist_percentile(h, 50);
	assert_true(fabs((double)p50 - (double)hour) / (double)hour < 0.01);
	assert_int_equal(h->sum, UINT64_MAX); /* saturates, never wraps */
	iob_hist_free(h);
}

static void test_bucket_layout(void **s)
{
	(void)s;
	/* every bucket is contiguous with the next, and at most 1/128 of its low bound wide */
	for (unsigned i = 0; i + 1 < IOB_HIST_BUCKETS; i++) {
		uint64_t lo = iob_hist_bucket_low(i), hi = iob_hist_bucket_high(i);
		assert_int_equal(hi + 1, iob_hist_bucket_low(i + 1));
		assert_int_equal(iob_hist_index(lo), i);
		assert_int_equal(iob_hist_index(hi), i);
		if (lo >= IOB_HIST_SUB)
			assert_true((double)(hi - lo + 1) / (double)lo <= 1.0 / 128 + 1e-12);
	}
	assert_int_equal(iob_hist_index(UINT64_MAX), IOB_HIST_BUCKETS - 1);
}

static void test_stddev_and_merge(void **s)
{
	(void)s;
	struct iob_hist *a = iob_hist_new(), *b = iob_hist_new();
	/* 2,4,4,4,5,5,7,9: population stddev 2 */
	uint64_t v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	for (size_t i = 0; i < 4; i++)
		iob_hist_record(a, v[i]);
	for (size_t i = 4; i < 8; i++)
		iob_hist_record(b, v[i]);
	iob_hist_merge(a, b);
	assert_int_equal(a->count, 8);
	assert_int_equal(a->min, 2);
	assert_int_equal(a->max, 9);
	assert_true(fabs(iob_hist_mean(a) - 5.0) < 1e-12);
	assert_true(fabs(iob_hist_stddev(a) - 2.0) < 1e-9);
	iob_hist_free(a);
	iob_hist_free(b);
}

/* Two scales: iob_hist_merge converts the second histogram's ticks to the
 * first's unit; every percentile stays within the stated 1% of the exact
 * percentile of the concatenated samples (in ns), min and max exactly. */
static void test_merge_different_scales(void **s)
{
	(void)s;
	enum { N = 30000 };
	uint64_t *ns = malloc(2 * N * sizeof *ns);
	struct iob_hist *a = iob_hist_new(), *b = iob_hist_new();
	assert_non_null(ns);
	const double sa = 0.35714, sb = 1.7;
	for (size_t i = 0; i < N; i++) {
		uint64_t ta = 2000 + rnd() % 400000, tb = 100 + rnd() % 9000;
		iob_hist_record(a, ta);
		iob_hist_record(b, tb);
		ns[i] = (uint64_t)llround((double)ta * sa);
		ns[N + i] = (uint64_t)llround((double)tb * sb);
	}
	iob_hist_set_scale(a, sa);
	iob_hist_set_scale(b, sb);
	iob_hist_merge(a, b);
	qsort(ns, 2 * N, sizeof *ns, cmp_u64);
	assert_int_equal(a->count, 2 * N);
	assert_true(llabs((long long)iob_hist_min_ns(a) - (long long)ns[0]) <= 1);
	assert_true(llabs((long long)iob_hist_max_ns(a) - (long long)ns[2 * N - 1]) <= 1);
	for (size_t i = 0; i < IOB_NPCT; i++) {
		double p = iob_default_pct[i];
		uint64_t want = exact_pct(ns, 2 * N, p), got = iob_hist_percentile(a, p);
		double err = fabs((double)got - (double)want) / (double)want;
		if (err > 0.01)
			fail_msg("p%g: merged %llu, exact %llu (error %.4f)", p, (unsigned long long)got,
				 (unsigned long long)want, err);
	}
	iob_hist_free(a);
	iob_hist_free(b);
	free(ns);
}

/* The bins (fio-json:plus): ascending, distinct, adding up to the count,
 * each percentile one of them, the samples of a bucket in its bin; ticks
 * worth less than a ns that land on one ns value make one bin. */
static void check_bins(const struct iob_hist *h)
{
	static uint64_t ns[IOB_HIST_BUCKETS], cnt[IOB_HIST_BUCKETS];
	size_t n = 0;
	iob_hist_bins(h, ns, cnt, &n);
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		assert_true(cnt[i] > 0);
		if (i)
			assert_true(ns[i] > ns[i - 1]);
		sum += cnt[i];
	}
	assert_int_equal(sum, h->count);
	assert_true(n == 0 || (ns[0] >= iob_hist_min_ns(h) && ns[n - 1] <= iob_hist_max_ns(h)));
	for (size_t k = 0; k < IOB_NPCT; k++) {
		uint64_t v = iob_hist_percentile(h, iob_default_pct[k]);
		int found = 0;
		for (size_t i = 0; i < n && !found; i++)
			found = ns[i] == v;
		if (!found)
			fail_msg("p%g = %llu is not a bin", iob_default_pct[k], (unsigned long long)v);
	}
}

static void test_bins(void **state)
{
	(void)state;
	struct iob_hist *h = iob_hist_new();
	assert_non_null(h);
	size_t n = 0;
	static uint64_t ns[IOB_HIST_BUCKETS], cnt[IOB_HIST_BUCKETS];
	iob_hist_bins(h, ns, cnt, &n);
	assert_int_equal(n, 0);
	for (int i = 0; i < 20000; i++)
		iob_hist_record(h, 100 + rnd() % 5000000);
	check_bins(h);
	iob_hist_record(h, 7);
	iob_hist_record(h, 7);
	check_bins(h);
	iob_hist_bins(h, ns, cnt, &n);
	assert_int_equal(ns[0], 7);
	assert_int_equal(cnt[0], 2);
	/* ticks of 0.3 ns: 0..127 ticks land on fewer ns values */
	iob_hist_reset(h);
	for (uint64_t t = 0; t < 128; t++)
		iob_hist_record(h, t);
	iob_hist_set_scale(h, 0.3);
	check_bins(h);
	iob_hist_bins(h, ns, cnt, &n);
	assert_true(n < 128);
	/* the first and the last bucket (the scan skips empty ones eight at a time) */
	iob_hist_reset(h);
	iob_hist_set_scale(h, 1.0);
	iob_hist_record(h, 0);
	iob_hist_record(h, UINT64_MAX);
	iob_hist_record(h, UINT64_MAX);
	check_bins(h);
	iob_hist_bins(h, ns, cnt, &n);
	assert_int_equal(n, 2);
	assert_int_equal(ns[0], 0);
	assert_int_equal(cnt[0], 1);
	assert_int_equal(cnt[1], 2);
	iob_hist_free(h);
}

/* iob_hist_percentiles (one pass, any order of ranks) gives exactly what
 * iob_hist_percentile gives rank by rank: default and unsorted lists with
 * repeats, 0 and 100, empty and scaled histograms, small and large counts. */
static void test_percentiles_one_pass(void **s)
{
	(void)s;
	static const double lists[][IOB_PCT_MAX] = {
	    {99.99, 50, 0, 100, 1, 99.9, 50, 25, 75, 5, 0.001, 99.999, 10, 90, 60, 40, 30, 70, 20, 80},
	    {100, 100, 0, 0, 50, 50, 99, 1, 33.3, 66.6, 12.5, 87.5, 2, 98, 3, 97, 4, 96, 5, 95},
	};
	for (int round = 0; round < 40; round++) {
		struct iob_hist *h = iob_hist_new();
		assert_non_null(h);
		size_t n = round == 0 ? 0 : round < 10 ? (size_t)round : (size_t)(rnd() % 20000);
		for (size_t i = 0; i < n; i++)
			iob_hist_record(h, round % 3 ? gen_log_uniform() : gen_bimodal());
		if (round % 4 == 1)
			iob_hist_set_scale(h, 0.37);
		uint64_t got[IOB_PCT_MAX];
		iob_hist_percentiles(h, iob_default_pct, IOB_NPCT, got);
		for (size_t j = 0; j < IOB_NPCT; j++)
			assert_int_equal(got[j], iob_hist_percentile(h, iob_default_pct[j]));
		for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
			iob_hist_percentiles(h, lists[l], IOB_PCT_MAX, got);
			for (size_t j = 0; j < IOB_PCT_MAX; j++)
				assert_int_equal(got[j], iob_hist_percentile(h, lists[l][j]));
		}
		iob_hist_free(h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentiles_uniform_small),
		cmocka_unit_test(test_percentiles_log_uniform),
		cmocka_unit_test(test_percentiles_bimodal),
		cmocka_unit_test(test_small_counts),
		cmocka_unit_test(test_no_clamping_full_range),
		cmocka_unit_test(test_bucket_layout),
		cmocka_unit_test(test_stddev_and_merge),
		cmocka_unit_test(test_merge_different_scales),
		cmocka_unit_test(test_bins),
		cmocka_unit_test(test_percentiles_one_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
