/*
 * test_series.c - the core's series statistics (iobench/series.h): block
 * speeds and the clock-resolution rule, the summary figures and their
 * quartile definition, the robust subset, and the cliff detector on planted
 * steps and on many noisy flat series.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/series.h"

/* ---- a small deterministic generator for synthetic series ---- */

static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
	rng_state = s * 0x9e3779b97f4a7c15ull + 1;
}

static double rng_u01(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

static double rng_gauss(void)
{
	double a = rng_u01(), b = rng_u01();
	if (a < 1e-300)
		a = 1e-300;
	return sqrt(-2.0 * log(a)) * cos(6.283185307179586 * b);
}

/* ---- quantiles and summary figures ---- */

static void test_quantile_definition(void **state)
{
	(void)state;
	const double four[] = {1, 2, 3, 4};
	const double five[] = {1, 2, 3, 4, 5};
	/* type 7: h = (n - 1) p, linear between neighbours */
	assert_true(iob_quantile_sorted(four, 4, 0.25) == 1.75);
	assert_true(iob_quantile_sorted(four, 4, 0.5) == 2.5);
	assert_true(iob_quantile_sorted(four, 4, 0.75) == 3.25);
	assert_true(iob_quantile_sorted(five, 5, 0.25) == 2.0);
	assert_true(iob_quantile_sorted(five, 5, 0.5) == 3.0);
	assert_true(iob_quantile_sorted(five, 5, 0.75) == 4.0);
	assert_true(iob_quantile_sorted(five, 5, 0.0) == 1.0);
	assert_true(iob_quantile_sorted(five, 5, 1.0) == 5.0);
	assert_true(iob_quantile_sorted(five, 1, 0.5) == 1.0);
}

static void test_median_is_sorted(void **state)
{
	(void)state;
	/* the legacy tool took the middle of the unsorted data (here 2) */
	const double v[] = {5, 1, 2, 6, 4, 3};
	struct iob_stats all;
	assert_int_equal(iob_stats_compute(v, 6, &all, NULL), 0);
	assert_true(all.median == 3.5);
	const double odd[] = {9, 1, 7, 3, 5};
	assert_int_equal(iob_stats_compute(odd, 5, &all, NULL), 0);
	assert_true(all.median == 5.0);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* iob_median (selection) gives the very bits of the sorted median: odd and
 * even counts, 1 to 60 values and 1,001, many ties, -0.0, infinities and a
 * NaN; its input is left as it was. */
static void test_median_by_selection(void **state)
{
	(void)state;
	uint64_t x = 12345;
	double v[1001], copy[1001], sorted[1001], scratch[1001];
	for (size_t n = 1; n <= 1001; n = n < 60 ? n + 1 : 1001) {
		for (int round = 0; round < 20; round++) {
			for (size_t i = 0; i < n; i++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				unsigned r = (unsigned)(x >> 33);
				v[i] = round % 4 == 0 ? (double)(r % 5)	       /* ties */
				       : round % 4 == 1 ? (double)r / 7.0 - 1e5 /* distinct, signed */
				       : round % 4 == 2 ? (r % 3 ? 1e9 / (double)(r % 1000 + 1) : -0.0)
							: (r % 17 == 0 ? INFINITY : (double)(r % 100));
			}
			if (round == 19 && n > 3)
				v[n / 2] = NAN; /* by the sort, as before */
			memcpy(copy, v, n * sizeof *v);
			memcpy(sorted, v, n * sizeof *v);
			qsort(sorted, n, sizeof *sorted, cmp_dbl);
			double want = iob_quantile_sorted(sorted, n, 0.5), got = iob_median(v, n, scratch);
			assert_memory_equal(&got, &want, sizeof got);
			assert_memory_equal(v, copy, n * sizeof *v);
		}
		if (n == 1001)
			break;
	}
}

static void test_known_series_and_robust_subset(void **state)
{
	(void)state;
	/* sorted: 1 10 11 12 12 13 14 15 40; q1 = 11, q3 = 14, IQR 3,
	 * fences [6.5, 18.5]: 1 and 40 leave, 7 values stay */
	const double v[] = {10, 11, 12, 12, 13, 14, 15, 40, 1};
	struct iob_stats all, rob;
	assert_int_equal(iob_stats_compute(v, 9, &all, &rob), 0);
	assert_int_equal(all.n, 9);
	assert_true(all.min == 1 && all.max == 40);
	assert_true(fabs(all.mean - 128.0 / 9.0) < 1e-12);
	assert_true(all.median == 12);
	assert_true(fabs(all.rms - 9.88576729757121) < 1e-12);
	assert_true(all.q1 == 11 && all.q3 == 14);
	assert_int_equal(rob.n, 7);
	assert_true(rob.min == 10 && rob.max == 15);
	assert_true(fabs(rob.mean - 87.0 / 7.0) < 1e-12);
	assert_true(rob.median == 12);
	assert_true(fabs(rob.rms - 1.5907898179514348) < 1e-12);
}

static void test_robust_fences_inclusive(void **state)
{
	(void)state;
	/* q1 = 20, q3 = 40, upper fence exactly 70: kept */
	const double at[] = {10, 20, 20, 30, 30, 40, 40, 50, 70};
	/* the same with 70.5: dropped */
	const double past[] = {10, 20, 20, 30, 30, 40, 40, 50, 70.5};
	/* IQR 0: only the values equal to the quartiles stay */
	const double flat[] = {0, 4, 4, 4, 4, 4, 4, 4, 8};
	struct iob_stats all, rob;
	assert_int_equal(iob_stats_compute(at, 9, &all, &rob), 0);
	assert_int_equal(rob.n, 9);
	assert_int_equal(iob_stats_compute(past, 9, &all, &rob), 0);
	assert_int_equal(rob.n, 8);
	assert_true(rob.max == 50);
	assert_int_equal(iob_stats_compute(flat, 9, &all, &rob), 0);
	assert_int_equal(rob.n, 7);
	assert_true(rob.min == 4 && rob.max == 4 && rob.rms == 0);
}

static void test_stats_empty_and_single(void **state)
{
	(void)state;
	struct iob_stats all, rob;
	assert_int_equal(iob_stats_compute(NULL, 0, &all, &rob), 0);
	assert_int_equal(all.n, 0);
	assert_int_equal(rob.n, 0);
	const double one[] = {42};
	assert_int_equal(iob_stats_compute(one, 1, &all, &rob), 0);
	assert_true(all.n == 1 && all.median == 42 && all.rms == 0 && rob.n == 1);
}

/* ---- block speeds and the clock's resolution ---- */

static void test_drop_empty(void **state)
{
	(void)state;
	uint64_t bytes[] = {5, 0, 7, 0};
	uint64_t ns[] = {1, 2, 3, 4};
	struct iob_series s = {.n = 4, .cap = 4, .bytes = bytes, .ns = ns};
	assert_int_equal(iob_series_drop_empty(&s), 2);
	assert_true(bytes[0] == 5 && ns[0] == 1 && bytes[1] == 7 && ns[1] == 3);
}

static void test_speeds_plain(void **state)
{
	(void)state;
	uint64_t bytes[] = {1000, 500};
	uint64_t ns[] = {1000, 1000};
	struct iob_series s = {.n = 2, .bytes = bytes, .ns = ns};
	double sp[2];
	unsigned char m[2];
	size_t nm = 99;
	assert_int_equal(iob_series_speeds(&s, 1, sp, m, &nm), 0);
	assert_true(sp[0] == 1e9 && sp[1] == 5e8); /* a short block counts its own bytes */
	assert_int_equal(nm, 0);
	assert_true(m[0] == 0 && m[1] == 0);
}

/* The speeds (sp) and merged marks (m) of four 100-byte blocks timed ns; the
 * count of merged blocks. */
static size_t speeds4(const uint64_t ns[4], double sp[4], unsigned char m[4])
{
	uint64_t bytes[] = {100, 100, 100, 100}, t[4];
	memcpy(t, ns, sizeof t);
	struct iob_series s = {.n = 4, .bytes = bytes, .ns = t};
	size_t nm;
	assert_int_equal(iob_series_speeds(&s, 1, sp, m, &nm), 0);
	return nm;
}

static void test_speeds_merge_zero_time(void **state)
{
	(void)state;
	/* blocks 0 and 1 measured nothing: merged with block 2 */
	double sp[4];
	unsigned char m[4];
	size_t nm = speeds4((const uint64_t[]){0, 0, 200, 100}, sp, m);
	for (int i = 0; i < 3; i++) {
		assert_true(sp[i] == 1.5e9);
		assert_int_equal(m[i], 1);
	}
	assert_true(sp[3] == 1e9);
	assert_int_equal(m[3], 0);
	assert_int_equal(nm, 3);
}

static void test_speeds_tail_joins_previous(void **state)
{
	(void)state;
	double sp[4];
	unsigned char m[4];
	size_t nm = speeds4((const uint64_t[]){100, 100, 0, 0}, sp, m);
	assert_true(sp[0] == 1e9);
	for (int i = 1; i < 4; i++)
		assert_true(sp[i] == 3e9); /* 300 bytes in 100 ns */
	assert_int_equal(m[0], 0);
	assert_int_equal(nm, 3);
}

static void test_speeds_coarse_resolution(void **state)
{
	(void)state;
	/* 1 us clock: 400 ns readings are below it and are grouped to 1200 ns */
	uint64_t bytes[] = {300, 300, 300, 300};
	uint64_t ns[] = {400, 400, 400, 5000};
	struct iob_series s = {.n = 4, .bytes = bytes, .ns = ns};
	double sp[4];
	size_t nm;
	assert_int_equal(iob_series_speeds(&s, 1000, sp, NULL, &nm), 0);
	for (int i = 0; i < 3; i++)
		assert_true(sp[i] == 900.0 * 1e9 / 1200.0);
	assert_true(sp[3] == 300.0 * 1e9 / 5000.0);
	assert_int_equal(nm, 3);
}

static void test_speeds_no_time_at_all(void **state)
{
	(void)state;
	uint64_t bytes[] = {100, 100};
	uint64_t ns[] = {0, 0};
	struct iob_series s = {.n = 2, .bytes = bytes, .ns = ns};
	double sp[2] = {-1, -1};
	assert_int_equal(iob_series_speeds(&s, 1000, sp, NULL, NULL), -ERANGE);
	assert_true(sp[0] == -1 && sp[1] == -1);
	struct iob_series empty = {0};
	assert_int_equal(iob_series_speeds(&empty, 1, sp, NULL, NULL), -ERANGE);
	/* some time, but less than the resolution: one group, still finite */
	ns[1] = 10;
	assert_int_equal(iob_series_speeds(&s, 1000, sp, NULL, NULL), 0);
	assert_true(isfinite(sp[0]) && sp[0] == sp[1] && sp[0] == 200.0 * 1e8);
}

static void test_speeds_always_finite(void **state)
{
	(void)state;
	enum { N = 5000 };
	uint64_t *bytes = malloc(N * sizeof *bytes), *ns = malloc(N * sizeof *ns);
	double *sp = malloc(N * sizeof *sp);
	assert_non_null(bytes);
	assert_non_null(ns);
	assert_non_null(sp);
	rng_seed(7);
	for (size_t i = 0; i < N; i++) {
		bytes[i] = 1 + (uint64_t)(rng_u01() * 1e6);
		ns[i] = rng_u01() < 0.7 ? 0 : (uint64_t)(rng_u01() * 4000); /* a coarse CPU clock */
	}
	ns[N / 2] = 1; /* at least some time */
	struct iob_series s = {.n = N, .bytes = bytes, .ns = ns};
	assert_int_equal(iob_series_speeds(&s, 1000, sp, NULL, NULL), 0);
	for (size_t i = 0; i < N; i++)
		assert_true(isfinite(sp[i]) && sp[i] > 0);
	free(bytes);
	free(ns);
	free(sp);
}

/* ---- the cliff detector ---- */

static void step_series(double *v, size_t n, size_t k0, double before, double after, double noise)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (i < k0 ? before : after) * (1.0 + noise * (2.0 * rng_u01() - 1.0));
}

/* Streaming gives, for every block it hands out, the speed the whole-series
 * computation gives, on random series with many sub-resolution blocks, and
 * hands out every block but the last closed group and any unfinished tail. */
static void test_speed_stream_matches_batch(void **state)
{
	(void)state;
	uint64_t seed = 12345;
	for (int trial = 0; trial < 500; trial++) {
		size_t n = 1 + (size_t)(trial % 60);
		uint64_t bytes[64], ns[64];
		struct iob_series s = {.n = 0, .cap = 64, .bytes = bytes, .ns = ns};
		double batch[64], streamed[64];
		unsigned char got[64] = {0};
		struct iob_speed_stream st;
		iob_speed_stream_init(&st, 1000);
		size_t from, to, handed = 0;
		double v;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			bytes[i] = 4096;
			ns[i] = (seed >> 33) % 3 == 0 ? 0 : (seed >> 40) % 3000; /* many below 1000 */
			s.n = i + 1;
			while (iob_speed_stream_next(&st, &s, &from, &to, &v)) {
				assert_int_equal(from, handed); /* in order, no gaps */
				for (size_t k = from; k < to; k++) {
					streamed[k] = v;
					got[k] = 1;
				}
				handed = to;
			}
		}
		if (iob_series_speeds(&s, 1000, batch, NULL, NULL) != 0)
			continue; /* no time at all: nothing to compare */
		for (size_t k = 0; k < handed; k++)
			assert_true(got[k] && streamed[k] == batch[k]);
	}
}

