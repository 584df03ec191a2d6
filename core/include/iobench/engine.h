/*
 * iobench/engine.h - runs one phase (write, read or verify) of I/O against a
 * backend and measures it.  The engine owns every timing decision: for each
 * I/O in the latency sample (every I/O, or a uniform random 1 in k when
 * timing each would cost more than 2% of the I/O's own time) two clock reads
 * around the backend call and an O(1) histogram record; nothing else per I/O
 * (no allocation, formatting, locking or logging).
 * Opening, buffer allocation, alignment checks and cache probes all happen
 * before the clock starts; errors are formatted after it stops.
 */
#ifndef IOBENCH_ENGINE_H
#define IOBENCH_ENGINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "iobench/cmdprio.h"
#include "iobench/hist.h"
#include "iobench/lattarget.h"
#include "iobench/live.h"
#include "iobench/load.h"
#include "iobench/loader.h"
#include "iobench/numa.h"
#include "iobench/os.h"
#include "iobench/pattern.h"
#include "iobench/phase.h"
#include "iobench/shape.h"

/* Per-I/O samples, for tools that report every block (bigread).  16 bytes a
 * sample, grown geometrically outside the timed call. */
struct iob_series {
	size_t n, cap;
	uint64_t *bytes; /* bytes moved by sample i */
	uint64_t *ns;    /* time of sample i on the series clock */
};

/* One I/O of a per-I/O log (fiolog.h: bw_log, iops_log, lat_log without
 * log_interval): when it completed and how long it took, in ticks (the log's
 * ns_per_tick converts them), where, how many bytes, which way, and the
 * priority it went at (cmdprio.h: its own or its thread's; 0 none).  32
 * bytes: the memory budget counts them (check.c). */
struct iob_io_event {
	uint64_t end_tick, lat_tick, off;
	uint32_t len;
	uint16_t write, prio;
};

/* A stream's per-I/O log of one phase: cap events, allocated and touched by
 * the runner before the phase (the budget: check.c), filled by the engine
 * with each timed I/O of the measured window (n; lost: those past cap).
 * ring: the phase may do more I/Os than cap, so ev is a ring that another
 * thread drains as the phase runs (fiolog.h, iob_fiologs_drain): n counts
 * every event put (atomic, release), tail those written out (atomic); the
 * engine puts none while ramping, and waits (waits counts them) while the
 * ring is full. */
struct iob_iolog {
	struct iob_io_event *ev;
	uint64_t cap, n, lost;
	uint64_t t0_tick, t0_ns; /* the window's start: tick and CLOCK_MONOTONIC ns */
	double ns_per_tick;	 /* set at the phase's end */
	int ring;
	uint64_t tail, waits;
};

/* The writes of a mixed phase, in the order they were issued, for the
 * verify phase after it (fio's list of written blocks): one per stream,
 * owned by the runner, which allocates v for cap entries before the phase
 * (free it with free); the engine appends and never grows it. */
struct iob_wlog_ent {
	uint64_t off;
	uint32_t fi, len;
};
struct iob_wlog {
	struct iob_wlog_ent *v;
	size_t n, cap;
};

