/*
 * engine_time.c - latency sampling and the measured window (engine.c has the
 * map of the engine's files).
 *
 * Sections: the timing floor (what timing costs, once per process); the
 * sampler (lat_*: init, reset, finish, the draws, the cost checks, the
 * events); the measured window (window_start, first done, live_publish,
 * phase_check and phase_event, the loops' one per-I/O test).
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

#include "engine_int.h"

/* ------------------------------------------------------------------------ */
/* Latency sampling.                                                         */

/* What timing costs when nothing is timed but the clock: two tick reads and
 * a histogram record, in ticks; measured once per process. */
static double timing_floor_ticks, ticks_per_ns = 1.0;

static void measure_timing_floor_once(void)
{
	/* in static storage: only the pages of the few buckets it records are
	 * ever touched (a histogram of its own cost a mapping and an unmap) */
	static struct iob_hist floor_hist;
	struct iob_hist *h = &floor_hist;
	double best = 0;
	uint64_t n0 = iob_now_ns(), k0 = iob_ticks();
	/* 8 runs of 64 (it was 8 of 256: 4,096 tick reads, about 80 us of every
	 * run's start-up at this VM's 19 ns a read); the least run's mean */
	for (int rep = 0; rep < 8; rep++) {
		uint64_t a = iob_ticks();
		for (int i = 0; i < 64; i++) {
			uint64_t t0 = iob_ticks();
			uint64_t t1 = iob_ticks();
			iob_hist_record(h, t1 - t0);
		}
		double per = (double)(iob_ticks() - a) / 64.0;
		if (rep == 0 || per < best)
			best = per;
	}
	uint64_t n1 = iob_now_ns(), k1 = iob_ticks();
	timing_floor_ticks = best;
	if (iob_ticks_tsc && n1 > n0 && k1 > k0)
		ticks_per_ns = (double)(k1 - k0) / (double)(n1 - n0);
}

/* Ticks per ns as measured with the timing floor (1: ticks are ns). */
double iob_eng_ticks_per_ns(void)
{
	return iob_ticks_tsc ? ticks_per_ns : 1.0;
}

/* Once per process, whichever stream gets here first. */
void iob_eng_measure_timing_floor(void)
{
	static int once;
	iob_once(&once, measure_timing_floor_once);
}

/* hw: the result's write histogram of a mixed phase, else NULL.  adaptive:
 * k follows the checks (latency = sampled); else k stays 1 (every), or
 * nothing is timed and no event ever comes (off: the loops read no clock). */
int iob_eng_lat_init(struct lat_sampler *s, struct iob_hist *h, struct iob_hist *hw, uint64_t seed,
		     int adaptive, int off)
{
	memset(s, 0, sizeof *s);
	s->rng = seed ^ 0x2545f4914f6cdd1dull;
	s->batch = -1;
	s->depth = 1;
	s->off = off;
	s->fresh = 1; /* h, hw and the levels are new (phase_setup): zero */
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

/* Forget every sample (the end of a ramp); k and the cost figures stay.
 * Before the clock first starts there is none: the histograms are as made,
 * and writing their headers would fault in a page of each (16 of a read
 * phase's 8 levels, each level's and the result's header twice). */
static void lat_reset(struct lat_sampler *s)
{
	if (s->fresh)
		return;
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
		if (lv[i] && i >= s->m && h) /* levels are filled by iob_hist_record only */
			iob_hist_merge_recorded(h, lv[i]);
		lv[i] = NULL; /* freed with s->levels */
	}
}

/* Merge the levels still in the sample into the result's histograms. */
void iob_eng_lat_finish(struct lat_sampler *s, struct iob_phase_result *r)
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
__attribute__((noinline)) unsigned iob_eng_lat_level_refill(struct lat_sampler *s)
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

/* ------------------------------------------------------------------------ */
/* The measured window: ramp, time limit, first done.                        */

#define CHECK_NS 50000u	 /* look at the clock about this often (ns of I/O between looks) */
#define CHECK_MAX_IOS 64 /* and at least every this many I/Os */
#define LIVE_CHECK_NS 1000000u /* the same when only the observer needs the looks */
#define LIVE_CHECK_MAX_IOS 1024
#define FLAG_LOOKS_PER_CLOCK 16u /* first_done alone: the clock at every 16th look only */

void iob_eng_iolog_ring_put(struct phase *ph, const struct iob_io_event *e)
{
	struct iob_iolog *l = ph->iolog;
	if (ph->ramping)
		return;
	uint64_t h = l->n; /* only this thread moves it */
	while (h - __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE) >= l->cap) {
		l->waits++; /* the writer is behind: its rows are not lost, this I/O waits */
		iob_sleep_ns(20000, NULL);
	}
	l->ev[h % l->cap] = *e;
	__atomic_store_n(&l->n, h + 1, __ATOMIC_RELEASE);
}

/* Start (or start again, at the end of a ramp) the measured window: forget
 * everything counted so far, take the kernel's and the CPU's counters, start
 * the clock and the time limit. */
