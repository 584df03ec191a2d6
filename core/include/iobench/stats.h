/*
 * iobench/stats.h - the statistics of repeated measurements: descriptive
 * figures, the confidence interval of a mean, and the relative change
 * between two sets of samples with its interval.  docs/statistics.md says
 * what each assumes and where it stops holding.
 */
#ifndef IOBENCH_STATS_H
#define IOBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Descriptive figures of n samples and the confidence interval of their mean.
 * With n < 2 the spread and the interval are not known (*_known = 0). */
struct iob_ci_stats {
	size_t n;
	double mean, median, min, max;
	double stddev; /* sample standard deviation (n - 1) */
	double cv;     /* stddev / mean (0 when the mean is 0) */
	int ci_known;
	double conf;             /* e.g. 0.95 */
	double ci_low, ci_high;  /* the interval of the mean */
	double ci_half;          /* (ci_high - ci_low) / 2 */
};

/* Student's t interval of the mean at confidence conf (0 < conf < 1).
 * Returns 0, or -EINVAL for n == 0 or a non-finite sample. */
int iob_ci_compute(const double *x, size_t n, double conf, struct iob_ci_stats *out);

/* The p-quantile (0 < p < 1) of Student's t distribution with df > 0
 * degrees of freedom (df may be fractional: Welch). */
double iob_t_quantile(double p, double df);
/* P(T <= t) for Student's t with df degrees of freedom. */
double iob_t_cdf(double t, double df);

/* The bootstrap percentile interval of the mean (B resamples, a seeded
 * generator): the comparison docs/statistics.md makes with Student's t.
 * Returns 0, or -EINVAL / -ENOMEM. */
int iob_bootstrap_ci(const double *x, size_t n, double conf, unsigned B, uint64_t seed, double *lo, double *hi);

/* The relative change of NEW's mean against BASE's, (mean_new / mean_base
 * - 1), with its interval at conf: the log of the ratio of the means, its
 * standard error from each side's coefficient of variation (delta method),
 * Welch's degrees of freedom, then exp back.  known = 0 when either side
 * has fewer than 2 samples or a mean <= 0 (no interval, no test). */
struct iob_change {
	int known;
	double rel;             /* point estimate: mean_new / mean_base - 1 */
	double ci_low, ci_high; /* the interval of rel */
	double df;              /* Welch's degrees of freedom */
	int significant;        /* the interval excludes 0 */
};
int iob_stats_change(const double *base, size_t nb, const double *new_, size_t nn, double conf,
		     struct iob_change *out);
/* The same from summary figures only (mean, sample stddev, n per side). */
int iob_stats_change_summary(double mb, double sb, double nb, double mn, double sn, double nn, double conf,
			     struct iob_change *out);

/* A small seeded generator for the bootstrap and the tests (splitmix64). */
uint64_t iob_stats_rand(uint64_t *state);
/* Uniform in (0, 1). */
double iob_stats_uniform(uint64_t *state);
/* Standard normal (Box-Muller). */
double iob_stats_normal(uint64_t *state);

#endif