struct iob_phase_spec {
	const struct iob_loaded *backend;
	const char *const *files;
	size_t nfiles;
	enum iob_phase phase;
	enum iob_access access;
	uint64_t block_size;
	uint64_t file_size;    /* bytes per file; 0 for read/verify = to end of file */
	uint64_t ops;          /* random: operations, 0 = file_size / block_size */
	uint32_t loops;        /* sequential: passes, 0 = 1 */
	uint64_t offset_align; /* random: 0 = block_size */
	int skip_past_end;     /* random: draw in [0, file_size), with replacement */
	int random_map;        /* random: every slot once per pass, in a random order;
				* 0 draws offsets with replacement (leaves holes) */
	struct iob_pattern pattern;
	uint64_t seed;
	int fsync;             /* write: sync each file before closing it (timed) */
	int truncate;          /* write: open with IOB_OPEN_TRUNC */
	int reopen;            /* open/close around every I/O (timed) */
	int record_series;     /* fill result->series, one sample per I/O; sequential
				* access only, timed with clock_gettime rather than ticks
				* (one sample per large block: the clock's cost does not matter,
				* and every sample is in ns as soon as it is taken) */
	enum iob_clock series_clock;
	enum iob_lat_timing latency; /* sampled (0, the default), every I/O, or none timed */
	/* With record_series: called after every sample is appended, outside the
	 * per-I/O clock reads but inside the phase time (a reported rate includes
	 * everything done during the phase); also once with no sample when a
	 * file (not a stream) is open, before its first read.  A block is read
	 * in pieces of at most 64 MiB, and a stop between two pieces ends the
	 * phase with the block's bytes so far as its last sample.  May be NULL. */
	void (*on_sample)(void *arg, const struct iob_series *series);
	void *sample_arg;
	volatile sig_atomic_t *stop; /* set by a signal handler to stop early; may be NULL */
	int fill_once;         /* write: fill the buffer once (as at offset 0), no refill per I/O */
	const char *backend_options; /* handed to every open; may be NULL */
	int follow_symlinks;   /* 0: open with IOB_OPEN_NOFOLLOW */
	int allow_devices;     /* 0: an opened block or character device is refused */
	/* Streams and queue depth (docs/architecture.md, "Streams in the engine"): */
	uint32_t iodepth;      /* I/Os in flight; 0/1: one at a time (read_at/write_at),
				* above 1: the queued loop over an IOB_CAP_ASYNC backend */
	uint64_t runtime_ns;   /* 0, or the phase ends at this time limit (or after its
				* ops/loops/one pass, whichever comes first) */
	int time_based;        /* with runtime_ns (required): the order starts over, pass
				* after pass, until the limit; ops and loops no longer end it */
	int evict_passes;      /* every further pass over a file (looping: time_based, loops
				* above 1, a ramp) starts with the file's cached pages dropped
				* (iob_cache_drop_range over the pass's range), inside the timed window */
	uint64_t ramp_ns;      /* I/O done before the measured window, not counted */
	uint32_t rwmix_read;   /* phase IOB_PHASE_MIXED: reads with this probability (%) */
	uint64_t region_off, region_len; /* sequential: this stream's part of each file;
					  * 0, 0 = the whole file */
	int region_fixed;      /* streams.c: region_off/len are the job's (offset, size),
				* stream i's starts i x region_step further (and
				* file_size with it); not a part of the file each */
	uint64_t region_step;
	/* Called exactly once per iob_phase_run when every file is open and
	 * every buffer allocated, just before the clock starts (the runner's
	 * barrier across streams); also when the phase failed before it could
	 * start, so a barrier never waits for it.  May be NULL. */
	void (*ready)(void *arg);
	void *ready_arg;
	/* Shared by the streams of a phase: the first to finish sets it; each
	 * stream notes what it had done when it first sees it set (looked at
	 * with the clock, at most 64 I/Os apart).  May be NULL. */
	volatile int *first_done;
	/* iob_streams_run only: the flag its streams stop at (spec.stop of
	 * each), the caller's, so another thread can stop them with no wait
	 * (a group: the job whose end stops the others, exit_others); it must
	 * be 0 at the start.  NULL: a flag of the phase's own. */
	volatile sig_atomic_t *streams_stop;
	/* Called once by iob_phase_run on its thread right after its last I/O
	 * completed (or, failed before its first, where it stopped), before
	 * the phase is summed up, its flow left and its files closed: nothing
	 * on the per-I/O path.  May be NULL. */
	void (*io_over)(void *arg);
	void *io_over_arg;
	/* iob_streams_run only (it takes io_over for itself): called once, on
	 * the thread of the first stream whose I/O is over, at once (fio's
	 * numjobs clones: the first to end is the job's end); clean: that
	 * stream had no error and no stop (status 0 and not interrupted as
	 * the I/O left it: a verify's halt is still -ECANCELED, not clean; a
	 * stream stopped because the others could not all start is not).
	 * May be NULL. */
	void (*streams_over)(void *arg, int clean);
	void *streams_over_arg;
	/* The run's observer (progress line, interval records) reads this
	 * stream's counters here; written at the looks at the clock and at the
	 * phase's end only (live.h).  May be NULL: nothing published. */
	struct iob_live *live;
	/* Read and verify phases after a write of the same job and block size:
	 * points to what of its order the write completed (its result's
	 * `draws`: random, draws of the order; sequential, bytes of it, or
	 * UINT64_MAX after a whole pass); the window's order (the same seed,
	 * the same regions) ends there, so a write cut short by its time limit
	 * or a stop is read and verified exactly where it wrote, and a read
	 * never runs past the end of a file the write left short.  Random:
	 * ignored when the random map covered every slot; with no end but the
	 * time limit, those draws again and again.  Streams: indexed by
	 * stream (iob_streams_run passes stream i its own).  NULL: no end. */
	const uint64_t *written_draws;
	/* A mixed phase whose job verifies after it: every write drawn is
	 * appended here (emptied when the phase starts).  A verify phase after
	 * it: reads exactly these blocks, in this order, and nothing else.
	 * Indexed by stream as written_draws.  NULL: none. */
	struct iob_wlog *wlog_out;
	const struct iob_wlog *wlog_in;
	/* Per-I/O logs: indexed by stream as live (iob_streams_run passes stream
	 * i its own); every I/O of the window is timed.  NULL: none. */
	struct iob_iolog *iolog;
	/* Shapes of load (shape.h): a block-size split, an offset distribution,
	 * a rate, think time; NULL: none.  A shaped phase runs the loop of mixed
	 * phases (one I/O at a time) or the queued loop; block_size is then the
	 * largest size the split draws. */
	const struct iob_shape *shape;
	/* streams.c: streams sharing a file with sequential access each go over
	 * the whole of it (fio's clones), not a part each */
	int shared_whole;
	/* fill_device: a write phase goes on until the file system is full
	 * (ENOSPC is its end, not an error); file_size is only a bound */
	int fill_device;
	/* the job's keys the engine reads as they are set (load.h), copied from
	 * the job as they are; zero: every one off */
	struct iob_load load;
	/* numa_cpu_nodes, numa_mem_policy (numa.h): put in force on the
	 * stream's thread before its files and buffers, the thread's former
	 * placement put back at the end; nothing asked: nothing done */
	struct iob_numa numa;
};

