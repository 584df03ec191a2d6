/*
 * engine_queue.c - the queued loop: iodepth > 1 on an IOB_CAP_ASYNC backend
 * (engine.c has the map of the engine's files; a request's states are
 * described with struct req in engine_int.h).
 *
 * Sections: the requests allocated before the clock, moved between the
 * free list and the list to submit, freed; the loop's steps (fill, submit,
 * reaped, reap, complete) and the loop itself.
 */

#include "engine_int.h"
#include "iobench/units.h"

/* ---- latency_target (lattarget.h) ------------------------------------------
 * The depth in force is q->depth - q->reserve: queue_fill takes no free
 * request past it.  Every I/O is timed from its first submission to its
 * reap (the sampler times each one with latency_target); a window ends at
 * the first completion latency_window after it began (or, with
 * latency_percentile 100, at the first one over the target), and its
 * verdict sets the next depth.  Without latency_target nothing of this
 * runs: the only cost is a test of lt.on per timed completion and per turn
 * of the loop. */

static int lt_init(struct phase *ph)
{
	const struct iob_load *l = &ph->spec->load;
	struct lt_state *lt = &ph->lt;
	double pct[IOB_PCT_MAX];
	size_t n = 0;
	char err[128];
	if (!l->latency_target)
		return 0;
	if (iob_pct_parse(l->latency_percentile, pct, &n, err, sizeof err) != 0 || n != 1)
		return iob_eng_fail(ph, -EINVAL, "latency_percentile of", ph->spec->files[0], UINT64_MAX, 0);
	lt->h = iob_hist_new();
	if (!lt->h)
		return iob_eng_fail(ph, -ENOMEM, "latency_target histogram for", ph->spec->files[0],
				    UINT64_MAX, 0);
	lt->on = 1;
	lt->pct = pct[0];
	lt->target_ns = l->latency_target;
	lt->window_ns = l->latency_window;
	lt->tpn = iob_eng_ticks_per_ns();
	iob_lat_search_init(&lt->s, ph->q.depth, l->latency_run);
	return 0;
}

/* A window starts now (ticks) at the search's depth; the target and the
 * window in ticks from the ratio measured since the search began. */
static void lt_begin(struct phase *ph, uint64_t now)
{
	struct lt_state *lt = &ph->lt;
	const uint64_t ns = iob_now_ns();
	if (!lt->k0) {
		lt->k0 = now;
		lt->n0 = ns;
	} else if (ns - lt->n0 >= 1000000 && now > lt->k0) {
		lt->tpn = (double)(now - lt->k0) / (double)(ns - lt->n0);
	}
	lt->target_t = (uint64_t)((double)lt->target_ns * lt->tpn);
	lt->window_t = (uint64_t)((double)lt->window_ns * lt->tpn);
	lt->t0 = now;
	lt->ios = lt->over = 0;
	lt->maxin = 0;
	lt->drain = 0;
	iob_hist_reset(lt->h);
	iob_hist_set_scale(lt->h, 1.0 / lt->tpn);
	ph->q.reserve = ph->q.depth - lt->s.depth;
}

/* The window ends with its verdict: kept in the result, and the next depth
 * set (at once, or after a drain).  lat: the I/O that ended it, ticks. */
static void lt_verdict(struct phase *ph, uint64_t now, uint64_t lat, int pass, int cut)
{
	struct lt_state *lt = &ph->lt;
	struct iob_phase_result *r = ph->r;
	struct iob_lat_window w = {.depth = lt->s.depth,
				   .max_inflight = lt->maxin,
				   .ios = lt->ios,
				   .over = lt->over,
				   .pct_ns = iob_hist_percentile(lt->h, lt->pct),
				   .len_ns = (uint64_t)((double)(now - lt->t0) / lt->tpn),
				   .pass = pass,
				   .final = lt->s.final};
	struct iob_lat_window *v = realloc(r->lt_windows, (r->lt_nwin + 1) * sizeof *v);
	if (!v) {
		iob_eng_fail(ph, -ENOMEM, "latency_target window record for", ph->spec->files[0], UINT64_MAX,
			     0);
		return;
	}
	r->lt_windows = v;
	v[r->lt_nwin++] = w;
	switch (iob_lat_search_verdict(&lt->s, pass, cut)) {
	case IOB_LAT_GO:
		lt_begin(ph, now);
		return;
	case IOB_LAT_DONE:
		r->lt_settled = 1;
		lt->end = 1;
		break;
	case IOB_LAT_FAILED:
		iob_eng_fail(ph, -ETIMEDOUT, "latency_target on", ph->spec->files[0], UINT64_MAX, 0);
		snprintf(r->error, sizeof r->error,
			 "latency_target %llu ns exceeded at depth 1: an I/O on %s took %llu ns "
			 "(latency_percentile 100)",
			 (unsigned long long)lt->target_ns, ph->spec->files[0],
			 (unsigned long long)((double)lat / lt->tpn));
		break;
	default: /* DRAIN, SETTLE: the next window once none is in flight */
		break;
	}
	lt->drain = 1;
	ph->q.reserve = ph->q.depth; /* no new I/O */
}

