/*
 * iobench/shape.h - shapes of load inside a phase (docs/profiles.md, "Shapes
 * of load"): a mix of block sizes (bssplit), a skewed distribution of random
 * offsets (random_distribution), a rate to hold (rate, rate_iops,
 * rate_process) and think time between I/Os (thinktime).  The job keys are
 * parsed here into a struct iob_shape; the engine draws each I/O's length
 * and offset, and paces it, through a struct iob_shape_run of its own
 * (one per stream: nothing shared, nothing allocated per I/O).
 */
#ifndef IOBENCH_SHAPE_H
#define IOBENCH_SHAPE_H

#include "iobench/cmdprio.h"
#include "iobench/perm.h"
#include "iobench/spr.h"
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define IOB_SPLIT_MAX 32 /* block sizes in one direction's split */
#define IOB_ZONES_MAX 32
#define IOB_SEQ_MAX 64 /* block indices of a sequence (fio's limit) */
#define IOB_DIST_TEXT_MAX 768 /* random_distribution's text: a sequence of 64 indices of 10 digits fits */

/* One direction's block sizes and their shares (percent, summing to 100). */
struct iob_bssplit {
	uint32_t n;
	uint64_t bs[IOB_SPLIT_MAX];
	uint32_t pct[IOB_SPLIT_MAX];
};

enum iob_dist {
	IOB_DIST_RANDOM = 0, /* uniform */
	IOB_DIST_ZIPF,	     /* P(rank k) ~ 1 / k^theta over the file's blocks */
	IOB_DIST_PARETO,     /* rank = (N - 1) * u^(ln h / ln(1 - h)), fio's pareto:h */
	IOB_DIST_NORMAL,     /* around the middle, sigma a percentage of the file */
	IOB_DIST_ZONED,	     /* access% / size% zones, uniform inside each */
	IOB_DIST_ZONED_ABS,  /* access% / size-in-bytes zones from the file's start */
	IOB_DIST_SEQUENCE,   /* fio's sequence:B,...: no draw, the I/O k of a direction is block seq[k mod n] */
};

struct iob_zone {
	uint32_t access_pct; /* share of the I/Os */
	uint64_t size;	     /* percent of the file (zoned) or bytes (zoned_abs) */
};

#define IOB_IGNORE_MAX 16

struct iob_shape {
	struct iob_bssplit split[2]; /* [0] reads, [1] writes; n == 0: the job's block size */
	enum iob_dist dist;
	double dist_param; /* zipf theta, pareto h, normal sigma (percent) */
	uint32_t nzones;
	struct iob_zone zones[IOB_ZONES_MAX];
	/* sequence: the I/O k of a direction (counted from the order's start)
	 * is block seq[k mod nseq]; with seq_stride, block seq[k mod nseq] +
	 * nseq x (k / nseq) (fio's random_sequence_stride), and the order ends
	 * at the first block past the file's last */
	uint32_t nseq;
	uint32_t seq[IOB_SEQ_MAX];
	int seq_stride;
	uint64_t rate[2];      /* bytes per second, [0] reads [1] writes; 0: no limit */
	uint64_t rate_iops[2]; /* I/Os per second; 0: no limit */
	uint64_t rate_min[2];  /* bytes per second the phase must reach; 0: none */
	uint64_t rate_iops_min[2]; /* I/Os per second likewise */
	uint64_t start_delay_ns;   /* filled by the runner: the job's first phase waits this long before its window */
	int poisson;	       /* rate_process=poisson: exponential gaps, else even */
	uint64_t think_ns, think_spin_ns;
	uint32_t think_blocks; /* think after every this many I/Os (0, 1: every one) */
	/* filled by the runner: a random phase with a split or a distribution
	 * ends after this many bytes (0: a file's worth per file) */
	uint64_t io_bytes;
	uint64_t bs; /* filled by the runner: the job's block size (a direction without a split) */
	/* fio's rw=...:N: sequential, each I/O starts seq_add bytes after the
	 * last one's end (negative: before it; a pass is a region's worth of
	 * I/Os, or ends at the region's end); random, rand_run I/Os in a row
	 * from each offset drawn (0, 1: a new offset every I/O) */
	int64_t seq_add;
	uint32_t rand_run;
	/* continue_on_error: an I/O that fails in a direction of this mask (bit 0
	 * reads, bit 1 writes) is counted (io_errors) and the phase goes on */
	uint32_t continue_mask;
	/* ignore_error: the errnos passed over per direction (0 reads, 1
	 * writes); a direction with a list passes over only those (its bit is
	 * then set in continue_mask too) */
	int32_t ignore[2][IOB_IGNORE_MAX];
	uint32_t nignore[2];
	/* flow (fio's flow, flow_id, flow_sleep): the streams of every job of one
	 * flow id share a count of I/Os; a stream whose share of it is above its
	 * weight's share of the ids' weights waits (flow_sleep_ns, or 10 us)
	 * before it tries again.  NULL: none. */
	struct iob_flow *flow;
	uint32_t flow_weight;
	uint64_t flow_sleep_ns;
	/* cmdprio_*: a priority per I/O (cmdprio.h); cmdprio.on 0: none */
	struct iob_cmdprio cmdprio;
	/* strided zones (fio's zonemode=strided; job.h): zone_size 0: none;
	 * zone_range filled (zone_size when not given); zone_map: random
	 * offsets without replacement in each zone_range bytes (random_map) */
	uint64_t zone_size, zone_range, zone_skip;
	int zone_map;
	/* sprandom (spr.h): the writes' offsets in fio's sprandom order */
	int sprandom;
	uint32_t spr_regions;
	double spr_op;
	uint64_t spr_cs;
};