/* The same bits, field by field (so 0 and -0 differ). */
static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static int same_stats(const struct iob_stats *a, const struct iob_stats *b)
{
	return a->n == b->n && same_bits(a->min, b->min) && same_bits(a->max, b->max) && same_bits(a->mean, b->mean) &&
	       same_bits(a->median, b->median) && same_bits(a->rms, b->rms) && same_bits(a->q1, b->q1) &&
	       same_bits(a->q3, b->q3);
}

/* iob_speeds_summary (one radix sort for the figures and the ranks) gives
 * what iob_stats_compute (qsort) and iob_cliff_find (its own merge sort of
 * the ranks) give, bit for bit, on v[0..n). */
static int summary_same(const double *v, size_t n)
{
	struct iob_stats a1, r1, a2, r2;
	struct iob_cliff c1, c2;
	memset(&a2, 0x55, sizeof a2);
	memset(&r2, 0x55, sizeof r2);
	memset(&c2, 0x55, sizeof c2);
	assert_int_equal(iob_stats_compute(v, n, &a1, &r1), 0);
	assert_int_equal(iob_cliff_find(v, n, NULL, &c1), 0);
	assert_int_equal(iob_speeds_summary(v, n, &a2, &r2, &c2), 0);
	int same = same_stats(&a1, &a2) && same_stats(&r1, &r2) && c1.found == c2.found && c1.block == c2.block &&
		   same_bits(c1.before, c2.before) && same_bits(c1.after, c2.after) && same_bits(c1.ratio, c2.ratio) &&
		   same_bits(c1.share_before, c2.share_before) && same_bits(c1.share_after, c2.share_after) &&
		   (c1.why == c2.why || (c1.why && c2.why && strcmp(c1.why, c2.why) == 0));
	if (!same)
		print_error("n %zu: summary differs (cliff %d/%d at %zu/%zu, median %a/%a)\n", n, c1.found, c2.found,
			    c1.block, c2.block, a1.median, a2.median);
	return same;
}

