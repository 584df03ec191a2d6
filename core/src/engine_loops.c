/*
 * engine_loops.c - the synchronous loops, one I/O at a time (engine.c has the
 * map of the engine's files).
 *
 * Sections: the sequential loop (a series' growth, a block read in pieces,
 * passes over one file, every file in turn); the random loop (any spec, and
 * the common one compiled apart); the mixed loop (directions drawn, or a
 * shape's lengths and pacing).
 */

#include "engine_int.h"

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

/* Read a series block of len bytes at off in pieces; *cut set when a stop
 * came between two pieces (the bytes read so far are returned).  An error
 * is returned as such, whatever came before it in the block. */
enum { GATE_STOPPED = -1 };

/* Before each I/O of a loop: GATE_STOPPED when the stop flag is up
 * (r->interrupted set: the loop returns 0); else PH_GO, or on the I/O the
 * phase's next event waits for, what iob_eng_phase_event says (PH_END,
 * PH_WINDOW: the loop ends, or starts the window its own way). */
static inline __attribute__((always_inline)) int io_gate(struct phase *ph, const volatile sig_atomic_t *stop)
{
	if (stopped(stop)) {
		ph->r->interrupted = 1;
		return GATE_STOPPED;
	}
	return __builtin_expect(ph->nio == ph->event, 0) ? iob_eng_phase_event(ph) : PH_GO;
}

