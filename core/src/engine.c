/*
 * engine.c - runs one phase of I/O and measures it (iobench/engine.h).
 *
 * The loops (engine_loops.c, engine_queue.c) are the hot path: per I/O they
 * do one indirect call into the backend, a few integer operations to decide
 * whether this I/O is in the latency sample, and for a sampled I/O two
 * clock reads and an O(1) histogram record.  Pattern fills for offset-dependent patterns and
 * verification happen outside the two clock reads (but inside the phase's
 * wall time, which is what rates use).
 *
 * The engine is split by purpose; what the pieces share (the phase, the
 * sampler, the order, the queue) is in engine_int.h:
 *   engine.c        this map; the result's helpers; iob_phase_memory; the
 *                   spec check, the phase's setup and opening; iob_phase_run,
 *                   which runs a loop and assembles the phase's result
 *   engine_time.c   latency sampling (the sampler, its cost checks) and the
 *                   measured window: ramp, time limit, first done, the looks
 *                   at the clock and the live publication (live.h)
 *   engine_io.c     what every loop shares: errors, opening, syncing and
 *                   closing files, buffers, accounting one I/O's result
 *   engine_order.c  offsets: the random permutation, the random phase's
 *                   draws, the order of the mixed and queued loops (gen)
 *   engine_loops.c  the synchronous loops: sequential, random, mixed
 *   engine_queue.c  the queued loop (iodepth > 1) and its requests' states
 */

#include "engine_int.h"
#include "iobench/series.h"

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
	free(r->lt_windows);
	r->lt_windows = NULL;
	r->lt_nwin = 0;
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
		bufs += iodepth; /* one per request (iob_eng_queue_alloc) */
	else if (phase == IOB_PHASE_MIXED)
		bufs++; /* rbuf */
	if (phase == IOB_PHASE_READ && series_ios && block_size > SERIES_PIECE)
		block_size = SERIES_PIECE; /* a series read's pieces reuse one piece's buffer */
	uint64_t page = 4096, buf = block_size / page * page + (block_size % page ? page : 0);
	uint64_t m = mul_sat(bufs, buf);
	/* the sampler's levels (iob_eng_lat_init), and the write side of a mixed phase */
	m = add_sat(m, (uint64_t)(phase == IOB_PHASE_MIXED ? 2 : 1) * LAT_LEVELS * sizeof(struct iob_hist));
	if (iodepth > 1)
		m = add_sat(m, (uint64_t)iodepth * (sizeof(struct req) + 3 * sizeof(void *)));
	/* a series: 16 bytes a sample, grown by doubling; at its end, while it
	 * is held, the block summary's speeds and merge flags (9 bytes a
	 * block, blocks.c) and the sort of the speeds (series.c) */
	if (series_ios)
		m = add_sat(m, add_sat(mul_sat(series_ios, 32 + sizeof(double) + 1), iob_speeds_summary_bytes(series_ios)));
	return m;
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
	else if (s->shape && s->shape->cmdprio.on &&
		 (!(caps & IOB_CAP_IOPRIO) || !s->backend->backend.submit || !s->backend->backend.reap))
		snprintf(r->error, sizeof r->error, "a priority per I/O (cmdprio) needs a backend that queues I/O and "
			 "sets one (libaio, io_uring), and backend %s is not that", name);
	else if (s->shape && s->shape->cmdprio.on && (s->reopen || s->record_series))
		snprintf(r->error, sizeof r->error, "a priority per I/O (cmdprio) queues each I/O, which cannot be used "
			 "with %s", s->reopen ? "reopening the file around every I/O" : "a per-block series");
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
	else if (iob_eng_lat_init(&ph->lat, r->hist, r->hist_write, s->seed,
				  !(s->record_series && s->access == IOB_ACCESS_SEQ) &&
				      s->latency == IOB_LATENCY_SAMPLED && !s->iolog && !s->load.latency_target, /* a per-I/O log, latency_target: every I/O */
				  s->latency == IOB_LATENCY_OFF) < 0)
		what = "out of memory for the latency sample's histograms";
	if (!what)
		return 0;
	r->status = -ENOMEM;
	snprintf(r->error, sizeof r->error, "%s", what);
	return -ENOMEM;
}

