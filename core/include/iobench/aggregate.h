/*
 * iobench/aggregate.h - one phase's streams made into one result: the one
 * aggregation of iobench.  The runner uses it for the threads of a job;
 * MPI ranks (issue 12) gather their results and call the same function, so
 * every figure is computed the same way whoever ran the streams.
 *
 * The rules (docs/outputs.md, "Streams"):
 *  - bytes, ops and every count are the streams' sums;
 *  - elapsed = last stream's end - first stream's start (start_ns/end_ns,
 *    absolute CLOCK_MONOTONIC, one clock for every stream), and bw = bytes /
 *    elapsed (IOR's rule);
 *  - first_done_bw = what every stream had done when the first one finished
 *    (their first_done_bytes) / (first end - first start), and last_done_bw =
 *    bytes / elapsed (elbencho's first-done and last-done figures);
 *  - stream_bw_min/max: the slowest and fastest stream's own bytes / elapsed;
 *  - latency: the streams' histograms merged after each is converted from its
 *    own ticks to ns (iob_hist_merge_ns), each stream's sample weighted by
 *    its 1-in-k so that every stream counts in proportion to its I/Os;
 *  - CPU, kernel byte counts: sums (a count one stream could not give makes
 *    the sum unknown).
 */
#ifndef IOBENCH_AGGREGATE_H
#define IOBENCH_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>
#include "iobench/engine.h"

struct iob_aggregate {
	size_t streams;
	enum iob_phase phase;
	uint8_t pattern_label;
	uint64_t block_size;
	IOB_PHASE_SUMS(IOB_PHASE_SUM_FIELD) /* engine.h's counts, summed */
	uint64_t start_ns, end_ns; /* first start, last end */
	uint64_t first_end_ns;     /* when the first stream finished */
	uint64_t elapsed_ns;       /* end_ns - start_ns, at least 1 */
	uint64_t sync_ns;          /* the longest stream's sync time */
	double bw, iops;           /* bytes and ops / elapsed */
	int first_done_known;      /* the streams said what they had done then */
	uint64_t first_done_bytes; /* what every stream had done then */
	uint64_t first_done_ns;    /* first_end_ns - start_ns, at least 1 */
	double first_done_bw, last_done_bw;
	double stream_bw_min, stream_bw_max;
	struct iob_hist *hist;       /* merged latency in ns (mixed: reads); owned */
	struct iob_hist *hist_write; /* mixed: merged write latency, or NULL; owned */
	uint32_t lat_sample_every;   /* the largest of the streams' */
	uint64_t lat_samples;        /* I/Os timed, over every stream */
	uint64_t os_read_bytes, os_write_bytes; /* sums; UINT64_MAX unknown */
	uint64_t storage_read_bytes, storage_write_bytes; /* sums; UINT64_MAX unknown */
	int direct;                  /* every stream bypassed the cache */
	int status;                  /* the first failed stream's, else the first mismatch, else 0 */
	size_t failed_stream;        /* index of that stream (status != 0) */
	int interrupted;             /* some stream was stopped */
	int pass_cut;                /* some stream's phase ended at load.seq_ops inside a pass */
	int device_full;             /* some stream's fill_device write ended at ENOSPC */
	int partial;                 /* some stream failed or was stopped */
	struct iob_bs_hist bs_hist;  /* shaped phases: the streams' block sizes, summed */
	struct iob_prio_hist prio_hist; /* cmdprio: the streams' I/Os per priority, summed */
	int errors_counted;
};

/* Aggregate n >= 1 results of one phase.  0, or -ENOMEM (out is then
 * empty).  Free with iob_aggregate_free. */
int iob_aggregate(const struct iob_phase_result *const *r, size_t n, struct iob_aggregate *out);
void iob_aggregate_free(struct iob_aggregate *a);
/* The aggregate as a phase result, for the record builders (result.h): its
 * histograms are borrowed (do not free *r), its elapsed time is the
 * aggregate's, so iob_phase_bw(r) is IOR's rate. */
void iob_aggregate_as_result(const struct iob_aggregate *a, struct iob_phase_result *r);

#endif