/* A whole I/O completed (started at t0, reaped at t1, ticks): into its
 * window, which may end with it. */
__attribute__((cold, noinline)) static void lt_done(struct phase *ph, uint64_t t0, uint64_t t1)
{
	struct lt_state *lt = &ph->lt;
	const uint64_t lat = t1 - t0;
	if (lt->drain)
		return; /* in flight when its window ended: in no window */
	lt->ios++;
	iob_hist_record(lt->h, lat);
	if (lat > lt->target_t) {
		lt->over++;
		if (lt->pct >= 100.0) { /* one I/O over the target fails the window at once */
			lt_verdict(ph, t1, lat, 0, 1);
			return;
		}
	}
	if (t1 - lt->t0 >= lt->window_t)
		lt_verdict(ph, t1, lat, (double)(lt->ios - lt->over) * 100.0 >= lt->pct * (double)lt->ios, 0);
}

/* None in flight, nothing to submit: a drained search starts its next window
 * (1: go on), or its last one passed (*mode PH_END; 0: the loop ends). */
__attribute__((cold, noinline)) static int lt_idle(struct phase *ph, int *mode)
{
	struct lt_state *lt = &ph->lt;
	if (lt->end) {
		*mode = PH_END;
		return 0;
	}
	if (!lt->drain)
		return 0;
	if (lt->s.final && !ph->ramping) { /* settled: the figures are the last window's, as fio's */
		const uint64_t deadline = ph->deadline;
		iob_eng_window_start(ph);
		ph->deadline = deadline;
	}
	lt_begin(ph, iob_ticks());
	return 1;
}

/* The queued loop's requests, each with its own buffer, before the clock. */
int iob_eng_queue_alloc(struct phase *ph)
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
		return iob_eng_fail(ph, -ENOMEM, "request table for", s->files[0], UINT64_MAX, 0);
	for (uint32_t i = 0; i < q->depth; i++) {
		struct req *rq = &q->reqs[i];
		rq->buf = iob_alloc_aligned(ph->mem_align, ph->buflen);
		if (!rq->buf)
			return iob_eng_fail(ph, -ENOMEM, "buffer allocation for", s->files[0], UINT64_MAX, 0);
		rq->io.user = rq;
		rq->state = REQ_FREE;
		q->free[q->nfree++] = rq;
	}
	for (uint32_t i = 0; i < q->depth; i++)
		if (iob_eng_touch(ph, q->reqs[i].buf, ph->buflen, ph->buf, 0)) /* the pattern, or zeros */
			return 1;
	return lt_init(ph);
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

void iob_eng_queue_free(struct queue *q)
{
	if (q->reqs)
		for (uint32_t i = 0; i < q->depth; i++)
			iob_free_aligned(q->reqs[i].buf);
	IOB_FREE_EACH(q->reqs, q->free, q->pend, q->done, q->infl);
}

void iob_eng_lt_free(struct phase *ph)
{
	iob_hist_free(ph->lt.h);
	ph->lt.h = NULL;
}

static int queue_submit(struct phase *ph);