/* After a mixed or queued phase: sync (write phases asked to) and close. */
static void finish_all(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	for (size_t i = 0; i < s->nfiles && ph->r->status >= 0 && !ph->r->interrupted; i++) {
		if (ph->handles[i] && (ph->write || ph->mixed) && s->fsync && iob_eng_sync_one(ph, i) < 0)
			return;
		if (iob_eng_close_one(ph, i) < 0)
			return;
	}
}

/* Open what the loops need before the clock: mixed and queued phases every
 * file and every request; random access every file (unless reopened). */
static int phase_open(struct phase *ph)
{
	const struct iob_phase_spec *s = ph->spec;
	if (ph->queued || ph->mixed || ph->shaped || ph->replay) {
		if (iob_eng_open_all(ph) < 0)
			return ph->r->status;
		int rc = ph->queued ? iob_eng_queue_alloc(ph) : 0;
		if (rc != 0) /* an error, or a stop while the buffers were touched */
			return rc < 0 ? ph->r->status : 1;
		return iob_eng_gen_init(ph);
	}
	if (s->access == IOB_ACCESS_RAND && !s->reopen)
		for (size_t i = 0; i < s->nfiles; i++)
			if (!ph->handles[i] && iob_eng_open_one(ph, i) < 0)
				return ph->r->status;
	return 0;
}

