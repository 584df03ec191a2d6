/*
 * engine_int.h - what the engine's files share (internal: not under
 * core/include; engine.c has the map of the engine's files).
 *
 * Sections: the random generator; the latency sampler's state and the
 * inline steps the loops take per I/O; the random permutation; the order
 * of the mixed and queued loops (struct gen); the queued loop's requests
 * and queue; the phase (struct phase); the functions one file defines for
 * the others; the inline bookkeeping of one I/O.
 */
#ifndef IOB_ENGINE_INT_H
#define IOB_ENGINE_INT_H

#include "iobench/engine.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/ticks.h"

#include "iobench/perm.h"

#define rng_next iob_splitmix64 /* the engine's generator */

/* A series block is read in pieces of at most this, so that a stop (a
 * signal, or the reader of standard output gone) ends a large block within a
 * piece rather than at its end: a 1 GiB block takes seconds on a slow device.
 * A read's pieces (no verification: nothing reads the bytes) all land in one
 * buffer of this size (ph->piece_reuse), so a 1 GiB block costs 64 MiB of
 * memory made present before the clock, not 1 GiB (issue 27). */
#define SERIES_PIECE ((size_t)64 << 20)

#define LAT_BATCH 64u       /* I/Os per batch of a cost check */
#define LAT_CHECK_BATCHES 8 /* batches per check, alternately timed and not */
#define LAT_LEVELS 9u       /* k up to 2^(LAT_LEVELS - 1) = 256 */
#define LAT_MAX_SHARE 0.02  /* timing may cost at most this share of the I/O's time */
#define LAT_SLOW_NS 20000.0 /* an I/O this slow is timed every time (see lat_event) */
#define LAT_NONE UINT64_MAX /* lat.next_in: no sample drawn yet */

/* A stop flag set by a signal handler or by the runner's thread (streams):
 * read atomically. */
