/*
 * stats.c - descriptive figures, Student's t interval of a mean, a seeded
 * bootstrap for comparison, and the relative change between two sample
 * sets (iobench/stats.h; docs/statistics.md).
 *
 * Student's t distribution function through the regularized incomplete beta
 * function, I_x(a, b), evaluated by its continued fraction (modified Lentz
 * iteration); quantiles by bisection on the distribution function.
 */
#include "iobench/stats.h"
#include "iobench/perm.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One step of the modified Lentz iteration with numerator num: updates c
 * and d, returns the factor the fraction's value takes. */
static double lentz_step(double num, double *c, double *d)
{
	const double tiny = 1e-300;
	*d = 1.0 + num * *d;
	*c = 1.0 + num / *c;
	if (fabs(*d) < tiny)
		*d = tiny;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1.0 / *d;
	return *d * *c;
}

/* The continued fraction of I_x(a, b), good where x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	double f = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m;
		/* even step */
		f *= lentz_step(m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)), &c, &d);
		/* odd step */
		double step = lentz_step(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)), &c, &d);
		f *= step;
		if (fabs(step - 1.0) < eps)
			break;
	}
	return f;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double inc_beta(double a, double b, double x)
{
	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	double ln_front = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(ln_front) * beta_cf(a, b, x) / a;
	return 1.0 - exp(ln_front) * beta_cf(b, a, 1.0 - x) / b;
}

double iob_t_cdf(double t, double df)
{
	if (!(df > 0.0) || isnan(t))
		return NAN;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	double tail = 0.5 * inc_beta(df / 2.0, 0.5, df / (df + t * t));
	return t >= 0.0 ? 1.0 - tail : tail;
}

double iob_t_quantile(double p, double df)
{
	if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	if (p < 0.5)
		return -iob_t_quantile(1.0 - p, df);
	double lo = 0.0, hi = 1.0;
	while (iob_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2.0;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (iob_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int iob_ci_compute(const double *x, size_t n, double conf, struct iob_ci_stats *out)
{
	memset(out, 0, sizeof *out);
	out->conf = conf;
	if (n == 0 || !(conf > 0.0 && conf < 1.0))
		return -EINVAL;
	double *s = malloc(n * sizeof *s);
	if (!s)
		return -ENOMEM;
	double sum = 0.0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			free(s);
			return -EINVAL;
		}
		s[i] = x[i];
		sum += x[i];
	}
	qsort(s, n, sizeof *s, cmp_double);
	out->n = n;
	out->mean = sum / (double)n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
	free(s);
	if (n < 2)
		return 0;
	double ss = 0.0; /* two passes: no cancellation */
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->stddev = sqrt(ss / (double)(n - 1));
	out->cv = out->mean != 0.0 ? out->stddev / fabs(out->mean) : 0.0;
	double t = iob_t_quantile(0.5 + conf / 2.0, (double)(n - 1));
	out->ci_half = t * out->stddev / sqrt((double)n);
	out->ci_low = out->mean - out->ci_half;
	out->ci_high = out->mean + out->ci_half;
	out->ci_known = 1;
	return 0;
}

uint64_t iob_stats_rand(uint64_t *state)
{
	return iob_splitmix64(state);
}

double iob_stats_uniform(uint64_t *state)
{
	return ((double)(iob_stats_rand(state) >> 11) + 0.5) / 9007199254740992.0;
}

double iob_stats_normal(uint64_t *state)
{
	double u = iob_stats_uniform(state), v = iob_stats_uniform(state);
	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

int iob_bootstrap_ci(const double *x, size_t n, double conf, unsigned B, uint64_t seed, double *lo, double *hi)
{
	if (n == 0 || B < 2 || !(conf > 0.0 && conf < 1.0))
		return -EINVAL;
	double *m = malloc(B * sizeof *m);
	if (!m)
		return -ENOMEM;
	uint64_t st = seed;
	for (unsigned b = 0; b < B; b++) {
		double sum = 0.0;
		for (size_t i = 0; i < n; i++)
			sum += x[iob_stats_rand(&st) % n];
		m[b] = sum / (double)n;
	}
	qsort(m, B, sizeof *m, cmp_double);
	double a = (1.0 - conf) / 2.0;
	size_t il = (size_t)floor(a * (B - 1) + 0.5), ih = (size_t)floor((1.0 - a) * (B - 1) + 0.5);
	*lo = m[il];
	*hi = m[ih];
	free(m);
	return 0;
}

int iob_stats_change_summary(double mb, double sb, double nb, double mn, double sn, double nn, double conf,
			     struct iob_change *out)
{
	memset(out, 0, sizeof *out);
	if (!(mb > 0.0) || !(mn > 0.0) || !isfinite(mb) || !isfinite(mn))
		return -EINVAL;
	out->rel = mn / mb - 1.0;
	if (nb < 2 || nn < 2 || !(conf > 0.0 && conf < 1.0) || !isfinite(sb) || !isfinite(sn))
		return 0;
	double vb = (sb / mb) * (sb / mb) / nb, vn = (sn / mn) * (sn / mn) / nn;
	double se = sqrt(vb + vn);
	double l = log(mn / mb);
	if (se == 0.0) { /* no spread on either side: the change is what it is */
		out->df = nb + nn - 2;
		out->ci_low = out->ci_high = out->rel;
	} else {
		double den = vb * vb / (nb - 1) + vn * vn / (nn - 1);
		out->df = den > 0 ? (vb + vn) * (vb + vn) / den : nb + nn - 2;
		double t = iob_t_quantile(0.5 + conf / 2.0, out->df);
		out->ci_low = exp(l - t * se) - 1.0;
		out->ci_high = exp(l + t * se) - 1.0;
	}
	out->known = 1;
	out->significant = out->ci_low > 0.0 || out->ci_high < 0.0;
	return 0;
}

int iob_stats_change(const double *base, size_t nb, const double *new_, size_t nn, double conf,
		     struct iob_change *out)
{
	struct iob_ci_stats b, n;
	memset(out, 0, sizeof *out);
	if (iob_ci_compute(base, nb, conf, &b) != 0 || iob_ci_compute(new_, nn, conf, &n) != 0)
		return -EINVAL;
	return iob_stats_change_summary(b.mean, b.stddev, (double)nb, n.mean, n.stddev, (double)nn, conf, out);
}
