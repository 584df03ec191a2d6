/*
 * engine_order.c - the offsets the loops visit (engine.c has the map of the
 * engine's files).
 *
 * Sections: the random phase's seed, operations and window (its
 * permutation: iobench/perm.h); the order of the mixed and queued loops
 * (gen: reset, init, fio's seq_add, next, done).
 */

#include "engine_int.h"

/* The random order's seed: the ramp draws another order than the window,
 * so that it does not warm exactly the blocks the window reads first. */
uint64_t iob_eng_rand_seed(const struct iob_phase_spec *s, int ramp)
{
	return s->seed ^ 0x5bd1e9955bd1e995ull ^ (ramp ? 0x6a09e667f3bcc909ull : 0);
}

/* Operations of a random phase: the spec's, else a file's worth of blocks
 * per file; time_based: no end but the time limit. */
uint64_t iob_eng_rand_ops(const struct iob_phase_spec *s, uint64_t bs)
{
	return s->time_based ? UINT64_MAX : s->ops ? s->ops : (s->file_size / bs) * s->nfiles;
}

/* The window's draws: iob_eng_rand_ops, or fewer after a write that completed fewer
 * (spec.written_draws), unless that write's map covered every slot. */
uint64_t iob_eng_rand_window(const struct iob_phase_spec *s, uint64_t bs, uint64_t total, int mapped)
{
	uint64_t n = iob_eng_rand_ops(s, bs);
	if (s->written_draws && !(mapped && *s->written_draws >= total) && *s->written_draws < n)
		n = *s->written_draws;
	return n;
}

/* Set g to the start of its order: the ramp's (no end but the ramp's time)
 * or the measured window's. */
void iob_eng_gen_reset(struct phase *ph, int ramp)
{
	const struct iob_phase_spec *s = ph->spec;
	struct gen *g = &ph->gen;
	const int unlimited = ramp || s->time_based;
	g->fi = 0;
	g->loop = 0;
	g->round_ios = 0;
	g->rounds = 0;
	g->off = g->start[0];
	g->pass_ios = g->seq_n = 0;
	g->seq_cap = ramp ? 0 : s->load.seq_ops;
	/* sequential: a file's passes in a row; no end: one pass each in turn */
	g->loops = unlimited ? UINT32_MAX : s->loops ? s->loops : 1;
	g->rng = iob_eng_rand_seed(s, ramp);
	g->slot = 0;
	g->drawn = 0;
	g->seq_left = !ramp && s->written_draws ? *s->written_draws : UINT64_MAX;
	g->seq_whole = g->seq_cut = 0;
	g->left = ramp ? UINT64_MAX : iob_eng_rand_window(s, g->bs, g->total, g->mapped);
	ph->r->written_cut = !ramp && !g->seq && g->left < iob_eng_rand_ops(s, g->bs);
	g->cycle_n = ph->r->written_cut && iob_eng_rand_ops(s, g->bs) == UINT64_MAX ? g->left : 0;
	g->cycle_rng = g->rng;
	if (g->mapped)
		iob_perm_init(&g->perm, g->total, g->rng);
	if (g->shape) { /* its own end: bytes (shape.c), or the draws a write completed */
		iob_shape_run_reset(g->shape);
		g->left = !ramp && s->written_draws ? *s->written_draws : UINT64_MAX;
		ph->r->written_cut = 0;
		g->cycle_n = 0;
	}
}

