/* Unit tests for the one aggregation (aggregate.c) and the histogram merge
 * across tick scales (hist.c): the merged histogram's percentiles against the
 * exact percentiles of the concatenated samples, IOR's window, elbencho's
 * first done, sums, the spread and the partial mark. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "iobench/aggregate.h"
#include "iobench/hist.h"
#include "iobench/perm.h"

static uint64_t rng_state = 7;
static uint64_t rnd(void)
{
	return iob_splitmix64(&rng_state);
}

static double unit(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t exact_pct(const uint64_t *sorted, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);
	return sorted[(rank < 1 ? 1 : rank) - 1];
}

#define NSTREAMS 8
#define PER 20000

/* Each stream's samples in ticks of its own scale (as the engine's TSC
 * phases measure theirs), differently distributed; the merge against the
 * concatenated samples in ns: every default percentile within 1%. */
static void check_merge(const double *scale, int with_sampling)
{
	uint64_t *all = malloc(NSTREAMS * PER * sizeof *all);
	struct iob_phase_result r[NSTREAMS];
	const struct iob_phase_result *v[NSTREAMS];
	size_t n = 0;
	assert_non_null(all);
	for (int s = 0; s < NSTREAMS; s++) {
		memset(&r[s], 0, sizeof r[s]);
		r[s].hist = iob_hist_new();
		assert_non_null(r[s].hist);
		/* with sampling, stream s keeps 1 in 2^(s % 3) of its I/Os: the
		 * concatenation counts each kept sample that many times */
		uint32_t every = with_sampling ? 1u << (s % 3) : 1;
		r[s].lat_sample_every = every;
		double lo = 800.0 * (s + 1), hi = lo * (s % 2 ? 40 : 3); /* log-uniform, overlapping */
		for (int i = 0; i < PER / (int)every; i++) {
			double ns = lo * pow(hi / lo, unit());
			uint64_t ticks = (uint64_t)llround(ns / scale[s]);
			iob_hist_record(r[s].hist, ticks);
			/* the true value is what the ticks are worth */
			uint64_t truth = (uint64_t)llround((double)ticks * scale[s]);
			for (uint32_t k = 0; k < every; k++)
				all[n++] = truth;
		}
		iob_hist_set_scale(r[s].hist, scale[s]);
		v[s] = &r[s];
	}
	struct iob_aggregate a;
	assert_int_equal(iob_aggregate(v, NSTREAMS, &a), 0);
	qsort(all, n, sizeof *all, cmp_u64);
	assert_int_equal(a.hist->count, n);
	for (size_t i = 0; i < IOB_NPCT; i++) {
		double p = iob_default_pct[i];
		uint64_t want = exact_pct(all, n, p), got = iob_hist_percentile(a.hist, p);
		double err = fabs((double)got - (double)want) / (double)want;
		if (err > 0.01)
			fail_msg("p%g: merged %llu, exact %llu (error %.4f)", p, (unsigned long long)got,
				 (unsigned long long)want, err);
	}
	double emin = fabs((double)iob_hist_min_ns(a.hist) - (double)all[0]) / (double)all[0];
	double emax = fabs((double)iob_hist_max_ns(a.hist) - (double)all[n - 1]) / (double)all[n - 1];
	assert_true(emin < 1e-6 && emax < 1e-6);
	assert_true(iob_hist_percentile(a.hist, 99.99) <= iob_hist_max_ns(a.hist));
	long double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += all[i];
	assert_true(fabs(iob_hist_mean(a.hist) - (double)(sum / n)) / (double)(sum / n) < 1e-3);
	iob_aggregate_free(&a);
	for (int s = 0; s < NSTREAMS; s++)
		iob_hist_free(r[s].hist);
	free(all);
}

static void test_merge_across_tick_scales(void **st)
{
	(void)st;
	const double scale[NSTREAMS] = {0.3571, 0.3569, 0.3574, 0.3572, 0.4167, 1.0, 0.5, 2.5};
	check_merge(scale, 0);
}

static void test_merge_weights_sampled_streams(void **st)
{
	(void)st;
	const double scale[NSTREAMS] = {1, 1, 1, 1, 1, 1, 1, 1};
	check_merge(scale, 1);
}

/* One scale: the merge is the histogram of the concatenation, bucket for bucket. */
static void test_merge_same_scale_is_exact(void **st)
{
	(void)st;
	struct iob_hist *a = iob_hist_new(), *b = iob_hist_new(), *both = iob_hist_new(), *m = iob_hist_new();
	for (int i = 0; i < 5000; i++) {
		uint64_t x = rnd() % 1000000, y = rnd() % 3000;
		iob_hist_record(a, x);
		iob_hist_record(b, y);
		iob_hist_record(both, x);
		iob_hist_record(both, y);
	}
	iob_hist_merge_ns(m, a, 1);
	iob_hist_merge_ns(m, b, 1);
	assert_memory_equal(m->bucket, both->bucket, sizeof both->bucket);
	assert_int_equal(m->count, both->count);
	assert_int_equal(m->min, both->min);
	assert_int_equal(m->max, both->max);
	assert_int_equal(m->sum, both->sum);
	iob_hist_free(a);
	iob_hist_free(b);
	iob_hist_free(both);
	iob_hist_free(m);
}