static void test_speeds_summary_same_as_separate(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 40, 100, 257, 1001, 4000};
	static double v[4000];
	int bad = 0;
	for (uint64_t seed = 1; seed <= 12; seed++)
		for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
			size_t n = sizes[j];
			rng_seed(seed * 97 + j);
			/* a noisy step, a cliff or not */
			step_series(v, n, n / 3, 2e9, seed % 2 ? 3e8 : 1.9e9, 0.3);
			bad += !summary_same(v, n);
			/* many ties: a few levels, 0 and -0 among them, negatives */
			static const double levels[] = {0.0, -0.0, 1.0, 1.0, 2.5, -3.0, 1e9, 5e-324, -5e-324};
			for (size_t i = 0; i < n; i++)
				v[i] = levels[(size_t)(rng_u01() * 9.0) % 9];
			bad += !summary_same(v, n);
			/* any scale and sign, bit patterns of every exponent */
			for (size_t i = 0; i < n; i++)
				v[i] = ldexp(rng_u01() - 0.3, (int)(rng_u01() * 2000.0) - 1000);
			bad += !summary_same(v, n);
			/* the extremes of the range */
			for (size_t i = 0; i < n; i++)
				v[i] = rng_u01() < 0.5 ? DBL_MAX * (rng_u01() < 0.5 ? -1 : 1) : 4.9e-324;
			bad += !summary_same(v, n);
			/* a NaN: each its own way, as before */
			step_series(v, n, n / 2, 1e9, 1e8, 0.1);
			if (n)
				v[n / 2] = NAN;
			bad += !summary_same(v, n);
		}
	assert_int_equal(bad, 0);
}

