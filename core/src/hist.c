/*
 * hist.c - log-linear latency histogram (iobench/hist.h).
 */
#include "iobench/hist.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

const double iob_default_pct[IOB_NPCT] = {1,  5,  10, 20, 30, 40,   50,   60,
					  70, 80, 90, 95, 99, 99.5, 99.9, 99.99};

int iob_pct_parse(const char *text, double out[IOB_PCT_MAX], size_t *n, char *err, size_t errlen)
{
	*n = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, ":,");
		char tok[64], *end = NULL;
		while (len && (*p == ' ' || *p == '\t'))
			p++, len--;
		snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok - 1 ? len : sizeof tok - 1), p);
		for (size_t k = strlen(tok); k && (tok[k - 1] == ' ' || tok[k - 1] == '\t'); k--)
			tok[k - 1] = '\0';
		errno = 0;
		double v = strtod(tok, &end);
		if (!tok[0] || len >= sizeof tok || !end || *end || errno || !(v > 0 && v <= 100)) {
			snprintf(err, errlen, "percentile '%.*s' is not a number above 0 and at most 100", (int)(len > 40 ? 40 : len), p);
			return -EINVAL;
		}
		size_t at = 0;
		while (at < *n && out[at] < v)
			at++;
		if (at == *n || out[at] != v) { /* ascending, each rank once */
			if (*n == IOB_PCT_MAX) {
				snprintf(err, errlen, "more than %d percentiles", IOB_PCT_MAX);
				return -EINVAL;
			}
			memmove(&out[at + 1], &out[at], (*n - at) * sizeof *out);
			out[at] = v;
			(*n)++;
		}
		p += len;
		if (*p && !p[1]) {
			snprintf(err, errlen, "percentiles '%s' ends with a separator", text);
			return -EINVAL;
		}
		if (*p)
			p++;
	}
	return 0;
}

/* A histogram is 59 KB of counters of which a phase touches a few pages.
 * Where the OS hands out zeroed pages on first touch, a mapping of its own
 * costs a system call but no clearing and no fault for a page never used;
 * calloc would clear (and fault in) all of it when it reuses heap memory. */
#if defined(__linux__)
#define HIST_MAPPED 1
#endif

