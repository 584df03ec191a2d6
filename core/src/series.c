/*
 * series.c - block speeds, summary figures and the cliff detector
 * (iobench/series.h, where every rule is stated).
 */
#include "iobench/series.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t iob_series_drop_empty(struct iob_series *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->bytes[i] == 0)
			continue;
		s->bytes[k] = s->bytes[i];
		s->ns[k] = s->ns[i];
		k++;
	}
	s->n = k;
	return k;
}

/* Give blocks [from, to) the speed of bytes over ns; returns how many of
 * them count as merged (all of them when the group has more than one). */
static size_t assign_group(double *speed, unsigned char *merged, size_t from, size_t to, uint64_t bytes,
			   uint64_t ns)
{
	double v = (double)bytes * 1e9 / (double)ns;
	for (size_t i = from; i < to; i++) {
		speed[i] = v;
		if (merged)
			merged[i] = to - from > 1;
	}
	return to - from > 1 ? to - from : 0;
}

int iob_series_speeds(const struct iob_series *s, uint64_t resolution_ns, double *speed,
		      unsigned char *merged, size_t *nmerged)
{
	const uint64_t res = resolution_ns ? resolution_ns : 1;
	size_t start = 0;	      /* first block of the open group */
	uint64_t gbytes = 0, gns = 0; /* its sums */
	size_t last = SIZE_MAX;	      /* first block of the last closed group */
	uint64_t lbytes = 0, lns = 0; /* its sums */
	size_t lmerged = 0;	      /* merged blocks counted for it */
	size_t count = 0, n = s->n;

	if (n == 0)
		return -ERANGE;
	for (size_t i = 0; i < n; i++) {
		gbytes += s->bytes[i];
		gns += s->ns[i];
		if (gns < res)
			continue;
		lmerged = assign_group(speed, merged, start, i + 1, gbytes, gns);
		count += lmerged;
		last = start;
		lbytes = gbytes;
		lns = gns;
		start = i + 1;
		gbytes = gns = 0;
	}
	if (start < n) {
		/* an unfinished group at the end joins the group before it */
		if (last != SIZE_MAX)
			count += assign_group(speed, merged, last, n, lbytes + gbytes, lns + gns) - lmerged;
		else if (gns > 0)
			count += assign_group(speed, merged, 0, n, gbytes, gns);
		else
			return -ERANGE;
	}
	if (nmerged)
		*nmerged = count;
	return 0;
}

void iob_speed_stream_init(struct iob_speed_stream *st, uint64_t resolution_ns)
{
	memset(st, 0, sizeof *st);
	st->res = resolution_ns ? resolution_ns : 1;
}

