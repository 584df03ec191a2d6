/*
 * engine.c - runs one phase of I/O and measures it (iobench/engine.h).
 *
 * The loops below are the hot path: per I/O they do one indirect call into
 * the backend, a few integer operations to decide whether this I/O is in the
 * latency sample, and for a sampled I/O two clock reads and an O(1)
 * histogram record.  Pattern fills for offset-dependent patterns and
 * verification happen outside the two clock reads (but inside the phase's
 * wall time, which is what rates use).
 *
 * Latency sampling (docs/performance.md, "Timing that does not distort"):
 * reading the clock around an I/O costs more than the reads themselves when
 * the I/O is a copy from memory (the clock read waits for the copy, and the
 * next copy can no longer overlap it), so the engine measures what timing
 * costs in the phase itself.  Each I/O is in the sample with probability
 * 1/k, k a power of two: one I/O at a uniform random position in each run
 * of k; k starts at 1 and only grows, when a check finds that timing k I/Os
 * in k would cost more than 2% of their own time.  Only the sampled I/O and
 * the one after it reach the sampler (lat.event); the loops pay a compare
 * for the others.  Every sample carries a random level (level >= j with probability
 * 2^-j), kept in one histogram per level; raising k to 2^j drops the levels
 * below j, so the samples taken before are thinned to the new rate and the
 * final sample is uniform over the whole phase.
 */
#include "iobench/engine.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iobench/ticks.h"

void iob_phase_result_init(struct iob_phase_result *r)
{
	memset(r, 0, sizeof *r);
	r->storage_read_bytes = r->storage_write_bytes = r->unwritten_bytes = UINT64_MAX;
}

void iob_phase_result_free(struct iob_phase_result *r)
{
	iob_hist_free(r->hist);
	iob_hist_free(r->hist_write);
	free(r->series.bytes);
	free(r->series.ns);
	r->hist = NULL;
	r->hist_write = NULL;
	memset(&r->series, 0, sizeof r->series);
}

double iob_phase_seconds(const struct iob_phase_result *r)
{
	return (double)r->elapsed_ns / 1e9;
}

double iob_phase_bw(const struct iob_phase_result *r)
{
	return r->elapsed_ns ? (double)r->bytes * 1e9 / (double)r->elapsed_ns : 0.0;
}