int iob_eng_gen_init(struct phase *ph)
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
	if (ph->shaped) {
		uint64_t budget = s->time_based || s->shape->sprandom ? UINT64_MAX /* sprandom: its own end */
				  : s->shape->io_bytes ? s->shape->io_bytes
						       : g->fsize * s->nfiles; /* a file's worth of bytes per file */
		iob_shape_run_init(&ph->shape, s->shape, s->seed, s->shape->bs ? s->shape->bs : s->block_size, g->fsize,
				   s->offset_align, budget);
		if (s->shape->sprandom && ph->write &&
		    (ph->r->status = iob_shape_run_spr(&ph->shape, g->fsize, ph->shape.unit, ph->r->error,
						       sizeof ph->r->error)) != 0)
			return ph->r->status;
		if (iob_shape_draws(s->shape)) { /* lengths and offsets from the shape, with replacement */
			g->shape = &ph->shape;
			g->mapped = 0;
		}
	}
	if (!g->seq && g->fsize < g->bs && !g->shape) {
		ph->r->status = -EINVAL;
		snprintf(ph->r->error, sizeof ph->r->error, "file size %llu is smaller than the block size %zu",
			 (unsigned long long)g->fsize, g->bs);
		return -EINVAL;
	}
	g->log_out = s->load.verify_backlog ? NULL : s->wlog_out; /* a backlog's ring is iob_eng_backlog's */
	g->log_in = s->wlog_in;
	g->log_pos = 0;
	if (g->log_out)
		g->log_out->n = 0;
	iob_eng_gen_reset(ph, ph->ramping);
	return 0;
}

/* fio's rw=read:N: the next I/O starts N bytes after the last one's end
 * (before it, N negative; below the region's start, at its end less |N|,
 * as fio wraps); a pass is a region's worth of I/Os of the job's size, or
 * ends at the region's end. */
static void seq_add(struct gen *g, size_t len)
{
	const int64_t add = g->shape->sh->seq_add;
	const uint64_t start = g->start[g->fi], end = g->end[g->fi];
	const uint64_t mag = add < 0 ? (uint64_t)-add : (uint64_t)add;
	if (++g->pass_ios >= (end - start) / (g->shape->bs ? g->shape->bs : len)) {
		g->off = end; /* the pass is done */
		g->pass_ios = 0;
		return;
	}
	if (add > 0)
		g->off = g->off + mag < end ? g->off + mag : end;
	else if (g->off >= start + mag)
		g->off -= mag;
	else
		g->off = end - start >= mag ? end - mag : start;
}