static void result(struct iob_phase_result *r, uint64_t bytes, uint64_t start, uint64_t end, uint64_t first_done)
{
	memset(r, 0, sizeof *r);
	r->phase = IOB_PHASE_WRITE;
	r->bytes = bytes;
	r->ops = bytes / 4096;
	r->start_ns = start;
	r->end_ns = end;
	r->elapsed_ns = end - start;
	r->first_done_bytes = first_done;
	r->os_read_bytes = 10;
	r->os_write_bytes = bytes;
	r->cpu_user_ns = 1000;
	r->cpu_sys_ns = 2000;
	r->direct = 1;
	r->hist = iob_hist_new();
	iob_hist_record(r->hist, 5000 + bytes / 4096);
}

/* Three streams: started at 1.0, 1.5 and 2.0 s, ended at 3.0, 5.0 and 4.0 s. */
static void test_ior_window_and_first_done(void **st)
{
	(void)st;
	struct iob_phase_result r[3];
	const struct iob_phase_result *v[3] = {&r[0], &r[1], &r[2]};
	result(&r[0], 400 << 20, 1000000000, 3000000000, 400 << 20); /* the first done */
	result(&r[1], 800 << 20, 1500000000, 5000000000, 300 << 20);
	result(&r[2], 600 << 20, 2000000000, 4000000000, 200 << 20);
	struct iob_aggregate a;
	assert_int_equal(iob_aggregate(v, 3, &a), 0);
	assert_int_equal(a.streams, 3);
	assert_int_equal(a.bytes, 1800ull << 20);
	assert_int_equal(a.ops, (1800ull << 20) / 4096);
	assert_int_equal(a.start_ns, 1000000000);
	assert_int_equal(a.end_ns, 5000000000);
	assert_int_equal(a.elapsed_ns, 4000000000);
	assert_true(fabs(a.bw - (double)(1800ull << 20) / 4.0) < 1e-3);
	assert_true(a.last_done_bw == a.bw);
	assert_true(a.first_done_known);
	assert_true(fabs(a.first_done_bw - (double)(900ull << 20) / 2.0) < 1e-3); /* at 3.0 s, 2 s in */
	assert_int_equal(a.first_done_bytes, 900ull << 20);
	assert_int_equal(a.first_done_ns, 2000000000);
	assert_true(fabs(a.stream_bw_min - (double)(400 << 20) / 2.0) < 1e-3);
	assert_true(fabs(a.stream_bw_max - (double)(600 << 20) / 2.0) < 1e-3);
	assert_int_equal(a.os_write_bytes, 1800ull << 20);
	assert_int_equal(a.os_read_bytes, 30);
	assert_int_equal(a.cpu_user_ns, 3000);
	assert_int_equal(a.cpu_sys_ns, 6000);
	assert_int_equal(a.hist->count, 3);
	assert_true(a.direct);
	assert_false(a.partial);
	assert_int_equal(a.status, 0);
	struct iob_phase_result as;
	iob_aggregate_as_result(&a, &as);
	assert_true(fabs(iob_phase_bw(&as) - a.bw) < 1e-3 * a.bw);
	iob_aggregate_free(&a);
	for (int i = 0; i < 3; i++)
		iob_hist_free(r[i].hist);
}

/* What a stream could not say stays unknown, never 0; a failed stream
 * makes the aggregate partial and is named. */
static void test_unknowns_and_partial(void **st)
{
	(void)st;
	struct iob_phase_result r[3];
	const struct iob_phase_result *v[3] = {&r[0], &r[1], &r[2]};
	result(&r[0], 4096, 10, 20, 0);
	result(&r[1], 8192, 12, 30, 0);
	result(&r[2], 4096, 11, 25, 0);
	r[1].os_read_bytes = r[1].os_write_bytes = UINT64_MAX;
	r[2].status = -28;
	r[0].interrupted = 1; /* stopped */
	r[2].direct = 0;
	struct iob_aggregate a;
	assert_int_equal(iob_aggregate(v, 3, &a), 0);
	assert_int_equal(a.os_read_bytes, UINT64_MAX);
	assert_int_equal(a.os_write_bytes, UINT64_MAX);
	assert_false(a.first_done_known); /* the streams gave no first-done counts */
	assert_true(a.partial);
	assert_int_equal(a.status, -28);
	assert_int_equal(a.failed_stream, 2);
	assert_false(a.direct);
	iob_aggregate_free(&a);
	/* no clock readings: the window is the longest stream */
	r[0].end_ns = r[1].end_ns = r[2].end_ns = 0;
	assert_int_equal(iob_aggregate(v, 3, &a), 0);
	assert_int_equal(a.elapsed_ns, 18);
	iob_aggregate_free(&a);
	for (int i = 0; i < 3; i++)
		iob_hist_free(r[i].hist);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_across_tick_scales),
		cmocka_unit_test(test_merge_weights_sampled_streams),
		cmocka_unit_test(test_merge_same_scale_is_exact),
		cmocka_unit_test(test_ior_window_and_first_done),
		cmocka_unit_test(test_unknowns_and_partial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