double iob_phase_iops(const struct iob_phase_result *r)
{
	return r->elapsed_ns ? (double)r->ops * 1e9 / (double)r->elapsed_ns : 0.0;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ------------------------------------------------------------------------ */
/* Latency sampling.                                                         */

#define LAT_BATCH 64u       /* I/Os per batch of a cost check */
#define LAT_CHECK_BATCHES 8 /* batches per check, alternately timed and not */
#define LAT_LEVELS 9u       /* k up to 2^(LAT_LEVELS - 1) = 256 */
#define LAT_MAX_SHARE 0.02  /* timing may cost at most this share of the I/O's time */
#define LAT_SLOW_NS 20000.0 /* an I/O this slow is timed every time (see lat_event) */
#define LAT_NONE UINT64_MAX /* lat.next_in: no sample drawn yet */

/* What timing costs when nothing is timed but the clock: two tick reads and
 * a histogram record, in ticks; measured once per process. */
static double timing_floor_ticks, ticks_per_ns = 1.0;

static void measure_timing_floor_once(void)
{
	struct iob_hist *h = iob_hist_new();
	if (!h)
		return; /* no floor: the checks in the phase still measure */
	double best = 0;
	uint64_t n0 = iob_now_ns(), k0 = iob_ticks();
	for (int rep = 0; rep < 8; rep++) {
		uint64_t a = iob_ticks();
		for (int i = 0; i < 256; i++) {
			uint64_t t0 = iob_ticks();
			uint64_t t1 = iob_ticks();
			iob_hist_record(h, t1 - t0);
		}
		double per = (double)(iob_ticks() - a) / 256.0;
		if (rep == 0 || per < best)
			best = per;
	}
	uint64_t n1 = iob_now_ns(), k1 = iob_ticks();
	timing_floor_ticks = best;
	if (iob_ticks_tsc && n1 > n0 && k1 > k0)
		ticks_per_ns = (double)(k1 - k0) / (double)(n1 - n0);
	iob_hist_free(h);
}

/* Once per process, whichever stream gets here first. */
static void measure_timing_floor(void)
{
	static int once;
	iob_once(&once, measure_timing_floor_once);
}

/* A stop flag set by a signal handler or by the runner's thread (streams):
 * read atomically. */
static inline int stopped(const volatile sig_atomic_t *stop)
{
	return stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
}

/* What the loops do with the I/O they are about to issue (lat.mode, set by
 * lat_event, which the loops call through phase_event when nio reaches
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
};

/* hw: the result's write histogram of a mixed phase, else NULL.  adaptive:
 * k follows the checks (latency = sampled); else k stays 1 (every), or
 * nothing is timed and no event ever comes (off: the loops read no clock). */
static int lat_init(struct lat_sampler *s, struct iob_hist *h, struct iob_hist *hw, uint64_t seed, int adaptive,
		    int off)
{
	memset(s, 0, sizeof *s);
	s->rng = seed ^ 0x2545f4914f6cdd1dull;
	s->batch = -1;
	s->depth = 1;
	s->off = off;
	s->event = s->check_event = adaptive && !off ? 0 : UINT64_MAX;
	s->mode = s->base = off ? LAT_OFF : LAT_REC; /* k = 1 until a check says otherwise */
	s->next_in = LAT_NONE;
	s->overhead = timing_floor_ticks;
	s->lv[LAT_LEVELS - 1] = h;
	s->lvw[LAT_LEVELS - 1] = hw;
	s->nlevels = (LAT_LEVELS - 1) * (hw ? 2u : 1u);
	if (!(s->levels = iob_hist_new_n(s->nlevels)))
		return -ENOMEM;
	for (unsigned i = 0; i + 1 < LAT_LEVELS; i++) {
		s->lv[i] = &s->levels[i];
		s->lvw[i] = hw ? &s->levels[LAT_LEVELS - 1 + i] : NULL;
	}
	return 0;
}

/* Forget every sample (the end of a ramp); k and the cost figures stay. */
static void lat_reset(struct lat_sampler *s)
{
	for (unsigned i = 0; i < LAT_LEVELS; i++) {
		if (s->lv[i])
			iob_hist_reset(s->lv[i]);
		if (s->lvw[i])
			iob_hist_reset(s->lvw[i]);
	}
}

static void lat_merge_levels(struct lat_sampler *s, struct iob_hist **lv)
{
	struct iob_hist *h = lv[LAT_LEVELS - 1];
	for (unsigned i = 0; i + 1 < LAT_LEVELS; i++) {
		if (lv[i] && i >= s->m && h)
			iob_hist_merge(h, lv[i]);
		lv[i] = NULL; /* freed with s->levels */
	}
}

/* Merge the levels still in the sample into the result's histograms. */
static void lat_finish(struct lat_sampler *s, struct iob_phase_result *r)
{
	struct iob_hist *h = s->lv[LAT_LEVELS - 1], *hw = s->lvw[LAT_LEVELS - 1];
	lat_merge_levels(s, s->lv);
	lat_merge_levels(s, s->lvw);
	iob_hist_free_n(s->levels, s->nlevels);
	s->levels = NULL;
	r->lat_sample_every = s->off ? 0 : 1u << s->m;
	r->lat_samples = (h ? h->count : 0) + (hw ? hw->count : 0);
	r->lat_timing_ns = s->overhead / ticks_per_ns;
}

/* k > 1: the next I/O in the sample, one at a uniform position in each run
 * of k I/Os (so each I/O is in it with probability 1/k, and a phase of n
 * I/Os has n/k samples, give or take one), and its level, from other bits
 * of the same random word. */
static void lat_draw_next(struct lat_sampler *s)
{
	uint64_t r = rng_next(&s->rng), k = (uint64_t)1 << s->m;
	unsigned level = s->m + (unsigned)__builtin_ctzll((r >> 16) | (1ull << 47));
	s->next_in = s->run_start + (r & (k - 1));
	s->run_start += k;
	s->rec_level = level < LAT_LEVELS - 1 ? level : LAT_LEVELS - 1;
}

/* k = 1: a level for every I/O, geometric (the number of 0 bits before a 1
 * in a stream of random bits), taken from lbits: the bits left of a random
 * word under a sentinel 1 bit above them.  When only the sentinel is left,
 * the zeros it closed count and a new word goes on. */
__attribute__((noinline)) static unsigned lat_level_refill(struct lat_sampler *s)
{
	unsigned zeros = 0;
	for (;;) {
		uint64_t b = s->lbits;
		if (b & (b - 1)) { /* a real 1 below the sentinel */
			unsigned j = (unsigned)__builtin_ctzll(b);
			s->lbits = b >> j >> 1;
			zeros += j;
			break;
		}
		zeros += b ? (unsigned)__builtin_ctzll(b) : 0;
		s->lbits = (rng_next(&s->rng) >> 1) | (1ull << 63);
		if (zeros >= LAT_LEVELS)
			break;
	}
	return zeros < LAT_LEVELS - 1 ? zeros : LAT_LEVELS - 1;
}

static inline unsigned lat_level_now(struct lat_sampler *s)
{
	uint64_t b = s->lbits;
	if (__builtin_expect(!(b & (b - 1)), 0))
		return lat_level_refill(s);
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

/* A check: LAT_CHECK_BATCHES batches of LAT_BATCH I/Os, timed as wholes,
 * alternately every I/O timed and timed at the current rate (at k = 1: none
 * timed).  The fastest batch of each kind gives what timing costs in this
 * phase, against the I/O's own time (the fastest, as noise only adds time);
 * k grows until that cost, shared over k I/Os, is at most LAT_MAX_SHARE of
 * their time.  The cost is never taken below the process's floor.  When the
 * first batch shows I/Os of LAT_SLOW_NS or more at k = 1, the check ends
 * there (timing costs at most a few hundred ns, under 2% of such an I/O),
 * so slow I/O keeps every I/O in the sample.  In the queued loop a batch's
 * time per I/O is the time between completions; each request is in flight
 * about depth times that (Little's law, the queue kept full), and that is
 * the time the exit compares with (timing a queued request costs a record
 * and a share of two clock reads per submit and per reap, no more than in
 * the loops of one I/O at a time).  Checks run at I/O 0, 4096,
 * 65536, 2^20 and every 2^22 after, so k follows a phase that gets cheaper
 * (a mapping whose pages are all faulted in). */
__attribute__((noinline)) static void lat_check(struct lat_sampler *s, uint64_t i)
{
	uint64_t t = iob_ticks();
	if (s->batch < 0) {
		s->batch = 0;
		s->all = 1;
		s->none = 0;
		s->batch_t0 = t;
		s->check_event = i + LAT_BATCH;
		return;
	}
	s->batch_ticks[s->batch++] = t - s->batch_t0;
	s->batch_t0 = t;
	int done = s->batch == LAT_CHECK_BATCHES;
	if (s->batch == 1 && s->m == 0 &&
	    (double)s->batch_ticks[0] * s->depth >= LAT_SLOW_NS * ticks_per_ns * LAT_BATCH)
		done = 1;
	else if (done) {
		uint64_t best[2] = {UINT64_MAX, UINT64_MAX}; /* every I/O timed; at the current rate */
		for (int b = 0; b < LAT_CHECK_BATCHES; b++)
			if (s->batch_ticks[b] < best[b & 1])
				best[b & 1] = s->batch_ticks[b];
		double all = (double)best[0] / LAT_BATCH, cur = (double)best[1] / LAT_BATCH;
		double frac = 1.0 / (double)(1u << s->m), own;
		if (s->m == 0)
			frac = 0; /* the other batches timed nothing */
		double o = (all - cur) / (1.0 - frac);
		if (o < timing_floor_ticks)
			o = timing_floor_ticks;
		own = cur - frac * o;
		if (own < 1.0)
			own = 1.0;
		unsigned m = s->m;
		while (m + 1 < LAT_LEVELS && o > LAT_MAX_SHARE * (double)(1u << m) * own)
			m++;
		s->overhead = o;
		if (m > s->m) {
			s->m = m;
			s->next_in = LAT_NONE; /* drawn at the old rate: draw again, from here */
			s->run_start = i;
		}
	}
	if (done) {
		s->batch = -1;
		s->all = s->none = 0;
		s->check_event = s->next_check = s->next_check < 4096 ? 4096
					 : s->next_check < ((uint64_t)1 << 20) ? s->next_check * 16
									    : s->next_check + ((uint64_t)1 << 22);
		if (s->check_event <= i)
			s->check_event = i + 1;
		return;
	}
	s->all = !(s->batch & 1);
	s->none = (s->batch & 1) && s->m == 0;
	s->check_event = i + LAT_BATCH;
}

/* The loops reached lat.event at loop index i: take a check's next step if
 * it is due, then set the mode of I/O i and the index where it next
 * changes.  At k = 1 every I/O is in the sample (none in a check's untimed
 * batch), with no event until the next check.  At k > 1 the I/Os in the
 * sample are drawn ahead (lat_draw_next): reaching one, the loop gets
 * LAT_REC for it, the next one is drawn, and the loop puts the base mode
 * back itself after it (not timed, or timed only in a batch that times
 * every I/O). */
static inline void lat_event(struct lat_sampler *s, uint64_t i)
{
	if (i == s->check_event)
		lat_check(s, i);
	if (s->m == 0) {
		s->mode = s->base = s->none ? LAT_OFF : LAT_REC;
		s->event = s->check_event;
		return;
	}
	s->mode = s->base = s->all ? LAT_TIME : LAT_OFF;
	if (s->next_in == LAT_NONE || s->next_in < i) { /* k changed: from the run starting at i */
		if (s->run_start < i)
			s->run_start = i;
		lat_draw_next(s);
	}
	if (s->next_in == i) {
		s->mode = LAT_REC;
		s->cur_level = s->rec_level;
		lat_draw_next(s); /* in the run after this one: past i */
	}
	s->event = s->next_in < s->check_event ? s->next_in : s->check_event;
}

/* The mode of the I/O a loop is about to issue; a sample's LAT_REC is used
 * once. */
static inline unsigned lat_take(struct lat_sampler *s)
{
	unsigned mode = s->mode;
	s->mode = s->base;
	return mode;
}

/* A random permutation of [0, n) that needs no memory: a keyed bijection of
 * the smallest power-of-two domain covering n, walked until it lands inside
 * [0, n) (a bijection of the larger domain, restricted by cycle walking, is
 * a bijection of [0, n)).  The domain is under 2n, so a draw takes under two
 * walks on average, and none extra when n is a power of two.  Each step of
 * the bijection is one of a b-bit word: adding a key, multiplying by an odd
 * key (both invertible mod 2^b), and x ^= x >> s (invertible for s >= 1);
 * two rounds of multiply and shift mix the high bits into the low ones and
 * back, as a hash finaliser does, for about a dozen instructions a draw.
 * Random I/O uses it (random_map) so that a pass touches every block exactly
 * once: writes leave no hole, reads read each block once per pass. */
struct perm {
	uint64_t n, mask;
	unsigned shift;
	uint64_t add, mul1, mul2;
};

static void perm_init(struct perm *p, uint64_t n, uint64_t seed)
{
	unsigned bits = 1;
	while (bits < 64 && ((uint64_t)1 << bits) < n)
		bits++;
	p->n = n;
	p->mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
	p->shift = bits / 2 + 1 < bits ? bits / 2 + 1 : 1;
	p->add = rng_next(&seed);
	p->mul1 = rng_next(&seed) | 1u;
	p->mul2 = rng_next(&seed) | 1u;
}

static inline uint64_t perm_at(const struct perm *p, uint64_t x)
{
	const uint64_t mask = p->mask;
	const unsigned sh = p->shift;
	do {
		x = ((x + p->add) * p->mul1) & mask;
		x ^= x >> sh;
		x = (x * p->mul2) & mask;
		x ^= x >> sh;
	} while (x >= p->n);
	return x;
}

struct phase;

/* The offsets of the loops that are not the plain synchronous ones (mixed
 * phases, the queued loop): the same orders as run_seq_file and run_random,
 * drawn one I/O at a time. */
struct gen {
	struct phase *ph;	     /* for pass_evict */
	uint64_t rounds;	     /* round robin: rounds over every file done */
	int seq;
	size_t nfiles, bs;
	int whole_blocks;	     /* reads ask for whole blocks (aligned I/O): EOF makes the last short */
	const uint64_t *start, *end; /* sequential: each file's region */
	size_t fi;
	uint64_t off;
	uint32_t loop, loops;	     /* passes over each file; UINT32_MAX: round robin, no end */
	uint64_t round_ios;	     /* I/Os of this round (round robin stops after an empty one) */
	struct perm perm;	     /* random */
	uint64_t slots, total, align, fsize, rng, slot, left;
	uint64_t drawn;		     /* draws of this order so far (skipped ones too) */
	uint64_t cycle_n, cycle_rng; /* random, no end but the time limit after a write cut
				      * short: its cycle_n draws again and again (cycle_n 0: no) */
	uint64_t seq_left;	     /* sequential: bytes left before spec.written_draws ends the order */
	int seq_whole, seq_cut;	     /* a whole pass drawn; the order ended at seq_left */
	int mapped, multi, skip;
	uint64_t *skipped;
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
};

/* Everything a phase holds while it runs. */
struct phase {
	const struct iob_phase_spec *spec;
	struct iob_phase_result *r;
	const struct iob_backend_ops *ops;
	void **handles;
	int *created; /* file did not exist before this phase opened it */
	int *checked; /* what was opened has been checked (fstat through info) */
	unsigned char *buf, *scratch;
	unsigned char *rbuf; /* mixed, one at a time: reads land here, buf keeps the pattern */
	size_t buflen, mem_align;
	uint32_t io_align;
	uint32_t open_flags;
	int write, verify, fill_each, mixed, queued;
	int verify_halt; /* verify_fatal stopped the phase (status -ECANCELED until its end) */
	struct lat_sampler lat;
	uint64_t nio;	   /* I/O calls so far (the sampler's clock) */
	uint64_t event;	   /* min(lat.event, check_at): the loops compare nio with it */
	uint64_t check_at; /* next look at the clock and first_done; UINT64_MAX: never */
	uint64_t check_ns, check_nio; /* the last look */
	/* the measured window (window_start) */
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
};

static int fail(struct phase *ph, int err, const char *what, const char *file, uint64_t off, size_t len)
{
	struct iob_phase_result *r = ph->r;
	if (r->status < 0)
		return r->status; /* keep the first error */
	r->status = err;
	if (off == UINT64_MAX)
		snprintf(r->error, sizeof r->error, "%s %s failed: %s", what, file, strerror(-err));
	else
		snprintf(r->error, sizeof r->error, "%s of %zu bytes at offset %llu of %s failed: %s", what, len,
			 (unsigned long long)off, file, strerror(-err));
	return err;
}

/* A further pass over file fi starts uncached (spec.evict_passes): the
 * pass's range [off, off + len) of its cached pages dropped (len 0: to the
 * end), as fio's invalidate does at each wrap.  Inside the timed window: a
 * reported time never leaves out what the tool itself did to get it. */
static void pass_evict(const struct phase *ph, size_t fi, uint64_t off, uint64_t len)
{
	if (ph->spec->evict_passes && !ph->r->direct)
		(void)iob_cache_drop_range(ph->spec->files[fi], off, len);
}

/* Every file's pass starts over (random access: the whole file; mixed and
 * queued sequential: each file's region). */
static void pass_evict_all(const struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	const int region = s->access == IOB_ACCESS_SEQ && ph->fstart && ph->fend;
	for (size_t i = 0; s->evict_passes && i < s->nfiles; i++)
		pass_evict(ph, i, region ? ph->fstart[i] : 0, region ? ph->fend[i] - ph->fstart[i] : 0);
}

/* Decide on what was opened, not on a path: a device swapped in for the
 * checked file after the checks is refused here, before any I/O. */
static int check_opened(struct phase *ph, size_t i)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_file_info info = {.struct_size = sizeof info};
	ph->checked[i] = 1;
	if (s->allow_devices || ph->ops->info(ph->handles[i], &info) < 0)
		return 0;
	if (info.file_type != IOB_FILE_BLOCKDEV && info.file_type != IOB_FILE_CHARDEV)
		return 0;
	ph->ops->close(ph->handles[i]);
	ph->handles[i] = NULL;
	fail(ph, -EPERM, "open of", s->files[i], UINT64_MAX, 0);
	snprintf(ph->r->error, sizeof ph->r->error,
		 "%s turned out to be a %s device when opened; refusing to touch it (allow devices to test one)",
		 s->files[i], info.file_type == IOB_FILE_BLOCKDEV ? "block" : "character");
	return -EPERM;
}

static int open_one(struct phase *ph, size_t i)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_open_args a = {
		.struct_size = sizeof a,
		.path = s->files[i],
		.flags = ph->open_flags | (s->follow_symlinks ? 0 : IOB_OPEN_NOFOLLOW),
		.mode = 0644,
		.size_hint = ph->write ? s->file_size : 0,
		.options = s->backend_options && *s->backend_options ? s->backend_options : NULL,
		.queue_depth = ph->queued ? s->iodepth : 1,
	};
	if (ph->write && !ph->created[i] && strcmp(s->files[i], "-") != 0)
		ph->created[i] = iob_path_kind(s->files[i], 0) == IOB_PATH_MISSING ? 1 : ph->created[i];
	int rc = ph->ops->open(&a, &ph->handles[i]);
	if (rc < 0) {
		ph->handles[i] = NULL;
		if (rc == -ELOOP && !s->follow_symlinks) {
			fail(ph, rc, "open of", s->files[i], UINT64_MAX, 0);
			snprintf(ph->r->error, sizeof ph->r->error,
				 "open of %s refused: it is a symbolic link (set follow_symlinks = true to allow it)",
				 s->files[i]);
			return rc;
		}
		return fail(ph, rc, "open of", s->files[i], UINT64_MAX, 0);
	}
	return ph->checked[i] ? 0 : check_opened(ph, i);
}

static int close_one(struct phase *ph, size_t i)
{
	if (!ph->handles[i])
		return 0;
	int rc = ph->ops->close(ph->handles[i]);
	ph->handles[i] = NULL;
	if (rc < 0)
		return fail(ph, rc, "close of", ph->spec->files[i], UINT64_MAX, 0);
	return 0;
}

