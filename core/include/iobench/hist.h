/*
 * iobench/hist.h - log-linear latency histogram.
 *
 * Values are unsigned 64-bit nanoseconds, the whole range, never clamped.
 * Values below 2^IOB_HIST_SUB_BITS are counted exactly; above, each power of
 * two is split into 2^IOB_HIST_SUB_BITS equal buckets, so a bucket is at most
 * 1/128 (0.78%) of its lower bound wide.  Recording is O(1) with no branches
 * beyond one compare; min, max, sum and sum of squares are kept exactly (sum
 * of squares in long double).  Values may be clock ticks with a scale set
 * afterwards (see ticks.h); every reading is then converted to ns.  Percentiles use the nearest-rank definition
 * and return the bucket's midpoint clamped to [min, max], so a percentile is
 * never above the true maximum and is within 1% of the exact sample.
 */
#ifndef IOBENCH_HIST_H
#define IOBENCH_HIST_H

#include <stddef.h>
#include <stdint.h>

#define IOB_HIST_SUB_BITS 7
#define IOB_HIST_SUB (1u << IOB_HIST_SUB_BITS)
#define IOB_HIST_BUCKETS (IOB_HIST_SUB + (64 - IOB_HIST_SUB_BITS) * IOB_HIST_SUB)

/* Invariant: count is the sum of bucket[]; so a histogram with count 0 has
 * every bucket 0 (iob_hist_reset relies on it). */
struct iob_hist {
	double ns_per_tick; /* values are ticks; 0 or 1 means they are already ns */
	uint64_t count;
	uint64_t min, max;
	uint64_t sum;     /* saturates at UINT64_MAX (584 years of ns) */
	long double sumsq;
	uint64_t bucket[IOB_HIST_BUCKETS];
};

/* The 16 percentile ranks every output reports unless a job's percentiles
 * key names others. */
#define IOB_NPCT 16
extern const double iob_default_pct[IOB_NPCT];
/* At most this many ranks in a job's percentiles (as fio's percentile_list). */
#define IOB_PCT_MAX 20
/* A list of ranks, ':' or ',' between them, each above 0 and at most 100:
 * into out[] ascending, each once, *n of them; "" gives none.  -EINVAL and
 * one line in err naming the bad rank. */
int iob_pct_parse(const char *text, double out[IOB_PCT_MAX], size_t *n, char *err, size_t errlen);

struct iob_hist *iob_hist_new(void); /* zeroed, heap; NULL on ENOMEM */
void iob_hist_free(struct iob_hist *h);
/* n zeroed histograms in one allocation (h[0] .. h[n-1]): one system call
 * where a histogram is a mapping of its own; release with iob_hist_free_n. */
struct iob_hist *iob_hist_new_n(size_t n);
void iob_hist_free_n(struct iob_hist *h, size_t n);
void iob_hist_reset(struct iob_hist *h);
/* Add from's samples to into.  With one scale (or into empty: it takes
 * from's) bucket by bucket, exactly; with different scales as
 * iob_hist_merge_ns (weight 1). */
void iob_hist_merge(struct iob_hist *into, const struct iob_hist *from);
/* iob_hist_merge for a from filled by iob_hist_record alone, whose samples
 * all lie in the buckets from min's to max's: only those are read and added
 * (a whole scan read and wrote 59 KiB, faulting in untouched pages of both,
 * for each of the latency sampler's levels at the end of every phase). */
void iob_hist_merge_recorded(struct iob_hist *into, const struct iob_hist *from);
/* Add from's samples, each counted `weight` times, converted to into's unit:
 * an empty into with no scale takes ns (ns_per_tick 1).  Exact when the
 * scales are equal; otherwise each of from's buckets goes whole to the
 * bucket of into holding its midpoint, so a percentile of the merge stays
 * within 1% of the exact percentile of the samples (hist.c).  This is how
 * streams' histograms, each in ticks of its own measured ratio, are merged
 * (aggregate.c). */
void iob_hist_merge_ns(struct iob_hist *into, const struct iob_hist *from, uint64_t weight);

static inline unsigned iob_hist_index(uint64_t v)
{
	if (v < IOB_HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v); /* e >= SUB_BITS */
	unsigned shift = e - IOB_HIST_SUB_BITS;
	return IOB_HIST_SUB + shift * IOB_HIST_SUB + (unsigned)((v >> shift) & (IOB_HIST_SUB - 1));
}

static inline void iob_hist_record(struct iob_hist *h, uint64_t v)
{
	h->bucket[iob_hist_index(v)]++;
	h->count++;
	if (v < h->min || h->count == 1)
		h->min = v;
	if (v > h->max)
		h->max = v;
	uint64_t s = h->sum + v;
	h->sum = s < v ? UINT64_MAX : s;
	h->sumsq += (long double)v * (long double)v;
}

/* Recorded values are clock ticks worth ns_per_tick nanoseconds each; the
 * functions below report nanoseconds.  Set once, after recording. */
void iob_hist_set_scale(struct iob_hist *h, double ns_per_tick);
uint64_t iob_hist_min_ns(const struct iob_hist *h);
uint64_t iob_hist_max_ns(const struct iob_hist *h);

/* Lowest and highest value mapping to bucket index i. */
uint64_t iob_hist_bucket_low(unsigned i);
uint64_t iob_hist_bucket_high(unsigned i);
/* The p-th percentile (0 < p <= 100) in ns; 0 when empty. */
uint64_t iob_hist_percentile(const struct iob_hist *h, double p);
/* out[j] = iob_hist_percentile(h, p[j]) for each of the n ranks, in one pass
 * over the buckets (ranks in any order). */
void iob_hist_percentiles(const struct iob_hist *h, const double *p, size_t n, uint64_t *out);
/* The non-empty buckets in ascending order, each at its representative
 * value in ns (the midpoint, clamped to [min, max], as the percentiles use);
 * buckets that land on one ns value are merged into one bin.  ns and count
 * have room for IOB_HIST_BUCKETS; *n is set to the bins written. */
void iob_hist_bins(const struct iob_hist *h, uint64_t *ns, uint64_t *count, size_t *n);
double iob_hist_mean(const struct iob_hist *h);   /* ns */
double iob_hist_stddev(const struct iob_hist *h); /* ns, population */

#endif