/* prio_class: this stream's thread's I/O priority, before its files open. */
static int set_ioprio(const struct iob_phase_spec *s, struct iob_phase_result *r)
{
	if (!s->load.prio_class)
		return 0;
	unsigned v = iob_prio_value((unsigned)s->load.prio_class, (unsigned)s->load.prio_level, 0);
	int rc = iob_thread_ioprio_set(v);
	if (rc == 0)
		return 0;
	snprintf(r->error, sizeof r->error, "I/O priority class %u level %u of the thread (ioprio_set): %s",
		 (unsigned)s->load.prio_class, (unsigned)s->load.prio_level, strerror(-rc));
	r->status = rc;
	return rc;
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
	ph.replay = ph.verify && s->wlog_in;
	/* a priority per I/O rides on a queued I/O's iocb or sqe: at depth 1
	 * too (fio's cmdprio_* at any iodepth) */
	ph.queued = s->iodepth > 1 || (s->shape && s->shape->cmdprio.on);
	ph.shaped = s->shape && (iob_shape_draws(s->shape) || iob_shape_paces(s->shape) || s->shape->continue_mask ||
				 s->shape->cmdprio.on);
	r->errors_counted = ph.shaped && s->shape->continue_mask;
	/* start_delay and rate_min alone need no shaped loop */
	ph.fill_each = (ph.write || ph.mixed) && !iob_pattern_is_constant(&s->pattern) && !s->fill_once;
	ph.open_flags = ph.write   ? IOB_OPEN_WRITE | IOB_OPEN_CREATE | (s->truncate ? IOB_OPEN_TRUNC : 0) |
					 (s->load.verify_backlog ? IOB_OPEN_READ : 0) /* it reads its writes back */
			: ph.mixed ? IOB_OPEN_READ | IOB_OPEN_WRITE
				   : IOB_OPEN_READ;
	ph.mix_rng = s->seed ^ 0x94d049bb133111ebull;
	ph.prio_dflt = s->load.prio_class ? iob_prio_value((unsigned)s->load.prio_class, (unsigned)s->load.prio_level, 0)
					  : 0;
	ph.check_at = s->runtime_ns || s->ramp_ns || s->first_done || s->live ? 0 : UINT64_MAX;
	ph.ramping = s->ramp_ns > 0;
	ph.seq_left = s->access == IOB_ACCESS_SEQ && s->written_draws ? *s->written_draws : UINT64_MAX;
	ph.iolog = s->record_series ? NULL : s->iolog;

	/* the clock and what timing costs, once per process, before the sampler
	 * (iob_eng_lat_init, in phase_setup) reads them: streams start phases at once */
	iob_ticks_init();
	iob_eng_measure_timing_floor();
	/* NUMA placement first: the buffers are allocated under it */
	struct iob_place placed;
	int place = iob_numa_active(&s->numa);
	if (place && (r->status = iob_numa_enter(&s->numa, &placed, r->error, sizeof r->error)) != 0)
		place = 0;
	int ok = r->status == 0 && check_spec(s, r, ph.write, ph.mixed) == 0 && set_ioprio(s, r) == 0 &&
		 phase_setup(&ph) == 0;
	if (ok) {
		ph.lat.depth = ph.queued ? s->iodepth : 1;
		ph.event = iob_eng_next_event(&ph);
		iob_eng_window_start(&ph); /* a phase that fails to start still says how long it tried */
		ph.ramping = s->ramp_ns > 0;
		ok = iob_eng_prepare(&ph) == 0 && phase_open(&ph) == 0;
	}
	/* every stream reaches the runner's barrier, whatever happened to it */
	if (s->ready)
		s->ready(s->ready_arg);
	if (ok && s->shape && s->shape->start_delay_ns) /* startdelay: outside the measured window */
		iob_sleep_ns(s->shape->start_delay_ns, s->stop);
	if (ok) {
		/* the clock starts here: opening the files and the buffers are not timed */
		iob_eng_window_start(&ph);
		ph.lat.fresh = 0; /* from here the loops time I/Os: a ramp's end resets */
		if (s->ramp_ns) {
			ph.ramping = 1;
			ph.ramp_end = ph.start_ns + s->ramp_ns;
		}
		if (ph.queued) {
			iob_eng_run_queued(&ph);
			finish_all(&ph);
		} else if (ph.mixed || ph.shaped || ph.replay) {
			iob_eng_run_mixed(&ph);
			finish_all(&ph);
		} else if (s->access == IOB_ACCESS_SEQ) {
			iob_eng_run_seq_all(&ph);
		} else {
			if (s->reopen)
				iob_eng_close_one(&ph, 0);
			iob_eng_run_random(&ph);
		}
		if (ph.ramping)
			iob_eng_window_start(&ph); /* it ended within its ramp: the window is empty */
	}
	if (s->io_over) /* its last I/O is done (or it never started): said before anything else */
		s->io_over(s->io_over_arg);
	iob_eng_backlog_end(&ph); /* verify_backlog: what is left, for the verify phase */
	iob_shape_run_end(&ph.shape); /* flow: this stream leaves its flow */
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
		iob_eng_live_publish(&ph, r->end_ns, 1);
	iob_eng_lat_finish(&ph.lat, r);
	if (ph.iolog)
		ph.iolog->ns_per_tick = ns_per_tick;
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
	iob_eng_first_done_finish(&ph);
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
	iob_eng_queue_free(&ph.q); /* after the closes: a backend may hold the buffers until then */
	iob_eng_lt_free(&ph);
	iob_free_aligned(ph.bufbase ? ph.bufbase : ph.buf);
	iob_free_aligned(ph.scratch);
	iob_free_aligned(ph.rbuf);
	iob_free_aligned(ph.blbuf);
	if (place) /* the thread's former CPUs and memory policy (a lone job's is the main thread) */
		iob_numa_leave(&placed);
	if (s->access == IOB_ACCESS_SEQ && !ph.mixed) /* what a later read replays (written_draws) */
		r->draws = ph.seq_whole ? UINT64_MAX : r->bytes;
	if (ph.verify_halt && r->status == -ECANCELED) { /* verify_piece's stop, no other error after it */
		r->status = 0;
		r->error[0] = '\0';
	}
	if (r->status == 0 && r->bad_blocks)
		r->status = IOB_STATUS_MISMATCH;
	if (r->status == 0 && !r->interrupted && s->shape &&
	    iob_shape_rate_min_missed(s->shape, r->bytes_read, r->bytes_written, r->ops_read, r->ops_written,
				      r->elapsed_ns, r->error, sizeof r->error))
		r->status = -ETIME; /* rate_min: fio ends the job; the phase failed, saying by how much */
	return r->status;
}