/* The next I/O of the order: file, offset and length.  0 when it is done. */
static int gen_draw(struct gen *g, size_t *fi, uint64_t *off, size_t *len)
{
	if (g->seq) {
		for (;;) {
			if (g->seq_cap && g->seq_n == g->seq_cap) { /* seq_ops: the order ends here */
				g->ph->r->pass_cut |= g->off < g->end[g->fi];
				return 0;
			}
			if (g->off < g->end[g->fi]) {
				g->seq_n++;
				uint64_t rest = g->end[g->fi] - g->off;
				size_t bs = g->shape ? iob_shape_len(g->shape, g->w) : g->bs;
				*len = g->whole_blocks || rest >= bs ? bs : (size_t)rest;
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
				if (g->shape) {
					if (g->shape->sh->seq_add)
						seq_add(g, *len);
					else if (g->shape->sh->zone_size) /* g->off counts the pass's bytes */
						*off = iob_shape_zone_offset(g->shape, *len, 1);
				}
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
			g->pass_ios = 0;
			if (g->loop || g->rounds) /* a further pass over this file: uncached */
				iob_eng_pass_evict(g->ph, g->fi, g->start[g->fi], g->end[g->fi] - g->start[g->fi]);
		}
	}
	for (;;) {
		while (g->left) {
			if (g->left != UINT64_MAX)
				g->left--;
			g->drawn++;
			uint64_t x;
			*fi = 0;
			if (g->shape) { /* shape.c: the length, then the offset by the distribution */
				if (!g->shape->bytes_left)
					return 0; /* its bytes are done (shape.io_bytes) */
				*fi = g->multi ? (size_t)(rng_next(&g->rng) % g->nfiles) : 0;
				*len = iob_shape_len(g->shape, g->w);
				*off = iob_shape_offset(g->shape, *len, g->w);
				if (*off == UINT64_MAX) { /* a strided sequence left the file: fio's job ends there */
					g->drawn--;
					return 0;
				}
				g->shape->bytes_left -= *len < g->shape->bytes_left ? *len : g->shape->bytes_left;
				return 1;
			}
			if (g->mapped) {
				if (g->slot == g->total) { /* another pass: another order, uncached */
					iob_eng_pass_evict_all(g->ph);
					iob_perm_init(&g->perm, g->total, rng_next(&g->rng));
					g->slot = 0;
				}
				x = iob_perm_at(&g->perm, g->slot++);
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
		iob_eng_pass_evict_all(g->ph);  /* another pass over them: uncached */
		if (g->mapped)
			iob_perm_init(&g->perm, g->total, g->rng);
		g->slot = 0;
		g->left = g->cycle_n;
	}
}

/* Append a write to the mixed phase's log (spec.wlog_out), reserved whole
 * before the clock (the runner's wlog_reserve): nothing is allocated here.
 * 0, or -EOVERFLOW with the phase's error set if more writes came than the
 * bound it was reserved for (iob_job_ios_bound). */
static int log_write(struct gen *g, size_t fi, uint64_t off, size_t len)
{
	struct iob_wlog *l = g->log_out;
	if (l->n == l->cap) {
		g->ph->r->status = -EOVERFLOW;
		snprintf(g->ph->r->error, sizeof g->ph->r->error,
			 "more writes than the %zu reserved for the list of the blocks written, which verify reads back "
			 "(a bug: the bound is the phase's most I/Os)", l->cap);
		return -EOVERFLOW;
	}
	l->v[l->n++] = (struct iob_wlog_ent){.off = off, .fi = (uint32_t)fi, .len = (uint32_t)len};
	return 0;
}

/* The next I/O: file, offset and length.  0 when the order is done.  A
 * verify after a mixed phase takes the writes that phase logged, in order;
 * a mixed phase that logs its writes appends each one drawn in its window. */
int iob_eng_gen_next(struct gen *g, size_t *fi, uint64_t *off, size_t *len)
{
	if (g->log_in) {
		while (g->log_pos < g->log_in->n && !g->log_in->v[g->log_pos].len)
			g->log_pos++; /* a write that failed (iob_eng_gen_unlog) */
		if (g->log_pos == g->log_in->n)
			return 0;
		const struct iob_wlog_ent *e = &g->log_in->v[g->log_pos++];
		*fi = e->fi;
		*off = e->off;
		*len = e->len;
		return 1;
	}
	if (!gen_draw(g, fi, off, len))
		return 0;
	/* the ramp's writes are not logged: the verify reads the window's (ops_written) */
	return !(g->log_out && g->w && !g->ph->ramping && log_write(g, *fi, *off, *len) != 0);
}

void iob_eng_gen_unlog(struct gen *g, size_t i)
{
	g->log_out->v[i].len = 0; /* kept in place: the queued loop's later writes hold their indexes */
}

int iob_eng_gen_pass_ends(const struct phase *ph)
{
	const struct gen *g = &ph->gen;
	if (!(ph->mixed || ph->write) || ph->ramping || ph->spec->time_based || g->shape)
		return 0;
	if (g->seq)
		return g->nfiles == 1 && g->off >= g->end[0] && g->loop + 1 < g->loops &&
		       !(g->seq_cap && g->seq_n == g->seq_cap);
	return g->mapped && g->slot == g->total && g->left;
}

/* What of the order a loop over gen completed (spec.written_draws). */
void iob_eng_gen_done(struct phase *ph)
{
	if (!ph->gen.seq)
		ph->r->draws = ph->gen.mapped && ph->gen.drawn >= ph->gen.total ? UINT64_MAX
											: ph->gen.drawn; /* every drawn one was reaped */
	else {
		ph->seq_whole = ph->gen.seq_whole;
		ph->r->written_cut |= ph->gen.seq_cut;
	}
}
