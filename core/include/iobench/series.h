/*
 * iobench/series.h - what a per-block series means: the speed of every
 * block, the summary figures of those speeds, and the detector of a
 * sustained drop ("cliff").  bigread prints these; they are computed here
 * once, and renderers only format them.  Nothing here does I/O or keeps
 * state between calls; every function allocates at most a few arrays of n
 * values and frees them before it returns.
 *
 * Block speeds (iob_series_speeds)
 *   Speed of block i = bytes moved by block i / its time on the series
 *   clock, in bytes per second.  A block whose time is below the clock's
 *   resolution (a CPU clock that did not tick, a zero reading) has no speed
 *   of its own; it is merged with the blocks after it until the group's
 *   summed time reaches the resolution, and every block of the group gets
 *   the group's speed (summed bytes / summed time).  An unfinished group at
 *   the end joins the group before it.  So every speed is finite and > 0,
 *   each block keeps its own line, and the bytes of a group are all counted
 *   once.  Only when the whole series measured no time at all is there no
 *   speed to give (-ERANGE).
 *
 * Summary figures (iob_stats_compute), over n values x:
 *   min, max;  mean = sum x / n;  rms = population standard deviation,
 *   sqrt(sum (x - mean)^2 / n) (the legacy bigread name);  quantiles by
 *   linear interpolation between order statistics: with the values sorted
 *   ascending as s[0..n-1], q(p) = s[j] + (h - j)(s[j+1] - s[j]) where
 *   h = (n - 1)p and j = floor(h) (Hyndman and Fan's definition 7).  Hence
 *   median = q(0.5) is the middle value, or the mean of the two middle
 *   values; q1 = q(0.25), q3 = q(0.75).
 *   The robust subset is every value inside the Tukey fences, bounds
 *   included: q1 - 1.5 IQR <= x <= q3 + 1.5 IQR with IQR = q3 - q1.  It is
 *   never empty (the median lies inside the fences).
 *
 * Cliff detector (iob_cliff_find), over block speeds v[0..n-1]:
 *   m = max(min_run, ceil(min_run_frac * n)) blocks are required on each
 *   side of a split, so a series of fewer than 2m blocks has no cliff.
 *   1. Locate.  For a sequence y, let S(k) = sum over i < k of (y[i] - mean
 *      of y) and Z(k) = S(k) / sqrt(k (n - k)), the standardised difference
 *      between the mean of y before k and after it; the split is the first
 *      k, m <= k <= n - m, with the largest Z(k).  First y is the rank of
 *      each speed (1 = slowest, ties get their mean rank), which makes the
 *      search blind to how extreme a single outlier is.  Then the split is
 *      refined: with the levels and midpoint of step 2 for the current
 *      split, y[i] = 1 when v[i] > mid and 0 otherwise, and the split is
 *      searched again, until it stops moving (at most 8 rounds).
 *   2. Measure: before = median of v[0..k), after = median of v[k..n),
 *      mid = (before + after) / 2.
 *   3. Decide: a cliff is reported only when all of these hold:
 *        after <= max_ratio * before                  (a large drop)
 *        share of v[k..n) below mid   >= min_share    (the drop lasts)
 *        share of v[0..k) above mid   >= min_share    (it is a drop from
 *                                                      a steady level)
 *   Defaults (iob_cliff_defaults): min_run 8, min_run_frac 0.05,
 *   max_ratio 0.6, min_share 0.8.  Single slow blocks move neither the
 *   split much nor either median, so they do not trigger it; a temporary
 *   dip that recovers fails the "lasts" test; a bimodal or very noisy flat
 *   series fails the share tests.  A gradual slide is reported near its
 *   middle.  Only drops are looked for, not rises.
 *   How often it cries wolf, measured on 4000 simulated flat series per
 *   case and length (uniform noise up to +-60%, log-normal noise up to
 *   sigma 0.5, half the blocks 2-3x slower at random, 5-10% of blocks at a
 *   tenth of the speed): never from 100 to 3000 blocks, once in 4000 at 75
 *   blocks (sigma 0.5); with 16 to 50 blocks at most 0.7% of series in the
 *   harshest case (random half-speed blocks) and at most 0.03% with +-40%
 *   uniform or sigma 0.25 log-normal noise.  A fall to 1/5 of the speed
 *   under +-40% noise with 2% stalled blocks was found in 8176 of 8200
 *   series whose sides both hold m blocks (the misses had stalls among the
 *   few blocks of a short side), within 3 blocks of the planted point in all
 *   but 3 (within 4).
 */
#ifndef IOBENCH_SERIES_H
#define IOBENCH_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/engine.h"

/* Remove the samples that moved no bytes (the read that found the end of a
 * stream); the others keep their order.  Returns the new s->n. */