static int sync_one(struct phase *ph, size_t i)
{
	uint64_t t0 = iob_now_ns();
	int rc = ph->ops->sync ? ph->ops->sync(ph->handles[i]) : -ENOTSUP;
	ph->r->sync_ns += iob_now_ns() - t0;
	if (rc < 0)
		return fail(ph, rc, "sync of", ph->spec->files[i], UINT64_MAX, 0);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The measured window: ramp, time limit, first done.                        */

/* A series block is read in pieces of at most this (and its buffer touched
 * so), so that a stop (a signal, or the reader of standard output gone) ends
 * a large block within a piece rather than at its end: a 1 GiB block takes
 * seconds on a slow device. */
#define SERIES_PIECE ((size_t)64 << 20)
#define CHECK_NS 50000u	 /* look at the clock about this often (ns of I/O between looks) */
#define CHECK_MAX_IOS 64 /* and at least every this many I/Os */
#define LIVE_CHECK_NS 1000000u /* the same when only the observer needs the looks */
#define LIVE_CHECK_MAX_IOS 1024
enum { PH_GO = 0, PH_END = 1, PH_WINDOW = 2 };

/* Start (or start again, at the end of a ramp) the measured window: forget
 * everything counted so far, take the kernel's and the CPU's counters, start
 * the clock and the time limit. */
static void window_start(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	r->bytes = r->ops = r->skipped = r->short_ops = 0;
	r->bytes_read = r->bytes_written = r->ops_read = r->ops_written = 0;
	r->bad_blocks = 0;
	r->first_bad_offset = 0;
	r->expected = r->found = 0;
	r->bad_file[0] = '\0';
	r->verify_why[0] = '\0';
	r->series.n = 0;
	lat_reset(&ph->lat);
	ph->ramping = 0;
	ph->have_io = iob_proc_io(&ph->rchar0, &ph->wchar0, &ph->rbytes0, &ph->wbytes0) == 0;
	ph->have_cpu = iob_cpu_times_ns(1, &ph->cpu_user0, &ph->cpu_sys0) == 0;
	ph->start_ns = iob_now_ns();
	ph->start_tick = iob_ticks();
	ph->deadline = s->runtime_ns ? ph->start_ns + s->runtime_ns : 0;
	ph->check_ns = ph->start_ns;
	ph->check_nio = ph->nio;
}

/* What this stream had done when it first saw first_done set. */
static void first_done_note(struct phase *ph)
{
	ph->fd_seen = 1;
	ph->r->first_done_bytes = ph->r->bytes;
	ph->r->first_done_ops = ph->r->ops;
}

/* The stream's measured work is over: a stream that finishes first notes
 * its own totals, then tells the others. */
static void first_done_finish(struct phase *ph)
{
	if (!ph->fd_seen)
		first_done_note(ph);
	if (ph->spec->first_done)
		__atomic_store_n(ph->spec->first_done, 1, __ATOMIC_RELAXED);
}

/* What the run's observer reads (live.h), at a look at the clock or, final,
 * at the phase's end: the counters, and a latency snapshot when one was
 * asked for (final: always).  The snapshot holds every level of the sample,
 * in ticks scaled by the process's tick ratio (a series phase: ns), so the
 * observer's differences of two snapshots are exact. */
__attribute__((noinline)) static void live_publish(struct phase *ph, uint64_t now, int final)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_live *l = s->live;
	__atomic_store_n(&l->bytes, ph->r->bytes, __ATOMIC_RELAXED);
	__atomic_store_n(&l->ops, ph->r->ops, __ATOMIC_RELAXED);
	__atomic_store_n(&l->ramping, ph->ramping, __ATOMIC_RELAXED);
	__atomic_store_n(&l->start_ns, ph->start_ns, __ATOMIC_RELAXED);
	unsigned want = __atomic_load_n(&l->want, __ATOMIC_ACQUIRE);
	if (!l->snap || (!final && want == __atomic_load_n(&l->got, __ATOMIC_RELAXED)))
		return;
	if (final)
		iob_live_lock(l);
	else if (__atomic_exchange_n(&l->lock, 1, __ATOMIC_ACQUIRE))
		return; /* the observer is copying: next look */
	iob_hist_reset(l->snap);
	for (unsigned i = 0; i < LAT_LEVELS; i++) {
		if (ph->lat.lv[i])
			iob_hist_merge(l->snap, ph->lat.lv[i]);
		if (ph->lat.lvw[i])
			iob_hist_merge(l->snap, ph->lat.lvw[i]);
	}
	int ns = !iob_ticks_tsc || (s->record_series && s->access == IOB_ACCESS_SEQ);
	l->snap->ns_per_tick = ns ? 1.0 : 1.0 / ticks_per_ns;
	l->snap_bytes = ph->r->bytes;
	l->snap_ops = ph->r->ops;
	if (l->snap_w) { /* the writes alone, for a mixed phase's fio-style logs */
		iob_hist_reset(l->snap_w);
		for (unsigned i = 0; i < LAT_LEVELS; i++)
			if (ph->lat.lvw[i])
				iob_hist_merge(l->snap_w, ph->lat.lvw[i]);
		l->snap_w->ns_per_tick = l->snap->ns_per_tick;
		l->snap_bytes_w = ph->r->bytes_written;
		l->snap_ops_w = ph->r->ops_written;
	}
	l->snap_ns = now;
	l->snap_ramping = ph->ramping;
	iob_live_unlock(l);
	__atomic_store_n(&l->got, want, __ATOMIC_RELEASE);
}

/* A look at the clock and at first_done, every few I/Os (as often as
 * CHECK_NS of I/O, at most CHECK_MAX_IOS apart).  Returns PH_END when the time
 * limit has passed, PH_WINDOW when the ramp is over (the caller forgets what
 * it did and calls window_start), PH_GO otherwise. */
static int phase_check(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	/* looked at only for the observer (live.h): less often */
	const int live_only = !s->runtime_ns && !s->ramp_ns && !s->first_done;
	const uint64_t every_ns = live_only ? LIVE_CHECK_NS : CHECK_NS;
	const uint64_t most = live_only ? LIVE_CHECK_MAX_IOS : CHECK_MAX_IOS;
	uint64_t now = iob_now_ns(), ios = ph->nio - ph->check_nio, step = most;
	int ev = PH_GO;
	if (ph->ramping) {
		if (now >= ph->ramp_end)
			ev = PH_WINDOW;
	} else if (ph->deadline && now >= ph->deadline) {
		ev = PH_END;
	}
	if (s->first_done && !ph->fd_seen && !ph->ramping && __atomic_load_n(s->first_done, __ATOMIC_RELAXED))
		first_done_note(ph);
	if (ios && now > ph->check_ns) {
		uint64_t per = (now - ph->check_ns) / ios; /* ns per I/O since the last look */
		step = per ? every_ns / per : most;
		step = step < 1 ? 1 : step > most ? most : step;
	} else if (ios == 0) {
		step = 1;
	}
	ph->check_ns = now;
	ph->check_nio = ph->nio;
	ph->check_at = ph->nio + step;
	if (s->live)
		live_publish(ph, now, 0);
	return ev;
}

/* The loops' one per-I/O test: nio reached the next event (a latency cost
 * check, a look at the clock).  Out of line: the loops pay a compare. */
__attribute__((noinline)) static int phase_event(struct phase *ph)
{
	uint64_t i = ph->nio;
	int ev = PH_GO;
	if (i == ph->lat.event)
		lat_event(&ph->lat, i);
	if (i == ph->check_at)
		ev = phase_check(ph);
	ph->event = ph->lat.event < ph->check_at ? ph->lat.event : ph->check_at;
	return ev;
}

/* Make a buffer the phase allocated present before the clock starts: a copy
 * of `from`, else the pattern as at offset 0 (pattern 1), else (a buffer
 * reads fill) one byte written per 4 KiB, which faults every page in without
 * filling it, or where the OS can, its pages made present in one call
 * (iob_mem_populate; bigread bufsize=0.5 over a cached 1 GiB:
 * docs/performance.md).  In pieces, looking at the stop flag before each:
 * GiBs of buffers take seconds to touch, and SIGTERM must not wait for them
 * (issue 24).  0, or 1 when a stop came (the phase ends interrupted). */
#define TOUCH_PIECE ((size_t)64 << 20)
static int touch(struct phase *ph, unsigned char *buf, const unsigned char *from, int pattern)
{
	for (size_t at = 0; at < ph->buflen; at += TOUCH_PIECE) {
		if (stopped(ph->spec->stop)) {
			ph->r->interrupted = 1;
			return 1;
		}
		size_t n = ph->buflen - at < TOUCH_PIECE ? ph->buflen - at : TOUCH_PIECE;
		if (from)
			memcpy(buf + at, from + at, n);
		else if (pattern)
			iob_pattern_fill(&ph->spec->pattern, buf + at, n, at);
		else if (iob_mem_populate(buf + at, n) != 0)
			for (size_t p = 0; p < n; p += 4096)
				buf[at + p] = 0;
	}
	return 0;
}

/* Query the first file for alignment and direct I/O; check the spec fits. */
static int prepare(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_file_info info;
	int rc;

	if (open_one(ph, 0) < 0)
		return ph->r->status;
	memset(&info, 0, sizeof info);
	info.struct_size = sizeof info;
	rc = ph->ops->info(ph->handles[0], &info);
	if (rc < 0)
		return fail(ph, rc, "query of", s->files[0], UINT64_MAX, 0);
	ph->r->direct = info.direct != 0;
	ph->io_align = info.io_align ? info.io_align : 1;
	size_t mem_align = info.mem_align > 4096 ? info.mem_align : 4096;
	ph->mem_align = mem_align;
	uint64_t bs = s->block_size;
	if (ph->io_align > 1) {
		uint64_t oa = s->offset_align ? s->offset_align : bs;
		const char *bad = NULL;
		uint64_t val = 0;
		if (bs % ph->io_align) {
			bad = "block size";
			val = bs;
		} else if (s->access == IOB_ACCESS_RAND && oa % ph->io_align) {
			bad = "offset alignment";
			val = oa;
		} else if ((ph->write || ph->mixed) && s->file_size % ph->io_align) {
			bad = "file size";
			val = s->file_size;
		}
		if (bad) {
			ph->r->status = -EINVAL;
			snprintf(ph->r->error, sizeof ph->r->error,
				 "%s %llu is not a multiple of %u bytes, the alignment %s requires for %s "
				 "(direct I/O cannot serve it; refusing rather than reading through the cache)",
				 bad, (unsigned long long)val, ph->io_align, s->backend->desc.name, s->files[0]);
			return -EINVAL;
		}
	}
	ph->buflen = (size_t)bs;
	/* a file (not a stream) is open: the series' header can go out now */
	if (s->record_series && s->on_sample && !info.is_stream && ph->r->series.n == 0)
		s->on_sample(s->sample_arg, &ph->r->series);
	if (s->phase == IOB_PHASE_READ && s->access == IOB_ACCESS_SEQ && s->nfiles == 1 && !info.is_stream &&
	    info.size < bs) {
		/* a file smaller than the block needs no larger buffer: the reads
		 * are the same (a 1 GiB bigread block over a 4 KiB file) */
		uint64_t unit = ph->io_align > 4096 ? ph->io_align : 4096;
		uint64_t need = info.size ? (info.size + unit - 1) / unit * unit : unit;
		if (need < bs)
			ph->buflen = (size_t)need;
	}
	ph->buf = iob_alloc_aligned(mem_align, ph->buflen);
	ph->scratch = ph->verify ? iob_alloc_aligned(mem_align, ph->buflen) : NULL;
	ph->rbuf = ph->mixed && !ph->queued ? iob_alloc_aligned(mem_align, ph->buflen) : NULL;
	if (!ph->buf || (ph->verify && !ph->scratch) || (ph->mixed && !ph->queued && !ph->rbuf))
		return fail(ph, -ENOMEM, "buffer allocation for", s->files[0], UINT64_MAX, 0);
	if (touch(ph, ph->buf, NULL, ph->write || ph->mixed) || (ph->rbuf && touch(ph, ph->rbuf, NULL, 0)))
		return 1;
	return 0;
}