/* fill_device's write bound (2^62: aligned to any block size); ENOSPC comes first */
#define IOB_FILL_DEVICE_BOUND (1ull << 62)

/* Positive status: the data read back did not match the pattern. */
#define IOB_STATUS_MISMATCH 1

/* The counts of a phase that add up over its streams, each a uint64_t: struct
 * iob_phase_result and struct iob_aggregate (aggregate.h) declare them from
 * this list, and aggregate.c sums and copies them and ranks.c sends them
 * across MPI ranks by it alone.  A new count is its line here, the engine's
 * counting and its record field (result.c). */
#define IOB_PHASE_SUMS(X)                                                                                   \
	X(bytes)	 /* bytes moved by completed I/O */                                                   \
	X(ops)		 /* completed I/O calls */                                                            \
	X(skipped)	 /* random ops skipped because they crossed the end */                                \
	X(short_ops)	 /* I/O that moved fewer bytes than asked (end of file) */                            \
	X(bytes_read)	 /* by direction */                                                                   \
	X(bytes_written) X(ops_read) X(ops_written)                                                           \
	X(cpu_user_ns)	 /* the stream's thread's CPU time over the phase */                                  \
	X(cpu_sys_ns)                                                                                         \
	X(bad_blocks)	 /* verify: blocks found bad */                                                       \
	X(io_errors)	 /* continue_on_error: failed I/Os counted, not fatal (not in ops or bytes) */        \
	/* spec.load.verify_backlog: blocks (and their bytes) read back and checked inside this write     \
	 * or mixed phase, and those written and left for the verify phase after it (or never checked,  \
	 * with no verify phase after it) */                                                              \
	X(backlog_ops) X(backlog_bytes) X(backlog_left)
#define IOB_PHASE_SUM_FIELD(name) uint64_t name;

