/*
 * iobench/intervals.h - a phase's time series (log_interval): one interval
 * record every log_interval of the measured window, from what the phase's
 * streams publish (live.h).  Bytes, ops and latency of an interval are
 * differences of two snapshots each stream took at one look at the clock
 * (counters and cumulative latency histogram together, so they agree; the
 * histograms' difference is exact: bucket by bucket, one scale).
 * The last interval ends at the phase's end, so the intervals' bytes and ops
 * add up to the phase's.
 *
 * Used by the run's observer thread (progress.c) while the phase runs and
 * by the runner's thread for the last interval, after the observer stopped:
 * never by two threads at once.
 */
#ifndef IOBENCH_INTERVALS_H
#define IOBENCH_INTERVALS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "iobench/hist.h"
#include "iobench/outfile.h"
#include "iobench/live.h"
#include "iobench/profile.h"
#include "iobench/result.h"

struct iob_interval {
	uint32_t index;	 /* 0, 1, ... */
	uint64_t end_ns; /* end of the interval, since the measured window's start */
	uint64_t len_ns; /* its length (the first and last may be shorter) */
	uint64_t bytes, ops;
	uint64_t lat_samples;	 /* I/Os of the interval in the latency sample */
	uint64_t p50_ns, p99_ns; /* meaningful when lat_samples > 0 */
	double lat_mean_ns;	 /* the sample's mean (0 without samples) */
	/* split (a mixed phase with fio-style logs): the writes among them */
	uint64_t bytes_w, ops_w, lat_samples_w;
	double lat_mean_w_ns;
};

struct iob_intervals {
	struct iob_live *live; /* the phase's streams */
	size_t nstreams;
	int lat; /* intervals logged: snapshots asked for */
	int split; /* the writes apart too (live[i].snap_w) */
	struct iob_hist *cur, *prev, *diff;
	struct iob_hist *cur_w, *prev_w, *diff_w; /* split only */
	uint64_t prev_bytes, prev_ops, prev_end; /* the last interval's end (absolute ns; 0: none) */
	uint64_t prev_bytes_w, prev_ops_w;
	uint64_t window_ns;			 /* the measured window's start (absolute ns) */
	struct iob_interval *v;
	size_t n, cap;
	/* the live CSV, when a job names one: a row per interval, flushed */
	FILE *csv;
	const char *job, *phase;
	uint64_t block_size;
	int csv_error; /* a write failed (errno) */
	/* per stream (a job's fio-style logs, one file per clone): each
	 * stream's own intervals, taken with the phase's, from the same
	 * snapshots (iob_intervals_clones) */
	struct iob_intervals *clones;
	int view; /* a clone's: live[0].snap is the phase's, not its own */
};

/* lat: the phase logs intervals (allocates the streams' snapshots,
 * live[i].snap); 0: only the progress line reads live.  -ENOMEM. */
int iob_intervals_init(struct iob_intervals *iv, struct iob_live *live, size_t nstreams, int lat);
/* Also count the writes apart (a mixed phase whose job writes fio-style
 * logs): allocates live[i].snap_w.  After init with lat; -ENOMEM. */
int iob_intervals_split(struct iob_intervals *iv);
/* Keep each stream's intervals too (clones[i], from live[i]'s snapshots;
 * a split phase's writes apart as well).  After init with lat (and split);
 * -ENOMEM. */
int iob_intervals_clones(struct iob_intervals *iv);
/* Ask every stream for a snapshot (the observer, at an interval's end). */
void iob_intervals_ask(struct iob_intervals *iv);
/* Have all streams answered the last question? */
int iob_intervals_answered(const struct iob_intervals *iv);
/* Close the interval ending at the latest of the streams' snapshots (now_ns,
 * absolute CLOCK_MONOTONIC, when there is none).  A stream still in its ramp,
 * or no snapshot since the last interval (unless final), means no interval
 * yet (returns 0); 1 when one was added; -ENOMEM.  final: the phase is over
 * (every stream's last snapshot is in); a final interval with no time, bytes
 * or ops after an earlier one is not added (nor written to the live CSV). */
int iob_intervals_take(struct iob_intervals *iv, uint64_t now_ns, int final);
/* Free what init allocated (live[i].snap too). */
void iob_intervals_free(struct iob_intervals *iv);

/* The live CSV's header line, and one interval's row. */
int iob_intervals_csv_header(FILE *f);
/* An interval record (kind "interval", docs/outputs.md) into rb. */
void iob_rec_interval(struct iob_recbuf *rb, const char *job, const char *phase, uint64_t block_size,
		      const struct iob_interval *in);

/* The live CSV files of a run: each distinct `livecsv` of the suite's jobs,
 * opened the checked way (outfile.h) when the run opens, emptied and given
 * their header when it starts (iob_livecsv_commit); one table per file
 * whatever the jobs (job and phase are columns). */
struct iob_livecsv {
	size_t n;
	char **path;
	FILE **f;
	int *error;	       /* a write failed: errno */
	struct iob_outfile *of; /* the checked files */
};
/* Open every file (outfile.h: no link, a regular file, or a character
 * device for a job with allow_devices; not emptied yet); on failure a
 * one-line reason and nothing left open (files this call created are
 * removed; nothing that was there before is changed). */
int iob_livecsv_open(struct iob_livecsv *lc, const struct iob_suite *suite, char *err, size_t errlen);
/* The run starts: empty every file and write its header. */
int iob_livecsv_commit(struct iob_livecsv *lc, char *err, size_t errlen);
/* The open file for a job's livecsv path (NULL: none), and its error slot. */
FILE *iob_livecsv_file(struct iob_livecsv *lc, const char *path, int **error);
/* Remove the files the run created (it could not start after all). */
void iob_livecsv_unmake(struct iob_livecsv *lc);
/* Close them all; -errno with a one-line reason for the first that failed. */
int iob_livecsv_close(struct iob_livecsv *lc, char *err, size_t errlen);

#endif