size_t iob_series_drop_empty(struct iob_series *s);

/* Fill speed[0..s->n) in bytes per second by the rule above (run
 * iob_series_drop_empty first: a block that moved nothing has speed 0).  merged, when
 * not NULL, gets 1 for each block whose speed is a merged group's, and
 * *nmerged (when not NULL) their count.  resolution_ns of 0 counts as 1.
 * Returns 0, or -ERANGE when the series is empty or measured no time at
 * all (speed is then left untouched). */
int iob_series_speeds(const struct iob_series *s, uint64_t resolution_ns, double *speed,
		      unsigned char *merged, size_t *nmerged);

/* The same speeds as the samples arrive, for tools that print each block as
 * it is read.  A group of blocks is final once the group after it has
 * closed (the last closed group may still absorb an unfinished tail), so
 * every speed handed out here is the one iob_series_speeds gives for the
 * whole series; the blocks not handed out by the end are the caller's to
 * take from iob_series_speeds.  Samples that moved no bytes are skipped, and
 * block indices count only the others (as after iob_series_drop_empty). */
struct iob_speed_stream {
	uint64_t res;
	size_t next;             /* next sample to look at */
	size_t blocks;           /* non-empty samples seen */
	size_t start;            /* first block of the open group */
	uint64_t gbytes, gns;    /* its sums */
	int pending;             /* a closed group waits to become final */
	size_t pfrom, pto;       /* its blocks */
	uint64_t pbytes, pns;    /* its sums */
};
void iob_speed_stream_init(struct iob_speed_stream *st, uint64_t resolution_ns);
/* Look at the samples appended since the last call.  When a group becomes
 * final, return 1 with its blocks [*from, *to) and their speed in bytes per
 * second; call again until it returns 0. */
int iob_speed_stream_next(struct iob_speed_stream *st, const struct iob_series *s, size_t *from, size_t *to,
			  double *speed);

/* Summary figures of a set of values (all zero for n == 0). */
struct iob_stats {
	size_t n;
	double min, max;
	double mean;
	double median;
	double rms; /* population standard deviation */
	double q1, q3;
};

/* Quantile q(p), 0 <= p <= 1, of n >= 1 values sorted ascending (type 7). */
double iob_quantile_sorted(const double *sorted, size_t n, double p);
/* iob_quantile_sorted(v sorted, n, 0.5), the same value, without sorting:
 * v[0..n) (n >= 1) is not modified, scratch holds n values. */
double iob_median(const double *v, size_t n, double *scratch);
/* Figures of n values sorted ascending. */
void iob_stats_sorted(const double *sorted, size_t n, struct iob_stats *st);
/* Figures of v[0..n) (any order, not modified) into *all and, when robust is
 * not NULL, of its robust subset into *robust.  Returns 0 or -ENOMEM. */
int iob_stats_compute(const double *v, size_t n, struct iob_stats *all, struct iob_stats *robust);

struct iob_cliff_params {
	size_t min_run;	     /* blocks required on each side, at least */
	double min_run_frac; /* ... and at least this fraction of the series */
	double max_ratio;    /* after / before must be at most this */
	double min_share;    /* share of each side on its side of the midpoint */
};
void iob_cliff_defaults(struct iob_cliff_params *p);

struct iob_cliff {
	int found;	     /* 1: a cliff was found and the fields below describe it */
	size_t block;	     /* first block of the slow part (the split k) */
	double before;	     /* median speed of blocks [0, block) */
	double after;	     /* median speed of blocks [block, n) */
	double ratio;	     /* after / before */
	double share_before; /* share of blocks before the split above the midpoint */
	double share_after;  /* share of blocks after it below the midpoint */
	const char *why;     /* found == 0: why the best candidate was rejected */
};

/* Look for a cliff in v[0..n) (speeds, > 0) by the rule above; p NULL means
 * the defaults.  When none is found, out->found is 0, out->why says why and
 * the other fields describe the best candidate (all zero when there was
 * none).  Returns 0 or -ENOMEM. */
int iob_cliff_find(const double *v, size_t n, const struct iob_cliff_params *p, struct iob_cliff *out);
/* iob_stats_compute(v, n, all, robust) and iob_cliff_find(v, n, NULL,
 * cliff), the same figures, from one sort of v (bigread's phase summary).
 * Returns 0 or -ENOMEM. */
int iob_speeds_summary(const double *v, size_t n, struct iob_stats *all, struct iob_stats *robust,
		       struct iob_cliff *cliff);
/* The most memory iob_speeds_summary(v, n, ...) holds at once, in bytes
 * (saturated at UINT64_MAX): the memory budget counts it (check_memory.c). */
uint64_t iob_speeds_summary_bytes(uint64_t n);

#endif