struct iob_phase_result {
	enum iob_phase phase;
	uint8_t pattern_label; /* the phase's pattern's one-byte label (iob_pattern_label) */
	uint64_t block_size;
	IOB_PHASE_SUMS(IOB_PHASE_SUM_FIELD)
	uint64_t elapsed_ns; /* wall time of the phase: opens, I/O, syncs, closes, and
			      * whatever spec->on_sample did */
	uint64_t sync_ns;    /* part of elapsed_ns spent in sync */
	struct iob_hist *hist; /* per-I/O latency of the sampled I/Os, owned by the result */
	/* Latency sampling (docs/performance.md): each I/O was in the sample with
	 * probability 1/lat_sample_every (1 = every I/O was timed); lat_samples is
	 * the number of I/Os in it (hist->count).  Throughput never depends on it. */
	uint32_t lat_sample_every;
	uint64_t lat_samples;
	double lat_timing_ns; /* what timing one I/O was measured to cost, ns */
	struct iob_series series;
	int direct;          /* every handle bypassed the page cache */
	/* what the kernel counted for this process over the phase (/proc/self/io
	 * rchar and wchar): bytes passed to read and write system calls.  Equal to
	 * `bytes` for the posix backend; UINT64_MAX when the OS cannot tell. */
	uint64_t os_read_bytes, os_write_bytes;
	/* what the kernel counted as fetched from or sent to storage over the
	 * phase (/proc/self/io read_bytes and write_bytes: the process's, or a
	 * stream's thread's own; docs/architecture.md, "Measurement rules");
	 * UINT64_MAX when the OS cannot tell */
	uint64_t storage_read_bytes, storage_write_bytes;
	/* the runner's: bytes written still dirty or under writeback in the page
	 * cache at the phase's end (cachestat); UINT64_MAX not measured */
	uint64_t unwritten_bytes;
	/* verify */
	uint64_t first_bad_offset; /* file offset of the first bad byte */
	uint8_t expected, found;
	char bad_file[IOB_PATH_MAX];
	/* outcome */
	int status;          /* 0, IOB_STATUS_MISMATCH, or -errno */
	int interrupted;     /* stopped by *spec->stop */
	char error[1024];    /* one line: operation, file, offset, errno text */
	/* Streams (see iob_phase_spec): */
	uint64_t start_ns, end_ns;	 /* the measured window, absolute CLOCK_MONOTONIC */
	struct iob_hist *hist_write;	 /* mixed phases: write latency (hist: reads); owned */
	uint64_t first_done_bytes, first_done_ops; /* done when *first_done was first seen set,
						    * or the totals of a stream that ended first */
	/* Draws of the measured window's order whose I/O completed (random:
	 * I/Os, skipped ones included; sequential: bytes), in order, or
	 * UINT64_MAX once every block was covered (a whole pass of the random
	 * map, or over every region); what a later read or verify replays
	 * (spec.written_draws). */
	uint64_t draws;
	int written_cut; /* the window's order ended at spec.written_draws, before its own end */
	char verify_why[256]; /* verify headers: why the first bad block is bad ("" when only its bytes tell) */
	struct iob_bs_hist bs_hist; /* a shaped phase: I/Os and bytes per block size (n 0: not kept) */
	int errors_counted;	    /* shape.continue_mask: failed I/Os counted (io_errors), not fatal */
	int device_full;	    /* spec.fill_device: the phase ended at ENOSPC */
	struct iob_prio_hist prio_hist; /* cmdprio: I/Os submitted per priority (n 0: not kept) */
	int pass_cut;		    /* spec.load.seq_ops ended the phase inside a pass */
	/* spec.load.latency_target: the search's windows, in order (owned), the
	 * depth it ended at, and whether it settled (lattarget.h) */
	struct iob_lat_window *lt_windows;
	size_t lt_nwin;
	uint32_t lt_depth;
	int lt_settled;
};

void iob_phase_result_init(struct iob_phase_result *r);
void iob_phase_result_free(struct iob_phase_result *r);
/* Run one phase.  Returns r->status. */
int iob_phase_run(const struct iob_phase_spec *spec, struct iob_phase_result *r);

/* The memory one stream's phase allocates at its peak, in bytes (saturating):
 * its buffers (block_size rounded up to a page, one per request with
 * iodepth > 1, verify's second, mixed's read buffer), its latency
 * histograms and request table, and series_ios samples of a series with the
 * block summary's working memory at its end (iob_speeds_summary_bytes).  The
 * memory budget (check.c) adds it up over streams and jobs at once. */
uint64_t iob_phase_memory(enum iob_phase phase, uint64_t block_size, uint32_t iodepth, uint64_t series_ios);

/* Derived figures, computed here once for every renderer. */
double iob_phase_seconds(const struct iob_phase_result *r);
double iob_phase_bw(const struct iob_phase_result *r);   /* bytes / s, 0 if no time */
double iob_phase_iops(const struct iob_phase_result *r); /* ops / s, 0 if no time */

#endif