int iob_speed_stream_next(struct iob_speed_stream *st, const struct iob_series *s, size_t *from, size_t *to,
			  double *speed)
{
	while (st->next < s->n) {
		size_t i = st->next++;
		if (s->bytes[i] == 0)
			continue;
		size_t b = st->blocks++;
		st->gbytes += s->bytes[i];
		st->gns += s->ns[i];
		if (st->gns < st->res)
			continue;
		/* group [start, b] closed: the one before it is final now */
		int had = st->pending;
		size_t f = st->pfrom, t = st->pto;
		uint64_t pb = st->pbytes, pn = st->pns;
		st->pending = 1;
		st->pfrom = st->start;
		st->pto = b + 1;
		st->pbytes = st->gbytes;
		st->pns = st->gns;
		st->start = b + 1;
		st->gbytes = st->gns = 0;
		if (had) {
			*from = f;
			*to = t;
			*speed = (double)pb * 1e9 / (double)pn; /* as assign_group */
			return 1;
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double iob_quantile_sorted(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return 0.0;
	if (p <= 0.0)
		return sorted[0];
	if (p >= 1.0)
		return sorted[n - 1];
	double h = (double)(n - 1) * p;
	size_t j = (size_t)floor(h);
	if (j + 1 >= n)
		return sorted[n - 1];
	return sorted[j] + (h - (double)j) * (sorted[j + 1] - sorted[j]);
}

void iob_stats_sorted(const double *sorted, size_t n, struct iob_stats *st)
{
	memset(st, 0, sizeof *st);
	if (n == 0)
		return;
	double sum = 0.0, ss = 0.0;
	for (size_t i = 0; i < n; i++)
		sum += sorted[i];
	double mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (sorted[i] - mean) * (sorted[i] - mean);
	st->n = n;
	st->min = sorted[0];
	st->max = sorted[n - 1];
	st->mean = mean;
	st->rms = sqrt(ss / (double)n);
	st->median = iob_quantile_sorted(sorted, n, 0.5);
	st->q1 = iob_quantile_sorted(sorted, n, 0.25);
	st->q3 = iob_quantile_sorted(sorted, n, 0.75);
}

/* *all of s[0..n) (n >= 1, sorted ascending) and, when robust is not NULL,
 * *robust of the values inside its fences. */
static void stats_and_robust(const double *s, size_t n, struct iob_stats *all, struct iob_stats *robust)
{
	iob_stats_sorted(s, n, all);
	if (robust) {
		double iqr = all->q3 - all->q1;
		double lo = all->q1 - 1.5 * iqr, hi = all->q3 + 1.5 * iqr;
		size_t a = 0, b = n;
		while (a < n && s[a] < lo)
			a++;
		while (b > a && s[b - 1] > hi)
			b--;
		iob_stats_sorted(s + a, b - a, robust);
	}
}

int iob_stats_compute(const double *v, size_t n, struct iob_stats *all, struct iob_stats *robust)
{
	if (n == 0) {
		iob_stats_sorted(NULL, 0, all);
		if (robust)
			iob_stats_sorted(NULL, 0, robust);
		return 0;
	}
	double *s = malloc(n * sizeof *s);
	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	stats_and_robust(s, n, all, robust);
	free(s);
	return 0;
}

void iob_cliff_defaults(struct iob_cliff_params *p)
{
	p->min_run = 8;
	p->min_run_frac = 0.05;
	p->max_ratio = 0.6;
	p->min_share = 0.8;
}

struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return (x->i > y->i) - (x->i < y->i);
}

/* A merge sort of b[0..n) by cmp_ranked, t holding n: the halves and the
 * merge of glibc's qsort (so the same order whatever the values), without
 * its byte-wise copies of 16-byte elements (0.8 M of bigread's 7.4 M
 * instructions over 1,001 blocks went to that one qsort). */
static void sort_ranked(struct ranked *b, size_t n, struct ranked *t)
{
	if (n <= 1)
		return;
	size_t n1 = n / 2, n2 = n - n1;
	struct ranked *b1 = b, *b2 = b + n1, *o = t;
	sort_ranked(b1, n1, t);
	sort_ranked(b2, n2, t);
	while (n1 > 0 && n2 > 0) {
		if (cmp_ranked(b1, b2) <= 0) {
			*o++ = *b1++;
			n1--;
		} else {
			*o++ = *b2++;
			n2--;
		}
	}
	if (n1 > 0)
		memcpy(o, b1, n1 * sizeof *o);
	memcpy(b, t, (n - n2) * sizeof *b);
}

/* A key whose unsigned order is v's numeric order, 0 and -0 one key (no
 * NaN): the sign bit set for v >= 0, every bit flipped for v < 0. */
static uint64_t order_key(double v)
{
	uint64_t u;
	if (v == 0)
		v = 0.0;
	memcpy(&u, &v, sizeof u);
	return u >> 63 ? ~u : u | UINT64_C(1) << 63;
}

/* A value's order key and its index. */
struct keyed {
	uint64_t key;
	size_t i;
};

/* k[0..n) = the order keys of v[0..n) and their indexes, sorted by (key,
 * index), t holding n: byte by byte from the lowest, a stable counting sort
 * each (a byte that all keys share skipped).  So the values v[k[j].i] come
 * in the order sort_ranked puts (v, i) in, as long as there is no NaN. */
static void radix_keyed(const double *v, size_t n, struct keyed *k, struct keyed *t, size_t count[8][256])
{
	memset(count, 0, 8 * sizeof *count);
	for (size_t i = 0; i < n; i++) {
		uint64_t key = order_key(v[i]);
		k[i].key = key;
		k[i].i = i;
		count[0][key & 255]++; /* unrolled: a third of the loop's instructions */
		count[1][key >> 8 & 255]++;
		count[2][key >> 16 & 255]++;
		count[3][key >> 24 & 255]++;
		count[4][key >> 32 & 255]++;
		count[5][key >> 40 & 255]++;
		count[6][key >> 48 & 255]++;
		count[7][key >> 56]++;
	}
	struct keyed *from = k, *to = t;
	for (int d = 0; n && d < 8; d++) {
		size_t *c = count[d];
		if (c[k[0].key >> (8 * d) & 255] == n)
			continue;
		size_t at = 0;
		for (int j = 0; j < 256; j++) {
			size_t m = c[j];
			c[j] = at;
			at += m;
		}
		for (size_t i = 0; i < n; i++)
			to[c[from[i].key >> (8 * d) & 255]++] = from[i];
		struct keyed *x = from;
		from = to;
		to = x;
	}
	if (from != k)
		memcpy(k, from, n * sizeof *k);
}

/* rank[k[j].i] = the rank of v[k[j].i] (k sorted by key: equal keys,
 * equal values), 1 = smallest, ties at their mean. */
static void ranks_of_keyed(const struct keyed *k, size_t n, double *rank)
{
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		while (b < n && k[b].key == k[a].key)
			b++;
		double mean_rank = ((double)(a + 1) + (double)b) / 2.0; /* ranks a+1 .. b */
		for (size_t j = a; j < b; j++)
			rank[k[j].i] = mean_rank;
		a = b;
	}
}

/* rank[i] = rank of v[i] among v[0..n), 1 = smallest, ties at their mean. */
static int mid_ranks(const double *v, size_t n, double *rank)
{
	struct ranked *r = malloc(2 * n * sizeof *r);
	struct keyed *k = malloc(n * sizeof *k);
	if (!r || !k) {
		free(r);
		free(k);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		r[i].v = v[i];
		r[i].i = i;
	}
	sort_ranked(r, n, r + n);
	/* each run of equal values one key (a NaN equal to nothing: its own) */
	for (size_t j = 0, group = 0; j < n; j++) {
		if (j && !(r[j].v == r[j - 1].v))
			group++;
		k[j].key = group;
		k[j].i = r[j].i;
	}
	ranks_of_keyed(k, n, rank);
	free(r);
	free(k);
	return 0;
}

#define IOB_CLIFF_REFINE_ROUNDS 8

/* Move the k-th smallest of a[0..n) (from 0) to a[k], the smaller ones
 * before it, the others after (Hoare's selection; no NaN in a). */
static void select_kth(double *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		double pivot = a[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		for (;;) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i >= j)
				break;
			double t = a[i];
			a[i++] = a[j];
			a[j--] = t;
		}
		/* a[lo..j] <= pivot <= a[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
}

/* Whether v[0..n) holds a NaN. */
static int any_nan(const double *v, size_t n)
{
	int nan = 0;
	for (size_t i = 0; i < n; i++)
		nan |= isnan(v[i]);
	return nan;
}

/* What iob_quantile_sorted(sorted v, n, 0.5) gives, the same bits, found by
 * selection in O(n) instead of a sort (bigread's cliff search takes 18
 * medians of up to every block: 2.7 M of its 13.5 M instructions over 1,000
 * blocks were these sorts); scratch holds n values.  With a NaN among them,
 * by the sort, as before.
 * nan says whether v[0..n) may hold one (known once for a cliff search's 18
 * medians, not looked for in each). */
static double median_of(const double *v, size_t n, double *scratch, int nan)
{
	memcpy(scratch, v, n * sizeof *scratch);
	if (nan || n < 2) {
		qsort(scratch, n, sizeof *scratch, cmp_double);
		return iob_quantile_sorted(scratch, n, 0.5);
	}
	double h = (double)(n - 1) * 0.5;
	size_t j = (size_t)floor(h);
	select_kth(scratch, n, j);
	double below = scratch[j], next = scratch[j + 1];
	for (size_t i = j + 2; i < n; i++) /* the (j+1)-th smallest: the least after j */
		if (scratch[i] < next)
			next = scratch[i];
	return below + (h - (double)j) * (next - below);
}

double iob_median(const double *v, size_t n, double *scratch)
{
	return median_of(v, n, scratch, any_nan(v, n));
}

/* Levels, midpoint and shares of the split at k. */
static void measure_split(const double *v, size_t n, size_t k, double *scratch, int nan, struct iob_cliff *out)
{
	out->block = k;
	out->before = median_of(v, k, scratch, nan);
	out->after = median_of(v + k, n - k, scratch, nan);
	out->ratio = out->after / out->before;
	double mid = (out->before + out->after) / 2.0;
	size_t above = 0, below = 0;
	for (size_t i = 0; i < k; i++)
		above += v[i] > mid;
	for (size_t i = k; i < n; i++)
		below += v[i] < mid;
	out->share_before = (double)above / (double)k;
	out->share_after = (double)below / (double)(n - k);
}

/* The first k in [m, n - m] maximising S(k) / sqrt(k (n - k)), where S(k) is
 * the sum over i < k of (y[i] - mean y): the standardised difference between
 * the mean of y before k and after it. */
static size_t best_split(const double *y, size_t n, size_t m)
{
	double mean = 0.0;
	for (size_t i = 0; i < n; i++)
		mean += y[i];
	mean /= (double)n;
	double sum = 0.0, best = -INFINITY;
	size_t k = m;
	for (size_t i = 0; i + m < n; i++) {
		sum += y[i] - mean; /* S(i + 1) */
		double z = sum / sqrt((double)(i + 1) * (double)(n - i - 1));
		if (i + 1 >= m && z > best) {
			best = z;
			k = i + 1;
		}
	}
	return k;
}

/* The minimum run m of the rule for n blocks (at least 1). */
static size_t cliff_min_run(size_t n, const struct iob_cliff_params *p)
{
	size_t m = (size_t)ceil(p->min_run_frac * (double)n);
	if (m < p->min_run)
		m = p->min_run;
	return m ? m : 1;
}

/* iob_cliff_find's search and decision, n >= 2 m, work[0..n) holding the
 * mid-ranks of v (then used as scratch). */
static void cliff_from_ranks(const double *v, size_t n, size_t m, const struct iob_cliff_params *p, double *work,
			     struct iob_cliff *out)
{
	int nan = any_nan(v, n); /* once, not at each median */
	/* 1. locate coarsely on ranks, then refine on which side of the
	 * midpoint each block lies, until the split stops moving */
	size_t k = best_split(work, n, m);
	measure_split(v, n, k, work, nan, out);
	for (int round = 0; round < IOB_CLIFF_REFINE_ROUNDS; round++) {
		double mid = (out->before + out->after) / 2.0;
		for (size_t i = 0; i < n; i++)
			work[i] = v[i] > mid;
		size_t k2 = best_split(work, n, m);
		if (k2 == k)
			break;
		k = k2;
		measure_split(v, n, k, work, nan, out);
	}
	/* 3. decide */
	if (!(out->after <= p->max_ratio * out->before))
		out->why = "drop too small";
	else if (out->share_after < p->min_share)
		out->why = "drop not sustained";
	else if (out->share_before < p->min_share)
		out->why = "speed before the drop not steady";
	else
		out->found = 1;
}

int iob_cliff_find(const double *v, size_t n, const struct iob_cliff_params *p, struct iob_cliff *out)
{
	struct iob_cliff_params def;
	if (!p) {
		iob_cliff_defaults(&def);
		p = &def;
	}
	memset(out, 0, sizeof *out);
	size_t m = cliff_min_run(n, p);
	if (n < 2 * m) {
		out->why = "too few blocks";
		return 0;
	}
	double *work = malloc(n * sizeof *work);
	if (!work)
		return -ENOMEM;
	if (mid_ranks(v, n, work) != 0) {
		free(work);
		return -ENOMEM;
	}
	cliff_from_ranks(v, n, m, p, work, out);
	free(work);
	return 0;
}

uint64_t iob_speeds_summary_bytes(uint64_t n)
{
	/* the radix path: the keys and their copy, the sorted values, the
	 * counts; a NaN's path: iob_stats_compute's copy (freed first), then
	 * iob_cliff_find's ranks and mid_ranks' pairs (and their copy) and keys */
	uint64_t radix = 2 * sizeof(struct keyed) + sizeof(double);
	uint64_t ranks = sizeof(double) + 2 * sizeof(struct ranked) + sizeof(struct keyed);
	uint64_t per = radix > ranks ? radix : ranks, counts = 8 * 256 * sizeof(size_t);
	if (n > (UINT64_MAX - counts) / per)
		return UINT64_MAX;
	return n * per + counts;
}

int iob_speeds_summary(const double *v, size_t n, struct iob_stats *all, struct iob_stats *robust,
		       struct iob_cliff *cliff)
{
	struct iob_cliff_params p;
	iob_cliff_defaults(&p);
	if (n == 0 || any_nan(v, n)) { /* the sorts may order a NaN differently: each its own way */
		int rc = iob_stats_compute(v, n, all, robust);
		return rc ? rc : iob_cliff_find(v, n, &p, cliff);
	}
	/* one sort, by radix (about a quarter of the merge sort's instructions
	 * at 1,001 blocks): its values in order are qsort's (values that
	 * compare equal are the same but for 0 and -0, and both sorts keep
	 * those in their first order), its order the ranks */
	struct keyed *k = malloc(2 * n * sizeof *k);
	double *work = malloc(n * sizeof *work);
	size_t(*count)[256] = malloc(8 * sizeof *count);
	if (!k || !work || !count) {
		free(k);
		free(work);
		free(count);
		return -ENOMEM;
	}
	radix_keyed(v, n, k, k + n, count);
	free(count);
	for (size_t j = 0; j < n; j++)
		work[j] = v[k[j].i];
	stats_and_robust(work, n, all, robust);
	memset(cliff, 0, sizeof *cliff);
	size_t m = cliff_min_run(n, &p);
	if (n < 2 * m) {
		cliff->why = "too few blocks";
	} else {
		ranks_of_keyed(k, n, work);
		cliff_from_ranks(v, n, m, &p, work, cliff);
	}
	free(k);
	free(work);
	return 0;
}
