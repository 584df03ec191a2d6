/*
 * iobench/lattarget.h - the depth search of latency_target (load.h): the
 * highest queue depth, up to iodepth, at which the latency_percentile share
 * of each latency_window's completions takes at most latency_target.
 *
 * The search is fio's (its HOWTO: latency_target, latency_window,
 * latency_percentile, latency_run), written here as a state of its own that
 * knows nothing of I/O: the engine's queued loop (engine_queue.c) asks it
 * for the depth to keep in flight, and tells it each window's verdict.
 *   - It starts at depth 1.  A window within the target raises the depth:
 *     doubled while no window has failed, else halfway to the lowest depth
 *     that failed.  A window over the target lowers it halfway to the
 *     highest depth that passed (one below when they meet), and the I/Os in
 *     flight are drained before the next window starts.
 *   - A depth that passes three times in a row just below the lowest failed
 *     one lets that failed depth be tried again (a failure may have been
 *     noise).
 *   - Without latency_run, a window within the target that leaves the depth
 *     where it was settles the search: one more window runs at that depth
 *     (the phase's figures are that window's), and the phase ends after it.
 *     With latency_run, the search goes on as long as the phase does.
 */
#ifndef IOBENCH_LATTARGET_H
#define IOBENCH_LATTARGET_H

#include <stdint.h>

struct iob_lat_search {
	uint32_t max;	  /* iodepth */
	uint32_t depth;	  /* the depth the next window runs at */
	uint32_t low;	  /* the highest depth that passed (1 at first) */
	uint32_t high;	  /* the lowest depth that failed (max at first) */
	uint32_t stable;  /* passes in a row at high - 1 */
	int failed;	  /* a window has failed: bisect instead of doubling */
	int keep_going;	  /* latency_run */
	int final;	  /* settled: the window running now is the last */
};

/* What the engine does after a verdict. */
enum iob_lat_next {
	IOB_LAT_GO,	 /* the next window at s->depth, at once */
	IOB_LAT_DRAIN,	 /* drain what is in flight, then the next window at s->depth */
	IOB_LAT_SETTLE,	 /* settled: drain, start the phase's figures anew, one last window */
	IOB_LAT_DONE,	 /* the last window passed: the phase ends */
	IOB_LAT_FAILED	 /* depth 1 is over the target with latency_percentile 100 */
};

void iob_lat_search_init(struct iob_lat_search *s, uint32_t max, int keep_going);
/* A window's verdict: within the target (pass) or not; the depth it sets is
 * s->depth.  `now` says the window was cut short by an I/O over the target
 * (latency_percentile 100: one such I/O fails the window). */
enum iob_lat_next iob_lat_search_verdict(struct iob_lat_search *s, int pass, int now);

/* One window as the engine measured it (the phase result's lt_windows). */
struct iob_lat_window {
	uint32_t depth;	       /* the depth limit the window ran at */
	uint32_t max_inflight; /* the most I/Os in flight at once in it, measured */
	uint64_t ios;	       /* completions in it */
	uint64_t over;	       /* of them, taking more than latency_target */
	uint64_t pct_ns;       /* its latency at latency_percentile (its I/Os' histogram) */
	uint64_t start_ns, len_ns;
	int pass, final;
};

#endif /* IOBENCH_LATTARGET_H */