/* ignore_error: "READS,WRITES[,VERIFY]", each a ':' list of errno names
 * (EIO, ENOSPC, ...) or numbers (1 to 4095); the verify list must be empty. */
int iob_ignore_error_parse(const char *text, struct iob_shape *sh, char *err, size_t errlen);
/* An I/O of direction w (1: write) that failed with errno e: passed over
 * (counted in io_errors) under continue_on_error and ignore_error. */
int iob_shape_passes_error(const struct iob_shape *sh, int w, int e);

/* One flow id's counts (shape.c keeps one per id, for the process). */
struct iob_flow {
	uint64_t ios;    /* I/Os of the streams in it */
	uint64_t weight; /* the weights of the streams in it */
};
#define IOB_FLOW_IDS 64
/* The flow of an id below IOB_FLOW_IDS. */
struct iob_flow *iob_flow_of(uint32_t id);

/* Parsers of the job keys' texts; 0, or -EINVAL with one line in err
 * naming the bad value.  A size is bytes with iobench's units (4k, 1m). */
int iob_bssplit_parse(const char *text, struct iob_bssplit out[2], char *err, size_t errlen);
int iob_dist_parse(const char *text, struct iob_shape *sh, char *err, size_t errlen);
/* "R" (both directions) or "R,W" (an empty side: no limit) */
int iob_rate_parse(const char *key, const char *text, uint64_t out[2], char *err, size_t errlen);
/* seq_add: a size with an optional '-' ("-8k"); "" or "0": none */
int iob_seq_add_parse(const char *text, int64_t *out, char *err, size_t errlen);

/* Does the shape change anything: lengths or offsets drawn here (draws),
 * pacing (paces)? */
int iob_shape_draws(const struct iob_shape *sh);
int iob_shape_paces(const struct iob_shape *sh);
/* The largest and the smallest block size the shape may draw for a job of
 * block size bs. */
uint64_t iob_shape_bs_max(const struct iob_shape *sh, uint64_t bs);
uint64_t iob_shape_bs_min(const struct iob_shape *sh, uint64_t bs);

/* Block sizes done, by direction ([0] reads, [1] writes): I/Os and bytes
 * moved per size, in the order sizes were first seen. */
#define IOB_BS_HIST_MAX 64
struct iob_bs_hist {
	uint32_t n;
	uint64_t size[IOB_BS_HIST_MAX];
	uint64_t ios[2][IOB_BS_HIST_MAX], bytes[2][IOB_BS_HIST_MAX];
};
void iob_bs_hist_add(struct iob_bs_hist *h, int write, uint64_t size, uint64_t ios, uint64_t bytes);
/* "SIZE:READ_IOS:READ_BYTES:WRITE_IOS:WRITE_BYTES ..." by size, ascending */
void iob_bs_hist_text(const struct iob_bs_hist *h, char *out, size_t len);

/* The first block size of the split that is not a multiple of align; 0: none. */
uint64_t iob_shape_misaligned(const struct iob_shape *sh, uint64_t align);