static int64_t read_pieces(struct phase *ph, void *hd, size_t len, uint64_t off, int *cut)
{
	size_t done = 0;
	while (done < len) {
		size_t want = len - done < SERIES_PIECE ? len - done : SERIES_PIECE;
		int64_t n = ph->ops->read_at(hd, (char *)ph->buf + (ph->piece_reuse ? 0 : done), want, off + done);
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
 * starts with iob_eng_pass_evict. */
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

	if (!ph->handles[fi] && iob_eng_open_one(ph, fi) < 0)
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
		int restart = 0, pass_end = 0;
		/* verify_backlog: what the last pass left is read back before the next (fio's verify after each loop) */
		if (loop && write && ph->bl && ph->bl->n && !ph->ramping && !s->time_based && iob_eng_backlog_pass(ph) < 0)
			return r->status;
		if ((npass++ || ph->seq_rounds) && end != UINT64_MAX)
			iob_eng_pass_evict(ph, fi, start, end - start); /* a further pass: it starts uncached */
		while (off < end) {
			size_t len = end - off < bs ? (size_t)(end - off) : bs;
			int64_t n;
			if (!write && ph->io_align > 1 && end == size)
				len = bs; /* aligned reads ask for whole blocks; EOF makes them short */
			uint64_t c0 = 0, c1 = 0;
			int cut = 0;
			const int ev = io_gate(ph, s->stop);
			if (ev == GATE_STOPPED)
				return 0;
			if (ev == PH_END) {
				ph->ended = 1;
				goto done;
			}
			if (ev == PH_WINDOW) {
				iob_eng_window_start(ph);
				restart = 1;
				break;
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
			else if (write && ph->period)
				ph->buf = ph->bufbase + off % ph->period;
			if (series && series_reserve(&r->series) < 0)
				return iob_eng_fail(ph, -ENOMEM, "series growth for", s->files[fi], UINT64_MAX, 0);
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
				if (in) {
					lat_record(lat, t1 - t0);
					iolog_put(ph, t0, t1, off, n, write, 0);
				}
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
			if (ph->bl && write && st == 0 && iob_eng_backlog(ph, fi, off, (size_t)n) < 0)
				return r->status; /* verify_backlog: a read-back failed, or found a bad block */
			if (r->device_full)
				goto done; /* fill_device: the file system is full */
			if (ph->seq_left != UINT64_MAX && !ph->ramping)
				ph->seq_left -= (uint64_t)n < ph->seq_left ? (uint64_t)n : ph->seq_left;
			off += (uint64_t)n;
			moved += (uint64_t)n;
			if (st > 0 || n == 0) {
				if (size != UINT64_MAX && off < end)
					return iob_eng_short_read(ph, fi, n, len, off - (uint64_t)n, size);
				break; /* end of file */
			}
			if (s->load.seq_ops && !ph->ramping && r->ops >= s->load.seq_ops) {
				pass_end = ph->ended = 1; /* seq_ops: the phase ends here */
				r->pass_cut = off < end;
				break;
			}
		}
		if (restart) { /* the ramp is over: the window starts at the region's start */
			loops = loops_arg;
			loop = UINT32_MAX; /* the loop's increment makes it 0 */
			continue;
		}
		if (!ph->ramping && fi + 1 == s->nfiles && !r->pass_cut)
			ph->seq_whole = 1; /* the last file's pass is done: every region was covered */
		if (loops == UINT32_MAX && moved == 0)
			break; /* no end but the time limit, and nothing to move: stop */
		if (pass_end)
			break;
	}
done:
	if (write && s->fsync && iob_eng_sync_one(ph, fi) < 0)
		return r->status;
	return iob_eng_close_one(ph, fi);
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
	const uint64_t nops = iob_eng_rand_window(s, bs, total, mapped);
	uint64_t rng = iob_eng_rand_seed(s, ph->ramping), limit = ph->ramping ? UINT64_MAX : nops;
	r->written_cut = nops < iob_eng_rand_ops(s, bs);
	/* no end but the time limit, over what a write cut short wrote: its
	 * draws again, in their order, until the limit */
	const int cycle = r->written_cut && iob_eng_rand_ops(s, bs) == UINT64_MAX && nops;
	/* loop invariants in locals: the backend call may write any memory, so
	 * the compiler would reload fields after every call */
	const int reopen = !fast && s->reopen, write = ph->write, fill = !fast && ph->write && ph->fill_each;
	const int multi = !fast && s->nfiles > 1, skip_past_end = !fast && s->skip_past_end;
	const int verify = !fast && ph->verify;
	const int backlog = !fast && ph->bl != NULL && ph->write; /* verify_backlog */
	/* one handle, open throughout: the call needs no table */
	const int plain = !multi && !reopen;
	static const volatile sig_atomic_t never = 0;
	const volatile sig_atomic_t *const stop = s->stop ? s->stop : &never;
	unsigned char *const buf = ph->buf;
	void *hd0 = NULL; /* the one handle, when there is one and it stays open */
	int64_t (*const read_at)(void *, void *, size_t, uint64_t) = ops->read_at;
	struct iob_perm perm;

	if (fsize < bs) {
		r->status = -EINVAL;
		snprintf(r->error, sizeof r->error, "file size %llu is smaller than the block size %zu",
			 (unsigned long long)fsize, bs);
		return r->status;
	}
	if (!s->reopen)
		for (size_t i = 0; i < s->nfiles; i++)
			if (!ph->handles[i] && iob_eng_open_one(ph, i) < 0)
				return r->status;
	hd0 = ph->handles[0];
	if (mapped)
		iob_perm_init(&perm, total, rng);
	uint64_t i = 0, slot = 0;
	for (;; i++) {
		size_t fi = 0;
		uint64_t off;
		if (i == limit) {
			if (!cycle || ph->ramping)
				break;
			iob_eng_pass_evict_all(ph); /* the written draws again: another pass, uncached */
			rng = iob_eng_rand_seed(s, 0);
			if (mapped)
				iob_perm_init(&perm, total, rng);
			slot = 0;
			i = 0;
		}
		if (mapped) {
			if (slot == total) { /* another pass: another order, uncached */
				/* verify_backlog: what the last pass left is read back first (fio's verify after each loop) */
				if (backlog && ph->bl->n && !s->time_based && iob_eng_backlog_pass(ph) < 0)
					return r->status;
				iob_eng_pass_evict_all(ph);
				iob_perm_init(&perm, total, rng_next(&rng));
				slot = 0;
			}
			uint64_t x = iob_perm_at(&perm, slot++);
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
		const int ev = io_gate(ph, stop);
		if (ev == GATE_STOPPED)
			return 0;
		if (ev == PH_END) {
			ph->ended = 1;
			break; /* draw i is not done */
		}
		if (ev == PH_WINDOW) { /* the ramp is over: the window draws its own order */
			iob_eng_window_start(ph);
			iob_eng_pass_evict_all(ph);
			rng = iob_eng_rand_seed(s, 0);
			if (mapped)
				iob_perm_init(&perm, total, rng);
			slot = 0;
			limit = nops;
			i = UINT64_MAX; /* the loop's increment makes it 0 */
			continue;
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
			if (reopen && iob_eng_open_one(ph, fi) < 0)
				return r->status;
			n = write ? ops->write_at(ph->handles[fi], buf, bs, off) : read_at(ph->handles[fi], buf, bs, off);
			/* a short transfer keeps its handle: after_io asks the rest of a write once */
			if (reopen && n == (int64_t)bs && iob_eng_close_one(ph, fi) < 0)
				return r->status;
		}
		if (mode != LAT_OFF) {
			uint64_t t1 = iob_ticks();
			if (mode == LAT_REC) {
				lat_record(lat, t1 - t0);
				iolog_put(ph, t0, t1, off, n, write, 0);
				lat->mode = lat->base; /* lat_take's, here where it costs only a sample */
			}
		}
		if (__builtin_expect(n == (int64_t)bs && !verify, 1)) { /* after_io's common case */
			r->bytes += bs;
			r->ops++;
			if (backlog && iob_eng_backlog(ph, fi, off, bs) < 0)
				return r->status; /* verify_backlog: a read-back failed, or found a bad block */
			continue;
		}
		if (n == -EINTR && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
			r->interrupted = 1;
			return 0;
		}
		int st = iob_eng_after_io_slow(ph, fi, n, bs, off);
		if (st < 0)
			return st;
		if (st > 0 && !ph->write) {
			iob_eng_fail(ph, -EIO, "read", s->files[fi], off, bs);
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
		if (ph->handles[f] && ph->write && s->fsync && iob_eng_sync_one(ph, f) < 0)
			return r->status;
		if (iob_eng_close_one(ph, f) < 0)
			return r->status;
	}
	return 0;
}

int iob_eng_run_random(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	const int fast = s->nfiles == 1 && s->random_map && !s->skip_past_end && !s->reopen && !ph->verify &&
			 !(ph->write && ph->fill_each) && !ph->bl;
	return fast ? run_random_loop(ph, 1) : run_random_loop(ph, 0);
}

/* A mixed phase, one I/O at a time: each I/O a read with probability
 * rwmix_read %, else a write of the pattern. */
int iob_eng_run_mixed(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	struct iob_phase_result *r = ph->r;
	const struct iob_backend_ops *ops = ph->ops;
	struct lat_sampler *lat = &ph->lat;
	for (;;) {
		size_t fi, len;
		uint64_t off;
		const int ev = io_gate(ph, s->stop);
		if (ev == GATE_STOPPED)
			return 0;
		if (ev == PH_END)
			break;
		if (ev == PH_WINDOW) {
			iob_eng_window_start(ph);
			iob_eng_gen_reset(ph, 0);
			iob_eng_pass_evict_all(ph); /* the window's first pass: uncached */
			continue;
		}
		int w = ph->mixed ? mix_write(ph) : ph->write;
		if (ph->shaped && ph->mixed)
			w = iob_shape_dir(&ph->shape, w);
		ph->gen.w = w;
		if (!iob_eng_gen_next(&ph->gen, &fi, &off, &len))
			break;
		if (ph->shaped && iob_shape_pace(&ph->shape, w, len, ph->deadline, s->stop)) {
			if (stopped(s->stop))
				r->interrupted = 1; /* stopped while it waited its turn */
			break; /* else its turn comes after the time limit */
		}
		ph->nio++;
		if (w && ph->fill_each)
			iob_pattern_fill(&s->pattern, ph->buf, len, off);
		const unsigned mode = lat_take(lat);
		const int in = mode == LAT_REC, timed = mode != LAT_OFF;
		uint64_t t0 = timed ? iob_ticks() : 0;
		int64_t n = w ? ops->write_at(ph->handles[fi], ph->buf, len, off)
			      : ops->read_at(ph->handles[fi], ph->rbuf, len, off);
		const uint64_t t1 = timed ? iob_ticks() : 0;
		/* an error continue_on_error passes over: no I/O done, so no latency
		 * (fio's clat counts completed I/Os only; the queued loop's rule) */
		const int passed =
		    n < 0 && n >= -4095 && ph->shaped && iob_shape_passes_error(s->shape, w, (int)-n);
		if (in && !passed) {
			lat_record_dir(lat, t1 - t0, w);
			iolog_put(ph, t0, t1, off, n, w, 0);
		}
		if (n == -EINTR && stopped(s->stop)) {
			r->interrupted = 1;
			return 0;
		}
		if (passed) {
			r->io_errors++; /* continue_on_error, ignore_error: counted, and on to the next I/O */
			if (w && ph->gen.log_out && !ph->ramping) /* iob_eng_gen_next logged it last */
				iob_eng_gen_unlog(&ph->gen, ph->gen.log_out->n - 1);
			continue;
		}
		int st = iob_eng_account(ph, fi, w, w ? ph->buf : ph->rbuf, n, len, off);
		if (st < 0)
			return st;
		count_op(ph, w);
		if (w && ph->bl && st == 0 && iob_eng_backlog(ph, fi, off, len) < 0)
			return r->status; /* verify_backlog: a read-back failed, or found a bad block */
		if (ph->shaped)
			iob_bs_hist_add(&r->bs_hist, w, len, 1, (uint64_t)n);
		if (st > 0) {
			r->short_ops++;
			if (w || off + (uint64_t)n < ph->fend[fi])
				return iob_eng_no_progress(ph, fi, w, n, len, off);
		}
		if (__builtin_expect(ph->bl != NULL, 0) && ph->bl->n && iob_eng_gen_pass_ends(ph) && iob_eng_backlog_pass(ph) < 0)
			return r->status; /* a pass's writes read back as it ends: a read failed, or found a bad block */
	}
	if (ph->shaped && !ph->mixed && !ph->ramping) /* what a later read replays, as the queued loop */
		iob_eng_gen_done(ph);
	return 0;
}

/* Sequential phases, file after file; time_based: one pass over each file in
 * turn until the limit. */
void iob_eng_run_seq_all(struct phase *ph)
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