/* iob_cliff_find with the default parameters, which must succeed: whether it found a cliff */
static int cliff_found(const double *v, size_t n, struct iob_cliff *c)
{
	assert_int_equal(iob_cliff_find(v, n, NULL, c), 0);
	return c->found;
}

/* a step series (step_series), then cliff_found on it */
static int step_cliff_found(double *v, size_t n, size_t k0, double before, double after, double noise,
			    struct iob_cliff *c)
{
	step_series(v, n, k0, before, after, noise);
	return cliff_found(v, n, c);
}

static void test_cliff_clean_step_exact(void **state)
{
	(void)state;
	double v[100];
	struct iob_cliff c;
	assert_int_equal(step_cliff_found(v, 100, 37, 2000, 185, 0, &c), 1);
	assert_int_equal(c.block, 37);
	assert_true(c.before == 2000 && c.after == 185);
	assert_true(fabs(c.ratio - 185.0 / 2000.0) < 1e-12);
	assert_true(c.share_before == 1.0 && c.share_after == 1.0);
}

static void test_cliff_planted_noisy_with_outliers(void **state)
{
	(void)state;
	enum { N = 300 };
	double v[N];
	size_t k0s[] = {20, 75, 150, 240, 280};
	for (uint64_t seed = 1; seed <= 50; seed++)
		for (size_t j = 0; j < sizeof k0s / sizeof k0s[0]; j++) {
			rng_seed(seed * 31 + j);
			step_series(v, N, k0s[j], 1000, 200, 0.3);
			/* single slow blocks before the cliff, single fast ones after */
			v[k0s[j] / 2] = 20;
			v[k0s[j] / 3] = 50;
			v[(k0s[j] + N) / 2] = 3000;
			struct iob_cliff c;
			assert_int_equal(cliff_found(v, N, &c), 1);
			assert_true(labs((long)c.block - (long)k0s[j]) <= 2);
			assert_true(c.ratio > 0.15 && c.ratio < 0.25);
		}
}