/* One stream's drawing and pacing state. */
struct iob_shape_run {
	const struct iob_shape *sh;
	uint64_t rng, seed, prng; /* draws; pacing's own (poisson) */
	uint64_t bs;	    /* the job's block size: a direction without a split */
	uint64_t unit;	    /* offsets are multiples of it */
	uint64_t fsize;	    /* bytes per file */
	uint64_t nunits;    /* offsets drawn: 0 .. nunits - 1 units */
	/* zipf, rejection-inversion constants */
	double z_hx1, z_hn, z_s;
	/* scatter: a bijection of [0, nunits), so hot ranks are spread over the file */
	struct iob_perm scatter;
	/* pacing, from the window's start */
	uint64_t t0_ns;
	double due_ns[2];
	uint64_t ios;	    /* I/Os paced so far (think time) */
	uint64_t budget, bytes_left; /* bytes a random order draws (UINT64_MAX: no end) */
	uint64_t run_next;  /* rand_run: where the next I/O of the run starts */
	uint32_t run_left;  /* rand_run: I/Os left in this run */
	uint64_t seq_ios[2]; /* sequence: I/Os of each direction so far ([0] reads, [1] writes) */
	uint64_t flow_ios;  /* flow: this stream's I/Os in the flow's count */
	int flow_in;        /* flow: its weight is in the flow's (until iob_shape_run_end) */
	uint64_t prio_rng;  /* cmdprio: the draws of each I/O's priority, apart from the others */
	/* strided zones: the zone's start, its bytes done, the next
	 * sequential offset in its range, and the random map's walk */
	uint64_t zone_start, zone_bytes, zone_pos, zone_slot;
	struct iob_perm zone_perm;
	struct iob_spr spr; /* sprandom: the order (iob_shape_run_spr; pct NULL: none) */
};

/* Start drawing for files of fsize bytes, offsets in multiples of unit
 * (0: the smallest block size); the same seed gives the same draws.  A
 * random order ends after budget bytes (UINT64_MAX: never). */
void iob_shape_run_init(struct iob_shape_run *run, const struct iob_shape *sh, uint64_t seed, uint64_t bs,
			uint64_t fsize, uint64_t unit, uint64_t budget);
/* sprandom: allocate the order of a file of logical bytes in blocks of bs
 * (before the clock); 0, or negative with one line in err. */
int iob_shape_run_spr(struct iob_shape_run *run, uint64_t logical, uint64_t bs, char *err, size_t errlen);
/* The order starts again (same draws as after init). */
void iob_shape_run_reset(struct iob_shape_run *run);
/* The stream is done: its weight and I/Os leave its flow (none: nothing);
 * sprandom's order is freed. */
void iob_shape_run_end(struct iob_shape_run *run);
/* The length of the next I/O of direction write (0 read, 1 write). */
size_t iob_shape_len(struct iob_shape_run *run, int write);
/* A random offset for an I/O of len bytes in direction write (0 read, 1
 * write), by the distribution (and rand_run: the next I/O of a run starts
 * where the last ended); UINT64_MAX when the order is done (a sequence
 * with seq_stride past the file's last block). */
uint64_t iob_shape_offset(struct iob_shape_run *run, size_t len, int write);
/* strided zones: the offset of the next I/O of len bytes (seq: in order
 * through the zone's range, else drawn in it), as fio's zonemode=strided
 * moves on after zone_size bytes; the job's validation keeps every zone
 * visited inside the file. */
uint64_t iob_shape_zone_offset(struct iob_shape_run *run, size_t len, int seq);
/* The first byte past the file that strided zones would reach in budget
 * bytes of I/O (UINT64_MAX: no end) of block size bs on a file of fsize
 * bytes; 0 when every zone visited stays inside it. */
uint64_t iob_shape_zones_past(const struct iob_shape *sh, uint64_t fsize, uint64_t bs, uint64_t budget, int seq);
/* The rank-th hottest unit's place in the file (zipf, pareto, normal: the
 * draw's rank is scattered over the file by this bijection). */
uint64_t iob_shape_scatter(const struct iob_shape_run *run, uint64_t rank);
/* A mixed phase: the direction of the next I/O, drawn write (1) or read
 * (0), swapped when its rate makes it wait and the other direction's turn
 * comes sooner (as fio does): each direction is held to its own rate. */
int iob_shape_dir(struct iob_shape_run *run, int write);
/* rate_min, rate_iops_min: 1 with one line in err when a direction that
 * did I/O stayed below its minimum over the window; else 0. */
int iob_shape_rate_min_missed(const struct iob_shape *sh, uint64_t rbytes, uint64_t wbytes, uint64_t rios,
			      uint64_t wios, uint64_t elapsed_ns, char *err, size_t errlen);
/* Pacing: the measured window starts at now_ns. */
void iob_shape_window(struct iob_shape_run *run, uint64_t now_ns);
/* Before an I/O of len bytes in direction write: think time, then wait for
 * its turn at the rate.  deadline_ns (0: none): a wait that would pass it
 * sleeps to it and returns 1 (the phase's time is up); a stop (*stop set)
 * ends a wait early and returns 1 too (no I/O after a stop).  Else 0. */
int iob_shape_pace(struct iob_shape_run *run, int write, size_t len, uint64_t deadline_ns,
		   volatile sig_atomic_t *stop);

#endif