/* Mixed and queued phases: every file open before the clock starts, each
 * one's region (sequential access; random access draws over file_size). */
static int open_all(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	ph->fstart = calloc(s->nfiles, sizeof *ph->fstart);
	ph->fend = calloc(s->nfiles, sizeof *ph->fend);
	if (!ph->fstart || !ph->fend)
		return fail(ph, -ENOMEM, "region table for", s->files[0], UINT64_MAX, 0);
	for (size_t i = 0; i < s->nfiles; i++) {
		struct iob_file_info info = {.struct_size = sizeof info};
		if (!ph->handles[i] && open_one(ph, i) < 0)
			return ph->r->status;
		int rc = ph->ops->info(ph->handles[i], &info);
		if (rc < 0)
			return fail(ph, rc, "query of", s->files[i], UINT64_MAX, 0);
		if (info.is_stream) {
			fail(ph, -EINVAL, "open of", s->files[i], UINT64_MAX, 0);
			snprintf(ph->r->error, sizeof ph->r->error,
				 "%s is a stream: a %s phase needs a file it can seek in (use iodepth = 1 and a read "
				 "phase for a stream)",
				 s->files[i], ph->queued ? "queued" : "mixed");
			return -EINVAL;
		}
		uint64_t size = s->file_size;
		if (!ph->write && (size == 0 || (!ph->mixed && info.size < size)))
			size = info.size; /* reads: to the end of the file as it is now */
		if (s->access == IOB_ACCESS_RAND) {
			ph->fstart[i] = 0;
			ph->fend[i] = s->file_size;
			continue;
		}
		uint64_t a = s->region_off < size ? s->region_off : size, e = size;
		if (s->region_len && s->region_len < size - a)
			e = a + s->region_len;
		ph->fstart[i] = a;
		ph->fend[i] = e;
	}
	return 0;
}

/* The queued loop's requests, each with its own buffer, before the clock. */
static int queue_alloc(struct phase *ph)
{
	struct queue *q = &ph->q;
	const struct iob_phase_spec *s = ph->spec;
	q->depth = s->iodepth;
	q->reqs = calloc(q->depth, sizeof *q->reqs);
	q->free = calloc(q->depth, sizeof *q->free);
	q->pend = calloc(q->depth, sizeof *q->pend);
	q->done = calloc(q->depth, sizeof *q->done);
	q->infl = calloc(s->nfiles, sizeof *q->infl);
	if (!q->reqs || !q->free || !q->pend || !q->done || !q->infl)
		return fail(ph, -ENOMEM, "request table for", s->files[0], UINT64_MAX, 0);
	for (uint32_t i = 0; i < q->depth; i++) {
		struct req *rq = &q->reqs[i];
		rq->buf = iob_alloc_aligned(ph->mem_align, ph->buflen);
		if (!rq->buf)
			return fail(ph, -ENOMEM, "buffer allocation for", s->files[0], UINT64_MAX, 0);
		rq->io.user = rq;
		rq->state = REQ_FREE;
		q->free[q->nfree++] = rq;
	}
	for (uint32_t i = 0; i < q->depth; i++)
		if (touch(ph, q->reqs[i].buf, ph->buf, 0)) /* the pattern, or zeros */
			return 1;
	return 0;
}

/* A request back on the free list (from QUEUED or COMPLETED). */
static inline void req_free(struct queue *q, struct req *rq, enum req_state from)
{
	req_move(rq, from, REQ_FREE);
	assert(q->nfree < q->depth);
	q->free[q->nfree++] = rq;
}

/* A request onto the list to submit (from FREE or COMPLETED). */
static inline void req_queue(struct queue *q, struct req *rq, enum req_state from)
{
	req_move(rq, from, REQ_QUEUED);
	assert(q->np < q->depth);
	q->pend[q->np++] = &rq->io;
}

static void queue_free(struct queue *q)
{
	if (q->reqs)
		for (uint32_t i = 0; i < q->depth; i++)
			iob_free_aligned(q->reqs[i].buf);
	free(q->reqs);
	free(q->free);
	free(q->pend);
	free(q->done);
	free(q->infl);
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

uint64_t iob_phase_memory(enum iob_phase phase, uint64_t block_size, uint32_t iodepth, uint64_t series_ios)
{
	uint64_t bufs = 1; /* ph->buf (prepare) */
	if (phase == IOB_PHASE_VERIFY)
		bufs++; /* scratch */
	if (iodepth > 1)
		bufs += iodepth; /* one per request (queue_alloc) */
	else if (phase == IOB_PHASE_MIXED)
		bufs++; /* rbuf */
	uint64_t page = 4096, buf = block_size / page * page + (block_size % page ? page : 0);
	uint64_t m = mul_sat(bufs, buf);
	/* the sampler's levels (lat_init), and the write side of a mixed phase */
	m = add_sat(m, (uint64_t)(phase == IOB_PHASE_MIXED ? 2 : 1) * LAT_LEVELS * sizeof(struct iob_hist));
	if (iodepth > 1)
		m = add_sat(m, (uint64_t)iodepth * (sizeof(struct req) + 3 * sizeof(void *)));
	/* a series: 16 bytes a sample, grown by doubling */
	return add_sat(m, mul_sat(series_ios, 32));
}

static int series_reserve(struct iob_series *se)
{
	if (se->n < se->cap)
		return 0;
	size_t cap = se->cap ? se->cap * 2 : 1024;
	uint64_t *b = realloc(se->bytes, cap * sizeof *b);
	if (!b)
		return -ENOMEM;
	se->bytes = b;
	uint64_t *t = realloc(se->ns, cap * sizeof *t);
	if (!t)
		return -ENOMEM;
	se->ns = t;
	se->cap = cap;
	return 0;
}

/* Check n bytes read into buf from offset off of file fi against the pattern. */
static int verify_piece(struct phase *ph, size_t fi, const unsigned char *buf, size_t n, uint64_t off)
{
	struct iob_phase_result *r = ph->r;
	size_t first = 0;
	uint8_t exp = 0, got = 0;
	char why[sizeof r->verify_why];
	if (iob_pattern_check_why(&ph->spec->pattern, buf, n, off, ph->scratch, &first, &exp, &got, why, sizeof why)) {
		if (r->bad_blocks++ == 0) {
			r->first_bad_offset = off + first;
			r->expected = exp;
			r->found = got;
			snprintf(r->bad_file, sizeof r->bad_file, "%s", ph->spec->files[fi]);
			snprintf(r->verify_why, sizeof r->verify_why, "%s", why);
		}
		if (ph->spec->verify_fatal && r->status == 0) { /* ends the loops as an error would; a mismatch at the end */
			ph->verify_halt = 1;
			r->status = -ECANCELED;
			snprintf(r->error, sizeof r->error, "verify stopped at the first bad block (verify_fatal)");
		}
	}
	return r->status == -ECANCELED ? -ECANCELED : 0;
}

/* A backend returned what it may not: more than asked, or no errno. */
static int broke_contract(struct phase *ph, size_t fi, int write, int64_t n, size_t len, uint64_t off)
{
	const char *what = write ? "write" : "read";
	fail(ph, -EPROTO, what, ph->spec->files[fi], off, len);
	snprintf(ph->r->error, sizeof ph->r->error,
		 "backend %s broke its contract: %s of %zu bytes at offset %llu of %s returned %lld",
		 ph->spec->backend->desc.name, what, len, (unsigned long long)off, ph->spec->files[fi], (long long)n);
	return -EPROTO;
}

/* After an I/O returned n: verify, account; returns 0 to go on, 1 at EOF,
 * negative on error.  The out-of-line part of after_io. */
__attribute__((noinline)) static int after_io_slow(struct phase *ph, size_t fi, int64_t n, size_t len,
						  uint64_t off)
{
	struct iob_phase_result *r = ph->r;
	const char *what = ph->write ? "write" : "read";
	if (n > (int64_t)len || n < -4095)
		return broke_contract(ph, fi, ph->write, n, len, off);
	if (n < 0)
		return fail(ph, (int)n, what, ph->spec->files[fi], off, len);
	r->bytes += (uint64_t)n;
	r->ops++;
	if (ph->verify && n > 0 && verify_piece(ph, fi, ph->buf, (size_t)n, off))
		return -ECANCELED;
	if ((size_t)n < len) {
		r->short_ops++;
		if (ph->write) {
			/* ask for the rest once, untimed, to learn why the kernel stopped */
			int64_t why = ph->ops->write_at(ph->handles[fi], ph->buf + n, len - (size_t)n, off + (uint64_t)n);
			int err = why < 0 ? (int)why : -EIO;
			fail(ph, err, "write", ph->spec->files[fi], off, len);
			snprintf(r->error, sizeof r->error,
				 "short write (%lld of %zu bytes) at offset %llu of %s: %s%s", (long long)n, len,
				 (unsigned long long)off, ph->spec->files[fi], strerror(-err),
				 why < 0 ? "" : " (the backend wrote part of the block and gave no reason)");
			return err;
		}
		return 1;
	}
	return 0;
}

/* The per-I/O bookkeeping: a whole transfer without verification is two
 * additions; everything else goes out of line. */
static inline int after_io(struct phase *ph, size_t fi, int64_t n, size_t len, uint64_t off)
{
	if (__builtin_expect(n == (int64_t)len && !ph->verify, 1)) {
		ph->r->bytes += len;
		ph->r->ops++;
		return 0;
	}
	return after_io_slow(ph, fi, n, len, off);
}

/* A read came back short before the size the file had when the phase began. */
static int short_read(struct phase *ph, size_t fi, int64_t n, size_t len, uint64_t off, uint64_t size)
{
	struct iob_phase_result *r = ph->r;
	fail(ph, -EIO, "read", ph->spec->files[fi], off, len);
	snprintf(r->error, sizeof r->error,
		 "short read (%lld of %zu bytes) at offset %llu of %s, before its end at %llu bytes: %s (the "
		 "file shrank or the backend misbehaved)",
		 (long long)n, len, (unsigned long long)off, ph->spec->files[fi], (unsigned long long)size,
		 strerror(EIO));
	return -EIO;
}

/* Read a series block of len bytes at off in pieces; *cut set when a stop
 * came between two pieces (the bytes read so far are returned).  An error
 * is returned as such, whatever came before it in the block. */
static int64_t read_pieces(struct phase *ph, void *hd, size_t len, uint64_t off, int *cut)
{
	size_t done = 0;
	while (done < len) {
		size_t want = len - done < SERIES_PIECE ? len - done : SERIES_PIECE;
		int64_t n = ph->ops->read_at(hd, (char *)ph->buf + done, want, off + done);
		if (n < 0)
			return n;
		done += (size_t)n;
		if ((size_t)n < want)
			break; /* the end of the file (or of the stream) */
		if (done < len && stopped(ph->spec->stop)) {
			*cut = 1;
			break;
		}
	}
	return (int64_t)done;
}

/* Passes over file fi, from the start of its region to its end; loops_arg
 * UINT32_MAX: until the time limit (or a pass that moves nothing).  A ramp
 * runs passes until it is over, then the measured window starts again at the
 * start of the region with loops_arg passes.  Every pass but the file's first
 * starts with pass_evict. */
static int run_seq_file(struct phase *ph, size_t fi, uint32_t loops_arg)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	const struct iob_backend_ops *ops = ph->ops;
	struct iob_hist *h = r->hist;
	void *hd;
	uint64_t size = s->file_size;
	uint32_t loops = ph->ramping ? UINT32_MAX : loops_arg;
	const size_t bs = ph->buflen;
	const int write = ph->write, series = s->record_series;
	const enum iob_clock sclock = s->series_clock;
	struct lat_sampler *lat = &ph->lat;

	if (!ph->handles[fi] && open_one(ph, fi) < 0)
		return r->status;
	hd = ph->handles[fi];
	if (size == 0 || !write) {
		/* reads: to the end of the file as it is now (or of the stream) */
		struct iob_file_info info = {.struct_size = sizeof info};
		if (ops->info(hd, &info) == 0 && !info.is_stream)
			size = size && size < info.size ? size : info.size;
		else
			size = UINT64_MAX;
	}
	/* this stream's region of the file (a shared file: disjoint regions) */
	const uint64_t start = s->region_off < size ? s->region_off : size;
	const uint64_t end = s->region_len && s->region_len < size - start ? start + s->region_len : size;
	uint64_t npass = 0;
	for (uint32_t loop = 0; loop < loops && r->status >= 0; loop++) {
		uint64_t off = start, moved = 0;
		int restart = 0;
		if ((npass++ || ph->seq_rounds) && end != UINT64_MAX)
			pass_evict(ph, fi, start, end - start); /* a further pass: it starts uncached */
		while (off < end) {
			size_t len = end - off < bs ? (size_t)(end - off) : bs;
			int64_t n;
			if (!write && ph->io_align > 1 && end == size)
				len = bs; /* aligned reads ask for whole blocks; EOF makes them short */
			uint64_t c0 = 0, c1 = 0;
			int cut = 0;
			if (stopped(s->stop)) {
				r->interrupted = 1;
				return 0;
			}
			if (__builtin_expect(ph->nio == ph->event, 0)) {
				int ev = phase_event(ph);
				if (ev == PH_END) {
					ph->ended = 1;
					goto done;
				}
				if (ev == PH_WINDOW) {
					window_start(ph);
					restart = 1;
					break;
				}
			}
			if (ph->seq_left != UINT64_MAX && !ph->ramping) { /* only what the write wrote */
				if (ph->seq_left == 0) {
					r->written_cut = 1;
					ph->ended = 1;
					goto done;
				}
				if (len > ph->seq_left)
					len = (size_t)ph->seq_left;
			}
			if (write && ph->fill_each)
				iob_pattern_fill(&s->pattern, ph->buf, len, off);
			if (series && series_reserve(&r->series) < 0)
				return fail(ph, -ENOMEM, "series growth for", s->files[fi], UINT64_MAX, 0);
			if (series && sclock != IOB_CLOCK_WALL)
				c0 = iob_clock_ns(sclock);
			ph->nio++;
			const unsigned mode = lat_take(lat);
			const int in = mode == LAT_REC, timed = mode != LAT_OFF;
			uint64_t t0 = series ? iob_now_ns() : timed ? iob_ticks() : 0, t1 = 0;
			if (write)
				n = ops->write_at(hd, ph->buf, len, off);
			else if (series)
				n = read_pieces(ph, hd, len, off, &cut);
			else
				n = ops->read_at(hd, ph->buf, len, off);
			if (series) {
				t1 = iob_now_ns();
				iob_hist_record(h, t1 - t0);
			} else if (timed) {
				t1 = iob_ticks();
				if (in)
					lat_record(lat, t1 - t0);
			}
			if (series) {
				c1 = sclock != IOB_CLOCK_WALL ? iob_clock_ns(sclock) : 0;
				r->series.bytes[r->series.n] = n > 0 ? (uint64_t)n : 0;
				r->series.ns[r->series.n++] = sclock != IOB_CLOCK_WALL ? c1 - c0 : t1 - t0;
				if (s->on_sample)
					s->on_sample(s->sample_arg, &r->series);
			}
			if (n == -EINTR && stopped(s->stop)) {
				r->interrupted = 1; /* a stream read cut short by the stop signal */
				return 0;
			}
			if (cut) { /* stopped inside a block: what it read is kept */
				r->bytes += (uint64_t)n;
				r->ops++;
				r->short_ops++;
				r->interrupted = 1;
				return 0;
			}
			int st = after_io(ph, fi, n, len, off);
			if (st < 0)
				return st;
			if (ph->seq_left != UINT64_MAX && !ph->ramping)
				ph->seq_left -= (uint64_t)n < ph->seq_left ? (uint64_t)n : ph->seq_left;
			off += (uint64_t)n;
			moved += (uint64_t)n;
			if (st > 0 || n == 0) {
				if (size != UINT64_MAX && off < end)
					return short_read(ph, fi, n, len, off - (uint64_t)n, size);
				break; /* end of file */
			}
		}
		if (restart) { /* the ramp is over: the window starts at the region's start */
			loops = loops_arg;
			loop = UINT32_MAX; /* the loop's increment makes it 0 */
			continue;
		}
		if (!ph->ramping && fi + 1 == s->nfiles)
			ph->seq_whole = 1; /* the last file's pass is done: every region was covered */
		if (loops == UINT32_MAX && moved == 0)
			break; /* no end but the time limit, and nothing to move: stop */
	}
done:
	if (write && s->fsync && sync_one(ph, fi) < 0)
		return r->status;
	return close_one(ph, fi);
}