static inline int stopped(const volatile sig_atomic_t *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* What the loops do with the I/O they are about to issue (lat.mode, set by
 * lat_event, which the loops call through iob_eng_phase_event when nio reaches
 * lat.event): not timed, timed only (a check's batch that times every I/O),
 * or timed and recorded (in the sample).  A loop that takes a LAT_REC puts
 * lat.base back (lat_take; the one-at-a-time random loop after its record),
 * so the I/O after a sample needs no event. */
enum { LAT_OFF = 0, LAT_TIME = 1, LAT_REC = 2 };

struct lat_sampler {
	uint64_t event;  /* loop index of the next I/O whose mode changes, or of a check's next step */
	unsigned mode;   /* LAT_* for the I/O at the current loop index */
	unsigned base;   /* LAT_* for the I/Os that are not the sampled one */
	unsigned m;      /* k = 2^m */
	int all, none;   /* in a check's batch: time every I/O, or none */
	uint64_t check_event; /* loop index of the next batch boundary or check */
	uint64_t next_in;     /* loop index of the next I/O in the sample (k > 1); LAT_NONE: to be drawn */
	uint64_t run_start;   /* k > 1: where the run of k I/Os that holds the next sample starts */
	unsigned rec_level;   /* k > 1: the level of the next sample, drawn with it */
	unsigned cur_level;   /* k > 1: the level of the sample the loop is doing */
	uint64_t lbits;	      /* k = 1: random bits for the levels, under a sentinel 1 bit */
	uint64_t rng;
	int batch;       /* batch of the check in progress, -1 when none */
	uint64_t batch_t0, batch_ticks[LAT_CHECK_BATCHES];
	uint64_t next_check;
	double overhead; /* last measured cost of timing one I/O, ticks */
	struct iob_hist *lv[LAT_LEVELS]; /* lv[LAT_LEVELS - 1] is the result's histogram */
	struct iob_hist *lvw[LAT_LEVELS]; /* mixed phases: the same for writes, else NULL */
	struct iob_hist *levels; /* one allocation holding every lv[i] and lvw[i] but the last */
	size_t nlevels;
	unsigned depth;	 /* I/Os in flight: 1, or the queued loop's iodepth */
	int off;	 /* latency = off: no I/O timed */
	int fresh;	 /* every histogram as made (zero) and nothing timed yet: a reset has
			  * nothing to clear (iob_phase_run clears it when the clock starts) */
};

/* The out-of-line part of lat_level_now (engine_time.c). */
unsigned iob_eng_lat_level_refill(struct lat_sampler *s);

static inline unsigned lat_level_now(struct lat_sampler *s)
{
	uint64_t b = s->lbits;
	if (__builtin_expect(!(b & (b - 1)), 0))
		return iob_eng_lat_level_refill(s);
	unsigned j = (unsigned)__builtin_ctzll(b);
	s->lbits = b >> j >> 1;
	return j < LAT_LEVELS - 1 ? j : LAT_LEVELS - 1;
}

/* Record the I/O just done, one at a time, at its level: m plus a
 * geometric draw, made with the sample (k > 1) or now (k = 1, every I/O). */
static inline void lat_record(struct lat_sampler *s, uint64_t ticks)
{
	iob_hist_record(s->lv[s->m ? s->cur_level : lat_level_now(s)], ticks);
}

/* The loops that mix directions or keep several I/Os in flight (records
 * come in completion order, not one after its draw): a level drawn at the
 * record; writes of a mixed phase go to the write histograms. */
static inline void lat_record_dir(struct lat_sampler *s, uint64_t ticks, int write)
{
	struct iob_hist **lv = write && s->lvw[LAT_LEVELS - 1] ? s->lvw : s->lv;
	unsigned level = s->m + (unsigned)__builtin_ctzll(rng_next(&s->rng) | (1ull << 63));
	iob_hist_record(lv[level < LAT_LEVELS - 1 ? level : LAT_LEVELS - 1], ticks);
}

/* The mode of the I/O a loop is about to issue; a sample's LAT_REC is used
 * once. */
static inline unsigned lat_take(struct lat_sampler *s)
{
	unsigned mode = s->mode;
	s->mode = s->base;
	return mode;
}

struct phase;

/* The offsets of the loops that are not the plain synchronous ones (mixed
 * phases, the queued loop): the same orders as run_seq_file and iob_eng_run_random,
 * drawn one I/O at a time. */
struct gen {
	struct phase *ph;	     /* for iob_eng_pass_evict */
	uint64_t rounds;	     /* round robin: rounds over every file done */
	int seq;
	size_t nfiles, bs;
	int whole_blocks;	     /* reads ask for whole blocks (aligned I/O): EOF makes the last short */
	const uint64_t *start, *end; /* sequential: each file's region */
	size_t fi;
	uint64_t off;
	uint32_t loop, loops;	     /* passes over each file; UINT32_MAX: round robin, no end */
	uint64_t round_ios;	     /* I/Os of this round (round robin stops after an empty one) */
	struct iob_perm perm;	     /* random */
	uint64_t slots, total, align, fsize, rng, slot, left;
	uint64_t drawn;		     /* draws of this order so far (skipped ones too) */
	uint64_t cycle_n, cycle_rng; /* random, no end but the time limit after a write cut
				      * short: its cycle_n draws again and again (cycle_n 0: no) */
	uint64_t seq_left;	     /* sequential: bytes left before spec.written_draws ends the order */
	int seq_whole, seq_cut;	     /* a whole pass drawn; the order ended at seq_left */
	int mapped, multi, skip;
	uint64_t *skipped;
	struct iob_shape_run *shape; /* a phase whose lengths or offsets the shape draws; NULL */
	uint64_t pass_ios;	     /* shape's seq_add: I/Os of this pass */
	uint64_t seq_n, seq_cap;     /* I/Os drawn; spec.load.seq_ops (0, and in a ramp: no cap) */
	int w;			     /* the direction of the I/O being drawn (shape's split) */
	struct iob_wlog *log_out;    /* spec.wlog_out: each write drawn appended */
	const struct iob_wlog *log_in; /* spec.wlog_in: the order is these, from log_pos */
	size_t log_pos;
};

/* One request of the queued loop.  Its life is a cycle of four states, with
 * one owner at a time (docs/architecture.md, "Streams in the engine"):
 *   FREE       on q->free, owned by the queue: no I/O, buffer idle;
 *   QUEUED     on q->pend, owned by the core: filled, to be submitted (a new
 *              request, or the rest of a short transfer);
 *   SUBMITTED  owned by the backend from the submit that took it until the
 *              reap that hands it back; on no list of the core;
 *   COMPLETED  in q->done, owned by the core while queue_complete accounts
 *              it, which makes it FREE or QUEUED (the rest of a short one).
 * Only req_move changes a state, and it asserts the one it leaves (debug
 * builds); a request the backend hands back that is not SUBMITTED is a
 * broken contract, refused in every build (queue_reaped). */
enum req_state { REQ_FREE, REQ_QUEUED, REQ_SUBMITTED, REQ_COMPLETED };

struct req {
	struct iob_io io; /* io.user points back here */
	unsigned char *buf;
	uint64_t off;	  /* the whole request */
	size_t len;
	size_t done;	  /* bytes moved so far: a short transfer is resubmitted for the rest */
	uint64_t t0;	  /* ticks at the first submission, for a timed request */
	size_t fi;
	size_t wlog_at;	  /* a write in gen.log_out: its entry's index + 1 (0: not logged) */
	size_t bl_at;	  /* verify_backlog: a write's entry in the ring + 1 (0: none) */
	uint8_t blread;	  /* verify_backlog: a read-back of a listed block */
	uint8_t in, timed, stamped, write, dirty; /* dirty: the buffer holds read data */
	uint8_t state;	  /* enum req_state */
};

static inline void req_move(struct req *rq, enum req_state from, enum req_state to)
{
	assert(rq->state == from);
	(void)from;
	rq->state = (uint8_t)to;
}

struct queue {
	uint32_t depth;
	struct req *reqs;
	struct req **free;
	size_t nfree;
	struct iob_io **pend; /* to submit: new requests and the rest of short ones */
	size_t np;
	struct iob_io **done;
	uint32_t *infl;	      /* in flight per file */
	uint64_t inflight;
	size_t reserve;	      /* free requests not to take: depth - the depth in force (latency_target) */
};

/* latency_target's side of the queued loop (engine_queue.c, lattarget.h):
 * each window's completions, timed as the sampler times them (every I/O: the
 * sampler is not adaptive with latency_target), counted against the target
 * in ticks. */
struct lt_state {
	int on;
	int drain;	      /* no new I/O until none is in flight, then the next window */
	int end;	      /* settled and its last window passed: no new I/O, the phase ends */
	double pct;	      /* latency_percentile */
	uint64_t target_ns, window_ns;
	double tpn;	      /* ticks per ns: the engine's, then measured over the phase so far */
	uint64_t k0, n0;      /* ticks and ns when the search began */
	uint64_t target_t, window_t; /* the target and the window in ticks */
	uint64_t t0, ios, over; /* this window's start (ticks), completions, and those over the target */
	uint32_t maxin;	      /* the most in flight at once in this window */
	struct iob_lat_search s;
	struct iob_hist *h;   /* this window's latencies (ticks, scaled to ns) */
};

/* Everything a phase holds while it runs. */
struct phase {
	uint16_t prio_dflt; /* the thread's priority (prio_class), 0: none set */
	const struct iob_phase_spec *spec;
	struct iob_phase_result *r;
	const struct iob_backend_ops *ops;
	void **handles;
	int *created; /* file did not exist before this phase opened it */
	int *checked; /* what was opened has been checked (fstat through info) */
	unsigned char *buf, *scratch;
	unsigned char *rbuf; /* mixed, one at a time: reads land here, buf keeps the pattern */
	size_t buflen, mem_align;
	size_t bufmem;	   /* bytes of buf: buflen, or one SERIES_PIECE where pieces reuse it */
	int piece_reuse;   /* a series read's pieces all land at buf's start (nothing reads them) */
	uint32_t io_align;
	uint32_t open_flags;
	int write, verify, fill_each, mixed, queued;
	int replay; /* a verify of the writes a mixed phase logged (spec.wlog_in): the mixed loop */
	unsigned char *bufbase; /* a periodic pattern written in order: the buffer, bufmem + period bytes */
	size_t period;		/* then buf points into it where each block's offset falls (engine_io.c) */
	int verify_halt; /* verify_fatal stopped the phase (status -ECANCELED until its end) */
	/* verify_backlog (engine_io.c, iob_eng_backlog): the blocks written and not yet read
	 * back, a ring in spec.wlog_out (its n of them from bl_head), reads into blbuf */
	struct iob_wlog *bl;
	size_t bl_head;
	uint64_t bl_batch; /* reads left of the batch under way */
	unsigned char *blbuf;
	/* the queued loop's (engine_queue.c, "verify_backlog"): a write is listed as it
	 * goes out, its entry's fi marked BL_INFL until it completes, BL_DROP when it
	 * failed or never went out; bl_live counts the listed entries not dropped
	 * (fio's io_hist_len), bl_last_read says the last completion was a read (fio's
	 * last_ddir); the next I/O drawn waits in bl_next (bl_have) while read-backs
	 * take the free requests, as fio's loop ends with its last write issued */
	uint64_t bl_live;
	int bl_last_read, bl_have, bl_next_w;
	int bl_pass; /* BL_PASS_*: where the queued loop is in a pass's end (engine_queue.c) */
	size_t bl_next_fi, bl_next_len;
	uint64_t bl_next_off;
	struct lat_sampler lat;
	uint64_t nio;	   /* I/O calls so far (the sampler's clock) */
	uint64_t event;	   /* min(lat.event, check_at): the loops compare nio with it */
	uint64_t check_at; /* next look at the clock and first_done; UINT64_MAX: never */
	uint64_t check_ns, check_nio; /* the last look at the clock */
	uint64_t check_step; /* I/Os between looks, as the clock last said */
	unsigned flag_looks; /* first_done alone: looks at the flag since the clock's */
	/* the measured window (iob_eng_window_start) */
	int ramping, ended, fd_seen, have_io, have_cpu;
	/* sequential: the window's order ends after seq_left more bytes
	 * (spec.written_draws; UINT64_MAX: no such end); seq_whole: a write
	 * window completed a whole pass over every file's region */
	uint64_t seq_left;
	int seq_whole;
	uint64_t ramp_end, deadline, start_ns, start_tick;
	uint64_t rchar0, wchar0, cpu_user0, cpu_sys0, rbytes0, wbytes0;
	uint64_t mix_rng;
	uint64_t seq_rounds; /* sequential, no end but the time: rounds over every file done */
	/* mixed and queued: every file open from the start, its region */
	uint64_t *fstart, *fend;
	struct gen gen;
	struct queue q;
	int shaped;		   /* spec.shape: the mixed loop (or the queued one) runs it */
	struct iob_shape_run shape;
	struct iob_iolog *iolog;   /* spec.iolog: this stream's per-I/O log, or NULL */
	struct lt_state lt; /* latency_target (engine_queue.c) */
};

enum { PH_GO = 0, PH_END = 1, PH_WINDOW = 2 };

/* Shared between the engine's files, by the file that defines them. */
/* engine_time.c */
void iob_eng_measure_timing_floor(void);
double iob_eng_ticks_per_ns(void);
int iob_eng_lat_init(struct lat_sampler *s, struct iob_hist *h, struct iob_hist *hw, uint64_t seed,
		     int adaptive, int off);
void iob_eng_lat_finish(struct lat_sampler *s, struct iob_phase_result *r);
void iob_eng_window_start(struct phase *ph);
void iob_eng_first_done_finish(struct phase *ph);
void iob_eng_live_publish(struct phase *ph, uint64_t now, int final);
int iob_eng_phase_event(struct phase *ph);
uint64_t iob_eng_next_event(const struct phase *ph);

/* engine_io.c */
int iob_eng_fail(struct phase *ph, int err, const char *what, const char *file, uint64_t off, size_t len);
void iob_eng_pass_evict(const struct phase *ph, size_t fi, uint64_t off, uint64_t len);
void iob_eng_pass_evict_all(const struct phase *ph);
int iob_eng_open_one(struct phase *ph, size_t i);
int iob_eng_close_one(struct phase *ph, size_t i);
int iob_eng_sync_one(struct phase *ph, size_t i);
int iob_eng_touch(struct phase *ph, unsigned char *buf, size_t len, const unsigned char *from, int pattern);
int iob_eng_prepare(struct phase *ph);
int iob_eng_open_all(struct phase *ph);
int iob_eng_broke_contract(struct phase *ph, size_t fi, int write, int64_t n, size_t len, uint64_t off);
int iob_eng_after_io_slow(struct phase *ph, size_t fi, int64_t n, size_t len, uint64_t off);
/* verify_backlog: a write of len bytes at off of file fi completed; after every
 * verify_backlog of them, read back and check the oldest (a batch).  0, or
 * negative: the phase's error (a read failed, or verify_fatal stopped it). */
int iob_eng_backlog(struct phase *ph, size_t fi, uint64_t off, size_t len);
/* verify_backlog, a pass of several done (fio's loops; the synchronous
 * loops, not time_based): read back and check every block still waiting,
 * oldest first, before the next pass starts, as fio verifies after each
 * loop.  0, or negative: the phase's error. */
int iob_eng_backlog_pass(struct phase *ph);
/* A read-back of len bytes at off of file fi returned n into buf: counted and
 * checked.  0, or negative: the phase's error (failed, short, or a bad block
 * with verify_fatal). */
int iob_eng_backlog_check(struct phase *ph, size_t fi, uint64_t off, size_t len, const unsigned char *buf, int64_t n);
#define BL_INFL (1u << 31) /* queued loop: a listed write still in flight (in its entry's fi) */
#define BL_DROP (1u << 30) /* queued loop: a listed write that failed or never went out */
/* The queued loop at the end of a pass of several (iob_eng_gen_pass_ends),
 * as fio's do_io ends a loop and do_verify follows: read-backs by the rule
 * while it gives them (TAIL), then none new until none is in flight (DRAIN),
 * then every block still listed read back in order (CHECK), none in flight
 * again, and the next pass is drawn (OVER until it is). */
enum { BL_PASS_NONE = 0, BL_PASS_TAIL, BL_PASS_DRAIN, BL_PASS_CHECK, BL_PASS_OVER };
/* At the phase's end: the ring's blocks in order from v[0], for the verify
 * phase after it (spec.wlog_in) */
void iob_eng_backlog_end(struct phase *ph);
int iob_eng_short_read(struct phase *ph, size_t fi, int64_t n, size_t len, uint64_t off, uint64_t size);
int iob_eng_account(struct phase *ph, size_t fi, int write, const unsigned char *buf, int64_t n, size_t len,
		    uint64_t off);
int iob_eng_no_progress(struct phase *ph, size_t fi, int write, int64_t n, size_t len, uint64_t off);

/* engine_order.c */
uint64_t iob_eng_rand_seed(const struct iob_phase_spec *s, int ramp);
uint64_t iob_eng_rand_ops(const struct iob_phase_spec *s, uint64_t bs);
uint64_t iob_eng_rand_window(const struct iob_phase_spec *s, uint64_t bs, uint64_t total, int mapped);
void iob_eng_gen_reset(struct phase *ph, int ramp);
int iob_eng_gen_init(struct phase *ph);
int iob_eng_gen_next(struct gen *g, size_t *fi, uint64_t *off, size_t *len);
/* A logged write (entry i of g->log_out) failed and was passed over
 * (continue_on_error): the verify after the phase does not read it back,
 * as fio drops a failed write from its verify list. */
void iob_eng_gen_unlog(struct gen *g, size_t i);
void iob_eng_gen_done(struct phase *ph);
/* verify_backlog in a write or mixed phase of several passes (fio's loops):
 * the I/O drawn last ended a pass, and another follows.  Not the last pass
 * (what it leaves is the verify phase's, as after one pass), nor time_based
 * (fio runs its time as one loop and verifies nothing at a wrap), nor a
 * shape's draws (no fixed pass). */
int iob_eng_gen_pass_ends(const struct phase *ph);

/* engine_loops.c */
int iob_eng_run_random(struct phase *ph);
int iob_eng_run_mixed(struct phase *ph);
void iob_eng_run_seq_all(struct phase *ph);

/* engine_queue.c */
int iob_eng_queue_alloc(struct phase *ph);
void iob_eng_queue_free(struct queue *q);
void iob_eng_lt_free(struct phase *ph);
int iob_eng_run_queued(struct phase *ph);

/* The per-I/O bookkeeping: a whole transfer without verification is two
 * additions; everything else goes out of line. */
static inline int after_io(struct phase *ph, size_t fi, int64_t n, size_t len, uint64_t off)
{
	if (__builtin_expect(n == (int64_t)len && !ph->verify, 1)) {
		ph->r->bytes += len;
		ph->r->ops++;
		return 0;
	}
	return iob_eng_after_io_slow(ph, fi, n, len, off);
}

/* A per-I/O log drained as the phase runs (engine.h, iob_iolog ring): the
 * event in, waiting while the ring is full; none while ramping. */
void iob_eng_iolog_ring_put(struct phase *ph, const struct iob_io_event *e);

/* A timed I/O into the per-I/O log, if one is kept (fiolog.h): one
 * predictable branch when not.  prio: the priority it went at (cmdprio.h),
 * 0 for the thread's own (prio_class). */
static inline void iolog_put(struct phase *ph, uint64_t t0, uint64_t t1, uint64_t off, int64_t n, int write,
			     unsigned prio)
{
	struct iob_iolog *l = ph->iolog;
	if (__builtin_expect(l == NULL, 1) || n <= 0)
		return;
	if (l->ring) {
		struct iob_io_event e = {t1, t1 - t0, off, (uint32_t)n, (uint16_t)write,
					 (uint16_t)(prio ? prio : ph->prio_dflt)};
		iob_eng_iolog_ring_put(ph, &e);
	} else if (l->n < l->cap)
		l->ev[l->n++] = (struct iob_io_event){t1, t1 - t0, off, (uint32_t)n, (uint16_t)write,
						      (uint16_t)(prio ? prio : ph->prio_dflt)};
	else
		l->lost++;
}

/* Mixed phases: is the next I/O a write?  Reads with probability
 * rwmix_read %. */
static inline int mix_write(struct phase *ph)
{
	uint64_t x = rng_next(&ph->mix_rng) >> 32;
	return ((x * 100u) >> 32) >= ph->spec->rwmix_read;
}

static inline void count_op(struct phase *ph, int write)
{
	ph->r->ops++;
	if (write)
		ph->r->ops_written++;
	else
		ph->r->ops_read++;
}

#endif