struct iob_hist *iob_hist_new(void)
{
#ifdef HIST_MAPPED
	void *p = mmap(NULL, sizeof(struct iob_hist), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
#else
	return calloc(1, sizeof(struct iob_hist));
#endif
}

struct iob_hist *iob_hist_new_n(size_t n)
{
	if (n == 0 || n > SIZE_MAX / sizeof(struct iob_hist))
		return NULL;
#ifdef HIST_MAPPED
	void *p = mmap(NULL, n * sizeof(struct iob_hist), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
#else
	return calloc(n, sizeof(struct iob_hist));
#endif
}

void iob_hist_free_n(struct iob_hist *h, size_t n)
{
#ifdef HIST_MAPPED
	if (h)
		munmap(h, n * sizeof *h);
#else
	(void)n;
	free(h);
#endif
}

void iob_hist_free(struct iob_hist *h)
{
#ifdef HIST_MAPPED
	if (h)
		munmap(h, sizeof *h);
#else
	free(h);
#endif
}

void iob_hist_reset(struct iob_hist *h)
{
	if (h->count == 0) { /* no bucket is set (hist.h): only the header */
		memset(h, 0, offsetof(struct iob_hist, bucket));
		return;
	}
	memset(h, 0, sizeof *h); /* also resets the scale to ns */
}

static int same_scale(const struct iob_hist *a, const struct iob_hist *b)
{
	double sa = a->ns_per_tick > 0 ? a->ns_per_tick : 1.0, sb = b->ns_per_tick > 0 ? b->ns_per_tick : 1.0;
	return sa == sb;
}

/* from's buckets lo..hi (every one holding a sample) into into. */
static void merge_buckets(struct iob_hist *into, const struct iob_hist *from, unsigned lo, unsigned hi)
{
	if (from->count == 0)
		return;
	if (into->count && !same_scale(into, from)) {
		iob_hist_merge_ns(into, from, 1);
		return;
	}
	if (into->count == 0)
		into->ns_per_tick = from->ns_per_tick; /* both share one scale from here */
	if (into->count == 0 || from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
	into->count += from->count;
	uint64_t s = into->sum + from->sum;
	into->sum = s < from->sum ? UINT64_MAX : s;
	into->sumsq += from->sumsq;
	for (unsigned i = lo; i <= hi; i++)
		into->bucket[i] += from->bucket[i];
}

void iob_hist_merge(struct iob_hist *into, const struct iob_hist *from)
{
	merge_buckets(into, from, 0, IOB_HIST_BUCKETS - 1);
}

void iob_hist_merge_recorded(struct iob_hist *into, const struct iob_hist *from)
{
	merge_buckets(into, from, iob_hist_index(from->min), iob_hist_index(from->max));
}

static uint64_t sat_u64(long double v)
{
	return v >= 18446744073709551615.0L ? UINT64_MAX : v <= 0 ? 0 : (uint64_t)(v + 0.5L);
}

/* from's values in into's unit: each of from's buckets lands, whole, in the
 * bucket of into that holds its midpoint converted (at most 0.39% from any
 * value in it), so with into's own half-bucket a percentile of the merge is
 * within 0.8% of the exact one; min, max, sum and sum of squares are
 * converted exactly. */
void iob_hist_merge_ns(struct iob_hist *into, const struct iob_hist *from, uint64_t weight)
{
	if (from->count == 0 || weight == 0)
		return;
	if (into->count == 0 && into->ns_per_tick <= 0)
		into->ns_per_tick = 1.0; /* an empty histogram takes ns */
	long double f = (long double)(from->ns_per_tick > 0 ? from->ns_per_tick : 1.0) /
			(long double)(into->ns_per_tick > 0 ? into->ns_per_tick : 1.0);
	int exact = f == 1.0L;
	for (unsigned i = 0; i < IOB_HIST_BUCKETS; i++) {
		if (!from->bucket[i])
			continue;
		uint64_t lo = iob_hist_bucket_low(i), hi = iob_hist_bucket_high(i);
		unsigned to = exact ? i : iob_hist_index(sat_u64(((long double)lo + (long double)(hi - lo) / 2) * f));
		into->bucket[to] += from->bucket[i] * weight;
	}
	uint64_t mn = exact ? from->min : sat_u64((long double)from->min * f);
	uint64_t mx = exact ? from->max : sat_u64((long double)from->max * f);
	if (into->count == 0 || mn < into->min)
		into->min = mn;
	if (mx > into->max)
		into->max = mx;
	into->count += from->count * weight;
	uint64_t add = sat_u64((long double)from->sum * f * (long double)weight);
	uint64_t s = into->sum + add;
	into->sum = s < add ? UINT64_MAX : s;
	into->sumsq += from->sumsq * f * f * (long double)weight;
}

static double scale(const struct iob_hist *h)
{
	return h->ns_per_tick > 0 ? h->ns_per_tick : 1.0;
}

static uint64_t to_ns(const struct iob_hist *h, uint64_t v)
{
	if (h->ns_per_tick <= 0 || h->ns_per_tick == 1.0)
		return v;
	long double ns = (long double)v * h->ns_per_tick + 0.5L;
	return ns >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)ns;
}

void iob_hist_set_scale(struct iob_hist *h, double ns_per_tick)
{
	h->ns_per_tick = ns_per_tick;
}

uint64_t iob_hist_min_ns(const struct iob_hist *h)
{
	return h->count ? to_ns(h, h->min) : 0;
}

uint64_t iob_hist_max_ns(const struct iob_hist *h)
{
	return to_ns(h, h->max);
}

uint64_t iob_hist_bucket_low(unsigned i)
{
	if (i < IOB_HIST_SUB)
		return i;
	unsigned shift = (i - IOB_HIST_SUB) / IOB_HIST_SUB;
	uint64_t mant = (i - IOB_HIST_SUB) % IOB_HIST_SUB;
	return (IOB_HIST_SUB + mant) << shift;
}

uint64_t iob_hist_bucket_high(unsigned i)
{
	if (i < IOB_HIST_SUB)
		return i;
	unsigned shift = (i - IOB_HIST_SUB) / IOB_HIST_SUB;
	return iob_hist_bucket_low(i) + ((((uint64_t)1) << shift) - 1);
}

/* Bucket i's value as a percentile reports it: the midpoint, clamped to
 * the recorded [min, max], in ns. */
static uint64_t bucket_value_ns(const struct iob_hist *h, unsigned i)
{
	uint64_t lo = iob_hist_bucket_low(i), hi = iob_hist_bucket_high(i);
	uint64_t mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return to_ns(h, mid);
}

/* The first bucket from i on that holds a sample, IOB_HIST_BUCKETS when
 * none: eight at a time where they are all empty (a record's bins and
 * percentiles looked at each of the 7,000-odd buckets one by one, about 9
 * instructions each, for a histogram whose samples sit in a few). */
static unsigned next_used(const struct iob_hist *h, unsigned i)
{
	while (i + 8 <= IOB_HIST_BUCKETS) {
		const uint64_t *b = &h->bucket[i];
		if (b[0] | b[1] | b[2] | b[3] | b[4] | b[5] | b[6] | b[7])
			break;
		i += 8;
	}
	while (i < IOB_HIST_BUCKETS && !h->bucket[i])
		i++;
	return i;
}

void iob_hist_bins(const struct iob_hist *h, uint64_t *ns, uint64_t *count, size_t *n)
{
	size_t k = 0;
	uint64_t seen = 0;
	/* count is the sum of the buckets (hist.h): none past the last sample */
	for (unsigned i = h->count ? next_used(h, 0) : IOB_HIST_BUCKETS; seen < h->count && i < IOB_HIST_BUCKETS;
	     i = next_used(h, i + 1)) {
		seen += h->bucket[i];
		uint64_t v = bucket_value_ns(h, i);
		if (k && ns[k - 1] == v) {
			count[k - 1] += h->bucket[i];
			continue;
		}
		ns[k] = v;
		count[k++] = h->bucket[i];
	}
	*n = k;
}

uint64_t iob_hist_percentile(const struct iob_hist *h, double p)
{
	if (h->count == 0)
		return 0;
	if (p <= 0)
		return iob_hist_min_ns(h);
	if (p >= 100)
		return iob_hist_max_ns(h);
	/* nearest rank: the smallest value with at least ceil(p/100 * n) samples <= it */
	long double want = ceill((long double)p / 100.0L * (long double)h->count);
	uint64_t rank = want < 1 ? 1 : (uint64_t)want;
	uint64_t seen = 0;
	for (unsigned i = 0; i < IOB_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return bucket_value_ns(h, i);
	}
	return iob_hist_max_ns(h);
}

void iob_hist_percentiles(const struct iob_hist *h, const double *p, size_t n, uint64_t *out)
{
	size_t order[IOB_PCT_MAX], m = 0;
	uint64_t rank[IOB_PCT_MAX];
	if (n > IOB_PCT_MAX || h->count == 0) {
		for (size_t j = 0; j < n; j++)
			out[j] = iob_hist_percentile(h, p[j]);
		return;
	}
	for (size_t j = 0; j < n; j++) {
		if (p[j] <= 0 || p[j] >= 100) {
			out[j] = iob_hist_percentile(h, p[j]);
			continue;
		}
		long double want = ceill((long double)p[j] / 100.0L * (long double)h->count);
		rank[j] = want < 1 ? 1 : (uint64_t)want;
		size_t at = m++; /* insertion by rank: the scan below meets them in order */
		while (at > 0 && rank[order[at - 1]] > rank[j]) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = j;
	}
	uint64_t seen = 0;
	size_t k = 0;
	for (unsigned i = next_used(h, 0); i < IOB_HIST_BUCKETS && k < m; i = next_used(h, i + 1)) {
		seen += h->bucket[i];
		while (k < m && seen >= rank[order[k]])
			out[order[k++]] = bucket_value_ns(h, i);
	}
	for (; k < m; k++)
		out[order[k]] = iob_hist_max_ns(h);
}

double iob_hist_mean(const struct iob_hist *h)
{
	if (h->count == 0)
		return 0;
	return (double)h->sum / (double)h->count * scale(h);
}

double iob_hist_stddev(const struct iob_hist *h)
{
	if (h->count < 2)
		return 0;
	long double n = (long double)h->count;
	long double mean = (long double)h->sum / n;
	long double var = h->sumsq / n - mean * mean;
	if (!(var > 0))
		return 0;
	return (double)sqrtl(var) * scale(h);
}