/* The random order's seed: the ramp draws another order than the window,
 * so that it does not warm exactly the blocks the window reads first. */
static uint64_t rand_seed(const struct iob_phase_spec *s, int ramp)
{
	return s->seed ^ 0x5bd1e9955bd1e995ull ^ (ramp ? 0x6a09e667f3bcc909ull : 0);
}

/* Operations of a random phase: the spec's, else a file's worth of blocks
 * per file; time_based: no end but the time limit. */
static uint64_t rand_ops(const struct iob_phase_spec *s, uint64_t bs)
{
	return s->time_based ? UINT64_MAX : s->ops ? s->ops : (s->file_size / bs) * s->nfiles;
}

/* The window's draws: rand_ops, or fewer after a write that completed fewer
 * (spec.written_draws), unless that write's map covered every slot. */
static uint64_t rand_window(const struct iob_phase_spec *s, uint64_t bs, uint64_t total, int mapped)
{
	uint64_t n = rand_ops(s, bs);
	if (s->written_draws && !(mapped && *s->written_draws >= total) && *s->written_draws < n)
		n = *s->written_draws;
	return n;
}

/* The random loop, once for any spec (fast 0) and once for the common one
 * (fast 1: one file open throughout, the permutation, nothing to fill or
 * verify), where the compiler drops every test the spec makes constant. */
static inline __attribute__((always_inline)) int run_random_loop(struct phase *ph, const int fast)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	const struct iob_backend_ops *ops = ph->ops;
	struct lat_sampler *lat = &ph->lat;
	const size_t bs = ph->buflen;
	const uint64_t fsize = s->file_size;
	const uint64_t align = s->offset_align ? s->offset_align : bs;
	const uint64_t slots = fsize >= bs ? (fsize - bs) / align + 1 : 0;
	const int mapped = fast || (s->random_map && !s->skip_past_end);
	const uint64_t total = slots * s->nfiles; /* slots of all files */
	const uint64_t nops = rand_window(s, bs, total, mapped);
	uint64_t rng = rand_seed(s, ph->ramping), limit = ph->ramping ? UINT64_MAX : nops;
	r->written_cut = nops < rand_ops(s, bs);
	/* no end but the time limit, over what a write cut short wrote: its
	 * draws again, in their order, until the limit */
	const int cycle = r->written_cut && rand_ops(s, bs) == UINT64_MAX && nops;
	/* loop invariants in locals: the backend call may write any memory, so
	 * the compiler would reload fields after every call */
	const int reopen = !fast && s->reopen, write = ph->write, fill = !fast && ph->write && ph->fill_each;
	const int multi = !fast && s->nfiles > 1, skip_past_end = !fast && s->skip_past_end;
	const int verify = !fast && ph->verify;
	/* one handle, open throughout: the call needs no table */
	const int plain = !multi && !reopen;
	static const volatile sig_atomic_t never = 0;
	const volatile sig_atomic_t *const stop = s->stop ? s->stop : &never;
	unsigned char *const buf = ph->buf;
	void *hd0 = NULL; /* the one handle, when there is one and it stays open */
	int64_t (*const read_at)(void *, void *, size_t, uint64_t) = ops->read_at;
	struct perm perm;

	if (fsize < bs) {
		r->status = -EINVAL;
		snprintf(r->error, sizeof r->error, "file size %llu is smaller than the block size %zu",
			 (unsigned long long)fsize, bs);
		return r->status;
	}
	if (!s->reopen)
		for (size_t i = 0; i < s->nfiles; i++)
			if (!ph->handles[i] && open_one(ph, i) < 0)
				return r->status;
	hd0 = ph->handles[0];
	if (mapped)
		perm_init(&perm, total, rng);
	uint64_t i = 0, slot = 0;
	for (;; i++) {
		size_t fi = 0;
		uint64_t off;
		if (i == limit) {
			if (!cycle || ph->ramping)
				break;
			pass_evict_all(ph); /* the written draws again: another pass, uncached */
			rng = rand_seed(s, 0);
			if (mapped)
				perm_init(&perm, total, rng);
			slot = 0;
			i = 0;
		}
		if (mapped) {
			if (slot == total) { /* another pass: another order, uncached */
				pass_evict_all(ph);
				perm_init(&perm, total, rng_next(&rng));
				slot = 0;
			}
			uint64_t x = perm_at(&perm, slot++);
			if (multi) { /* a 64-bit division: only when there is a file to pick */
				fi = (size_t)(x / slots);
				x %= slots;
			}
			off = x * align;
		} else {
			fi = multi ? (size_t)(rng_next(&rng) % s->nfiles) : 0;
			if (skip_past_end) {
				off = rng_next(&rng) % fsize;
				off -= off % align;
				if (off + bs > fsize) {
					r->skipped++;
					continue;
				}
			} else {
				off = (rng_next(&rng) % slots) * align;
			}
		}
		if (__atomic_load_n(stop, __ATOMIC_RELAXED)) {
			r->interrupted = 1;
			return 0;
		}
		if (__builtin_expect(ph->nio == ph->event, 0)) {
			int ev = phase_event(ph);
			if (ev == PH_END) {
				ph->ended = 1;
				break; /* draw i is not done */
			}
			if (ev == PH_WINDOW) { /* the ramp is over: the window draws its own order */
				window_start(ph);
				pass_evict_all(ph);
				rng = rand_seed(s, 0);
				if (mapped)
					perm_init(&perm, total, rng);
				slot = 0;
				limit = nops;
				i = UINT64_MAX; /* the loop's increment makes it 0 */
				continue;
			}
		}
		if (fill)
			iob_pattern_fill(&s->pattern, buf, bs, off);
		int64_t n;
		ph->nio++;
		const unsigned mode = lat->mode;
		uint64_t t0 = mode != LAT_OFF ? iob_ticks() : 0;
		if (__builtin_expect(plain, 1)) {
			n = write ? ops->write_at(hd0, buf, bs, off) : read_at(hd0, buf, bs, off);
		} else {
			if (reopen && open_one(ph, fi) < 0)
				return r->status;
			n = write ? ops->write_at(ph->handles[fi], buf, bs, off) : read_at(ph->handles[fi], buf, bs, off);
			/* a short transfer keeps its handle: after_io asks the rest of a write once */
			if (reopen && n == (int64_t)bs && close_one(ph, fi) < 0)
				return r->status;
		}
		if (mode != LAT_OFF) {
			uint64_t t1 = iob_ticks();
			if (mode == LAT_REC) {
				lat_record(lat, t1 - t0);
				lat->mode = lat->base; /* lat_take's, here where it costs only a sample */
			}
		}
		if (__builtin_expect(n == (int64_t)bs && !verify, 1)) { /* after_io's common case */
			r->bytes += bs;
			r->ops++;
			continue;
		}
		if (n == -EINTR && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
			r->interrupted = 1;
			return 0;
		}
		int st = after_io_slow(ph, fi, n, bs, off);
		if (st < 0)
			return st;
		if (st > 0 && !ph->write) {
			fail(ph, -EIO, "read", s->files[fi], off, bs);
			snprintf(r->error, sizeof r->error,
				 "short read (%lld of %zu bytes) at offset %llu of %s, inside its size of "
				 "%llu bytes: %s (the file is shorter than that, or the backend misbehaved)",
				 (long long)n, bs, (unsigned long long)off, s->files[fi],
				 (unsigned long long)fsize, strerror(EIO));
			return r->status;
		}
	}
	if (!ph->ramping) /* every slot written: a later read may go anywhere */
		r->draws = mapped && i >= total ? UINT64_MAX : i;
	for (size_t f = 0; f < s->nfiles; f++) {
		if (ph->handles[f] && ph->write && s->fsync && sync_one(ph, f) < 0)
			return r->status;
		if (close_one(ph, f) < 0)
			return r->status;
	}
	return 0;
}