/* ---- verify_backlog in the queued loop -------------------------------------
 * fio 3.33's rule (docs/fio.md, "verify_backlog."): a write is listed as it
 * goes out (its entry marked BL_INFL until it completes); each free request
 * is a read-back of the oldest listed block while a batch is under way, one
 * starting when the blocks listed are a multiple of verify_backlog and the
 * last completion was not a read; a read-back whose block's write is still
 * in flight is not taken, the next I/O of the order goes instead.  That I/O
 * is drawn before the read-backs (bl_next): when the order has none, the
 * phase ends with its last I/O issued, no read-back after it, as fio's loop
 * does; the verify phase after it reads what is left (iob_eng_backlog_end).
 * Nothing here allocates: the ring is the runner's, reserved before the
 * clock (iob_check_wlog_writes). */

/* The oldest listed block goes out as a read-back: 1, or 0 when none is
 * listed or its write is still in flight.  Dropped entries leave the head. */
static int backlog_take(struct phase *ph)
{
	struct iob_wlog *l = ph->bl;
	struct queue *q = &ph->q;
	while (l->n && (l->v[ph->bl_head].fi & BL_DROP)) {
		ph->bl_head = (ph->bl_head + 1) % l->cap;
		l->n--;
	}
	if (!l->n || (l->v[ph->bl_head].fi & BL_INFL))
		return 0;
	const struct iob_wlog_ent e = l->v[ph->bl_head];
	ph->bl_head = (ph->bl_head + 1) % l->cap;
	l->n--;
	ph->bl_live--;
	struct req *rq = q->free[--q->nfree];
	rq->dirty = 1;
	rq->write = 0;
	rq->blread = 1;
	rq->bl_at = 0;
	rq->fi = e.fi;
	rq->off = e.off;
	rq->len = e.len;
	rq->done = 0;
	rq->wlog_at = 0;
	rq->in = rq->timed = rq->stamped = 0; /* a read-back is no I/O of the phase's: not timed */
	rq->io = (struct iob_io){.user = rq, .buf = rq->buf, .len = e.len, .off = e.off};
	req_queue(q, rq, REQ_FREE);
	return 1;
}

/* fio's check_get_verify: is the next free request a read-back? */
static int backlog_read_next(struct phase *ph)
{
	if (!ph->bl_live || ph->ramping)
		return 0;
	if (!ph->bl_batch) {
		if (ph->bl_live % ph->spec->load.verify_backlog || ph->bl_last_read)
			return 0;
		ph->bl_batch = ph->spec->load.verify_backlog_batch ? ph->spec->load.verify_backlog_batch
								   : ph->spec->load.verify_backlog;
	}
	if (!backlog_take(ph))
		return 0;
	ph->bl_batch--;
	return 1;
}

/* A pass of several ended (fio's loops; iob_eng_gen_pass_ends): fio's
 * do_io goes on while its rule gives read-backs, ends at the first free
 * request it gives none (its order has no I/O left in the pass), drains the
 * queue, and do_verify reads back every block still listed, oldest first,
 * at iodepth, then drains again before the next loop (traced: libaio,
 * direct=1, loops=2; docs/fio.md, "verify_backlog."), an empty list too.
 * The batch under way is kept, as fio's verify_batch.  1: a read-back went out, the fill goes
 * on; 0: no pass's end, or it is over, the next I/O is drawn; -1: none new
 * until completions come (or a submit failed). */
__attribute__((cold, noinline)) static int backlog_pass_step(struct phase *ph)
{
	struct queue *q = &ph->q;
	if (ph->bl_pass == BL_PASS_NONE) {
		if (!iob_eng_gen_pass_ends(ph))
			return 0;
		ph->bl_pass = BL_PASS_TAIL;
	}
	if (ph->bl_pass == BL_PASS_TAIL) {
		if (backlog_read_next(ph))
			return queue_submit(ph) < 0 ? -1 : 1;
		ph->bl_pass = BL_PASS_DRAIN; /* fio's get_io_u gave no I/O: its do_io ends */
	}
	if (ph->bl_pass == BL_PASS_DRAIN) {
		if (q->inflight || q->np)
			return -1;
		ph->bl_pass = BL_PASS_CHECK;
	}
	if (backlog_take(ph)) /* none in flight now: the oldest goes */
		return queue_submit(ph) < 0 ? -1 : 1;
	if (q->inflight || q->np)
		return -1;
	ph->bl_pass = BL_PASS_OVER;
	return 0;
}