static void test_cliff_halving_found(void **state)
{
	(void)state;
	double v[120];
	rng_seed(3);
	step_series(v, 120, 60, 1000, 500, 0.1);
	struct iob_cliff c;
	assert_int_equal(cliff_found(v, 120, &c), 1);
	assert_true(labs((long)c.block - 60) <= 2);
}

/* Noisy but flat: multiplicative noise of several kinds, with outliers; no
 * series may raise an alarm. */
static void test_cliff_no_false_alarm(void **state)
{
	(void)state;
	enum { MAXN = 2000 };
	static double v[MAXN];
	const size_t lens[] = {16, 20, 30, 50, 100, 300, 1000, 2000};
	long alarms = 0, series = 0;
	for (int kind = 0; kind < 3; kind++)
		for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++)
			for (uint64_t seed = 1; seed <= 250; seed++) {
				size_t n = lens[l];
				rng_seed(seed * 1009 + l * 17 + (uint64_t)kind);
				for (size_t i = 0; i < n; i++) {
					double x;
					if (kind == 0)
						x = 1.0 + 0.3 * (2.0 * rng_u01() - 1.0); /* +-30% */
					else if (kind == 1)
						x = exp(0.2 * rng_gauss()); /* log-normal, sigma 0.2 */
					else
						x = 1.0 + 0.15 * (2.0 * rng_u01() - 1.0);
					if (rng_u01() < (kind == 2 ? 0.05 : 0.02))
						x *= 0.1; /* a stalled block */
					v[i] = 800.0 * x;
				}
				struct iob_cliff c;
				assert_int_equal(iob_cliff_find(v, n, NULL, &c), 0);
				alarms += c.found;
				series++;
			}
	assert_int_equal(series, 3 * 8 * 250);
	assert_int_equal(alarms, 0);
}