static int run_random(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	const int fast = s->nfiles == 1 && s->random_map && !s->skip_past_end && !s->reopen && !ph->verify &&
			 !(ph->write && ph->fill_each);
	return fast ? run_random_loop(ph, 1) : run_random_loop(ph, 0);
}

/* ------------------------------------------------------------------------ */
/* Mixed phases and the queued loop.                                         */

/* Set g to the start of its order: the ramp's (no end but the ramp's time)
 * or the measured window's. */
static void gen_reset(struct phase *ph, int ramp)
{
	const struct iob_phase_spec *s = ph->spec;
	struct gen *g = &ph->gen;
	const int unlimited = ramp || s->time_based;
	g->fi = 0;
	g->loop = 0;
	g->round_ios = 0;
	g->rounds = 0;
	g->off = g->start[0];
	/* sequential: a file's passes in a row; no end: one pass each in turn */
	g->loops = unlimited ? UINT32_MAX : s->loops ? s->loops : 1;
	g->rng = rand_seed(s, ramp);
	g->slot = 0;
	g->drawn = 0;
	g->seq_left = !ramp && s->written_draws ? *s->written_draws : UINT64_MAX;
	g->seq_whole = g->seq_cut = 0;
	g->left = ramp ? UINT64_MAX : rand_window(s, g->bs, g->total, g->mapped);
	ph->r->written_cut = !ramp && !g->seq && g->left < rand_ops(s, g->bs);
	g->cycle_n = ph->r->written_cut && rand_ops(s, g->bs) == UINT64_MAX ? g->left : 0;
	g->cycle_rng = g->rng;
	if (g->mapped)
		perm_init(&g->perm, g->total, g->rng);
}

static int gen_init(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct gen *g = &ph->gen;
	g->ph = ph;
	g->seq = s->access == IOB_ACCESS_SEQ;
	g->nfiles = s->nfiles;
	g->bs = ph->buflen;
	g->whole_blocks = !ph->write && !ph->mixed && ph->io_align > 1;
	g->start = ph->fstart;
	g->end = ph->fend;
	g->fsize = s->file_size;
	g->align = s->offset_align ? s->offset_align : g->bs;
	g->slots = g->fsize >= g->bs ? (g->fsize - g->bs) / g->align + 1 : 0;
	g->total = g->slots * s->nfiles;
	g->mapped = s->random_map && !s->skip_past_end;
	g->multi = s->nfiles > 1;
	g->skip = s->skip_past_end;
	g->skipped = &ph->r->skipped;
	if (!g->seq && g->fsize < g->bs) {
		ph->r->status = -EINVAL;
		snprintf(ph->r->error, sizeof ph->r->error, "file size %llu is smaller than the block size %zu",
			 (unsigned long long)g->fsize, g->bs);
		return -EINVAL;
	}
	gen_reset(ph, ph->ramping);
	return 0;
}

/* The next I/O: file, offset and length.  0 when the order is done. */
static int gen_next(struct gen *g, size_t *fi, uint64_t *off, size_t *len)
{
	if (g->seq) {
		for (;;) {
			if (g->off < g->end[g->fi]) {
				uint64_t rest = g->end[g->fi] - g->off;
				*len = g->whole_blocks || rest >= g->bs ? g->bs : (size_t)rest;
				if (g->seq_left != UINT64_MAX) { /* only what the write wrote */
					if (g->seq_left == 0) {
						g->seq_cut = 1;
						return 0;
					}
					if (*len > g->seq_left)
						*len = (size_t)g->seq_left;
					g->seq_left -= *len;
				}
				*fi = g->fi;
				*off = g->off;
				g->off += *len;
				g->round_ios++;
				return 1;
			}
			if (g->fi + 1 == g->nfiles)
				g->seq_whole = 1; /* the last file's pass is drawn */
			if (g->loops == UINT32_MAX) { /* round robin */
				if (++g->fi == g->nfiles) {
					g->fi = 0;
					if (!g->round_ios)
						return 0; /* nothing to move in any file */
					g->round_ios = 0;
					g->rounds++;
				}
			} else if (++g->loop >= g->loops) {
				g->loop = 0;
				if (++g->fi == g->nfiles)
					return 0;
			}
			g->off = g->start[g->fi];
			if (g->loop || g->rounds) /* a further pass over this file: uncached */
				pass_evict(g->ph, g->fi, g->start[g->fi], g->end[g->fi] - g->start[g->fi]);
		}
	}
	for (;;) {
		while (g->left) {
			if (g->left != UINT64_MAX)
				g->left--;
			g->drawn++;
			uint64_t x;
			*fi = 0;
			if (g->mapped) {
				if (g->slot == g->total) { /* another pass: another order, uncached */
					pass_evict_all(g->ph);
					perm_init(&g->perm, g->total, rng_next(&g->rng));
					g->slot = 0;
				}
				x = perm_at(&g->perm, g->slot++);
				if (g->multi) {
					*fi = (size_t)(x / g->slots);
					x %= g->slots;
				}
				*off = x * g->align;
			} else {
				*fi = g->multi ? (size_t)(rng_next(&g->rng) % g->nfiles) : 0;
				if (g->skip) {
					x = rng_next(&g->rng) % g->fsize;
					x -= x % g->align;
					if (x + g->bs > g->fsize) {
						(*g->skipped)++;
						continue;
					}
					*off = x;
				} else {
					*off = (rng_next(&g->rng) % g->slots) * g->align;
				}
			}
			*len = g->bs;
			return 1;
		}
		if (!g->cycle_n)
			return 0;
		g->rng = g->cycle_rng; /* the written draws again (cycle_n) */
		pass_evict_all(g->ph);  /* another pass over them: uncached */
		if (g->mapped)
			perm_init(&g->perm, g->total, g->rng);
		g->slot = 0;
		g->left = g->cycle_n;
	}
}

/* Mixed phases: is the next I/O a write?  Reads with probability
 * rwmix_read %. */
static inline int mix_write(struct phase *ph)
{
	uint64_t x = rng_next(&ph->mix_rng) >> 32;
	return ((x * 100u) >> 32) >= ph->spec->rwmix_read;
}

/* Account n bytes moved by one transfer of the mixed and queued loops (len
 * asked at off of file fi, in buf): bytes by direction, verification.
 * Returns 0 for a whole transfer, 1 for a short one, negative on error.
 * Operations are counted by the caller, once per request. */
static int account(struct phase *ph, size_t fi, int write, const unsigned char *buf, int64_t n, size_t len,
		   uint64_t off)
{
	struct iob_phase_result *r = ph->r;
	if (n > (int64_t)len || n < -4095)
		return broke_contract(ph, fi, write, n, len, off);
	if (n < 0)
		return fail(ph, (int)n, write ? "write" : "read", ph->spec->files[fi], off, len);
	r->bytes += (uint64_t)n;
	if (write)
		r->bytes_written += (uint64_t)n;
	else
		r->bytes_read += (uint64_t)n;
	if (ph->verify && n > 0 && verify_piece(ph, fi, buf, (size_t)n, off))
		return -ECANCELED;
	return (size_t)n < len;
}

static void count_op(struct phase *ph, int write)
{
	ph->r->ops++;
	if (write)
		ph->r->ops_written++;
	else
		ph->r->ops_read++;
}

/* A transfer made no progress before the end of the file. */
static int no_progress(struct phase *ph, size_t fi, int write, int64_t n, size_t len, uint64_t off)
{
	if (!write)
		return short_read(ph, fi, n, len, off, ph->fend[fi]);
	fail(ph, -EIO, "write", ph->spec->files[fi], off, len);
	snprintf(ph->r->error, sizeof ph->r->error,
		 "short write (%lld of %zu bytes) at offset %llu of %s: %s (the backend stopped early and gave "
		 "no reason)",
		 (long long)n, len, (unsigned long long)off, ph->spec->files[fi], strerror(EIO));
	return -EIO;
}

/* A mixed phase, one I/O at a time: each I/O a read with probability
 * rwmix_read %, else a write of the pattern. */
static int run_mixed(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	const struct iob_backend_ops *ops = ph->ops;
	struct lat_sampler *lat = &ph->lat;
	for (;;) {
		size_t fi, len;
		uint64_t off;
		if (stopped(s->stop)) {
			r->interrupted = 1;
			return 0;
		}
		if (__builtin_expect(ph->nio == ph->event, 0)) {
			int ev = phase_event(ph);
			if (ev == PH_END)
				break;
			if (ev == PH_WINDOW) {
				window_start(ph);
				gen_reset(ph, 0);
				pass_evict_all(ph); /* the window's first pass: uncached */
				continue;
			}
		}
		if (!gen_next(&ph->gen, &fi, &off, &len))
			break;
		ph->nio++;
		const int w = mix_write(ph);
		if (w && ph->fill_each)
			iob_pattern_fill(&s->pattern, ph->buf, len, off);
		const unsigned mode = lat_take(lat);
		const int in = mode == LAT_REC, timed = mode != LAT_OFF;
		uint64_t t0 = timed ? iob_ticks() : 0;
		int64_t n = w ? ops->write_at(ph->handles[fi], ph->buf, len, off)
			      : ops->read_at(ph->handles[fi], ph->rbuf, len, off);
		if (timed) {
			uint64_t t1 = iob_ticks();
			if (in)
				lat_record_dir(lat, t1 - t0, w);
		}
		if (n == -EINTR && stopped(s->stop)) {
			r->interrupted = 1;
			return 0;
		}
		int st = account(ph, fi, w, w ? ph->buf : ph->rbuf, n, len, off);
		if (st < 0)
			return st;
		count_op(ph, w);
		if (st > 0) {
			r->short_ops++;
			if (w || off + (uint64_t)n < ph->fend[fi])
				return no_progress(ph, fi, w, n, len, off);
		}
	}
	return 0;
}