/* Queued loop: take new requests from the order until the queue is full.
 * backlog (a constant where it is inlined): verify_backlog's loop, which
 * draws the next I/O before the read-backs take the free requests (held in
 * bl_next while they do) and submits each I/O as it makes it; without it
 * the loop is the plain one (queue_fill). */
static inline __attribute__((always_inline)) void queue_fill_in(struct phase *ph, int *mode, const int backlog)
{
	const struct iob_phase_spec *s = ph->spec;
	struct queue *q = &ph->q;
	struct lat_sampler *lat = &ph->lat;
	const size_t keep = q->reserve; /* latency_target: free requests left untaken (set between fills) */
	while (q->nfree > keep) {
		size_t fi, len;
		uint64_t off;
		int w;
		if (backlog && !ph->bl_have && ph->bl_pass != BL_PASS_OVER) {
			const int st = backlog_pass_step(ph);
			if (st < 0)
				return;
			if (st > 0)
				continue;
		}
		if (backlog && ph->bl_have) {
			w = ph->bl_next_w, fi = ph->bl_next_fi, off = ph->bl_next_off, len = ph->bl_next_len;
		} else {
			if (__builtin_expect(ph->nio == ph->event, 0)) {
				int ev = iob_eng_phase_event(ph);
				if (ev != PH_GO) {
					*mode = ev; /* PH_END: no more new requests; PH_WINDOW: drain, then start */
					return;
				}
			}
			w = ph->mixed ? mix_write(ph) : ph->write;
			if (ph->shaped && ph->mixed)
				w = iob_shape_dir(&ph->shape, w);
			ph->gen.w = w;
			if (!iob_eng_gen_next(&ph->gen, &fi, &off, &len) ||
			    (ph->shaped && iob_shape_pace(&ph->shape, w, len, ph->deadline, s->stop))) {
				*mode = PH_END;
				return;
			}
			if (ph->shaped)
				iob_bs_hist_add(&ph->r->bs_hist, w, len, 1, len);
			ph->nio++;
			if (backlog)
				ph->bl_pass = BL_PASS_NONE; /* a pass's end behind it */
		}
		if (backlog) {
			ph->bl_have = 1, ph->bl_next_w = w, ph->bl_next_fi = fi, ph->bl_next_off = off, ph->bl_next_len = len;
			if (backlog_read_next(ph)) {
				if (queue_submit(ph) < 0)
					return;
				continue;
			}
			if (w && !ph->ramping && ph->bl->n == ph->bl->cap) { /* the ring is full (iob_check_wlog_writes) */
				if (!backlog_take(ph))
					return; /* its oldest still in flight: a completion first */
				continue;
			}
			ph->bl_have = 0;
		}
		struct req *rq = q->free[--q->nfree];
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
		rq->wlog_at = w && ph->gen.log_out && !ph->ramping ? ph->gen.log_out->n : 0; /* iob_eng_gen_next logged it */
		const unsigned lm = lat_take(lat);
		rq->in = lm == LAT_REC;
		rq->timed = lm != LAT_OFF;
		rq->stamped = 0;
		rq->io.buf = rq->buf;
		rq->io.len = len;
		rq->io.off = off;
		rq->io.write = (uint32_t)w;
		rq->io.result = 0;
		rq->io.ioprio = 0;
		if (ph->shaped && s->shape->cmdprio.on) { /* a priority per I/O, counted as it goes out */
			rq->io.ioprio = iob_cmdprio_draw(&s->shape->cmdprio, &ph->shape.prio_rng, w, len);
			iob_prio_hist_add(&ph->r->prio_hist, w, rq->io.ioprio ? (uint16_t)rq->io.ioprio
									 : s->shape->cmdprio.dflt, 1);
		}
		req_queue(q, rq, REQ_FREE);
		if (backlog) {
			rq->blread = 0;
			rq->bl_at = 0;
			if (w && !ph->ramping) { /* listed as it goes out */
				struct iob_wlog *l = ph->bl;
				const size_t at = (ph->bl_head + l->n++) % l->cap;
				l->v[at] = (struct iob_wlog_ent){.off = off, .fi = (uint32_t)fi | BL_INFL, .len = (uint32_t)len};
				rq->bl_at = at + 1;
				ph->bl_live++;
			}
			if (queue_submit(ph) < 0) /* each I/O as it is made, as fio's loop (iodepth_batch 1) */
				return;
		}
	}
}