static void test_cliff_rejections(void **state)
{
	(void)state;
	double v[200];
	struct iob_cliff c;

	/* too short to tell */
	assert_int_equal(step_cliff_found(v, 12, 6, 1000, 100, 0, &c), 0);
	assert_string_equal(c.why, "too few blocks");

	/* a dip that recovers */
	rng_seed(11);
	step_series(v, 200, 200, 1000, 1000, 0.1);
	for (size_t i = 80; i < 110; i++)
		v[i] *= 0.2;
	assert_int_equal(cliff_found(v, 200, &c), 0);

	/* fast and slow blocks alternating: bimodal but flat */
	for (size_t i = 0; i < 200; i++)
		v[i] = i % 2 ? 1000 : 200;
	assert_int_equal(cliff_found(v, 200, &c), 0);

	/* a rise is not a drop */
	assert_int_equal(step_cliff_found(v, 200, 100, 200, 1000, 0.1, &c), 0);

	/* a 25% drop is too small */
	assert_int_equal(step_cliff_found(v, 200, 100, 1000, 750, 0.05, &c), 0);
	assert_string_equal(c.why, "drop too small");
}

static void test_cliff_gradual_slide(void **state)
{
	(void)state;
	double v[200];
	for (size_t i = 0; i < 200; i++)
		v[i] = 1000.0 - 900.0 * (double)i / 199.0;
	struct iob_cliff c;
	assert_int_equal(cliff_found(v, 200, &c), 1);
	assert_true(c.block >= 80 && c.block <= 120);
}

static void test_cliff_params(void **state)
{
	(void)state;
	struct iob_cliff_params p;
	iob_cliff_defaults(&p);
	assert_int_equal(p.min_run, 8);
	assert_true(p.min_run_frac == 0.05 && p.max_ratio == 0.6 && p.min_share == 0.8);
	/* a looser ratio finds the 25% drop the defaults refuse */
	double v[200];
	rng_seed(5);
	step_series(v, 200, 100, 1000, 750, 0.05);
	p.max_ratio = 0.8;
	struct iob_cliff c;
	assert_int_equal(iob_cliff_find(v, 200, &p, &c), 0);
	assert_int_equal(c.found, 1);
	assert_true(labs((long)c.block - 100) <= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quantile_definition),
	    cmocka_unit_test(test_median_is_sorted),
	    cmocka_unit_test(test_median_by_selection),
	    cmocka_unit_test(test_known_series_and_robust_subset),
	    cmocka_unit_test(test_robust_fences_inclusive),
	    cmocka_unit_test(test_stats_empty_and_single),
	    cmocka_unit_test(test_drop_empty),
	    cmocka_unit_test(test_speeds_plain),
	    cmocka_unit_test(test_speeds_merge_zero_time),
	    cmocka_unit_test(test_speeds_tail_joins_previous),
	    cmocka_unit_test(test_speeds_coarse_resolution),
	    cmocka_unit_test(test_speeds_no_time_at_all),
	    cmocka_unit_test(test_speed_stream_matches_batch),
	    cmocka_unit_test(test_speeds_always_finite),
	    cmocka_unit_test(test_speeds_summary_same_as_separate),
	    cmocka_unit_test(test_cliff_clean_step_exact),
	    cmocka_unit_test(test_cliff_planted_noisy_with_outliers),
	    cmocka_unit_test(test_cliff_halving_found),
	    cmocka_unit_test(test_cliff_no_false_alarm),
	    cmocka_unit_test(test_cliff_rejections),
	    cmocka_unit_test(test_cliff_gradual_slide),
	    cmocka_unit_test(test_cliff_params),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