/* Queued loop: take new requests from the order until the queue is full. */
static void queue_fill(struct phase *ph, int *mode)
{
	const struct iob_phase_spec *s = ph->spec;
	struct queue *q = &ph->q;
	struct lat_sampler *lat = &ph->lat;
	while (q->nfree) {
		size_t fi, len;
		uint64_t off;
		if (__builtin_expect(ph->nio == ph->event, 0)) {
			int ev = phase_event(ph);
			if (ev != PH_GO) {
				*mode = ev; /* PH_END: no more new requests; PH_WINDOW: drain, then start */
				return;
			}
		}
		if (!gen_next(&ph->gen, &fi, &off, &len)) {
			*mode = PH_END;
			return;
		}
		ph->nio++;
		struct req *rq = q->free[--q->nfree];
		const int w = ph->mixed ? mix_write(ph) : ph->write;
		if (w && (ph->fill_each || rq->dirty)) {
			if (ph->fill_each)
				iob_pattern_fill(&s->pattern, rq->buf, len, off);
			else
				iob_pattern_fill(&s->pattern, rq->buf, ph->buflen, 0);
			rq->dirty = 0;
		}
		rq->dirty |= !w;
		rq->write = (uint8_t)w;
		rq->fi = fi;
		rq->off = off;
		rq->len = len;
		rq->done = 0;
		const unsigned lm = lat_take(lat);
		rq->in = lm == LAT_REC;
		rq->timed = lm != LAT_OFF;
		rq->stamped = 0;
		rq->io.buf = rq->buf;
		rq->io.len = len;
		rq->io.off = off;
		rq->io.write = (uint32_t)w;
		rq->io.result = 0;
		req_queue(q, rq, REQ_FREE);
	}
}

/* Submit what is pending, a run of requests on the same file per call; what
 * the backend does not take stays pending.  Those it took become SUBMITTED
 * and leave q->pend; every other one stays on it exactly once, also when a
 * submit fails after earlier ones in the same batch were taken (a backend
 * may queue a part and refuse the rest: io_uring out of locked memory).
 * 0, or negative on error. */
static int queue_submit(struct phase *ph)
{
	struct queue *q = &ph->q;
	size_t i = 0, keep = 0;
	uint64_t t = 0;
	int have_t = 0, err = 0;
	for (size_t k = 0; k < q->np; k++) {
		struct req *rq = q->pend[k]->user;
		if (rq->timed && !rq->stamped) {
			if (!have_t) {
				t = iob_ticks();
				have_t = 1;
			}
			rq->t0 = t;
			rq->stamped = 1;
		}
	}
	while (i < q->np && !err) {
		size_t fi = ((struct req *)q->pend[i]->user)->fi, j = i + 1;
		while (j < q->np && ((struct req *)q->pend[j]->user)->fi == fi)
			j++;
		/* a backend may take part of a run: offer it the rest until it takes none */
		while (i < j && !err) {
			int rc = ph->ops->submit(ph->handles[fi], &q->pend[i], j - i);
			if (rc == -EAGAIN)
				rc = 0; /* full: reap first */
			if (rc < 0) {
				struct req *rq = q->pend[i]->user;
				err = fail(ph, rc, rq->write ? "queued write" : "queued read", ph->spec->files[fi],
					   rq->off + rq->done, rq->len - rq->done);
				break;
			}
			if ((size_t)rc > j - i) {
				/* it claims more than it was offered: it may hold every
				 * one offered, so they are the backend's until reaped */
				struct req *rq = q->pend[i]->user;
				err = broke_contract(ph, fi, rq->write, rc, j - i, rq->off);
				rc = (int)(j - i);
			}
			if (rc == 0)
				break;
			for (size_t k = i; k < i + (size_t)rc; k++)
				req_move(q->pend[k]->user, REQ_QUEUED, REQ_SUBMITTED);
			q->infl[fi] += (uint32_t)rc;
			q->inflight += (uint64_t)rc;
			i += (size_t)rc;
		}
		for (; i < j; i++)
			q->pend[keep++] = q->pend[i];
	}
	for (; i < q->np; i++) /* after an error: the runs not offered */
		q->pend[keep++] = q->pend[i];
	q->np = keep;
	if (err < 0)
		return err;
	if (q->np && q->inflight == 0) {
		struct req *rq = q->pend[0]->user;
		fail(ph, -EPROTO, "queued I/O on", ph->spec->files[rq->fi], UINT64_MAX, 0);
		snprintf(ph->r->error, sizeof ph->r->error,
			 "backend %s broke its contract: it took no I/O for %s with none in flight",
			 ph->spec->backend->desc.name, ph->spec->files[rq->fi]);
		return -EPROTO;
	}
	return 0;
}

/* The request behind an I/O a reap handed back, made COMPLETED; NULL (and the
 * phase failed) when the backend handed back something it did not hold: not
 * one of this queue's requests, or one not in flight (reaped twice). */
static struct req *queue_reaped(struct phase *ph, struct iob_io *io)
{
	struct queue *q = &ph->q;
	uintptr_t a = (uintptr_t)io, base = (uintptr_t)q->reqs;
	uintptr_t at = a - base;
	if (a < base || at % sizeof *q->reqs || at / sizeof *q->reqs >= q->depth ||
	    q->reqs[at / sizeof *q->reqs].state != REQ_SUBMITTED) {
		fail(ph, -EPROTO, "completion wait on", ph->spec->files[0], UINT64_MAX, 0);
		snprintf(ph->r->error, sizeof ph->r->error,
			 "backend %s broke its contract: a reap handed back an I/O that was not in flight",
			 ph->spec->backend->desc.name);
		return NULL;
	}
	struct req *rq = &q->reqs[at / sizeof *q->reqs];
	req_move(rq, REQ_SUBMITTED, REQ_COMPLETED);
	q->infl[rq->fi]--;
	q->inflight--;
	return rq;
}

/* Wait for completions: on the one file with I/O in flight, or, with
 * several, whichever has some ready (else wait on the busiest).  Returns how
 * many are in q->done, or negative. */
static int queue_reap(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct queue *q = &ph->q;
	size_t busy = 0, nbusy = 0;
	for (size_t i = 0; i < s->nfiles; i++)
		if (q->infl[i]) {
			if (!nbusy++ || q->infl[i] > q->infl[busy])
				busy = i;
		}
	if (nbusy > 1)
		for (size_t i = 0; i < s->nfiles; i++) {
			if (!q->infl[i])
				continue;
			int n = ph->ops->reap(ph->handles[i], q->done, 0, q->depth);
			if (n != 0)
				return n;
		}
	int n = ph->ops->reap(ph->handles[busy], q->done, 1, q->depth);
	return n == 0 ? -EPROTO : n;
}

/* One completion: account it, resubmit the rest of a short transfer, time a
 * request in the latency sample.  Returns 0, or negative on error. */
static int queue_complete(struct phase *ph, struct req *rq, int stopping, uint64_t *t1, int *have_t1)
{
	struct queue *q = &ph->q;
	const size_t want = rq->len - rq->done;
	const int64_t n = rq->io.result;
	int st = account(ph, rq->fi, rq->write, rq->buf + rq->done, n, want, rq->off + rq->done);
	if (st < 0) {
		req_free(q, rq, REQ_COMPLETED);
		return st;
	}
	rq->done += (size_t)n;
	if (st > 0) {
		ph->r->short_ops++;
		int eof = !rq->write && rq->off + rq->done >= ph->fend[rq->fi];
		if (!eof && n == 0) {
			req_free(q, rq, REQ_COMPLETED);
			return no_progress(ph, rq->fi, rq->write, (int64_t)rq->done, rq->len, rq->off);
		}
		if (!eof && !stopping) { /* the rest, as one more transfer of the same request */
			rq->io.buf = rq->buf + rq->done;
			rq->io.len = rq->len - rq->done;
			rq->io.off = rq->off + rq->done;
			rq->io.result = 0;
			req_queue(q, rq, REQ_COMPLETED);
			return 0;
		}
	}
	count_op(ph, rq->write);
	if (rq->timed) {
		if (!*have_t1) {
			*t1 = iob_ticks();
			*have_t1 = 1;
		}
		if (rq->in)
			lat_record_dir(&ph->lat, *t1 - rq->t0, rq->write);
	}
	req_free(q, rq, REQ_COMPLETED);
	return 0;
}

/* The queued loop (iodepth > 1, an IOB_CAP_ASYNC backend): keep iodepth
 * requests in flight, account them in completion order.  A stop, an error
 * or the end of a ramp takes no new request and reaps every one in flight
 * before going on: nothing is left in flight or unaccounted. */
static int run_queued(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct queue *q = &ph->q;
	int mode = PH_GO, stopping = 0;
	for (;;) {
		if (!stopping && ((stopped(s->stop)) || ph->r->status < 0)) {
			ph->r->interrupted = ph->r->status >= 0;
			stopping = 1;
		}
		if (stopping && q->np) { /* never submitted again: what they moved is counted */
			for (size_t k = 0; k < q->np; k++) {
				struct req *rq = q->pend[k]->user;
				if (rq->done)
					count_op(ph, rq->write);
				req_free(q, rq, REQ_QUEUED);
			}
			q->np = 0;
		}
		if (mode == PH_GO && !stopping)
			queue_fill(ph, &mode);
		if (q->np && queue_submit(ph) < 0)
			continue; /* stopping from now on */
		if (q->inflight == 0) {
			if (q->np)
				continue;
			if (mode == PH_WINDOW && !stopping) { /* the ramp is drained: the window starts */
				window_start(ph);
				gen_reset(ph, 0);
				pass_evict_all(ph); /* the window's first pass: uncached */
				mode = PH_GO;
				continue;
			}
			break;
		}
		int n = queue_reap(ph);
		if (n == -EINTR || n == -EAGAIN)
			continue; /* a signal, or nothing yet: the I/Os are still in flight; the loop's top sees a stop */
		if (n < 0 || (size_t)n > q->depth) {
			if (n > 0)
				n = -EPROTO;
			fail(ph, n, "completion wait on", s->files[0], UINT64_MAX, 0);
			break; /* the backend's close waits for or cancels what is left */
		}
		uint64_t t1 = 0;
		int have_t1 = 0;
		for (int k = 0; k < n; k++) {
			struct req *rq = queue_reaped(ph, q->done[k]);
			if (!rq)
				goto out; /* the backend's close waits for or cancels what is left */
			queue_complete(ph, rq, stopping, &t1, &have_t1);
		}
	}
out:
	if (mode == PH_END)
		ph->ended = 1;
	if (!ph->ramping && !ph->gen.seq)
		ph->r->draws = ph->gen.mapped && ph->gen.drawn >= ph->gen.total ? UINT64_MAX
											: ph->gen.drawn; /* every drawn one was reaped */
	if (!ph->ramping && ph->gen.seq) {
		ph->seq_whole = ph->gen.seq_whole;
		ph->r->written_cut |= ph->gen.seq_cut;
	}
	return ph->r->status;
}