static void queue_fill(struct phase *ph, int *mode)
{
	queue_fill_in(ph, mode, 0);
}

__attribute__((cold, noinline)) static void queue_fill_backlog(struct phase *ph, int *mode)
{
	queue_fill_in(ph, mode, 1);
}

/* A listed write is done with: its entry no longer in flight, or out of
 * the list (failed, passed over, or never sent), as fio unlogs it. */
static void backlog_unlist(struct phase *ph, struct req *rq, int dropped)
{
	struct iob_wlog_ent *e = &ph->bl->v[rq->bl_at - 1];
	e->fi &= ~BL_INFL;
	if (dropped) {
		e->fi |= BL_DROP;
		ph->bl_live--;
	}
	rq->bl_at = 0;
}

/* Submit what is pending, a run of requests on the same file per call; what
 * the backend does not take stays pending.  Those it took become SUBMITTED
 * and leave q->pend; every other one stays on it exactly once, also when a
 * submit fails after earlier ones in the same batch were taken (a backend
 * may queue a part and refuse the rest: io_uring out of locked memory).
 * 0, or negative on error. */
static inline __attribute__((always_inline)) int queue_submit(struct phase *ph)
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
				err =
				    iob_eng_fail(ph, rc, rq->write ? "queued write" : "queued read",
						 ph->spec->files[fi], rq->off + rq->done, rq->len - rq->done);
				break;
			}
			if ((size_t)rc > j - i) {
				/* it claims more than it was offered: it may hold every
				 * one offered, so they are the backend's until reaped */
				struct req *rq = q->pend[i]->user;
				err = iob_eng_broke_contract(ph, fi, rq->write, rc, j - i, rq->off);
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
		iob_eng_fail(ph, -EPROTO, "queued I/O on", ph->spec->files[rq->fi], UINT64_MAX, 0);
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
static inline __attribute__((always_inline)) struct req *queue_reaped(struct phase *ph, struct iob_io *io)
{
	struct queue *q = &ph->q;
	uintptr_t a = (uintptr_t)io, base = (uintptr_t)q->reqs;
	uintptr_t at = a - base;
	if (a < base || at % sizeof *q->reqs || at / sizeof *q->reqs >= q->depth ||
	    q->reqs[at / sizeof *q->reqs].state != REQ_SUBMITTED) {
		iob_eng_fail(ph, -EPROTO, "completion wait on", ph->spec->files[0], UINT64_MAX, 0);
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
static inline __attribute__((always_inline)) int queue_complete(struct phase *ph, struct req *rq,
								int stopping, uint64_t *t1, int *have_t1)
{
	struct queue *q = &ph->q;
	const size_t want = rq->len - rq->done;
	const int64_t n = rq->io.result;
	if (n < 0 && n >= -4095 && ph->shaped &&
	    iob_shape_passes_error(ph->spec->shape, rq->write, (int)-n)) {
		ph->r->io_errors++; /* continue_on_error, ignore_error: counted, not an op; the slot is free
				       again */
		if (rq->wlog_at)
			iob_eng_gen_unlog(&ph->gen, rq->wlog_at - 1);
		req_free(q, rq, REQ_COMPLETED);
		return 0;
	}
	int st = iob_eng_account(ph, rq->fi, rq->write, rq->buf + rq->done, n, want, rq->off + rq->done);
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
			return iob_eng_no_progress(ph, rq->fi, rq->write, (int64_t)rq->done, rq->len,
						   rq->off);
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
		if (rq->in) {
			lat_record_dir(&ph->lat, *t1 - rq->t0, rq->write);
			iolog_put(ph, rq->t0, *t1, rq->off, (int64_t)rq->done, rq->write, rq->io.ioprio);
		}
		if (__builtin_expect(ph->lt.on, 0))
			lt_done(ph, rq->t0, *t1);
	}
	req_free(q, rq, REQ_COMPLETED);
	return 0;
}

/* verify_backlog: the n completions in q->done, one at a time, as fio reaps
 * them (io_getevents for one), each followed by the I/O that takes its
 * request.  Each sets which direction completed last (fio's last_ddir); a
 * read-back is checked, not counted in the phase's I/Os; a listed write's
 * entry is done with once the whole request is.  0, or -1 when the backend
 * handed back what it did not hold. */
__attribute__((cold, noinline)) static int backlog_reaped(struct phase *ph, int n, int stopping, int *mode)
{
	uint64_t t1 = 0;
	int have_t1 = 0;
	for (int k = 0; k < n; k++) {
		struct req *rq = queue_reaped(ph, ph->q.done[k]);
		if (!rq)
			return -1;
		ph->bl_last_read = !rq->write;
		const int64_t res = rq->io.result;
		if (rq->blread) {
			iob_eng_backlog_check(ph, rq->fi, rq->off, rq->len, rq->buf, res);
			req_free(&ph->q, rq, REQ_COMPLETED);
		} else {
			queue_complete(ph, rq, stopping, &t1, &have_t1);
			if (rq->bl_at && rq->state == REQ_FREE)
				backlog_unlist(ph, rq, res < 0 && res >= -4095);
		}
		if (*mode == PH_GO && !stopping && ph->r->status >= 0)
			queue_fill_backlog(ph, mode);
	}
	return 0;
}

/* The queued loop (iodepth > 1, an IOB_CAP_ASYNC backend): keep iodepth
 * requests in flight, account them in completion order.  A stop, an error
 * or the end of a ramp takes no new request and reaps every one in flight
 * before going on: nothing is left in flight or unaccounted. */
int iob_eng_run_queued(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct queue *q = &ph->q;
	int mode = PH_GO, stopping = 0;
	const int backlog = ph->bl != NULL; /* verify_backlog: its own fill and completions */
	if (ph->lt.on)
		lt_begin(ph, iob_ticks());
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
				if (rq->bl_at) /* a listed write never sent whole: out of the list */
					backlog_unlist(ph, rq, 1);
				req_free(q, rq, REQ_QUEUED);
			}
			q->np = 0;
		}
		if (mode == PH_GO && !stopping) {
			if (__builtin_expect(backlog, 0))
				queue_fill_backlog(ph, &mode);
			else
				queue_fill(ph, &mode);
		}
		if (q->np && queue_submit(ph) < 0)
			continue; /* stopping from now on */
		if (__builtin_expect(ph->lt.on, 0) && q->inflight > ph->lt.maxin)
			ph->lt.maxin = (uint32_t)q->inflight;
		if (q->inflight == 0) {
			if (q->np)
				continue;
			if (ph->lt.on && mode == PH_GO && !stopping && lt_idle(ph, &mode))
				continue;
			if (mode == PH_WINDOW && !stopping) { /* the ramp is drained: the window starts */
				iob_eng_window_start(ph);
				iob_eng_gen_reset(ph, 0);
				ph->bl_have = 0; /* verify_backlog: an I/O drawn in the ramp is not the window's */
				ph->bl_pass = BL_PASS_NONE;
				iob_eng_pass_evict_all(ph); /* the window's first pass: uncached */
				mode = PH_GO;
				continue;
			}
			break;
		}
		int n = queue_reap(ph);
		if (n == -EINTR || n == -EAGAIN)
			continue; /* a signal, or nothing yet: the I/Os are still in flight; the loop's top
				     sees a stop */
		if (n < 0 || (size_t)n > q->depth) {
			if (n > 0)
				n = -EPROTO;
			iob_eng_fail(ph, n, "completion wait on", s->files[0], UINT64_MAX, 0);
			break; /* the backend's close waits for or cancels what is left */
		}
		if (__builtin_expect(backlog, 0)) {
			if (backlog_reaped(ph, n, stopping, &mode) < 0)
				goto out; /* the backend's close waits for or cancels what is left */
			continue;
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
	if (ph->lt.on) /* settled: its depth; else the last window's */
		ph->r->lt_depth = ph->r->lt_nwin && !ph->r->lt_settled
				      ? ph->r->lt_windows[ph->r->lt_nwin - 1].depth
				      : ph->lt.s.depth;
	if (mode == PH_END)
		ph->ended = 1;
	if (!ph->ramping)
		iob_eng_gen_done(ph);
	return ph->r->status;
}