void iob_eng_window_start(struct phase *ph)
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
	if (ph->iolog) { /* what the ramp logged is not the window's (a ring logs none) */
		if (!ph->iolog->ring)
			ph->iolog->n = ph->iolog->lost = 0;
		ph->iolog->t0_tick = ph->start_tick;
		ph->iolog->t0_ns = ph->start_ns;
	}
	ph->deadline = s->runtime_ns ? ph->start_ns + s->runtime_ns : 0;
	ph->check_ns = ph->start_ns;
	ph->check_nio = ph->nio;
	if (ph->shaped) { /* pacing from the window's start; its block sizes only */
		iob_shape_window(&ph->shape, ph->start_ns);
		memset(&r->bs_hist, 0, sizeof r->bs_hist);
		memset(&r->prio_hist, 0, sizeof r->prio_hist);
		r->io_errors = 0;
	}
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
void iob_eng_first_done_finish(struct phase *ph)
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
__attribute__((noinline)) void iob_eng_live_publish(struct phase *ph, uint64_t now, int final)
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
			iob_hist_merge_recorded(l->snap, ph->lat.lv[i]);
		if (ph->lat.lvw[i])
			iob_hist_merge_recorded(l->snap, ph->lat.lvw[i]);
	}
	int ns = !iob_ticks_tsc || (s->record_series && s->access == IOB_ACCESS_SEQ);
	l->snap->ns_per_tick = ns ? 1.0 : 1.0 / ticks_per_ns;
	l->snap_bytes = ph->r->bytes;
	l->snap_ops = ph->r->ops;
	if (l->snap_w) { /* the writes alone, for a mixed phase's fio-style logs */
		iob_hist_reset(l->snap_w);
		for (unsigned i = 0; i < LAT_LEVELS; i++)
			if (ph->lat.lvw[i])
				iob_hist_merge_recorded(l->snap_w, ph->lat.lvw[i]);
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
 * it did and calls iob_eng_window_start), PH_GO otherwise.  A phase that
 * looks only for first_done (streams, no time limit, ramp or observer) needs
 * the clock only to space its looks: it reads it at every
 * FLAG_LOOKS_PER_CLOCK-th look, keeps the spacing in between, and stops
 * looking once it saw the flag (a clock read every 64 I/Os was 0.4 ns of
 * a null backend's 3 ns I/O: docs/performance.md). */
__attribute__((noinline)) static int phase_check_clock(struct phase *ph);

static inline int phase_check(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	if (s->first_done && !s->runtime_ns && !s->ramp_ns && !s->live) { /* first_done alone */
		if (!ph->fd_seen && __atomic_load_n(s->first_done, __ATOMIC_RELAXED))
			first_done_note(ph);
		if (ph->fd_seen) {
			ph->check_at = UINT64_MAX; /* nothing left to look for */
			return PH_GO;
		}
		if (ph->check_step && ++ph->flag_looks % FLAG_LOOKS_PER_CLOCK) {
			ph->check_at = ph->nio + ph->check_step;
			return PH_GO;
		}
	}
	return phase_check_clock(ph);
}

static int phase_check_clock(struct phase *ph)
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
	ph->check_step = step;
	if (s->live)
		iob_eng_live_publish(ph, now, 0);
	return ev;
}

/* The I/O count at which the loops next call iob_eng_phase_event: the
 * nearest of the events it serves. */
uint64_t iob_eng_next_event(const struct phase *ph)
{
	uint64_t e = ph->lat.event < ph->check_at ? ph->lat.event : ph->check_at;
	const uint64_t every = ph->write ? ph->spec->load.fsync_every : 0;
	if (every && (ph->nio / every + 1) * every < e)
		e = (ph->nio / every + 1) * every; /* fsync_every's next sync */
	return e;
}

/* fsync_every (load.h): a write phase syncs every file it has open after
 * every this many writes, before the next one, as fio's fsync=N does; the
 * time counts (sync_ns). */
static int sync_open_files(struct phase *ph)
{
	for (size_t f = 0; f < ph->spec->nfiles; f++)
		if (ph->handles[f] && iob_eng_sync_one(ph, f) < 0)
			return PH_END;
	return PH_GO;
}

/* The loops' one per-I/O test: nio reached the next event (a latency cost
 * check, a look at the clock).  Out of line: the loops pay a compare.  An
 * event of a key in spec->load is served here, and iob_eng_next_event says
 * when it comes next: no loop changes for it. */
__attribute__((noinline)) int iob_eng_phase_event(struct phase *ph)
{
	uint64_t i = ph->nio;
	int ev = PH_GO;
	if (i == ph->lat.event)
		lat_event(&ph->lat, i);
	if (i == ph->check_at)
		ev = phase_check(ph);
	const uint64_t every = ph->write ? ph->spec->load.fsync_every : 0;
	if (every && i && i % every == 0 && ev == PH_GO)
		ev = sync_open_files(ph);
	ph->event = iob_eng_next_event(ph);
	return ev;
}