/* Refuse a spec the engine cannot run: -EINVAL with one line in r->error. */
static int check_spec(const struct iob_phase_spec *s, struct iob_phase_result *r, int write, int mixed)
{
	const char *name = s->backend->desc.name;
	uint32_t caps = s->backend->desc.caps;
	uint32_t need = mixed ? IOB_CAP_READ | IOB_CAP_WRITE : write ? IOB_CAP_WRITE : IOB_CAP_READ;
	const char *why = (caps & need) != need				? "the backend cannot do it"
			  : s->nfiles == 0				? "no files"
			  : write && !s->file_size			? "file size is 0"
			  : !s->block_size || s->block_size > ((uint64_t)1 << 31) ? "bad block size"
			  : s->phase > IOB_PHASE_MIXED			? "unknown phase"
			  : mixed && s->rwmix_read > 100		? "rwmix_read is above 100"
									: NULL;
	if (why)
		snprintf(r->error, sizeof r->error, "%s phase not possible: %s", iob_phase_name(s->phase), why);
	else if (s->iodepth > 1 && (!(caps & IOB_CAP_ASYNC) || !s->backend->backend.submit || !s->backend->backend.reap))
		snprintf(r->error, sizeof r->error,
			 "iodepth %u needs a backend that queues I/O, and backend %s does not (use iodepth = 1, or "
			 "a backend such as io_uring)",
			 s->iodepth, name);
	else if (s->iodepth > 1 && (s->reopen || s->record_series))
		snprintf(r->error, sizeof r->error, "iodepth %u cannot be used with %s (use iodepth = 1)", s->iodepth,
			 s->reopen ? "reopening the file around every I/O" : "a per-block series");
	else if (mixed && (s->reopen || s->record_series))
		snprintf(r->error, sizeof r->error, "a mixed phase cannot be used with %s",
			 s->reopen ? "reopening the file around every I/O" : "a per-block series");
	else if (s->ramp_ns && s->record_series)
		snprintf(r->error, sizeof r->error,
			 "ramp_time cannot be used with a per-block series (every block is reported as it is read)");
	else if (s->time_based && !s->runtime_ns)
		snprintf(r->error, sizeof r->error, "time_based needs a runtime: the time limit it runs to");
	else
		return 0;
	r->status = -EINVAL;
	return -EINVAL;
}

/* Histograms, handle tables and the latency sampler; -ENOMEM with r->error. */
static int phase_setup(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	const char *what = NULL;
	r->hist = iob_hist_new();
	r->hist_write = ph->mixed ? iob_hist_new() : NULL;
	ph->handles = calloc(s->nfiles, sizeof *ph->handles);
	ph->created = calloc(s->nfiles, sizeof *ph->created);
	ph->checked = calloc(s->nfiles, sizeof *ph->checked);
	if (!r->hist || (ph->mixed && !r->hist_write))
		what = "out of memory for the latency histogram";
	else if (!ph->handles || !ph->created || !ph->checked)
		what = "out of memory for the file handles";
	else if (lat_init(&ph->lat, r->hist, r->hist_write, s->seed,
			  !(s->record_series && s->access == IOB_ACCESS_SEQ) && s->latency == IOB_LATENCY_SAMPLED,
			  s->latency == IOB_LATENCY_OFF) < 0)
		what = "out of memory for the latency sample's histograms";
	if (!what)
		return 0;
	r->status = -ENOMEM;
	snprintf(r->error, sizeof r->error, "%s", what);
	return -ENOMEM;
}

/* Sequential phases, file after file; time_based: one pass over each file in
 * turn until the limit. */
static void run_seq_all(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	const int no_end = s->time_based;
	if (no_end && s->nfiles > 1) {
		for (;; ph->seq_rounds++) {
			uint64_t before = ph->nio;
			for (size_t i = 0; i < s->nfiles && r->status >= 0 && !r->interrupted && !ph->ended; i++)
				run_seq_file(ph, i, 1);
			if (r->status < 0 || r->interrupted || ph->ended || ph->nio == before)
				return;
		}
	}
	uint32_t loops = no_end ? UINT32_MAX : s->loops ? s->loops : 1;
	for (size_t i = 0; i < s->nfiles && r->status >= 0 && !r->interrupted && !ph->ended; i++)
		run_seq_file(ph, i, loops);
}

/* After a mixed or queued phase: sync (write phases asked to) and close. */
static void finish_all(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	for (size_t i = 0; i < s->nfiles && ph->r->status >= 0 && !ph->r->interrupted; i++) {
		if (ph->handles[i] && (ph->write || ph->mixed) && s->fsync && sync_one(ph, i) < 0)
			return;
		if (close_one(ph, i) < 0)
			return;
	}
}

/* Open what the loops need before the clock: mixed and queued phases every
 * file and every request; random access every file (unless reopened). */
static int phase_open(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	if (ph->queued || ph->mixed) {
		if (open_all(ph) < 0)
			return ph->r->status;
		int rc = ph->queued ? queue_alloc(ph) : 0;
		if (rc != 0) /* an error, or a stop while the buffers were touched */
			return rc < 0 ? ph->r->status : 1;
		return gen_init(ph);
	}
	if (s->access == IOB_ACCESS_RAND && !s->reopen)
		for (size_t i = 0; i < s->nfiles; i++)
			if (!ph->handles[i] && open_one(ph, i) < 0)
				return ph->r->status;
	return 0;
}

int iob_phase_run(const struct iob_phase_spec *s, struct iob_phase_result *r)
{
	struct phase ph = {.spec = s, .r = r};
	iob_phase_result_init(r);
	r->phase = s->phase;
	r->pattern_label = iob_pattern_label(&s->pattern);
	r->block_size = s->block_size;
	r->lat_sample_every = 1;
	ph.ops = &s->backend->backend;
	ph.write = s->phase == IOB_PHASE_WRITE;
	ph.verify = s->phase == IOB_PHASE_VERIFY;
	ph.mixed = s->phase == IOB_PHASE_MIXED;
	ph.queued = s->iodepth > 1;
	ph.fill_each = (ph.write || ph.mixed) && !iob_pattern_is_constant(&s->pattern) && !s->fill_once;
	ph.open_flags = ph.write   ? IOB_OPEN_WRITE | IOB_OPEN_CREATE | (s->truncate ? IOB_OPEN_TRUNC : 0)
			: ph.mixed ? IOB_OPEN_READ | IOB_OPEN_WRITE
				   : IOB_OPEN_READ;
	ph.mix_rng = s->seed ^ 0x94d049bb133111ebull;
	ph.check_at = s->runtime_ns || s->ramp_ns || s->first_done || s->live ? 0 : UINT64_MAX;
	ph.ramping = s->ramp_ns > 0;
	ph.seq_left = s->access == IOB_ACCESS_SEQ && s->written_draws ? *s->written_draws : UINT64_MAX;

	/* the clock and what timing costs, once per process, before the sampler
	 * (lat_init, in phase_setup) reads them: streams start phases at once */
	iob_ticks_init();
	measure_timing_floor();
	int ok = check_spec(s, r, ph.write, ph.mixed) == 0 && phase_setup(&ph) == 0;
	if (ok) {
		ph.lat.depth = ph.queued ? s->iodepth : 1;
		ph.event = ph.lat.event < ph.check_at ? ph.lat.event : ph.check_at;
		window_start(&ph); /* a phase that fails to start still says how long it tried */
		ph.ramping = s->ramp_ns > 0;
		ok = prepare(&ph) == 0 && phase_open(&ph) == 0;
	}
	/* every stream reaches the runner's barrier, whatever happened to it */
	if (s->ready)
		s->ready(s->ready_arg);
	if (ok) {
		/* the clock starts here: opening the files and the buffers are not timed */
		window_start(&ph);
		if (s->ramp_ns) {
			ph.ramping = 1;
			ph.ramp_end = ph.start_ns + s->ramp_ns;
		}
		if (ph.queued) {
			run_queued(&ph);
			finish_all(&ph);
		} else if (ph.mixed) {
			run_mixed(&ph);
			finish_all(&ph);
		} else if (s->access == IOB_ACCESS_SEQ) {
			run_seq_all(&ph);
		} else {
			if (s->reopen)
				close_one(&ph, 0);
			run_random(&ph);
		}
		if (ph.ramping)
			window_start(&ph); /* it ended within its ramp: the window is empty */
	}
	uint64_t end_tick = iob_ticks(), end_ns = iob_now_ns();
	r->start_ns = ph.start_ns ? ph.start_ns : end_ns;
	r->elapsed_ns = end_ns - r->start_ns;
	uint64_t rchar1 = 0, wchar1 = 0, rb1 = UINT64_MAX, wb1 = UINT64_MAX, u1 = 0, s1 = 0;
	int have_proc = ph.have_io && iob_proc_io(&rchar1, &wchar1, &rb1, &wb1) == 0;
	int have_io = have_proc && !(s->backend->desc.caps & IOB_CAP_UNCOUNTED);
	r->os_read_bytes = have_io ? rchar1 - ph.rchar0 : UINT64_MAX;
	r->os_write_bytes = have_io ? wchar1 - ph.wchar0 : UINT64_MAX;
	/* storage counts see every backend (the block layer's, not the system calls') */
	int have_st = have_proc && ph.rbytes0 != UINT64_MAX && rb1 != UINT64_MAX && ph.wbytes0 != UINT64_MAX &&
		      wb1 != UINT64_MAX;
	r->storage_read_bytes = have_st ? rb1 - ph.rbytes0 : UINT64_MAX;
	r->storage_write_bytes = have_st ? wb1 - ph.wbytes0 : UINT64_MAX;
	if (ph.have_cpu && iob_cpu_times_ns(1, &u1, &s1) == 0) {
		r->cpu_user_ns = u1 - ph.cpu_user0;
		r->cpu_sys_ns = s1 - ph.cpu_sys0;
	}
	if (r->elapsed_ns == 0)
		r->elapsed_ns = 1;
	r->end_ns = r->start_ns + r->elapsed_ns;
	/* per-I/O times were taken in ticks: convert with this phase's own ratio */
	/* (a series phase timed its I/O with clock_gettime: already ns) */
	double ns_per_tick = iob_ticks_tsc && end_tick > ph.start_tick && !(s->record_series && s->access == IOB_ACCESS_SEQ)
				     ? (double)r->elapsed_ns / (double)(end_tick - ph.start_tick) : 1.0;
	if (s->live)
		live_publish(&ph, r->end_ns, 1);
	lat_finish(&ph.lat, r);
	if (r->hist)
		iob_hist_set_scale(r->hist, ns_per_tick);
	if (r->hist_write)
		iob_hist_set_scale(r->hist_write, ns_per_tick);
	if (!ph.mixed) { /* one direction: its figures are the totals */
		r->bytes_read = ph.write ? 0 : r->bytes;
		r->ops_read = ph.write ? 0 : r->ops;
		r->bytes_written = ph.write ? r->bytes : 0;
		r->ops_written = ph.write ? r->ops : 0;
	}
	first_done_finish(&ph);
	for (size_t i = 0; ph.handles && i < s->nfiles; i++) {
		if (ph.handles[i])
			ph.ops->close(ph.handles[i]);
		/* a file this phase created but could not even start on goes away */
		if (ph.created[i] && r->status < 0 && r->ops == 0)
			iob_remove_file(s->files[i]);
	}
	free(ph.handles);
	free(ph.created);
	free(ph.checked);
	free(ph.fstart);
	free(ph.fend);
	queue_free(&ph.q); /* after the closes: a backend may hold the buffers until then */
	iob_free_aligned(ph.buf);
	iob_free_aligned(ph.scratch);
	iob_free_aligned(ph.rbuf);
	if (s->access == IOB_ACCESS_SEQ && !ph.mixed) /* what a later read replays (written_draws) */
		r->draws = ph.seq_whole ? UINT64_MAX : r->bytes;
	if (ph.verify_halt && r->status == -ECANCELED) { /* verify_piece's stop, no other error after it */
		r->status = 0;
		r->error[0] = '\0';
	}
	if (r->status == 0 && r->bad_blocks)
		r->status = IOB_STATUS_MISMATCH;
	return r->status;
}
